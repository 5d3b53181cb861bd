// sim::line_table (the ECI model's per-line state by line number) finds
// what the std::unordered_map it replaced found after the same writes:
// lines in made pages, in pages never made, and past the table's end.
#include <pioc/sim/line_table.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <unordered_map>

TEST_CASE("line_table finds what an unordered_map found after the same writes", "[sim][line_table]")
{
	for (std::uint64_t seed = 1; seed <= 8; ++seed) {
		INFO("seed " << seed);
		std::mt19937_64 rng(seed);
		pioc::sim::line_table<std::uint64_t> t;
		std::unordered_map<std::uint64_t, std::uint64_t> m;
		// Mostly a few pages, sometimes far (the table grows).
		auto line = [&] { return rng() % 8 ? rng() % 5000 : rng() % 200000; };
		for (int step = 0; step < 20000; ++step) {
			const std::uint64_t i = line();
			if (rng() % 3 == 0) {
				const std::uint64_t v = rng() | 1; // never 0: 0 is "not written"
				t[i] = v;
				m[i] = v;
			} else {
				const std::uint64_t *p = t.find(i);
				auto it = m.find(i);
				const std::uint64_t want = it == m.end() ? 0 : it->second;
				REQUIRE((p ? *p : 0) == want);
				if (!p)
					REQUIRE(it == m.end()); // no page: nothing was written near it
			}
		}
		for (auto &[i, v] : m)
			REQUIRE(t[i] == v);
	}
}
