// The ECI model's CPU with weak load order (system::load_order): a load not
// ordered behind an earlier one by a barrier or an acquire may return its
// line's value from the CPU's last ordering point. First the model itself
// against the rules of the ARMv8 model (message passing needs the load
// barrier; same-address loads, the CPU's own stores and dc civac stay in
// order), then the Fig. 5 protocols and the device queue on top of the
// adversary and the store buffer: every answer right with the code's
// barriers while loads really come back old, wrong answers once the acquire's
// load barrier is ignored.
#include "fixture.hpp"

#include <pioc/coherent/queue.hpp>
#include <pioc/sim/eci_cq.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <map>

using namespace pioc;
using namespace fx;

namespace {

// ---------------------------------------------------------------- the model

/** Plain memory homed on the device; the test writes lines as the device. */
struct memory_device : sim::eci::device_engine {
	void on_request(sim::eci::engine_ctx &ctx, std::uint64_t addr, bool exclusive) override
	{
		ctx.answer(addr, exclusive);
	}
	bool plain_read(std::uint64_t) const override { return true; }
};

struct model_rig {
	sim::eci::system sys;
	memory_device dev;
	sim::eci::engine_ctx ctx{sys};
	model_rig() { sys.attach(&dev); }

	/** The device takes @p line back from the CPU and writes @p v into its
	 *  first word (runs as simulated time passes). */
	void device_write(std::uint64_t line, std::uint64_t v, std::function<void()> then = {})
	{
		ctx.clean_invalidate(line, [this, line, v, then = std::move(then)] {
			std::memcpy(ctx.data(line), &v, 8);
			ctx.unlock(line);
			if (then)
				then();
		});
	}
	std::uint64_t load(std::uint64_t addr)
	{
		std::uint64_t v;
		sys.cpu_load(addr, &v, 8);
		return v;
	}
};

constexpr std::uint64_t A = 0, B = 128, C = 256;

struct mp_result {
	unsigned mp = 0; // A read older than B
	std::uint64_t early = 0, stale = 0;
};

/** Message passing in the model: the device counts up, writing A then B;
 *  the CPU reads B, then A. Counts how often A was older than B (the MP
 *  outcome ARMv8 allows without a load barrier) and requires that loads of
 *  the same line never go back (CoRR), barrier or not. */
mp_result message_passing(bool barrier_between, std::uint64_t seed)
{
	model_rig r;
	r.sys.load_order(seed, 0.5);
	std::uint64_t g = 0;
	std::function<void()> tick = [&] {
		++g;
		r.device_write(A, g, [&] { r.device_write(B, g, [&] { r.ctx.at(r.ctx.now() + 40, tick); }); });
	};
	tick();
	mp_result out;
	std::uint64_t last_a = 0, last_b = 0;
	for (int i = 0; i < 3000; ++i) {
		const std::uint64_t b = r.load(B);
		if (barrier_between)
			r.sys.cpu_barrier(barrier::kind::load_load);
		const std::uint64_t a = r.load(A);
		out.mp += a < b;
		INFO("iteration " << i);
		REQUIRE(a >= last_a); // CoRR: a later load of the same bytes never reads older
		REQUIRE(b >= last_b);
		last_a = a, last_b = b;
		r.sys.cpu_spend(static_cast<double>(i % 7) * 10);
	}
	CHECK(g > 100); // the device really kept writing
	out.early = r.sys.load_order_early();
	out.stale = r.sys.load_order_stale();
	return out;
}

} // namespace

