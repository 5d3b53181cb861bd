// Log-linear latency histogram (HDR-style). See include/pioc/bench/histogram.hpp.
//
// Layout for sub_bits = s, S = 2^s:
//   values 0..S-1              -> buckets 0..S-1, one value each (exact);
//   values in [2^e, 2^(e+1))   -> for e >= s, S buckets of width 2^(e-s),
//                                 starting at index S + (e-s)*S.
// A bucket's width is at most 1/S of its lower edge, so reporting its upper
// edge overstates a value by less than 1/S (0.8% for s = 7).
#include <pioc/bench/histogram.hpp>
#include <pioc/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pioc::bench {

histogram::histogram(unsigned sub_bits) : sub_bits_(sub_bits)
{
	if (sub_bits < 1 || sub_bits > 16)
		throw error(errc::invalid_argument,
			    fmt::format("histogram: sub_bits {} must be 1..16 (relative error 2^-sub_bits)", sub_bits));
	// Buckets up to the largest value recorded, not all 58 KiB of them
	// (values up to 2^63 ns): a histogram's buckets were cleared and their
	// pages faulted in for every one made (nicbench makes three per frame
	// size), more CPU than a simulated run of a thousand small frames.
	const std::size_t per = std::size_t(1) << sub_bits;
	buckets_.assign(4 * per, 0);
}

void histogram::grow(unsigned idx)
{
	const std::size_t per = std::size_t(1) << sub_bits_;
	const std::size_t all = per + (64 - sub_bits_) * per;
	buckets_.resize(std::min(all, std::max<std::size_t>(idx + 1, 2 * buckets_.size())), 0);
}

unsigned histogram::index(std::uint64_t v) const noexcept
{
	const std::uint64_t per = std::uint64_t(1) << sub_bits_;
	if (v < per)
		return static_cast<unsigned>(v);
	const unsigned e = 63u - static_cast<unsigned>(__builtin_clzll(v));
	const unsigned shift = e - sub_bits_;
	return static_cast<unsigned>(per + std::uint64_t(shift) * per + ((v >> shift) - per));
}

std::uint64_t histogram::upper(unsigned idx) const noexcept
{
	const std::uint64_t per = std::uint64_t(1) << sub_bits_;
	if (idx < per)
		return idx;
	const std::uint64_t k = idx - per;
	const unsigned shift = static_cast<unsigned>(k >> sub_bits_);
	const std::uint64_t sub = k & (per - 1);
	const std::uint64_t lower = (per + sub) << shift;
	return lower + ((std::uint64_t(1) << shift) - 1);
}

void histogram::record(std::uint64_t v) noexcept
{
	const unsigned i = index(v);
	if (i >= buckets_.size()) [[unlikely]]
		grow(i);
	++buckets_[i];
	++count_;
	sum_ += v;
	min_ = std::min(min_, v);
	max_ = std::max(max_, v);
}

void histogram::merge(const histogram &o)
{
	if (o.sub_bits_ != sub_bits_)
		throw error(errc::invalid_argument,
			    fmt::format("histogram::merge: precision differs (sub_bits {} vs {})", sub_bits_, o.sub_bits_));
	if (o.buckets_.size() > buckets_.size())
		grow(unsigned(o.buckets_.size() - 1));
	for (std::size_t i = 0; i < o.buckets_.size(); ++i)
		buckets_[i] += o.buckets_[i];
	count_ += o.count_;
	sum_ += o.sum_;
	min_ = std::min(min_, o.min_);
	max_ = std::max(max_, o.max_);
}

void histogram::clear() noexcept
{
	std::fill(buckets_.begin(), buckets_.end(), 0);
	count_ = 0;
	sum_ = 0;
	min_ = ~0ull;
	max_ = 0;
}

std::uint64_t histogram::percentile(double p) const noexcept
{
	if (!count_)
		return 0;
	if (!(p > 0)) // also NaN
		return min_;
	if (p >= 100)
		return max_;
	// The nearest-rank definition: the smallest value with at least p% of
	// the samples at or below it.
	// (The epsilon keeps 99.9% of 1000 at rank 999 despite rounding.)
	auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * double(count_) - 1e-9));
	rank = std::clamp<std::uint64_t>(rank, 1, count_);
	std::uint64_t seen = 0;
	for (std::size_t i = 0; i < buckets_.size(); ++i) {
		seen += buckets_[i];
		if (seen >= rank)
			return std::clamp(upper(static_cast<unsigned>(i)), min_, max_);
	}
	return max_;
}

} // namespace pioc::bench
