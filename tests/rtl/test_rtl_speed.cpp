// Speed of the Verilated images (issue 13) and what it must not change:
// skipping idle cycles (lib/rtl/rtl_clock.hpp) is invisible to the host,
// every value and every completion time is the one of a run that evaluates
// each cycle; and the simulator keeps a floor of simulated cycles per second.
#include "rtl/rtl_devices.hpp"

#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/port.hpp>
#include <pioc/device.hpp>
#include <pioc/pio.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_lines.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <vector>

namespace R = pioc::regs::pio_dev;
using pioc::sim::target;

namespace {

/** A host that leaves long gaps (idle cycles to skip) between accesses and
 *  records every value read, every CYCLES value and every completion time. */
struct gappy_host {
	explicit gappy_host(target &tt) : t(tt) {}
	target &t;
	std::uint64_t now = 1000;
	std::vector<std::uint64_t> values; // every value read but CYCLES, in order
	std::vector<std::uint64_t> timing; // completion times and CYCLES values, in order

	void gap(std::uint64_t ns) { now += ns; }
	void w(std::uint64_t off, std::uint64_t v, std::size_t n = 8)
	{
		t.posted_write(0, off, &v, n, now);
		now += 4;
	}
	std::uint64_t r(std::uint64_t off, std::size_t n = 8)
	{
		std::uint64_t v = 0;
		const std::uint64_t done = t.read(0, off, &v, n, now);
		(off == R::CYCLES.offset || off == R::CYCLES.offset + 4 ? timing : values).push_back(v);
		timing.push_back(done);
		now = done + 4;
		return v;
	}