TEST_CASE("load order: without a load barrier the model lets a load pass a load (MP), with one never")
{
	const auto without = message_passing(false, 1);
	INFO("no barrier: " << without.mp << " of 3000 read A older than B; " << without.stale << " stale of "
			    << without.early << " early loads");
	CHECK(without.mp > 30);
	const auto with = message_passing(true, 1);
	INFO("load barrier: " << with.stale << " stale of " << with.early << " early loads");
	CHECK(with.mp == 0);
	CHECK(with.stale > 30); // loads still came back old, never past the barrier
	// dmb sy and dsb sy order loads too; dmb st, dsb st and the compiler
	// barrier do not (at rate 1 every load that may be early is).
	const std::pair<barrier::kind, std::uint64_t> kinds[] = {
		{barrier::kind::store_load, 9}, {barrier::kind::full, 9},  {barrier::kind::store_store, 0},
		{barrier::kind::wc_flush, 0},   {barrier::kind::compiler, 0}};
	for (auto [k, want] : kinds) {
		model_rig r;
		r.sys.load_order(2, 1.0);
		r.load(A);
		r.sys.cpu_barrier(barrier::kind::load_load);
		r.device_write(A, 9);
		r.sys.cpu_spend(2000);
		r.sys.cpu_barrier(k);
		CHECK(r.load(A) == want);
	}
}

TEST_CASE("load order: an ignored load barrier orders nothing")
{
	model_rig r;
	r.sys.load_order(3, 1.0);
	r.sys.ignore_barrier(barrier::kind::load_load);
	r.load(A);
	r.sys.cpu_barrier(barrier::kind::load_load);
	r.device_write(A, 5);
	r.sys.cpu_spend(2000);
	r.sys.cpu_barrier(barrier::kind::load_load);
	CHECK(r.load(A) == 0);
	r.sys.ignore_barrier(barrier::kind::load_load, false);
	r.sys.cpu_barrier(barrier::kind::load_load);
	CHECK(r.load(A) == 5);
}

TEST_CASE("load order: never older than the CPU's own store or the code's eviction of the line")
{
	// The device changes C after the ordering point; at rate 1 every load
	// that may be early is. Alone, the load reads the old value; after the
	// CPU's own store to the line, or dc civac of it, it may not.
	auto changed = [](model_rig &r) {
		r.sys.load_order(4, 1.0);
		r.load(C);
		r.sys.cpu_barrier(barrier::kind::load_load);
		r.device_write(C, 7);
		r.sys.cpu_spend(2000);
	};
	{
		model_rig r;
		changed(r);
		CHECK(r.load(C) == 0);
		CHECK(r.sys.load_order_early() == 1);
		CHECK(r.sys.load_order_stale() == 1);
	}
	{
		model_rig r;
		changed(r);
		const std::uint64_t mine = 3;
		r.sys.cpu_store(C + 8, &mine, 8); // other bytes of the line
		CHECK(r.load(C) == 7);
		CHECK(r.load(C + 8) == 3);
	}
	{
		model_rig r;
		changed(r);
		r.sys.store_buffer(5, 0.0001); // the store waits in the buffer
		const std::uint64_t mine = 3;
		r.sys.cpu_store(C, &mine, 8);
		CHECK(r.load(C) == 3); // the CPU reads its own buffered store
	}
	{
		model_rig r;
		changed(r);
		r.sys.cpu_evict(C);
		CHECK(r.load(C) == 7);
	}
}

// ---------------------------------------------------------------- protocols

