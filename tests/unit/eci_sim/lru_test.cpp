// The modelled L2's capacity evictions take the least recently used line:
// a line used again moves to the back, a line used twice in a row stays
// there (system::touch_lru keeps the order while it skips that move).
#include <pioc/sim/eci.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace eci = pioc::sim::eci;

namespace {
struct l2_of_two {
	eci::system s;
	std::uint64_t a, b, d;
	l2_of_two() : s(two_lines()), a(s.cpu_base()), b(a + s.cfg().line_size), d(b + s.cfg().line_size) {}
	static eci::config two_lines()
	{
		eci::config c;
		c.cpu_capacity_lines = 2;
		return c;
	}
	void load(std::uint64_t addr)
	{
		std::uint64_t v;
		s.cpu_load(addr, &v, sizeof v);
	}
	bool holds(std::uint64_t addr) const { return s.cpu_state(addr) != eci::line_state::I; }
};

/** Which of lines a, b, d (0, 1, 2) the L2 of two lines holds after the
 *  CPU loaded them in @p order. */
std::vector<bool> held_after(std::initializer_list<int> order)
{
	l2_of_two m;
	const std::uint64_t line[] = {m.a, m.b, m.d};
	for (int i : order)
		m.load(line[i]);
	return {m.holds(m.a), m.holds(m.b), m.holds(m.d)};
}
} // namespace

TEST_CASE("eci model: capacity evictions take the least recently used line", "[eci_sim][lru]")
{
	// A line used again is kept, the other one goes.
	CHECK(held_after({0, 1, 0, 2}) == std::vector<bool>{true, false, true});
	// A line used twice in a row is still the oldest once another is used.
	CHECK(held_after({0, 0, 1, 2}) == std::vector<bool>{false, true, true});
	// An evicted line comes back as the newest: a goes, b goes, then a again
	// (d was used after it).
	CHECK(held_after({0, 1, 2, 0, 0, 2, 1}) == std::vector<bool>{false, true, true});
}