	/** @p timeouts: also the NOT_READY path, whose retry count depends on timing. */
	void run(bool timeouts = true)
	{
		r(R::CYCLES.offset);
		gap(50000);
		r(R::CYCLES.offset, 4);       // latches the high half
		gap(12345);
		r(R::CYCLES.offset + 4, 4);
		std::vector<std::uint8_t> req(4096);
		for (std::size_t i = 0; i < req.size(); ++i)
			req[i] = std::uint8_t(i * 13 + 5);
		for (std::uint32_t delay : {0u, 3000u}) {
			w(R::INVOKE_DELAY.offset, delay, 4);
			for (std::uint64_t op : {R::OP_ECHO, R::OP_NOT, R::OP_BLOOM})
				for (std::size_t len : {8, 1000, 4096}) {
					for (std::size_t i = 0; i < len; i += 64)
						t.posted_write(0, R::REQ.offset + i, req.data() + i, std::min<std::size_t>(64, len - i), now);
					w(R::DOORBELL.offset, op << 32 | len);
					if (len == 1000)
						gap(30000);   // the invocation ends inside the gap: those cycles must run
					const std::uint64_t st = r(R::INVOKE_STATUS.offset);
					for (std::size_t i = 0; i < (st & 0xffffffff); i += 512)
						r(R::RESP.offset + i);
					gap(7777);
					r(R::CYCLES.offset);
				}
		}
		if (!timeouts)
			return;
		w(R::INVOKE_TIMEOUT.offset, 200, 4);
		w(R::INVOKE_DELAY.offset, 1000, 4);
		w(R::DOORBELL.offset, R::OP_NOT << 32 | 256);
		while (r(R::INVOKE_STATUS.offset) == R::NOT_READY)
			gap(100);
		gap(1000000);
		r(R::CYCLES.offset);
		r(R::NOT_READY_COUNT.offset, 4);
		r(R::INVOKE_COUNT.offset, 4);
	}
};

void same_with_and_without_skipping(std::unique_ptr<target> skipping, std::unique_ptr<target> every_cycle)
{
	gappy_host a{*skipping}, b{*every_cycle};
	a.run();
	b.run();
	CHECK(a.values == b.values);
	REQUIRE(a.timing.size() == b.timing.size());
	for (std::size_t i = 0; i < a.timing.size(); ++i) {
		INFO("completion time or CYCLES value " << i);
		CHECK(a.timing[i] == b.timing[i]);
	}
	const auto sa = pioc::rtl::stats_of(*skipping), sb = pioc::rtl::stats_of(*every_cycle);
	CHECK(sa.cycles == sb.cycles);
	CHECK(sb.evaluated_cycles == sb.cycles);
	// The gaps were skipped: most of the time the image was idle.
	CHECK(sa.evaluated_cycles * 2 < sa.cycles);
	WARN("cycles " << sa.cycles << ", evaluated with skipping " << sa.evaluated_cycles);
}

/** Thread CPU seconds: the speed floor must hold on a loaded machine, where
 *  wall time depends on the other jobs. */
double cpu_s()
{
	timespec ts{};
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

} // namespace

TEST_CASE("rtl:pio: skipping idle cycles changes no value and no time the host sees", "[rtl][speed]")
{
	same_with_and_without_skipping(pioc::rtl::make_pio_rtl(0, 1, true), pioc::rtl::make_pio_rtl(0, 1, false));
}

TEST_CASE("rtl:pio under backpressure: skipping idle cycles changes nothing", "[rtl][speed]")
{
	// The random stalls draw from one generator per cycle evaluated: a run
	// that skips draws fewer numbers, so the stall pattern and with it the
	// times differ. The values must still agree: compare those.
	auto s = pioc::rtl::make_pio_rtl(30, 5, true), e = pioc::rtl::make_pio_rtl(30, 5, false);
	gappy_host a{*s}, b{*e};
	a.run(false);
	b.run(false);
	CHECK(a.values == b.values);
	const auto sa = pioc::rtl::stats_of(*s);
	CHECK(sa.evaluated_cycles * 2 < sa.cycles);
}

TEST_CASE("rtl:xdma BAR0: skipping idle cycles changes no value and no time the host sees", "[rtl][speed]")
{
	same_with_and_without_skipping(pioc::rtl::make_xdma_rtl(0, 1, true), pioc::rtl::make_xdma_rtl(0, 1, false));
}

TEST_CASE("rtl:pio simulates at least 2 M cycles per CPU second (pciebench's 4 KiB write_read)", "[rtl][speed]")
{
	// Tolerance: issue 13 asks for 5 M cycles/s on one core (20 M measured);
	// the floor is 2.5x below the goal so that a loaded CI machine (shared caches, frequency) does
	// not fail it, while a return to per-cycle evaluation of idle time
	// (about 0.4 M cycles/s) or to allocation per cycle does.
	using namespace pioc;
	device dev = device::open("rtl:pio");
	region bar = dev.map(0, mem_type::wc);
	pio::invoker inv(bar);
	std::vector<std::uint8_t> req(4096, 0x5a), resp(4096);
	inv.invoke(pio::op::echo, req, resp);   // warm up
	auto &rtl = dev.sim_link()->device();
	const auto s0 = rtl::stats_of(rtl);
	const double c0 = cpu_s();
	for (int i = 0; i < 200; ++i)
		inv.invoke(pio::op::echo, req, resp);
	const double cpu = cpu_s() - c0;
	const auto s1 = rtl::stats_of(rtl);
	const double cycles = double(s1.cycles - s0.cycles), evaluated = double(s1.evaluated_cycles - s0.evaluated_cycles);
	WARN("rtl:pio 200 x 4 KiB echo: " << cycles << " cycles (" << evaluated << " evaluated) in " << cpu
					   << " CPU s = " << cycles / cpu / 1e6 << " M cycles/s, "
					   << evaluated / cpu / 1e6 << " M evaluated cycles/s");
	CHECK(resp == req);
	CHECK(cycles / cpu >= 2e6);
	// The cycles that are evaluated: 1.4 M/s measured with the Bloom pipeline
	// holding still when empty, 0.39 M/s when all 64 stages shifted every
	// cycle (bloom_hash.sv); the floor sits halfway, with the same reasoning.
	CHECK(evaluated / cpu >= 0.7e6);
}

TEST_CASE("rtl:xdma simulates at least 1 M cycles per CPU second (H2C + C2H of 32 KiB)", "[rtl][speed]")
{
	// DMA beats keep the user side busy: nearly every cycle is evaluated, so
	// this is the evaluation speed of xdma_user_top. Measured (SIMULATED
	// cycles, CPU time, 4 runs each on the shared 2-core machine): 1.04 to
	// 1.32 M cycles/s while Verilator ran invoke_fn's 128-byte mask loop
	// rolled, every cycle (its default --unroll-count is 64); 2.2 to 2.8 M/s
	// with --unroll-count 256 (lib/rtl/CMakeLists.txt). The floor sits
	// between the two: it fails when the loop is rolled again.
	using namespace pioc;
	device dev = device::open("rtl:xdma");
	xdma::dma x(dev);
	auto &h2c = x.h2c(0), &c2h = x.c2h(0);
	constexpr std::size_t n = 32768;
	auto src = dev.alloc_dma(n), dst = dev.alloc_dma(n);
	for (std::size_t i = 0; i < n; ++i)
		static_cast<std::uint8_t *>(src.cpu)[i] = std::uint8_t(i * 7 + 1);
	auto &w = h2c.prepare(src, 0, n, R::BRAM.offset);
	auto &r = c2h.prepare(dst, 0, n, R::BRAM.offset);
	auto &rtl = dev.sim_link()->device();
	const auto s0 = rtl::stats_of(rtl);
	const double c0 = cpu_s();
	x.config().visit([&](const auto &io) {
		auto wo = h2c.ops(io);
		auto ro = c2h.ops(io);
		for (int i = 0; i < 100; ++i) {
			wo.submit(w);
			wo.wait(w);
			ro.submit(r);
			ro.wait(r);
		}
	});
	const double cpu = cpu_s() - c0;
	const auto s1 = rtl::stats_of(rtl);
	const double cycles = double(s1.cycles - s0.cycles), evaluated = double(s1.evaluated_cycles - s0.evaluated_cycles);
	WARN("rtl:xdma 100 x (H2C + C2H) of 32 KiB: " << cycles << " cycles (" << evaluated << " evaluated) in " << cpu
							<< " CPU s = " << cycles / cpu / 1e6 << " M cycles/s");
	CHECK(std::memcmp(src.cpu, dst.cpu, n) == 0);
	// A floor for gross slowdowns only: 1.04 .. 1.32 M/s before the
	// unrolling, 1.67 .. 2.8 after, on this machine kind; a floor between
	// the two would fail on a CPU 20% slower (CI's may be).
	CHECK(cycles / cpu >= 1.0e6);
}

TEST_CASE("rtl:coh: its speed, reported (Fig. 5a, 8 B .. 16 KiB), every answer checked", "[rtl][speed]")
{
	// ecibench invoke --device rtl:coh's loop: the engine is clocked only
	// while it has work (every such cycle evaluated). Measured (SIMULATED
	// cycles, CPU time, 4 runs each): 0.52 to 0.66 M cycles/s before, 0.90
	// to 1.24 M/s with the mask loop unrolled and no allocation per cycle in
	// the port checkers (coh_rtl.cpp); 0.79 in one later run on a loaded
	// machine. The two ranges nearly touch, so no floor here would be a
	// test that fails only on a slow change: the speed is reported, the
	// answers checked. The rest is the engine's own RTL
	// (Documentation/benchmarking.md).
	using namespace pioc;
	double cycles = 0, cpu = 0;
	for (std::size_t size : {8u, 120u, 1024u, 16384u}) {
		device dev = device::open("rtl:coh");
		auto &port = dev.coherent();
		auto &eng = port.start_invocations(coherent::engine_setup{});
		auto &sys = port.system();
		coherent::eci_sim_lines L(sys, eng.window_base());
		coherent::invoker<coherent::eci_sim_lines> inv(L, eng.channel_layout(0), coherent::cpu_options{});
		std::vector<std::uint8_t> req(size, 0x5a), resp(coherent::max_message);
		inv.call(req.data(), size, resp.data(), resp.size()); // warm up
		const std::uint64_t k0 = eng.cycles().value_or(0);
		const double c0 = cpu_s();
		for (int i = 0; i < 10; ++i)
			CHECK(inv.call(req.data(), size, resp.data(), resp.size()) == size);
		cpu += cpu_s() - c0;
		cycles += double(eng.cycles().value_or(0) - k0);
		CHECK(std::equal(req.begin(), req.end(), resp.begin()));
	}
	WARN("rtl:coh 4 sizes x 10 invocations: " << cycles << " engine cycles in " << cpu << " CPU s = "
						  << cycles / cpu / 1e6 << " M cycles/s");
}
