// Speed of the Verilated images (issue 13) and what it must not change:
// skipping idle cycles (lib/rtl/rtl_clock.hpp) is invisible to the host,
// every value and every completion time is the one of a run that evaluates
// each cycle; and the simulator's speed, simulated cycles per CPU second,
// reported against floors that fail only with PIOC_SPEED_FLOORS=1.
#include "rtl/coh_rtl_engine.hpp"
#include "rtl/nic_dma_rtl.hpp"
#include "rtl/nic_eci_rtl_engine.hpp"
#include "rtl/nic_pio_rtl.hpp"
#include "rtl/nic_vs_model.hpp"
#include "rtl/rtl_devices.hpp"
#include "transport/sim_transport.hpp"
#include "common/sim.hpp"

#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/port.hpp>
#include <pioc/device.hpp>
#include <pioc/nic/dma_nic.hpp>
#include <pioc/nic/eci_nic.hpp>
#include <pioc/nic/pio_nic.hpp>
#include <pioc/pio.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_lines.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/regs/coh_dev.hpp>
#include <pioc/regs/nic_eci.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>
#include <type_traits>
#include <vector>

namespace R = pioc::regs::pio_dev;
using pioc::sim::target;

namespace {

/** Two runs' simulated times (or counter values), one by one: the first
 *  that differs is named. */
template <class T> void same_times(const std::vector<T> &a, const std::vector<T> &b, const char *what)
{
	REQUIRE(a.size() == b.size());
	for (std::size_t i = 0; i < a.size(); ++i) {
		INFO(what << " " << i);
		CHECK(a[i] == b[i]);
	}
}

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
	same_times(a.timing, b.timing, "completion time or CYCLES value");
	const auto sa = pioc::rtl::stats_of(*skipping), sb = pioc::rtl::stats_of(*every_cycle);
	CHECK(sa.cycles == sb.cycles);
	CHECK(sb.evaluated_cycles == sb.cycles);
	// The gaps were skipped: most of the time the image was idle.
	CHECK(sa.evaluated_cycles * 2 < sa.cycles);
	WARN("cycles " << sa.cycles << ", evaluated with skipping " << sa.evaluated_cycles);
}

/** What a host sees of rtl:xdma's DMA port (H2C and C2H of several sizes
 *  and alignments, descriptor chains, several requests in flight, all three
 *  completion modes) and of its bypass BAR (gappy_host): every byte that
 *  came back, every simulated time, the image's cycles. */
struct xdma_run {
	std::vector<std::uint8_t> data;
	std::vector<std::uint64_t> times, values;
	std::uint64_t cycles = 0, evaluated = 0;
};

xdma_run xdma_traffic(unsigned stall, bool one_eval)
{
	using namespace pioc;
	xdma_run out;
	detail::sim_device_entry e{"xdma_eval", "rtl:xdma, one or two evaluations per cycle", 0x10ee, 0x903f,
				   [=] { return rtl::make_xdma_rtl(stall, 7, true, one_eval); }, true};
	device dev(detail::open_sim(e, "pc-gen3x16"));
	xdma::options o;
	o.max_segment = 1024;  // larger transfers are descriptor chains
	xdma::dma x(dev, o);
	auto &h2c = x.h2c(0), &c2h = x.c2h(0);
	auto src = dev.alloc_dma(20480), dst = dev.alloc_dma(20480);
	for (std::size_t i = 0; i < 20480; ++i)
		static_cast<std::uint8_t *>(src.cpu)[i] = std::uint8_t(i * 11 + 3);
	x.config().visit([&](const auto &io) {
		auto wo = h2c.ops(io);
		auto ro = c2h.ops(io);
		for (auto mode : {xdma::completion::writeback, xdma::completion::count, xdma::completion::interrupt}) {
			h2c.set_completion(mode);
			c2h.set_completion(mode);
			for (std::size_t n : {1u, 8u, 63u, 1000u, 4096u, 9000u})
				for (std::size_t off : {0u, 5u}) {
					auto &w1 = h2c.prepare(src, off, n, R::BRAM.offset + off);
					auto &w2 = h2c.prepare(src, 10240 + off, n, R::BRAM.offset + 0x4000 + off);
					wo.submit(w1);
					wo.submit(w2);
					wo.wait(w1);
					wo.wait(w2);
					out.times.push_back(io.now_ns());
					auto &r = c2h.prepare(dst, off, 2 * n, R::BRAM.offset + 0x4000 - n + off);
					ro.submit(r);
					ro.wait(r);
					out.times.push_back(io.now_ns());
					const auto *d = static_cast<const std::uint8_t *>(dst.cpu) + off;
					out.data.insert(out.data.end(), d, d + 2 * n);
					h2c.release_all();
					c2h.release_all();
				}
		}
	});
	auto &t = dev.sim_link()->device();
	gappy_host h{t};
	h.now = rtl::stats_of(t).sim_ns + 1000;
	h.run(stall == 0);   // with stalls the NOT_READY retries are a matter of timing: leave them out
	out.values = h.values;
	out.times.insert(out.times.end(), h.timing.begin(), h.timing.end());
	const auto st = rtl::stats_of(t);
	out.cycles = st.cycles;
	out.evaluated = st.evaluated_cycles;
	return out;
}

