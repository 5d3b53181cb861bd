// XDMA descriptor encoding and chain building.
#include <pioc/error.hpp>
#include <pioc/xdma/descriptor.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace pioc::xdma {

namespace r = pioc::regs::xdma;

descriptor encode(const segment &s, std::uint32_t flags, unsigned nxt_adj, std::uint64_t next)
{
	if (s.len == 0 || s.len > r::DESC_MAX_LEN)
		throw error(errc::invalid_argument,
			    fmt::format("XDMA descriptor: length {} is not 1..{} (28-bit field)", s.len, r::DESC_MAX_LEN));
	if (nxt_adj > r::DESC_ADJ_MASK)
		throw error(errc::invalid_argument,
			    fmt::format("XDMA descriptor: Nxt_adj {} exceeds 63 (6-bit field, 64 per block)", nxt_adj));
	descriptor d{};
	d.control = (r::DESC_MAGIC << 16) | (nxt_adj << r::DESC_ADJ_SHIFT) | (flags & 0xff);
	d.length = s.len;
	d.src_lo = std::uint32_t(s.src);
	d.src_hi = std::uint32_t(s.src >> 32);
	d.dst_lo = std::uint32_t(s.dst);
	d.dst_hi = std::uint32_t(s.dst >> 32);
	d.next_lo = std::uint32_t(next);
	d.next_hi = std::uint32_t(next >> 32);
	return d;
}

namespace {
// End (exclusive index) of the block that starts at descriptor @p s.
std::size_t block_end(std::uint64_t base, std::size_t n, std::size_t s) noexcept
{
	const std::uint64_t addr = base + 32ull * s;
	const std::uint64_t to_boundary = (r::DESC_BLOCK_BOUNDARY - addr % r::DESC_BLOCK_BOUNDARY) / 32;
	return std::min<std::size_t>({n, s + r::DESC_MAX_BLOCK, s + std::size_t(to_boundary)});
}
} // namespace

std::vector<unsigned> plan_blocks(std::uint64_t base, std::size_t n)
{
	std::vector<unsigned> v;
	for (std::size_t s = 0; s < n;) {
		const std::size_t e = block_end(base, n, s);
		v.push_back(unsigned(e - s));
		s = e;
	}
	return v;
}

unsigned adjacent_after(std::uint64_t base, std::size_t n, std::size_t i) noexcept
{
	if (i >= n)
		return 0;
	std::size_t s = 0;
	for (;;) {
		const std::size_t e = block_end(base, n, s);
		if (i < e)
			return unsigned(e - i - 1);
		s = e;
	}
}

chain_head build_chain(descriptor *mem, std::uint64_t bus, std::size_t capacity, std::span<const segment> segs,
		       bool completed_each)
{
	const std::size_t n = segs.size();
	if (n == 0)
		throw error(errc::invalid_argument, "XDMA chain: no segments");
	if (bus % 32)
		throw error(errc::misaligned,
			    fmt::format("XDMA chain: descriptor memory at bus {:#x} is not 32-byte aligned", bus));
	if (n > capacity)
		throw error(errc::out_of_range,
			    fmt::format("XDMA chain: {} descriptors do not fit in {} free descriptor slots", n, capacity));
	// Nxt_adj of i describes the block position of i+1: blocks walked once.
	std::vector<unsigned> adj_of(n + 1, 0);
	for (std::size_t s = 0; s < n;) {
		const std::size_t e = block_end(bus, n, s);
		for (std::size_t j = s; j < e; ++j)
			adj_of[j] = unsigned(e - j - 1);
		s = e;
	}
	for (std::size_t i = 0; i < n; ++i) {
		const bool last = i + 1 == n;
		std::uint32_t flags = 0;
		if (last)
			flags |= r::DESC_STOP | r::DESC_COMPLETED;
		else if (completed_each)
			flags |= r::DESC_COMPLETED;
		mem[i] = encode(segs[i], flags, last ? 0 : adj_of[i + 1], last ? 0 : bus + 32ull * (i + 1));
	}
	return chain_head{bus, adj_of[0], n};
}

