/** @file
 * XDMA descriptors and chains (pure functions: no device, no I/O).
 *
 * A chain is written into descriptor memory once, contiguous from a 32-byte
 * aligned bus address, and obeys the adjacency rules of xdma.md:
 *  - descriptors are grouped into blocks fetched in one burst; a block never
 *    crosses a 4 KiB boundary and holds at most 64 descriptors;
 *  - Nxt_adj of a descriptor = how many descriptors follow the *next* one in
 *    the same block, so it counts down inside a block; the first block's
 *    count goes to the SGDMA "first descriptor adjacent" register;
 *  - the last descriptor has STOP and next = 0; COMPLETED only where the
 *    caller wants a completion (by default on the last one only).
 */
#pragma once

#include <pioc/regs/xdma.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pioc::xdma {

using regs::xdma::descriptor;

/** One contiguous piece of a transfer: bus/AXI source and destination. */
struct segment {
	std::uint64_t src = 0, dst = 0;
	std::uint32_t len = 0;
};

/** Encodes one descriptor. Throws pioc::error (invalid_argument) for a length
 *  of 0 or above 2^28-1, or an adjacency count above 63. */
descriptor encode(const segment &s, std::uint32_t flags, unsigned nxt_adj, std::uint64_t next);

/** Extra adjacent descriptors after descriptor @p i of a chain of @p n placed
 *  contiguously at bus address @p base (the count that describes the block
 *  position i is in; 0 past the end). */
unsigned adjacent_after(std::uint64_t base, std::size_t n, std::size_t i) noexcept;

/** Block sizes for @p n contiguous descriptors at @p base (for tests and traces). */
std::vector<unsigned> plan_blocks(std::uint64_t base, std::size_t n);

/** Where a written chain starts: what the SGDMA registers need. */
struct chain_head {
	std::uint64_t bus = 0;  ///< first descriptor
	unsigned adj = 0;       ///< extra adjacent descriptors after it
	std::size_t count = 0;  ///< descriptors written
};

/** Writes @p segs as a chain into @p mem (CPU address of descriptor memory at
 *  bus address @p bus, room for @p capacity descriptors). COMPLETED goes on
 *  the last descriptor (and on every one if @p completed_each). Throws if it
 *  does not fit, @p bus is not 32-byte aligned, or a segment is invalid. */
chain_head build_chain(descriptor *mem, std::uint64_t bus, std::size_t capacity, std::span<const segment> segs,
		       bool completed_each = false);

/** Links chain @p a (its last descriptor at @p a_last) to chain @p b: clears
 *  STOP, sets next and Nxt_adj. unlink() puts STOP and next = 0 back. */
void link(descriptor &a_last, const chain_head &b) noexcept;
void unlink(descriptor &a_last) noexcept;

/** Checks a chain in memory against every rule; returns "" or what is wrong
 *  (index, bus address, rule). Follows next pointers, at most @p max_desc. */
std::string check_chain(const descriptor *mem, std::uint64_t bus, std::size_t capacity, const chain_head &head,
			std::size_t max_desc = 1u << 20);

/** Cuts [len] bytes into segments of at most @p max_seg bytes (a multiple of
 *  @p granularity), source and destination advancing together. */
std::vector<segment> split(std::uint64_t src, std::uint64_t dst, std::uint64_t len, std::uint32_t max_seg);

} // namespace pioc::xdma