/** What a CPU sees of the coherent engine over a run that makes it wait in
 *  every way it can: Fig. 5a calls of 8 B .. 16 KiB (ECHO, BLOOM) with gaps,
 *  DELAY against a short TIMEOUT (not-ready answers), Fig. 5b messages that
 *  come late (held reads that time out while the engine is quiet), a reset
 *  in the middle of a call, the seeded adversary throughout. Every answer,
 *  every simulated time, every engine cycle count and the engine's CYCLES
 *  and counter registers, in order. */
struct coh_run {
	std::vector<double> times;
	std::vector<std::uint64_t> seen;
	std::uint64_t cycles = 0, evaluated = 0;
	std::uint64_t not_ready_5a = 0, not_ready_5b = 0; // the run must have made both wait
};

coh_run coh_waits(bool skip)
{
	using namespace pioc;
	namespace C = regs::coh_dev;
	using lines_t = coherent::eci_sim_lines;
	coh_run out;
	sim::eci::system sys;
	rtl::coh_rtl_engine::options o;
	o.skip_idle = skip;
	o.timeout_cycles = 400;
	rtl::coh_rtl_engine eng(sys, o);
	sys.cpu_spend(5000);
	auto note = [&](std::uint64_t v) { out.seen.push_back(v); };
	auto regs = [&] {
		out.times.push_back(sys.now());
		note(eng.cycles());
		for (auto r : {C::CYCLES.offset, C::CYCLES.offset + 4, C::INVOKE_COUNT.offset, C::NOT_READY_COUNT.offset})
			note(eng.ctrl_read(std::uint32_t(r)));
	};
	const auto lay = eng.channel_layout(0), mlay = eng.message_layout();
	sys.adversary(3, 0.1, {lay.ctrl_off(0), lay.ctrl_off(1), mlay.ctrl_off(0), mlay.ctrl_off(1)});
	coherent::cpu_options co;
	co.max_not_ready = 100000;
	coherent::invoker<lines_t> inv(lines_t(sys, 0), lay, co);
	std::vector<std::uint8_t> resp(coherent::max_message);
	auto call = [&](std::size_t n) {
		std::vector<std::uint8_t> req(n);
		for (std::size_t i = 0; i < n; ++i)
			req[i] = std::uint8_t(i * 31 + n);
		std::size_t got = 0;
		try {
			got = inv.call(req.data(), n, resp.data(), resp.size());
		} catch (const pioc::error &x) {
			note(0xdead0000u + unsigned(x.code())); // out of step after the reset: resync
			inv.resync();
		}
		note(got);
		for (std::size_t i = 0; i < got; i += 8) {
			std::uint64_t w = 0;
			std::memcpy(&w, resp.data() + i, std::min<std::size_t>(8, got - i));
			note(w);
		}
		regs();
	};
	for (std::uint32_t op : {std::uint32_t(R::OP_ECHO), std::uint32_t(R::OP_BLOOM)}) {
		eng.set_op(op);
		for (std::size_t n : {8u, 120u, 121u, 1000u, 16384u}) {
			call(n);
			sys.cpu_spend(2345);
		}
	}
	eng.set_op(std::uint32_t(R::OP_NOT));
	eng.set_delay_cycles(1500); // longer than TIMEOUT: not-ready answers
	call(64);
	call(700);
	eng.set_delay_cycles(0);
	sim::eci::engine_ctx(sys).at(sys.now() + 300, [&] { eng.restart(); });
	call(200);
	call(64);
	// Fig. 5b: messages that come after the receiver's reads have timed out
	coherent::receiver<lines_t> rx(lines_t(sys, 0), mlay, co);
	std::vector<std::uint8_t> buf(coherent::max_message);
	for (std::uint32_t id = 1; id <= 6; ++id) {
		std::vector<std::uint8_t> m(id * 17, std::uint8_t(id));
		eng.post(m, sys.now() + 700.0 * id);
		note(rx.receive(buf.data(), buf.size(), 100000));
		note(buf[0]);
		note(rx.stats().not_ready);
		regs();
	}
	out.not_ready_5a = inv.stats().not_ready;
	out.not_ready_5b = rx.stats().not_ready;
	note(out.not_ready_5a);
	note(sys.adversary_evictions());
	out.cycles = eng.cycles();
	out.evaluated = eng.evaluated_cycles();
	return out;
}

/** Thread CPU seconds: a speed figure must not depend on the other jobs of
 *  a loaded machine, as wall time does. */
