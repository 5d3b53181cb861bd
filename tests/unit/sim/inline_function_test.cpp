// sim::inline_function (the models' event callbacks) behaves as the
// std::function it replaced: the same calls give the same results, a moved
// callable keeps its state, and every captured object is destroyed exactly
// once, inline (small captures) or on the heap (large ones) alike.
#include <pioc/sim/inline_function.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

namespace {

/** Counts its live copies: every construction, copy and move adds one,
 *  every destruction takes one away. */
struct tracked {
	int *live;
	explicit tracked(int *l) : live(l) { ++*live; }
	tracked(const tracked &o) : live(o.live) { ++*live; }
	tracked(tracked &&o) noexcept : live(o.live) { ++*live; }
	tracked &operator=(const tracked &) = delete;
	~tracked() { --*live; }
};

/** A callable with state: returns id + its call count + the argument. */
template <std::size_t Pad>
struct counter {
	tracked t;
	int id;
	int calls = 0;
	std::array<std::uint8_t, Pad + 1> pad{}; // 100: too large to live inline; 200: for a pool block
	int operator()(int x)
	{
		return id * 1000 + ++calls * 10 + x + pad[0];
	}
};

/** Plain captures (trivially copyable: moved by copying the buffer), its
 *  state spread over the whole buffer. */
struct plain {
	int id;
	int calls = 0;
	std::array<int, 12> seen{};
	int operator()(int x)
	{
		seen[std::size_t(calls) % seen.size()] = x;
		++calls;
		int sum = 0;
		for (int v : seen)
			sum += v;
		return id * 1000 + calls * 10 + sum;
	}
};
static_assert(std::is_trivially_copyable_v<plain> && sizeof(plain) == 56);

using fn = pioc::sim::inline_function<int(int)>;
using ref = std::function<int(int)>;

/** Both kinds fed the same random program over a few slots: assign a small
 *  or a large callable, move one slot into another, call, reset. */
void run_program(std::uint64_t seed, int steps)
{
	std::mt19937_64 rng(seed);
	constexpr int slots = 6;
	int live_new = 0, live_ref = 0;
	{
		std::vector<fn> a(slots);
		std::vector<ref> b(slots);
		int next_id = 1;
		for (int step = 0; step < steps; ++step) {
			const int i = int(rng() % slots), j = int(rng() % slots);
			const auto r = rng() % 100;
			if (r < 25) {
				const int id = next_id++;
				switch (rng() % 4) { // inline (plain or not), a recycled block, operator new
				case 3:
					a[i] = plain{id};
					b[i] = plain{id};
					break;
				case 0:
					a[i] = counter<0>{tracked(&live_new), id};
					b[i] = counter<0>{tracked(&live_ref), id};
					break;
				case 1:
					a[i] = counter<100>{tracked(&live_new), id};
					b[i] = counter<100>{tracked(&live_ref), id};
					break;
				default:
					a[i] = counter<200>{tracked(&live_new), id};
					b[i] = counter<200>{tracked(&live_ref), id};
				}
			} else if (r < 45) {
				if (i != j) {
					a[j] = std::move(a[i]);
					b[j] = std::move(b[i]);
					a[i] = nullptr; // a moved-from std::function is unspecified: empty both
					b[i] = nullptr;
				}
			} else if (r < 55) {
				fn moved(std::move(a[i])); // move construction, then back
				a[i] = std::move(moved);
				REQUIRE_FALSE(moved);
			} else if (r < 95) {
				REQUIRE(bool(a[i]) == bool(b[i]));
				if (b[i]) {
					const int x = int(rng() % 7);
					REQUIRE(a[i](x) == b[i](x));
				}
			} else {
				a[i] = nullptr;
				b[i] = nullptr;
			}
			int full = 0;
			for (int k = 0; k < slots; ++k)
				full += bool(b[k]) && !b[k].target<plain>();
			REQUIRE(live_new == full); // no copy leaked, none destroyed twice
		}
	}
	CHECK(live_new == 0);
	CHECK(live_ref == 0);
}

} // namespace

TEST_CASE("inline_function calls, moves and destroys like the std::function it replaced", "[sim][inline_function]")
{
	static_assert(sizeof(fn) == 64, "56 bytes inline and the ops pointer");
	for (std::uint64_t seed = 1; seed <= 8; ++seed) {
		INFO("seed " << seed);
		run_program(seed, 5000);
	}
}

TEST_CASE("inline_function: empty std::function and nullptr stay empty; move-only captures work", "[sim][inline_function]")
{
	CHECK_FALSE(fn(ref()));
	CHECK_FALSE(fn(nullptr));
	CHECK(fn(ref([](int x) { return x; })));
	auto p = std::make_unique<int>(41);
	pioc::sim::inline_function<int()> g = [p = std::move(p)] { return *p + 1; };
	auto h = std::move(g);
	CHECK_FALSE(g);
	CHECK(h() == 42);
	// A callable's captures are moved out by the call only if it says so:
	// the one-shot continuation pattern of the models.
	std::optional<int> got;
	pioc::sim::inline_function<void(std::vector<std::uint8_t>)> take = [&got](std::vector<std::uint8_t> v) {
		got = int(v.size());
	};
	take(std::vector<std::uint8_t>(128));
	CHECK(got == 128);
}
