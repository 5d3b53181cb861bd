// The simulated CPU's weak load order (system::load_order): a load the code
// did not order behind an earlier one may be satisfied early, so it can
// return the value its line had at the CPU's last ordering point for loads,
// as an ARMv8 core may when no barrier or acquire says otherwise.
//
// Values are kept lazily: at an ordering point nothing is copied; the first
// time a line's value may change after it, the value from before is kept
// (lo_capture). That happens where the CPU loses its copy (a forward, an
// adversary or capacity eviction) and where the engine touches a line it
// answers plainly while the CPU holds no copy (lo_device_access). A line
// never captured since the ordering point still has the value it had then,
// so an in-order load returns the same thing an early one would. A load
// that reads the current value moves the bytes it read forward to it
// (lo_read_current), and the CPU's own store or dc civac of the line drops
// the kept value (lo_forget): what is kept is always the oldest value the
// next load of those bytes may still return.
#include <pioc/sim/eci.hpp>

#include <algorithm>
#include <cstring>

namespace pioc::sim::eci {

void system::load_order(std::uint64_t seed, double rate)
{
	lo_rng_.seed(seed);
	lo_rate_ = rate;
	refresh_plain();
	++lo_epoch_; // nothing kept from before counts
}

system::lo_snapshot *system::lo_find(std::uint64_t line)
{
	auto it = lo_snap_.find(line);
	return it == lo_snap_.end() || it->second.epoch != lo_epoch_ ? nullptr : &it->second;
}

void system::lo_capture(std::uint64_t line, const std::uint8_t *now)
{
	if (lo_rate_ <= 0 || !now || lo_find(line))
		return; // off, unknown, or the value from the ordering point is kept already
	auto &s = lo_snap_[line];
	s.epoch = lo_epoch_;
	s.data.assign(now, now + cfg_.line_size);
}

void system::lo_device_access(std::uint64_t line)
{
	// The engine may be about to write the line: keep what a plain read
	// would have returned before. Lines read as signals are not kept: an
	// early read of those would have been a signal too, answered by the
	// engine, not by the old data.
	if (lo_rate_ > 0 && !lo_find(line) && (!engine_ || engine_->plain_read(line)))
		lo_capture(line, readable_now(line, true));
}

void system::lo_forget(std::uint64_t line)
{
	if (lo_rate_ <= 0)
		return;
	if (auto *s = lo_find(line))
		s->epoch = 0;
}

bool system::lo_early(std::uint64_t addr, void *dst, std::size_t n)
{
	const std::uint64_t line = line_of(addr);
	auto *s = lo_find(line);
	if (!s || std::uniform_real_distribution<double>(0, 1)(lo_rng_) >= lo_rate_)
		return false;
	const std::size_t off = addr - line;
	std::memcpy(dst, s->data.data() + off, n);
	++lo_early_;
	const std::uint8_t *cur = readable_now(line, false);
	if (cur && std::memcmp(cur + off, s->data.data() + off, n) != 0)
		++lo_stale_;
	return true;
}

void system::lo_read_current(std::uint64_t addr, std::size_t n, const std::uint8_t *line_now)
{
	// The line changed since the ordering point and this load read it as it
	// is now: later loads of these bytes may return what it read, never
	// older (coherence per location). Other bytes of the line keep their
	// older value (loads of different bytes may pass each other, even in
	// one line). Whole 8-byte words, so that no aligned 8-byte load (single-
	// copy atomic) is ever answered half old, half new.
	const std::uint64_t line = line_of(addr);
	if (auto *s = lo_find(line)) {
		const std::size_t from = (addr - line) & ~std::size_t(7);
		const std::size_t to = std::min<std::size_t>(cfg_.line_size, (addr - line + n + 7) & ~std::size_t(7));
		std::memcpy(s->data.data() + from, line_now + from, to - from);
	}
}

} // namespace pioc::sim::eci