double cpu_s()
{
	timespec ts{};
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

/** A CPU-time speed figure against the floor measured for it on the
 *  development machine. CPU time still depends on the machine: on CI's
 *  runner rtl:xdma and rtl:pio ran at half this machine's speed, and one
 *  evaluation per cycle measured slower than two there, in the same
 *  process. So the floor fails the test only with PIOC_SPEED_FLOORS=1 (on
 *  the machine the figures were measured on, Documentation/testing.md);
 *  otherwise a figure under it is reported. What ctest always holds the
 *  code to are deterministic counts: the cycles evaluated (the cases
 *  above) and the instructions callgrind counts per simulated cycle
 *  (tests/rtl/check_rtl_instructions.sh). */
void speed_floor(double value, double floor, const char *what)
{
	static const bool enforce = [] {
		const char *e = std::getenv("PIOC_SPEED_FLOORS");
		return e && *e && std::string_view(e) != "0";
	}();
	INFO(what << ": " << value << " against a floor of " << floor);
	if (enforce)
		CHECK(value >= floor);
	else if (value < floor)
		WARN(what << ": " << value << " is under the floor of " << floor
			  << " measured on the development machine (reported only: PIOC_SPEED_FLOORS is unset)");
}

/** The instructions callgrind counts are those executed while this
 *  function is on the stack (--toggle-collect=pioc_rtl_counted in
 *  check_rtl_instructions.sh); noinline so that it has a frame. */
extern "C" __attribute__((noinline)) void pioc_rtl_counted(void (*fn)(void *), void *ctx)
{
	fn(ctx);
	asm volatile("" ::: "memory"); // not a tail call: the frame stays while fn runs
}

template <class F> void counted(F &&f)
{
	pioc_rtl_counted([](void *p) { (*static_cast<std::remove_reference_t<F> *>(p))(); }, &f);
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

TEST_CASE("rtl:xdma: one evaluation per cycle changes no value and no time the host sees", "[rtl][speed]")
{
	// Without and with random AXI stalls: the masters draw the same random
	// numbers when they see the same handshakes, so even the stalled runs
	// agree cycle for cycle.
	for (unsigned stall : {0u, 30u}) {
		INFO("stall " << stall << "%");
		const xdma_run a = xdma_traffic(stall, true), b = xdma_traffic(stall, false);
		CHECK(a.data == b.data);
		CHECK(a.values == b.values);
		same_times(a.times, b.times, "completion time or CYCLES value");
		CHECK(a.cycles == b.cycles);
		CHECK(a.evaluated == b.evaluated);
		WARN("rtl:xdma, stall " << stall << "%: " << a.cycles << " cycles, " << a.evaluated << " evaluated");
	}
}

TEST_CASE("rtl:pio's speed, floor 2 M cycles per CPU second (pciebench's 4 KiB write_read)", "[rtl][speed]")
{
	// Issue 13 asks for 5 M cycles/s on one core (87 .. 88 M measured here,
	// 47.6 M on CI's runner); the floor (speed_floor: enforced with
	// PIOC_SPEED_FLOORS=1) is 2.5x below the goal, while a return to
	// per-cycle evaluation of idle time (about 0.4 M cycles/s) or to
	// allocation per cycle fails it.
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
	speed_floor(cycles / cpu, 2e6, "rtl:pio cycles per CPU second");
	// The cycles that are evaluated: 1.4 M/s measured with the Bloom pipeline
	// holding still when empty, 0.39 M/s when all 64 stages shifted every
	// cycle (bloom_hash.sv); the floor sits halfway, with the same reasoning.
	speed_floor(evaluated / cpu, 0.7e6, "rtl:pio evaluated cycles per CPU second");
}

namespace {

/** @p rounds x (H2C + C2H of 32 KiB) on rtl:xdma @p dev: SIMULATED cycles
 *  and the CPU seconds they took; the data must come back. */
struct busy_speed {
	double cycles = 0, evaluated = 0, cpu = 0;
};
busy_speed xdma_busy(pioc::device &dev, int rounds)
{
	using namespace pioc;
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
	counted([&] {
		x.config().visit([&](const auto &io) {
			auto wo = h2c.ops(io);
			auto ro = c2h.ops(io);
			for (int i = 0; i < rounds; ++i) {
				wo.submit(w);
				wo.wait(w);
				ro.submit(r);
				ro.wait(r);
			}
		});
	});
	busy_speed b;
	b.cpu = cpu_s() - c0;
	const auto s1 = rtl::stats_of(rtl);
	b.cycles = double(s1.cycles - s0.cycles);
	b.evaluated = double(s1.evaluated_cycles - s0.evaluated_cycles);
	CHECK(std::memcmp(src.cpu, dst.cpu, n) == 0);
	return b;
}

} // namespace

TEST_CASE("rtl:xdma's speed, floor 3 M cycles per CPU second (H2C + C2H of 32 KiB)", "[rtl][speed]")
{
	// DMA beats keep the user side busy: nearly every cycle is evaluated, so
	// this is the evaluation speed of xdma_user_top. Measured (SIMULATED
	// cycles, CPU time, 4 runs each on the shared 2-core machine): 1.04 to
	// 1.32 M cycles/s while Verilator ran invoke_fn's 128-byte mask loop
	// rolled; 1.67 to 2.8 M/s with --unroll-count 256; 2.8 to 3.9 M/s (load
	// average near 8) with the handshake checkers copying payloads only
	// while a transfer waits and Verilator's -fno-localize (no wide locals
	// zeroed per evaluation, lib/rtl/CMakeLists.txt); 4.5 .. 4.6 M/s before
	// session 8 and 4.9 .. 5.1 M/s after it (one evaluation per cycle,
	// cheaper AXI masters; load average 9 .. 12); 2.73 M/s on CI's runner
	// (session 13), whose caches or clock are not this machine's.
	pioc::device dev = pioc::device::open("rtl:xdma");
	const busy_speed b = xdma_busy(dev, 100);
	WARN("rtl:xdma 100 x (H2C + C2H) of 32 KiB: " << b.cycles << " cycles (" << b.evaluated << " evaluated) in "
						      << b.cpu << " CPU s = " << b.cycles / b.cpu / 1e6 << " M cycles/s");
	// Session 8's gain (about 1.1x) is smaller than the spread between
	// machines and loads, so this absolute floor only catches gross
	// slowdowns (the rolled loop, 1.04 .. 1.32; per-cycle allocation), with
	// a third to spare below the slowest run measured before session 8; the
	// next test catches the loss of one evaluation per cycle by a ratio.
	speed_floor(b.cycles / b.cpu, 3.0e6, "rtl:xdma cycles per CPU second");
}

namespace {

pioc::device open_xdma_evals(bool one_eval)
{
	using namespace pioc;
	detail::sim_device_entry e{"xdma_eval", "rtl:xdma, one or two evaluations per cycle", 0x10ee, 0x903f,
				   [=] { return rtl::make_xdma_rtl(0, 1, true, one_eval); }, true};
	return device(detail::open_sim(e, "pc-gen3x16"));
}

} // namespace

TEST_CASE("rtl:xdma: one evaluation per cycle against two, CPU time (H2C + C2H of 32 KiB)", "[rtl][speed]")
{
	// The same program with one and with two evaluations per cycle,
	// alternately, three times each; the fastest run of each counts (the
	// least disturbed by other jobs). A ratio in one process, yet still a
	// timing: on CI's runner (session 13) one evaluation measured 0.89x as
	// fast as two. The instructions per cycle, which do not depend on the
	// machine, are checked by rtl.instructions.
	using namespace pioc;
	device one = open_xdma_evals(true), two = open_xdma_evals(false);
	xdma_busy(one, 2);   // warm up
	xdma_busy(two, 2);
	double best_one = 1e9, best_two = 1e9, cycles = 0;
	for (int i = 0; i < 3; ++i) {
		const busy_speed a = xdma_busy(one, 30), b = xdma_busy(two, 30);
		CHECK(a.cycles == b.cycles);
		cycles = a.cycles;
		best_one = std::min(best_one, a.cpu);
		best_two = std::min(best_two, b.cpu);
	}
	WARN("rtl:xdma 30 x (H2C + C2H) of 32 KiB, " << cycles << " cycles: one evaluation per cycle "
		<< cycles / best_one / 1e6 << " M cycles/s, two " << cycles / best_two / 1e6 << " M cycles/s: "
		<< best_two / best_one << "x");
	// Measured 1.12 .. 1.13x (load average 9 .. 12); about 1.0 with
	// make_xdma_rtl() ignoring one_eval. The floor: half the gain.
	speed_floor(best_two / best_one, 1.06, "rtl:xdma one evaluation per cycle against two, speed-up");
}

TEST_CASE("rtl:xdma under callgrind: PIOC_RTL_EVALS (1 or 2) evaluations per cycle, PIOC_RTL_ROUNDS rounds",
	  "[.][rtl_xdma_counted]")
{
	// Driven by tests/rtl/check_rtl_instructions.sh (ctest rtl.instructions),
	// which counts the instructions inside pioc_rtl_counted: only the rounds,
	// not the image's construction or the buffers' set-up.
	const char *evals = std::getenv("PIOC_RTL_EVALS"), *rounds = std::getenv("PIOC_RTL_ROUNDS");
	REQUIRE(evals);
	REQUIRE(rounds);
	pioc::device dev = open_xdma_evals(std::string_view(evals) == "1");
	const busy_speed b = xdma_busy(dev, std::atoi(rounds));
	std::printf("rtl:xdma rounds %d evals %s cycles %.0f evaluated %.0f\n", std::atoi(rounds), evals, b.cycles,
		    b.evaluated);
}

TEST_CASE("rtl:coh's speed, floor 4 M engine cycles per CPU second (Fig. 5a, 8 B .. 16 KiB)", "[rtl][speed]")
{
	// ecibench invoke --device rtl:coh's loop: the engine is clocked only
	// while it has work. Measured (SIMULATED engine cycles, CPU time, runs
	// on the shared 2-core machine): 0.52 to 0.66 M cycles/s before session
	// 6, 0.79 to 1.24 M/s after it; 1.6 to 1.7 M/s evaluating every edge
	// with -fno-localize and the unpacked line storage; 7.4 to 9.5 M/s
	// leaving out the edges in which the engine only waits (coh_rtl.cpp,
	// coh_engine.sv's quiet). The floor fails with that turned off (checked
	// with coh_engine_rtl::options::skip_idle false by default) and leaves
	// twice the margin for a slower machine.
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
	speed_floor(cycles / cpu, 4e6, "rtl:coh engine cycles per CPU second");
}

TEST_CASE("rtl:coh: leaving out the edges in which the engine only waits changes no value, time or cycle", "[rtl][speed]")
{
	const coh_run a = coh_waits(true), b = coh_waits(false);
	CHECK(a.seen == b.seen);
	same_times(a.times, b.times, "simulated time");
	CHECK(a.cycles == b.cycles);
	CHECK(b.evaluated == b.cycles);
	// Most of the engine's cycles are waits for the CPU and the link.
	CHECK(a.evaluated * 2 < a.cycles);
	CHECK(a.not_ready_5a > 0);
	CHECK(a.not_ready_5b > 0);
	WARN("rtl:coh: " << a.cycles << " engine cycles, " << a.evaluated << " evaluated with skipping; not ready "
			 << a.not_ready_5a << " (5a), " << a.not_ready_5b << " (5b)");
}

namespace {

/** An AXI4 slave that breaks the R channel's rules: RVALID up from the
 *  start (no read asked for) with RDATA changing at every edge, or RVALID
 *  dropped every third edge, while the master never takes a beat. */
struct bad_r_slave {
	std::uint8_t clk = 0, rst_n = 0;
	std::uint8_t awvalid = 0, awready = 1, awid = 0, awlen = 0, awsize = 0, awburst = 0;
	std::uint32_t awaddr = 0;
	std::uint8_t wvalid = 0, wready = 1, wstrb = 0, wlast = 0;
	std::uint64_t wdata = 0;
	std::uint8_t bvalid = 0, bready = 0, bid = 0, bresp = 0;
	std::uint8_t arvalid = 0, arready = 1, arid = 0, arlen = 0, arsize = 0, arburst = 0;
	std::uint32_t araddr = 0;
	std::uint8_t rvalid = 1, rready = 0, rid = 0, rresp = 0, rlast = 1;
	std::uint64_t rdata = 0;
	bool drop = false;
	std::uint8_t prev_clk = 0;
	std::uint64_t edges = 0;
	void eval()
	{
		if (clk && !prev_clk) {
			++edges;
			if (drop)
				rvalid = edges % 3 != 0;
			else
				rdata = edges;
		}
		prev_clk = clk;
	}
	void final() {}
};

std::vector<std::string> errors_of(bool drop)
{
	std::vector<std::string> errors;
	pioc::tb::sim<bad_r_slave> s;
	s.m->drop = drop;
	pioc::tb::axi4_master<std::uint32_t> m("m", PIOC_AXI4_PORT(s.m.get(), ), &s.rng, &errors);
	m.stall_ready.percent = 100;   // RREADY never: the beat waits
	s.add(&m);
	s.reset();
	for (int i = 0; i < 10; ++i)
		s.step();
	return errors;
}

} // namespace

TEST_CASE("the AXI masters' checkers, which read a payload only while a transfer waits, still find violations",
	  "[rtl][speed]")
{
	const auto changed = errors_of(false), dropped = errors_of(true);
	REQUIRE(!changed.empty());
	CHECK(changed.front().find("m.R @") == 0);
	CHECK(changed.front().find("payload changed while valid and not ready") != std::string::npos);
	REQUIRE(!dropped.empty());
	CHECK(dropped.front().find("valid dropped before ready") != std::string::npos);
	CHECK(std::all_of(dropped.begin(), dropped.end(),
			  [](const std::string &e) { return e.find("payload") == std::string::npos; }));
}

namespace {

/** What a host sees of rtl:nic_pio over nicbench's loops, and what it cost:
 *  frames one at a time, polled (nicbench rx waiting for RX first, tx for
 *  TX first), then by interrupt (--rx-wait irq), then a burst (nicbench
 *  throughput). Every frame, every latency and stamp, the host clock after
 *  each. */
struct nic_run {
	std::vector<pioc::nic::vs_model::sample> pings;
	std::vector<std::pair<pioc::nic::vs_model::frame, std::uint64_t>> burst;
	std::vector<std::uint64_t> times; ///< host clock and MAC stamps, in order
	std::uint64_t cycles = 0, evaluated = 0;
	double cpu = 0;
};

/** What a stretch of a run cost the image @p t: the CPU time and the
 *  simulated and evaluated cycles from construction to into(). */
class run_cost {
public:
	explicit run_cost(const target &t) : t_(t), s0_(pioc::rtl::stats_of(t)), c0_(cpu_s()) {}
	void into(nic_run &out) const
	{
		out.cpu = cpu_s() - c0_;
		const auto s1 = pioc::rtl::stats_of(t_);
		out.cycles = s1.cycles - s0_.cycles;
		out.evaluated = s1.evaluated_cycles - s0_.evaluated_cycles;
	}

private:
	const target &t_;
	pioc::rtl::rtl_stats s0_;
	double c0_;
};

/** A Verilated NIC image that @p make builds (idle cycles skipped or not),
 *  opened as device @p name with PCI device ID @p id on a Gen3 x16 link. */
template <class F> pioc::device image_device(const char *name, std::uint16_t id, F make)
{
	pioc::detail::sim_device_entry e{name, "a Verilated NIC image, idle cycles skipped or not", 0x10ee, id,
					 make, true};
	return pioc::device(pioc::detail::open_sim(e, "pc-gen3x16"));
}

/** @p rounds of @p frames one at a time, polled (TX answered first in even
 *  rounds, RX in odd ones): each frame's latencies and the host clock after
 *  it into @p out. */
template <class Nic>
void ping_rounds(Nic &nic, const std::vector<std::vector<std::byte>> &frames, unsigned rounds, nic_run &out)
{
	using namespace pioc::nic::vs_model;
	const pioc::nic::clock_map clk = nic.clock();
	for (unsigned r = 0; r < rounds; ++r)
		for (const frame &f : frames) {
			out.pings.push_back(one_frame(nic, f, clk, r % 2 ? first::rx : first::tx));
			out.times.push_back(nic.host_ns());
		}
}

/** Each of @p frames sent and received by interrupt (wait_rx), checked;
 *  the host clock, the RX and the TX stamp of each into @p times. */
template <class Nic> void irq_round(Nic &nic, const std::vector<std::vector<std::byte>> &frames,
				    std::vector<std::uint64_t> &times)
{
	std::vector<std::byte> buf(pioc::nic::mtu);
	for (const auto &f : frames) {
		REQUIRE(nic.send(f));
		REQUIRE(nic.wait_rx(buf, nic.host_ns() + 1000000000) == f.size());
		CHECK(std::equal(f.begin(), f.end(), buf.begin()));
		times.push_back(nic.host_ns());
		times.push_back(nic.last_rx().mac_cycle);
		pioc::nic::tx_info ti;
		while (!nic.poll_tx(ti)) {
		}
		times.push_back(ti.mac_cycle);
	}
}

nic_run nic_pio_traffic(bool skip, unsigned rounds)
{
	using namespace pioc;
	using namespace pioc::nic::vs_model;
	nic_run out;
	device dev = image_device("nic_pio_skip", 0x9048, [=] { return rtl::make_nic_pio_rtl(0, 1, skip); });
	auto &t = dev.sim_link()->device();
	const auto frames = frames_for(9, 8);
	nic::with_pio_nic(dev, {8, 8}, [&](auto &nic) {
		const run_cost cost(t);
		ping_rounds(nic, frames, rounds, out);
		nic.use_rx_interrupt(nic::pio_nic_rx_interrupt(dev));
		irq_round(nic, frames, out.times);
		out.burst = burst(nic, frames);
		out.times.push_back(nic.host_ns());
		cost.into(out);
	});
	return out;
}

} // namespace

namespace {

/** Two runs of one host program, skipping idle cycles (@p a) and evaluating
 *  each (@p b): every frame, latency, stamp and host time the same, the
 *  same cycles, and most of them left out in @p a (a polling host leaves the
 *  image idle most of the time). */
void same_nic_runs(const nic_run &a, const nic_run &b, const char *name)
{
	REQUIRE(a.pings.size() == b.pings.size());
	for (std::size_t i = 0; i < a.pings.size(); ++i) {
		INFO("frame " << i);
		CHECK(a.pings[i].rx == b.pings[i].rx);
		CHECK(a.pings[i].tx_ns == b.pings[i].tx_ns);
		CHECK(a.pings[i].rx_ns == b.pings[i].rx_ns);
		CHECK(a.pings[i].tx_cycles == b.pings[i].tx_cycles);
		CHECK(a.pings[i].rx_cycles == b.pings[i].rx_cycles);
	}
	CHECK(a.burst == b.burst);
	same_times(a.times, b.times, "host time or MAC stamp");
	CHECK(a.cycles == b.cycles);
	CHECK(b.evaluated == b.cycles);
	CHECK(a.evaluated * 2 < a.cycles);
	WARN(name << ": " << a.cycles << " cycles, " << a.evaluated << " evaluated with skipping");
}

/** The same host program skipping idle cycles and evaluating each, in one
 *  process: the simulated cycles per CPU second against @p floor, and the
 *  speed-up against @p gain (speed_floor: reported, enforced only with
 *  PIOC_SPEED_FLOORS=1). */
void nic_speed(nic_run (*traffic)(bool, unsigned), const char *name, double floor, double gain)
{
	const nic_run on = traffic(true, 6), off = traffic(false, 6);
	const double son = double(on.cycles) / on.cpu, soff = double(off.cycles) / off.cpu;
	WARN(name << " " << on.cycles << " cycles: " << son / 1e6 << " M cycles/s skipping idle cycles ("
		  << on.evaluated << " evaluated), " << soff / 1e6 << " M cycles/s evaluating each");
	CHECK(on.cycles == off.cycles);
	speed_floor(son, floor, (std::string(name) + " cycles per CPU second").c_str());
	speed_floor(son / soff, gain, (std::string(name) + " speed-up from skipping idle cycles").c_str());
}

} // namespace

TEST_CASE("rtl:nic_pio: skipping idle cycles changes no frame, stamp or time the host sees", "[rtl][speed]")
{
	same_nic_runs(nic_pio_traffic(true, 2), nic_pio_traffic(false, 2), "rtl:nic_pio");
}

TEST_CASE("rtl:nic_pio's speed, floor 15 M cycles per CPU second (nicbench rx, tx, irq, throughput)",
	  "[rtl][speed]")
{
	// The same host program skipping idle cycles and evaluating each, in one
	// process. Measured (SIMULATED cycles, thread CPU time, shared 2-core
	// machine, load average 4 .. 8): 42 .. 61 M cycles/s skipping (6 % of
	// the cycles evaluated), 3.9 .. 4.5 M/s evaluating each. The floor
	// leaves about 3x for a slower or busier machine and is over 3x what
	// evaluating every cycle reaches; the ratio (10 .. 14x measured, 13.5x
	// on CI's runner) falls to about 1 without the skip. Both are timings
	// (speed_floor); the deterministic check of the skip is the case above.
	nic_speed(nic_pio_traffic, "rtl:nic_pio", 15e6, 4);
}

namespace {

/** What a host sees of rtl:nic_dma over nicbench's loops and what it cost,
 *  as nic_run: frames one at a time, polled (RX first, then TX first),
 *  a burst, then, after a function reset, by interrupt (a second open, as
 *  a second nicbench run with --rx-wait irq through pioc.ko). */
nic_run nic_dma_traffic(bool skip, unsigned rounds)
{
	using namespace pioc;
	using namespace pioc::nic::vs_model;
	nic_run out;
	device dev = image_device("nic_dma_skip", 0x9049, [=] { return rtl::make_nic_dma_rtl(0, 1, skip); });
	auto &t = dev.sim_link()->device();
	const auto frames = frames_for(11, 8);
	const run_cost cost(t);
	nic::with_dma_nic(dev, {8, 8}, [&](auto &nic) {
		ping_rounds(nic, frames, rounds, out);
		out.burst = burst(nic, frames);
		out.times.push_back(nic.host_ns());
	});
	// pioc.ko's reset at the last close: the next process's NIC counts its
	// frames from 0 again (dma_nic_reset_test.cpp)
	dev.get_transport().function_reset();
	nic::with_dma_nic(
		dev, {8, 8},
		[&](auto &nic) { irq_round(nic, frames, out.times); }, true);
	cost.into(out);
	return out;
}

} // namespace

TEST_CASE("rtl:nic_dma: skipping idle cycles changes no frame, stamp or time the host sees", "[rtl][speed]")
{
	// Between frames (the engine model's descriptor fetches, the host's
	// polls) the image holds no frame: most cycles pass unevaluated.
	same_nic_runs(nic_dma_traffic(true, 2), nic_dma_traffic(false, 2), "rtl:nic_dma");
}

TEST_CASE("rtl:nic_dma's speed, floor 4 M cycles per CPU second (nicbench's loops, opens included)", "[rtl][speed]")
{
	// As rtl:nic_pio's. Measured (SIMULATED cycles, thread CPU time, the
	// 2-vCPU development VM, load average 0.8): 8.2 .. 8.5 M cycles/s
	// skipping (24 % of the cycles evaluated), 5.4 M/s evaluating each; the
	// engine model, the driver and the two opens are most of the rest, so
	// the ratio is 1.6 here (nicbench's default runs: 12.7 .. 23 M against
	// 4.7 .. 5.1 M before the skip). The floors leave 2x.
	nic_speed(nic_dma_traffic, "rtl:nic_dma", 4e6, 1.25);
}

namespace {

/** What the driver sees of rtl:nic_eci over nicbench rx's loop (a frame
 *  sent, its TX answer, then polled until it is back; an RX poll with
 *  nothing to deliver first, which waits for the not-ready answer), and
 *  what it cost: every frame's bytes, TX and RX stamps, the host clock
 *  after each step, the image's cycles. */
struct nic_eci_run {
	std::vector<std::vector<std::byte>> frames;
	std::vector<std::uint64_t> times; ///< host clock, MAC stamps, CYCLES, in order
	std::uint64_t cycles = 0, evaluated = 0, features = 0;
	double cpu = 0;
};

nic_eci_run nic_eci_traffic(bool skip, bool rx_banks, unsigned per_size, bool tx_banks = false,
			    bool one_eval = true, unsigned stall = 0)
{
	using namespace pioc;
	nic_eci_run out;
	sim::eci::system sys;
	rtl::nic_eci_rtl_engine::options o;
	o.skip_idle = skip;
	o.rx_banks = rx_banks;
	o.tx_banks = tx_banks;
	o.one_eval = one_eval;
	o.stall_percent = stall;
	rtl::nic_eci_rtl_engine eng(sys, o);
	nic::eci_nic<coherent::eci_sim_lines> n(coherent::eci_sim_lines(sys, 0), nic::ring_sizes{8, 8}, "rtl:nic_eci");
	out.features = n.features();
	std::vector<std::byte> buf(nic::mtu);
	const double c0 = cpu_s();
	out.times.push_back(n.poll_rx(buf)); // nothing sent: held, then not ready
	out.times.push_back(n.host_ns());
	std::uint8_t fill = 1;
	for (std::size_t len : {60u, 64u, 121u, 1536u, 9600u})
		for (unsigned i = 0; i < per_size; ++i) {
			std::vector<std::byte> f(len);
			for (auto &b : f)
				b = std::byte(fill += 37);
			REQUIRE(n.send(f));
			nic::tx_info ti;
			REQUIRE(n.poll_tx(ti));
			out.times.push_back(ti.mac_cycle);
			out.times.push_back(n.host_ns());
			std::size_t got = 0;
			for (int k = 0; k < 1000 && got == 0; ++k)
				got = n.poll_rx(buf);
			REQUIRE(got == len);
			out.frames.emplace_back(buf.begin(), buf.begin() + std::ptrdiff_t(got));
			CHECK(out.frames.back() == f);
			out.times.push_back(n.last_rx().mac_cycle);
			out.times.push_back(n.host_ns());
			sys.cpu_spend(double(1000 * (i % 3))); // the host away now and then: the image idles
		}
	out.times.push_back(n.now());
	out.cpu = cpu_s() - c0;
	out.cycles = eng.cycles();
	out.evaluated = eng.evaluated_cycles();
	CHECK(eng.ports().protocol_errors().empty());
	return out;
}

} // namespace

TEST_CASE("rtl:nic_eci: leaving out the quiet edges changes no frame, stamp, time or cycle", "[rtl][speed]")
{
	namespace N = pioc::regs::nic_eci;
	for (int mode = 0; mode < 3; ++mode) {
		const bool banks = mode > 0, tx = mode == 2; // line by line, RX banks, RX and TX banks
		INFO("rx_banks " << banks << " tx_banks " << tx);
		const nic_eci_run a = nic_eci_traffic(true, banks, 2, tx), b = nic_eci_traffic(false, banks, 2, tx);
		CHECK(a.features == ((banks ? N::FEAT_RX_BANKS : 0) | (tx ? N::FEAT_TX_BANKS : 0) |
				     (banks ? std::uint64_t(N::BANK_LINES) << N::FEAT_LINES_SHIFT : 0)));
		CHECK(a.frames == b.frames);
		same_times(a.times, b.times, "host time, MAC stamp or CYCLES value");
		CHECK(a.cycles == b.cycles);
		// Most of the edges the clock ticks through are waits for the CPU and
		// the link (about 8x line by line, 5x with RX banks, 2.7x with RX and
		// TX banks, whose exchanges are few and whose frames keep the MAC busy).
		CHECK(a.evaluated * 2 < b.evaluated);
		WARN("rtl:nic_eci (rx_banks " << banks << ", tx_banks " << tx << "): " << a.cycles << " cycles, " << b.evaluated
					      << " ticked, " << a.evaluated << " evaluated leaving out the quiet ones");
	}
}

TEST_CASE("rtl:nic_eci: one evaluation per edge changes no frame, stamp, time or cycle", "[rtl][speed]")
{
	// nic_eci_top's every sampled output is a register's (its rdreq_ready
	// too, since it stopped following the request's address), so the
	// evaluation before the edge that settled the inputs is left out. With
	// random stalls (drawn in the same order by both) and quiet edges left
	// out (the same edges by both).
	for (int mode = 0; mode < 3; ++mode) {
		const bool banks = mode > 0, tx = mode == 2;
		INFO("rx_banks " << banks << " tx_banks " << tx);
		const nic_eci_run a = nic_eci_traffic(true, banks, 2, tx, true, 20),
				  b = nic_eci_traffic(true, banks, 2, tx, false, 20);
		CHECK(a.frames == b.frames);
		same_times(a.times, b.times, "host time, MAC stamp or CYCLES value");
		CHECK(a.cycles == b.cycles);
		CHECK(a.evaluated == b.evaluated);
	}
}

TEST_CASE("rtl:nic_eci's speed, floor 5 M cycles per CPU second (nicbench rx's loop)", "[rtl][speed]")
{
	// Issue 13 asks for 5 M simulated cycles per CPU second. Measured
	// (SIMULATED cycles, thread CPU time, shared 2-core machine): nicbench rx
	// --path eci --device rtl:nic_eci 3.2 M/s before the image's quiet
	// output (471 k of 919 k cycles evaluated), 11.9 M/s with it (56 k);
	// this loop, see the WARN (13.2 M/s on CI's runner). The floor is the
	// issue's goal; evaluating every edge the clock ticks through fails it,
	// and the ratio falls to about 1 without the skip. Both are timings
	// (speed_floor); the deterministic check of the skip is the case above.
	for (bool banks : {false, true}) {
		INFO("rx_banks " << banks);
		const nic_eci_run on = nic_eci_traffic(true, banks, 4), off = nic_eci_traffic(false, banks, 4);
		const double son = double(on.cycles) / on.cpu, soff = double(off.cycles) / off.cpu;
		WARN("rtl:nic_eci (rx_banks " << banks << ") " << on.cycles << " cycles: " << son / 1e6
					      << " M cycles/s leaving out quiet edges (" << on.evaluated << " evaluated), "
					      << soff / 1e6 << " M cycles/s evaluating each (" << off.evaluated << ")");
		CHECK(on.cycles == off.cycles);
		speed_floor(son, 5e6, "rtl:nic_eci cycles per CPU second");
		speed_floor(son / soff, 2, "rtl:nic_eci speed-up from leaving out quiet edges");
	}
}
