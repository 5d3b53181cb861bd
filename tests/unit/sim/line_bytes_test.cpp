// sim::line_bytes (the ECI model's line data) holds what the
// std::vector<std::uint8_t> it replaced held after the same operations:
// assign, copy, move, write through data(); lines of 16 to 512 bytes (the
// recycled blocks and operator new alike).
#include <pioc/sim/line_bytes.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace {

bool same(const pioc::sim::line_bytes &a, const std::vector<std::uint8_t> &b)
{
	if (a.size() != b.size() || a.empty() != b.empty())
		return false;
	for (std::size_t i = 0; i < b.size(); ++i)
		if (a.data()[i] != b[i])
			return false;
	return true;
}

void run_program(std::uint64_t seed, int steps)
{
	std::mt19937_64 rng(seed);
	constexpr int slots = 5;
	constexpr std::size_t sizes[] = {0, 16, 64, 128, 256, 512};
	std::vector<pioc::sim::line_bytes> a(slots);
	std::vector<std::vector<std::uint8_t>> b(slots);
	for (int step = 0; step < steps; ++step) {
		const int i = int(rng() % slots), j = int(rng() % slots);
		const auto r = rng() % 100;
		if (r < 20) {
			const std::size_t n = sizes[rng() % std::size(sizes)];
			const auto v = std::uint8_t(rng());
			a[i].assign(n, v);
			b[i].assign(n, v);
		} else if (r < 40) {
			a[j] = a[i]; // copy (and self-copy)
			b[j] = b[i];
		} else if (r < 55) {
			if (i != j) {
				a[j] = std::move(a[i]);
				b[j] = std::move(b[i]);
				a[i] = {}; // a moved-from vector is unspecified: empty both
				b[i] = {};
			}
		} else if (r < 65) {
			pioc::sim::line_bytes c(a[i]); // copy construction, then a move back
			a[i] = std::move(c);
			REQUIRE(c.empty());
		} else if (r < 95) {
			if (!b[i].empty()) { // write through data(), as the model does
				const std::size_t at = rng() % b[i].size();
				const auto v = std::uint8_t(rng());
				a[i].data()[at] = v;
				b[i][at] = v;
			}
		} else {
			a[i] = pioc::sim::line_bytes();
			b[i].clear();
		}
		for (int k = 0; k < slots; ++k)
			REQUIRE(same(a[k], b[k]));
	}
}

} // namespace

TEST_CASE("line_bytes holds what std::vector held after the same operations", "[sim][line_bytes]")
{
	for (std::uint64_t seed = 1; seed <= 8; ++seed) {
		INFO("seed " << seed);
		run_program(seed, 5000);
	}
}
