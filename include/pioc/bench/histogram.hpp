/** @file
 * A latency histogram that keeps the tail (HDR-style): log-linear buckets with
 * a bounded relative error, so p99.9 and max of millions of samples cost a
 * few kilobytes and no sorting.
 */
#pragma once

#include <cstdint>
#include <vector>

namespace pioc::bench {

class histogram {
public:
	/** @p sub_bits: 2^sub_bits linear sub-buckets per power of two
	 *  (7 -> relative error below 1/128 = 0.8%). Values up to 2^63 ns. */
	explicit histogram(unsigned sub_bits = 7);

	/** Counts @p v. Buckets grow to the largest value so far (doubling): an
	 *  allocation now and then, out of memory there ends the program. */
	void record(std::uint64_t v) noexcept;
	void merge(const histogram &o);
	void clear() noexcept;

	std::uint64_t count() const noexcept { return count_; }
	std::uint64_t min() const noexcept { return count_ ? min_ : 0; }
	std::uint64_t max() const noexcept { return max_; }
	double mean() const noexcept { return count_ ? double(sum_) / double(count_) : 0.0; }
	/** Value at percentile @p p in [0, 100]: the upper edge of its bucket,
	 *  clamped to [min, max] so p0 == min and p100 == max exactly. */
	std::uint64_t percentile(double p) const noexcept;

private:
	unsigned index(std::uint64_t v) const noexcept;
	/** Buckets up to index @p idx at least (doubling, at most all). */
	void grow(unsigned idx);
	std::uint64_t upper(unsigned idx) const noexcept;

	unsigned sub_bits_;
	std::vector<std::uint64_t> buckets_;
	std::uint64_t count_ = 0, min_ = ~0ull, max_ = 0;
	unsigned __int128 sum_ = 0;
};

} // namespace pioc::bench
