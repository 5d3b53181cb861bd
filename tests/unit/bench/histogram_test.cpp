// The HDR-style histogram against exact percentiles of the sorted samples.
#include <pioc/bench/histogram.hpp>
#include <pioc/error.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using pioc::bench::histogram;

namespace {
// Nearest rank, the definition histogram::percentile documents.
std::uint64_t exact(const std::vector<std::uint64_t> &sorted, double p)
{
	if (p <= 0)
		return sorted.front();
	auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(sorted.size()) - 1e-9));
	rank = std::clamp<std::size_t>(rank, 1, sorted.size());
	return sorted[rank - 1];
}
} // namespace

TEST_CASE("histogram percentiles stay within the documented relative error", "[histogram]")
{
	std::mt19937_64 rng(42);
	const unsigned sub_bits = GENERATE(3u, 7u, 10u);
	INFO("sub_bits " << sub_bits);
	// Latency-shaped data: a body around 800 ns with a heavy tail up to ms.
	std::lognormal_distribution<double> body(6.7, 0.3);
	std::vector<std::uint64_t> v;
	for (int i = 0; i < 200000; ++i)
		v.push_back(i % 1000 == 0 ? 100000 + rng() % 5000000 : static_cast<std::uint64_t>(body(rng)));
	histogram h(sub_bits);
	for (auto x : v)
		h.record(x);
	std::sort(v.begin(), v.end());
	const double tol = 1.0 / double(1u << sub_bits);
	for (double p : {0.0, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
		const auto e = exact(v, p), got = h.percentile(p);
		INFO("p" << p << " exact " << e << " histogram " << got);
		CHECK(got >= e);                                  // the upper edge of its bucket
		CHECK(double(got) <= double(e) * (1 + tol) + 1);  // ... less than one bucket away
	}
	CHECK(h.percentile(0) == v.front());
	CHECK(h.percentile(100) == v.back());
	CHECK(h.min() == v.front());
	CHECK(h.max() == v.back());
	CHECK(h.count() == v.size());
}

TEST_CASE("small values are exact and the tail is kept", "[histogram]")
{
	histogram h;
	for (std::uint64_t i = 1; i <= 100; ++i)
		h.record(i);
	CHECK(h.percentile(50) == 50);
	CHECK(h.percentile(90) == 90);
	CHECK(h.percentile(99) == 99);
	CHECK(h.mean() == Approx(50.5));
	// One outlier in 10^6 samples must show as max and at p99.9999, not vanish.
	histogram t;
	for (int i = 0; i < 999999; ++i)
		t.record(800);
	t.record(123456789);
	CHECK(t.max() == 123456789);
	CHECK(t.percentile(99.9) >= 800); // the upper edge of 800's bucket
	CHECK(t.percentile(99.9) < 808);
	CHECK(t.percentile(99.99995) == 123456789);
}

TEST_CASE("extreme values, empty histogram, merge and clear", "[histogram]")
{
	histogram h;
	CHECK(h.count() == 0);
	CHECK(h.percentile(50) == 0);
	CHECK(h.min() == 0);
	h.record(0);
	h.record(~0ull);
	CHECK(h.min() == 0);
	CHECK(h.max() == ~0ull);
	CHECK(h.percentile(100) == ~0ull);

	histogram a, b;
	for (int i = 0; i < 1000; ++i)
		a.record(1000);
	for (int i = 0; i < 1000; ++i)
		b.record(5000);
	a.merge(b);
	CHECK(a.count() == 2000);
	CHECK(a.percentile(50) >= 1000);
	CHECK(a.percentile(50) < 1010);
	CHECK(a.percentile(51) >= 5000);
	CHECK(a.max() == 5000);
	a.clear();
	CHECK(a.count() == 0);
	CHECK(a.max() == 0);

	histogram c(5);
	CHECK_THROWS_AS(a.merge(c), pioc::error);
	CHECK_THROWS_AS(histogram(0), pioc::error);
}
