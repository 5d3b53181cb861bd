// Guest memory mapped for the served model's DMA.
#include "vfio_user/dma_space.hpp"

#include <pioc/sim/host_memory.hpp>

#include <sys/mman.h>
#include <unistd.h>

namespace pioc::vfio_user {

dma_space::~dma_space()
{
	unmap_all();
}

void dma_space::map(const dma_map_req &req, int fd)
{
	constexpr std::uint64_t page = 4096;
	if (!req.size || req.address % page || req.size % page || req.offset % page ||
	    req.address + req.size < req.address) {
		if (fd >= 0)
			::close(fd);
		throw protocol_error(EINVAL, "DMA_MAP: empty or unaligned range");
	}
	auto next = maps_.lower_bound(req.address);
	if ((next != maps_.end() && next->first < req.address + req.size) ||
	    (next != maps_.begin() && std::prev(next)->first + std::prev(next)->second.size > req.address)) {
		if (fd >= 0)
			::close(fd);
		throw protocol_error(EINVAL, "DMA_MAP: range overlaps an existing mapping");
	}
	if (fd < 0) {
		// Memory the client cannot share (QEMU's ROMs): the model reaches
		// it through DMA_READ/DMA_WRITE messages. Without a connection to
		// send them on (the unit tests' socket-free server) it is recorded
		// only, and accesses fail as a bad address, as with no mapping.
		bool registered = false;
		if (fdless_) {
			registered = sim::host_memory::instance().add_remote_at(req.address, req.size, fdless_);
			if (!registered)
				throw protocol_error(EINVAL, "DMA_MAP: range overlaps an existing mapping");
		}
		maps_[req.address] = mapping{nullptr, req.size, registered};
		return;
	}
	int prot = 0;
	if (req.flags & dma_map_req::flag_read)
		prot |= PROT_READ;
	if (req.flags & dma_map_req::flag_write)
		prot |= PROT_WRITE;
	// The model reads descriptors even from write-only buffers' neighbours
	// only through host_memory, so PROT_NONE would turn a stray access into a
	// crash of the server: map readable always, writable as asked.
	prot |= PROT_READ;
	void *p = ::mmap(nullptr, req.size, prot, MAP_SHARED, fd, static_cast<off_t>(req.offset));
	const int err = errno;
	::close(fd);
	if (p == MAP_FAILED)
		throw protocol_error(err, "DMA_MAP: mmap of the client's region failed");
	if (!sim::host_memory::instance().add_at(req.address, p, req.size)) {
		::munmap(p, req.size);
		throw protocol_error(EINVAL, "DMA_MAP: range overlaps an existing mapping");
	}
	maps_[req.address] = mapping{p, req.size, true};
}

void dma_space::unmap(const dma_unmap_req &req)
{
	if (req.flags & dma_unmap_req::flag_get_dirty_bitmap)
		throw protocol_error(ENOTSUP, "DMA_UNMAP: dirty page tracking is not implemented");
	if (req.flags & dma_unmap_req::flag_unmap_all) {
		unmap_all();
		return;
	}
	const std::uint64_t end = req.address + req.size;
	if (!req.size || end < req.address)
		throw protocol_error(EINVAL, "DMA_UNMAP: empty range");
	auto first = maps_.lower_bound(req.address);
	if (first != maps_.begin()) {
		auto prev = std::prev(first);
		if (prev->first + prev->second.size > req.address)
			throw protocol_error(EINVAL, "DMA_UNMAP: range starts inside a mapping");
	}
	auto last = first;
	while (last != maps_.end() && last->first < end) {
		if (last->first + last->second.size > end)
			throw protocol_error(EINVAL, "DMA_UNMAP: range ends inside a mapping");
		++last;
	}
	if (first == last)
		throw protocol_error(EINVAL, "DMA_UNMAP: no mapping in the range");
	for (auto it = first; it != last;) {
		release(it->first, it->second);
		it = maps_.erase(it);
	}
}

void dma_space::release(std::uint64_t iova, const mapping &m) noexcept
{
	if (m.registered)
		sim::host_memory::instance().remove(iova);
	if (m.cpu)
		::munmap(m.cpu, m.size);
}

void dma_space::unmap_all() noexcept
{
	for (auto &[iova, m] : maps_)
		release(iova, m);
	maps_.clear();
}

} // namespace pioc::vfio_user
