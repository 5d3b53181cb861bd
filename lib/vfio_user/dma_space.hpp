// The guest memory a vfio-user client shares for DMA: each DMA_MAP's file
// descriptor mmapped here and registered in sim::host_memory at its IOVA, so
// the served model's engines read and write guest memory directly.
#pragma once

#include "vfio_user/protocol.hpp"

#include <pioc/sim/host_memory.hpp>

#include <map>

namespace pioc::vfio_user {

class dma_space {
public:
	/** @p fdless reaches the ranges mapped without a descriptor (the
	 *  connection's DMA_READ/DMA_WRITE messages; kept, not owned). */
	explicit dma_space(sim::host_memory::remote *fdless = nullptr) : fdless_(fdless) {}
	dma_space(const dma_space &) = delete;
	dma_space &operator=(const dma_space &) = delete;
	~dma_space();

	/** Maps @p fd (taken over: closed here) at IOVA req.address. EINVAL for
	 *  an empty, unaligned or overlapping range, the mmap errno. Without an
	 *  fd (-1) the range is registered with the fdless owner, so the model's
	 *  accesses there become messages to the client (recorded but
	 *  unreachable when there is no owner). */
	void map(const dma_map_req &req, int fd);
	/** Unmaps every mapping inside [address, address+size), or all with
	 *  flag_unmap_all. EINVAL when the range cuts a mapping in two (VFIO type1
	 *  semantics) or covers none. */
	void unmap(const dma_unmap_req &req);
	void unmap_all() noexcept;

	std::size_t mappings() const noexcept { return maps_.size(); }

private:
	struct mapping {
		void *cpu; ///< nullptr: mapped without an fd
		std::uint64_t size;
		bool registered; ///< in sim::host_memory (mmapped, or remote through fdless_)
	};
	static void release(std::uint64_t iova, const mapping &m) noexcept;
	sim::host_memory::remote *fdless_;
	std::map<std::uint64_t, mapping> maps_; ///< by IOVA
};

} // namespace pioc::vfio_user
