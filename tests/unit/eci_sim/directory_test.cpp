// Directory occupancy in the ECI timing model: a directory slice takes one
// message per dir_occupancy_ns, so a burst of messages to one slice cannot
// finish faster than the slice can serve them, while a serial exchange (one
// message at a time) costs what it did before.
#include "fixture.hpp"

#include <catch2/catch.hpp>

using namespace pioc;
using namespace fx;

namespace {
/** Modelled time of the second call of @p n bytes (the first warms the lines). */
double call_ns(sim::eci::config c, bool pipelined, std::size_t n)
{
	sim::eci::engine_config e;
	if (pipelined)
		e.data_lines = 128;
	rig r(e, c);
	coherent::cpu_options o;
	o.pipelined = pipelined;
	auto inv = r.invoker(0, o);
	auto req = pattern(n, 5);
	std::vector<std::uint8_t> resp(coherent::max_message);
	REQUIRE(inv.call(req.data(), n, resp.data(), resp.size()) == n);
	double t0 = r.sys->now();
	REQUIRE(inv.call(req.data(), n, resp.data(), resp.size()) == n);
	REQUIRE(std::equal(req.begin(), req.end(), resp.begin()));
	return r.sys->now() - t0;
}

sim::eci::config unlimited()
{
	sim::eci::config c;
	c.dir_occupancy_ns = 0;
	return c;
}
} // namespace

TEST_CASE("a serial Fig. 5a exchange does not wait for the directory")
{
	sim::eci::config c;
	REQUIRE(c.dir_occupancy_ns > 0);
	CHECK(call_ns(c, false, 64) == Approx(call_ns(unlimited(), false, 64)));
}

TEST_CASE("a pipelined 16 KiB call is bounded by what one directory slice can serve")
{
	sim::eci::config c;
	// Every 16 KiB request takes back the 128 lines of one data bank (the
	// CPU stored into all of them: all lent); a bank's lines are two line
	// indices apart, so all of them fall in one slice.
	const double floor = 128 * c.dir_occupancy_ns;
	double with = call_ns(c, true, 16384), without = call_ns(unlimited(), true, 16384);
	INFO("pipelined 16 KiB: " << with << " ns with occupancy, " << without << " ns without");
	CHECK(without < floor); // the model before occupancy: faster than one slice could serve
	CHECK(with >= floor);
	// Twice the occupancy: at least one more bank's worth of slice time.
	sim::eci::config slow = c;
	slow.dir_occupancy_ns *= 2;
	CHECK(call_ns(slow, true, 16384) >= with + floor);
}

TEST_CASE("more directory slices serve more lines at once")
{
	sim::eci::config one;
	one.dir_slices = 1;
	sim::eci::config four;
	four.dir_slices = 4;
	// Line-by-line exchanges alternate A and B (different parity) one at a
	// time: unaffected. The pipelined bank and the control lines share the
	// single slice: slower than with four.
	CHECK(call_ns(one, false, 64) == Approx(call_ns(four, false, 64)));
	CHECK(call_ns(one, true, 16384) > call_ns(four, true, 16384));
}

TEST_CASE("directory configuration is checked")
{
	sim::eci::config c;
	c.dir_slices = 0;
	CHECK_THROWS_AS(sim::eci::system(c), pioc::error);
	c.dir_slices = 2;
	c.dir_occupancy_ns = -1;
	CHECK_THROWS_AS(sim::eci::system(c), pioc::error);
}

// What a simulation costs is its events. Taking a line back from the CPU
// (LCI) is two: the L2's answer to the forward, cpu_fwd_ns after the
// forward arrives, and the LCIA at the home. A bank's take-back is 75 of
// them per 9600-byte frame on sim:nic_eci; an event for the forward's
// arrival as well made the model slower than real time
// (Documentation/benchmarking.md, session 11). The data and the times must
// not change: the CPU's dirty bytes reach the home, the LCIA comes when the
// links and the directory say.
TEST_CASE("an LCI of a line the CPU holds dirty costs two events and brings its bytes home")
{
	for (bool in_order : {false, true}) {
		CAPTURE(in_order);
		sim::eci::config c;
		c.tad_in_order = in_order;
		sim::eci::system sys(c);
		const std::uint64_t a = 0x1000; // device-homed, no engine: plain memory
		const std::uint64_t v = 0x1122334455667788;
		sys.cpu_store(a, &v, sizeof v);
		sys.cpu_barrier(barrier::kind::full);
		sys.cpu_spend(1000);
		REQUIRE(sys.cpu_state(a) == sim::eci::line_state::M);

		sim::eci::engine_ctx ctx(sys);
		const auto before = sys.stats();
		const double t0 = sys.now();
		double back = -1;
		ctx.clean_invalidate(a, [&] { back = sys.now(); });
		sys.cpu_spend(10000);
		const auto d = sys.stats() - before;
		REQUIRE(back > 0);
		CHECK(d[sim::eci::msg::FEVX_EH] == 1);
		CHECK(d[sim::eci::msg::VICD] == 1);
		CHECK(d[sim::eci::msg::LCIA] == 1);
		// The home's slice (dir_msg_ns), the link out (16 bytes), the L2
		// (cpu_fwd_ns), the link back with the data, the home's slice again.
		const double bytes_per_ns = c.link_gib_s * 1.073741824;
		const double ser = 16.0 / bytes_per_ns, ser_data = (c.line_size + 16.0) / bytes_per_ns;
		CHECK(back - t0 == Approx(c.dir_msg_ns + ser + c.link_ns + c.cpu_fwd_ns + ser_data + c.link_ns +
					  c.dir_msg_ns));
		CHECK(sys.cpu_state(a) == sim::eci::line_state::I);
		std::uint64_t home = 0;
		std::memcpy(&home, ctx.data(a), sizeof home);
		CHECK(home == v);
		// An L2 that holds forwards behind its TAD's misses (tad_in_order)
		// decides when the forward arrives: one event more.
		CHECK(d.events == (in_order ? 3u : 2u));
	}
}