namespace {

struct run_result {
	unsigned bad = 0;
	std::uint64_t early = 0, stale = 0;
};

/** The CPU as weak as the model makes it: evictions and speculative reads,
 *  buffered stores, early loads; barriers in @p ignored ignored. */
void weaken(sim::eci::system &s, std::uint64_t seed, std::vector<std::uint64_t> lines,
	    std::initializer_list<barrier::kind> ignored)
{
	s.adversary(seed, 0.2, std::move(lines));
	s.store_buffer(seed * 7 + 1, 0.3);
	s.load_order(seed * 13 + 5, 0.5);
	for (auto k : ignored)
		s.ignore_barrier(k);
}

const std::vector<std::size_t> sizes = {8, 119, 240, 700, 2000, 4000};

/** @p calls echo calls of variant @p v tagged with their number; every
 *  answer checked; each request runs once. */
run_result invocations(coherent::variant v, bool pipelined, std::uint64_t seed, unsigned calls,
		       std::initializer_list<barrier::kind> ignored)
{
	auto runs = std::make_shared<std::map<std::uint32_t, unsigned>>();
	sim::eci::engine_config e;
	e.v = v;
	e.data_lines = pipelined ? 40 : 0;
	e.handler = [runs](const std::uint8_t *q, std::size_t n, std::uint8_t *r, std::size_t) {
		std::uint32_t id = 0;
		std::memcpy(&id, q, std::min<std::size_t>(4, n));
		++(*runs)[id];
		std::memcpy(r, q, n);
		return n;
	};
	rig r(e);
	const auto lay = r.eng->channel_layout(0);
	weaken(*r.sys, seed, channel_lines(lay, r.eng->window_base()), ignored);
	coherent::cpu_options o;
	o.pipelined = pipelined;
	o.max_not_ready = 1000;
	auto inv = r.invoker(0, o);
	run_result out;
	out.bad = echo_calls(inv, calls, sizes);
	for (auto &[id, n] : *runs)
		out.bad += n > 1;
	out.early = r.sys->load_order_early();
	out.stale = r.sys->load_order_stale();
	return out;
}

/** Device-initiated messages (5b, 5d) to the receiver, each checked;
 *  with @p data_lines (5b) they come whole with data banks. */
run_result messages(coherent::variant v, std::uint64_t seed, unsigned count,
		    std::initializer_list<barrier::kind> ignored, std::uint32_t data_lines = 0)
{
	sim::eci::engine_config e;
	e.v = v;
	e.data_lines = data_lines;
	rig r(e);
	const auto lay = r.eng->channel_layout(0);
	weaken(*r.sys, seed, channel_lines(lay, r.eng->window_base()), ignored);
	coherent::cpu_options o;
	o.max_not_ready = 1000;
	auto rx = coherent::receiver<lines_t>(r.lines(), lay, o);
	auto msg = [](std::uint32_t id) {
		auto m = pattern(sizes[id % sizes.size()], id);
		std::memcpy(m.data(), &id, 4);
		return m;
	};
	for (std::uint32_t id = 1; id <= count; ++id)
		r.eng->post(0, msg(id), r.sys->now() + 200.0 * id);
	std::vector<std::uint8_t> buf(coherent::max_message);
	run_result out;
	for (std::uint32_t id = 1; id <= count; ++id) {
		const auto want = msg(id);
		std::size_t got = 0;
		try {
			got = rx.receive(buf.data(), buf.size(), 1000);
		} catch (const pioc::error &) {
			++out.bad;
			break;
		}
		if (got != want.size() || !std::equal(want.begin(), want.end(), buf.begin()))
			++out.bad;
	}
	out.early = r.sys->load_order_early();
	out.stale = r.sys->load_order_stale();
	return out;
}

} // namespace

// With the code's barriers no line changes between a load's ordering point
// and the load except by the adversary (an eviction, a "not ready" snapshot
// taken back): the early answers here are loads satisfied before those
// events, and "stale" can be told only where the model knows the line's
// content without asking the engine (not for control lines). The model test
// above shows the same mechanism returning old values.
TEST_CASE("load order: every Fig. 5 answer right with the code's barriers while loads are satisfied early")
{
	for (auto v : {coherent::variant::cpu_dev, coherent::variant::cpu_cpu})
		for (bool pipelined : {false, true})
			for (std::uint64_t seed : {1, 2, 3}) {
				const auto o = invocations(v, pipelined, seed, 1000, {});
				INFO(coherent::to_string(v) << (pipelined ? " pipelined" : "") << " seed " << seed << ": "
							    << o.early << " early loads, " << o.stale << " stale");
				CHECK(o.bad == 0);
				CHECK(o.early > 50);
			}
	for (auto v : {coherent::variant::dev_dev, coherent::variant::dev_cpu})
		for (std::uint64_t seed : {1, 2}) {
			const auto o = messages(v, seed, 1000, {});
			INFO(coherent::to_string(v) << " seed " << seed << ": " << o.early << " early loads, " << o.stale
						    << " stale");
			CHECK(o.bad == 0);
			CHECK(o.early > 50);
		}
	for (std::uint64_t seed : {1, 2, 3}) { // data banks: the whole message's lines after its control word
		const auto o = messages(coherent::variant::dev_dev, seed, 1000, {}, 40);
		INFO("5b with data banks, seed " << seed << ": " << o.early << " early loads, " << o.stale << " stale");
		CHECK(o.bad == 0);
		CHECK(o.early > 30); // 52..77 in seeds 1..3: fewer loads per message than line by line
	}
}

