// The modelled L2's capacity evictions take the least recently used line:
// a line used again moves to the back, a line used twice in a row stays
// there (system::touch_lru keeps the order while it skips that move).
#include <pioc/sim/eci.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

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
} // namespace

TEST_CASE("eci model: capacity evictions take the least recently used line", "[eci_sim][lru]")
{
	l2_of_two m;
	SECTION("a line used again is kept, the other one goes")
	{
		m.load(m.a);
		m.load(m.b);
		m.load(m.a);
		m.load(m.d);
		CHECK(m.holds(m.a));
		CHECK_FALSE(m.holds(m.b));
		CHECK(m.holds(m.d));
	}
	SECTION("a line used twice in a row is still the oldest once another is used")
	{
		m.load(m.a);
		m.load(m.a);
		m.load(m.b);
		m.load(m.d);
		CHECK_FALSE(m.holds(m.a));
		CHECK(m.holds(m.b));
		CHECK(m.holds(m.d));
	}
	SECTION("an evicted line comes back as the newest")
	{
		m.load(m.a);
		m.load(m.b);
		m.load(m.d); // a goes
		m.load(m.a); // b goes
		m.load(m.a);
		m.load(m.d);
		m.load(m.b); // a goes: d was used after it
		CHECK_FALSE(m.holds(m.a));
		CHECK(m.holds(m.b));
		CHECK(m.holds(m.d));
	}
}
