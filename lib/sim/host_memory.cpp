// Simulated host memory: DMA buffers by bus address.
#include <pioc/sim/host_memory.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>

namespace pioc::sim {

host_memory &host_memory::instance()
{
	static host_memory m;
	return m;
}

std::uint64_t host_memory::add(void *cpu, std::size_t size)
{
	std::lock_guard lk(mu_);
	const std::uint64_t bus = next_bus_;
	// 64 KiB granules plus a 64 KiB hole after each buffer: an overrun lands
	// in unmapped bus space.
	const std::uint64_t granule = 0x10000;
	next_bus_ += ((size + granule - 1) / granule + 1) * granule;
	by_bus_[bus] = range{static_cast<std::uint8_t *>(cpu), size};
	return bus;
}

bool host_memory::add_at(std::uint64_t bus, void *cpu, std::size_t size)
{
	return insert(bus, range{static_cast<std::uint8_t *>(cpu), size});
}

bool host_memory::add_remote_at(std::uint64_t bus, std::size_t size, remote *owner)
{
	return owner && insert(bus, range{nullptr, size, owner});
}

bool host_memory::insert(std::uint64_t bus, const range &r)
{
	std::lock_guard lk(mu_);
	if (r.size == 0 || bus + r.size < bus)
		return false;
	// The first range starting at or after bus must start past our end; the
	// one before must end at or before bus.
	auto it = by_bus_.lower_bound(bus);
	if (it != by_bus_.end() && it->first < bus + r.size)
		return false;
	if (it != by_bus_.begin()) {
		auto prev = std::prev(it);
		if (prev->first + prev->second.size > bus)
			return false;
	}
	by_bus_[bus] = r;
	return true;
}

void host_memory::remove(std::uint64_t bus) noexcept
{
	std::lock_guard lk(mu_);
	recent_.fill(nullptr);
	by_bus_.erase(bus);
}

const host_memory::entry *host_memory::find(std::uint64_t bus, std::size_t n) const noexcept
{
	// Strictly inside (off < size): one past a range's end may be the next
	// range's first byte, which the tree finds.
	for (const entry *e : recent_)
		if (e && bus >= e->first && bus - e->first < e->second.size && n <= e->second.size - (bus - e->first))
			return e;
	const entry *e = find_in_tree(bus, n);
	if (e) {
		recent_[recent_next_] = e;
		recent_next_ = (recent_next_ + 1) % recent_.size();
	}
	return e;
}

const host_memory::entry *host_memory::find_in_tree(std::uint64_t bus, std::size_t n) const noexcept
{
	auto it = by_bus_.upper_bound(bus);
	if (it == by_bus_.begin())
		return nullptr;
	--it;
	const std::uint64_t off = bus - it->first;
	if (off > it->second.size || n > it->second.size - off)
		return nullptr;
	return &*it;
}

host_memory::piece host_memory::piece_at(std::uint64_t bus, std::size_t n) const noexcept
{
	std::lock_guard lk(mu_);
	const entry *e = find(bus, 1);
	if (!e)
		return {};
	const std::size_t len = std::min<std::uint64_t>(n, e->second.size - (bus - e->first));
	return {e->second.cpu ? e->second.cpu + (bus - e->first) : nullptr, e->second.owner, len};
}

void *host_memory::translate(std::uint64_t bus, std::size_t n) const noexcept
{
	std::lock_guard lk(mu_);
	const entry *e = find(bus, n);
	if (!e || !e->second.cpu)
		return nullptr;
	return e->second.cpu + (bus - e->first);
}

bool host_memory::covered(std::uint64_t bus, std::size_t n) const noexcept
{
	std::lock_guard lk(mu_);
	while (n) {
		const entry *e = find(bus, 1);
		if (!e)
			return false;
		const std::size_t len = std::min<std::uint64_t>(n, e->second.size - (bus - e->first));
		bus += len, n -= len;
	}
	return true;
}

bool host_memory::read(std::uint64_t bus, void *dst, std::size_t n) const noexcept
{
	// The common case, every DMA of a model: inside one local buffer (one
	// lock and one lookup, not one for covered() and one per piece).
	if (const void *p = translate(bus, n)) {
		std::memcpy(dst, p, n);
		return true;
	}
	if (!covered(bus, n))
		return false;
	auto *d = static_cast<std::uint8_t *>(dst);
	while (n) {
		const piece p = piece_at(bus, n);
		if (!p.len || (p.cpu ? (std::memcpy(d, p.cpu, p.len), false) : !p.owner->read(bus, d, p.len)))
			return false;
		bus += p.len, d += p.len, n -= p.len;
	}
	return true;
}

bool host_memory::write(std::uint64_t bus, const void *src, std::size_t n) noexcept
{
	if (void *p = translate(bus, n)) { // the common case, as in read()
		std::memcpy(p, src, n);
		return true;
	}
	if (!covered(bus, n))
		return false;
	auto *q = static_cast<const std::uint8_t *>(src);
	while (n) {
		const piece p = piece_at(bus, n);
		if (!p.len || (p.cpu ? (std::memcpy(p.cpu, q, p.len), false) : !p.owner->write(bus, q, p.len)))
			return false;
		bus += p.len, q += p.len, n -= p.len;
	}
	return true;
}

std::size_t host_memory::buffers() const noexcept
{
	std::lock_guard lk(mu_);
	return by_bus_.size();
}

} // namespace pioc::sim