void link(descriptor &a_last, const chain_head &b) noexcept
{
	a_last.control = (a_last.control & ~(r::DESC_STOP | (r::DESC_ADJ_MASK << r::DESC_ADJ_SHIFT))) |
			 (b.adj << r::DESC_ADJ_SHIFT);
	a_last.next_lo = std::uint32_t(b.bus);
	a_last.next_hi = std::uint32_t(b.bus >> 32);
}

void unlink(descriptor &a_last) noexcept
{
	a_last.control = (a_last.control & ~(r::DESC_ADJ_MASK << r::DESC_ADJ_SHIFT)) | r::DESC_STOP;
	a_last.next_lo = a_last.next_hi = 0;
}

std::string check_chain(const descriptor *mem, std::uint64_t bus, std::size_t capacity, const chain_head &head,
			std::size_t max_desc)
{
	std::uint64_t cur = head.bus;
	unsigned adj = head.adj;
	std::size_t seen = 0;
	for (;;) {
		// One block: cur and adj more, contiguous.
		const std::uint64_t first = cur, last = cur + 32ull * adj;
		if (first % 32)
			return fmt::format("descriptor at {:#x} is not 32-byte aligned", first);
		if (adj + 1 > r::DESC_MAX_BLOCK)
			return fmt::format("block at {:#x} has {} descriptors (at most 64)", first, adj + 1);
		if (first / r::DESC_BLOCK_BOUNDARY != (last + 31) / r::DESC_BLOCK_BOUNDARY)
			return fmt::format("block of {} descriptors at {:#x} crosses a 4 KiB boundary", adj + 1, first);
		for (unsigned k = 0; k <= adj; ++k) {
			const std::uint64_t b = first + 32ull * k;
			if (b < bus || b + 32 > bus + 32ull * capacity)
				return fmt::format("descriptor at {:#x} lies outside descriptor memory", b);
			const descriptor &d = mem[(b - bus) / 32];
			if (++seen > max_desc)
				return "chain does not end (loop?)";
			if (r::desc_magic(d.control) != r::DESC_MAGIC)
				return fmt::format("descriptor {} at {:#x}: magic {:#x} is not 0xad4b", seen - 1, b,
						   r::desc_magic(d.control));
			if ((d.length & r::DESC_MAX_LEN) == 0 || d.length > r::DESC_MAX_LEN)
				return fmt::format("descriptor {} at {:#x}: length {} is not 1..2^28-1", seen - 1, b,
						   d.length);
			const std::uint64_t next = (std::uint64_t(d.next_hi) << 32) | d.next_lo;
			if (d.control & r::DESC_STOP) {
				if (k != adj)
					return fmt::format("descriptor {} at {:#x} has STOP inside a block", seen - 1, b);
				return {};
			}
			if (k < adj) {
				if (next != b + 32)
					return fmt::format("descriptor {} at {:#x}: next {:#x} is not the adjacent one",
							   seen - 1, b, next);
				if (r::desc_adj(d.control) != adj - k - 1)
					return fmt::format("descriptor {} at {:#x}: Nxt_adj {} does not count down (want {})",
							   seen - 1, b, r::desc_adj(d.control), adj - k - 1);
			} else {
				cur = next;
				adj = r::desc_adj(d.control);
				if (cur == 0)
					return fmt::format("descriptor {} at {:#x}: next is 0 without STOP", seen - 1, b);
				break; // the next block
			}
		}
	}
}

std::vector<segment> split(std::uint64_t src, std::uint64_t dst, std::uint64_t len, std::uint32_t max_seg)
{
	if (max_seg == 0 || max_seg > r::DESC_MAX_LEN)
		throw error(errc::invalid_argument,
			    fmt::format("XDMA: segment size {} is not 1..{}", max_seg, r::DESC_MAX_LEN));
	if (len == 0)
		throw error(errc::invalid_argument, "XDMA: a transfer of 0 bytes has no descriptor (length 1..2^28-1)");
	std::vector<segment> v;
	v.reserve(std::size_t((len + max_seg - 1) / max_seg));
	for (std::uint64_t done = 0; done < len;) {
		const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(max_seg, len - done));
		v.push_back({src + done, dst + done, n});
		done += n;
	}
	return v;
}

} // namespace pioc::xdma
