/** @file
 * Per-line state of the ECI model (the CPU's L2, the home directory, the
 * home memory) by line number: pages of 1024 slots, made when a line of
 * theirs is first used, so a lookup is two indexings where an
 * std::unordered_map hashed the address and took a prime modulo (the most
 * frequent lookups of a simulated poll loop; Documentation/benchmarking.md,
 * "ECI model faster than real time"). The modelled windows are a bounded
 * range of lines from 0 (8 MiB: 64 pages of 128-byte lines by default);
 * lines past the table's end grow it.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pioc::sim {

/** Slots of type @p T (value-initialised) for line numbers 0, 1, ... */
template <class T>
class line_table {
public:
	static constexpr unsigned page_bits = 10;

	/** The slot of line number @p i, nullptr if its page was never made
	 *  (every slot of it would be value-initialised). */
	T *find(std::uint64_t i) noexcept
	{
		const std::uint64_t p = i >> page_bits;
		return p < pages_.size() && pages_[p] ? &pages_[p]->slot[i & mask] : nullptr;
	}
	const T *find(std::uint64_t i) const noexcept { return const_cast<line_table *>(this)->find(i); }

	/** The slot of line number @p i, made (value-initialised) if needed.
	 *  The page's making is out of line, so that the lookup inlines (GCC
	 *  12 called this, 27 instructions a lookup, from every message the
	 *  ECI model sends). */
	T &operator[](std::uint64_t i)
	{
		if (T *t = find(i)) [[likely]]
			return *t;
		return make(i);
	}

private:
	[[gnu::noinline]] T &make(std::uint64_t i)
	{
		const std::uint64_t p = i >> page_bits;
		if (p >= pages_.size())
			pages_.resize(p + 1);
		if (!pages_[p])
			pages_[p] = std::make_unique<page>();
		return pages_[p]->slot[i & mask];
	}
	static constexpr std::uint64_t mask = (std::uint64_t(1) << page_bits) - 1;
	struct page {
		T slot[std::size_t(1) << page_bits]{};
	};
	std::vector<std::unique_ptr<page>> pages_;
};

} // namespace pioc::sim