// Pipelined: the data lines are loaded after the control word; without the
// acquire's barrier they may be satisfied before the device wrote them. Line
// by line (5a, 5b): the payload shares the control word's line, so it comes
// back old only when the CPU held the line (a "not ready" snapshot from a
// speculative read) at the ordering point and lost it before the control
// load missed: rarer, still wrong. 5c/5d line by line are not shown here
// (none in 4 seeds x 4000): a CPU-homed line the CPU just lost is served
// from its DRAM, not by the device, unless the device took it back first,
// and the adversary leaves it no time to (protocols.md).
TEST_CASE("load order: without the acquire's load barrier the CPU copies answers older than the control word")
{
	for (auto v : {coherent::variant::cpu_dev, coherent::variant::cpu_cpu}) {
		const auto o = invocations(v, true, 1, 1000, {barrier::kind::load_load});
		INFO(coherent::to_string(v) << " pipelined: " << o.bad << " of 1000 wrong");
		CHECK(o.bad > 100);
	}
	const auto a = invocations(coherent::variant::cpu_dev, false, 1, 2000, {barrier::kind::load_load});
	INFO("5a line by line: " << a.bad << " of 2000 wrong");
	CHECK(a.bad > 0);
	const auto b = messages(coherent::variant::dev_dev, 1, 2000, {barrier::kind::load_load});
	INFO("5b: " << b.bad << " of 2000 wrong");
	CHECK(b.bad > 0);
	const auto w = messages(coherent::variant::dev_dev, 1, 1000, {barrier::kind::load_load}, 40);
	INFO("5b with data banks: " << w.bad << " of 1000 wrong");
	CHECK(w.bad > 100);
}

namespace {
/** Round trips over the CNI device queue, every response checked. */
run_result queue_round_trips(std::uint64_t seed, unsigned count, std::initializer_list<barrier::kind> ignored)
{
	sim::eci::system sys;
	sim::eci::cq_config q;
	q.entries = 8;
	sim::eci::cq_engine eng(sys, q);
	using ring_t = coherent::cq_ring<coherent::eci_sim_lines>;
	ring_t to(lines_t(sys, 0), eng.to_device_base(), eng.entries());
	ring_t from(lines_t(sys, 0), eng.from_device_base(), eng.entries());
	ring_t::sender tx(to);
	ring_t::receiver rx(from);
	std::vector<std::uint64_t> lines;
	for (std::uint32_t i = 0; i < eng.entries(); ++i) {
		lines.push_back(eng.to_device_base() + i * sys.cfg().line_size);
		lines.push_back(eng.from_device_base() + i * sys.cfg().line_size);
	}
	weaken(sys, seed, lines, ignored);
	run_result out;
	std::vector<std::uint8_t> buf(sys.cfg().line_size);
	for (unsigned i = 0; i < count; ++i) {
		auto m = pattern(8 + i % 100, i);
		std::memcpy(m.data(), &i, 4);
		tx.send(m.data(), m.size());
		const long n = rx.receive_for(buf.data(), buf.size(), 1e6);
		if (n != long(m.size()) || !std::equal(m.begin(), m.end(), buf.begin()))
			++out.bad;
	}
	out.early = sys.load_order_early();
	out.stale = sys.load_order_stale();
	return out;
}
} // namespace

TEST_CASE("load order: the device queue's receiver needs its acquire too")
{
	for (std::uint64_t seed : {1, 2}) {
		const auto o = queue_round_trips(seed, 1000, {});
		INFO("seed " << seed << ": " << o.early << " early loads, " << o.stale << " stale");
		CHECK(o.bad == 0);
		CHECK(o.stale > 0);
	}
	const auto o = queue_round_trips(1, 1000, {barrier::kind::load_load});
	INFO(o.bad << " of 1000 wrong without the load barrier");
	CHECK(o.bad > 0);
}
