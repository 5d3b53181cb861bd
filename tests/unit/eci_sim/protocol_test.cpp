// The Fig. 5 protocols against the ECI model: message counts, modelled
// latency, all four variants at every payload size, evictions, "not ready",
// parity resync, TAD placement and bad input.
#include "fixture.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <optional>

using namespace pioc;
using namespace fx;
using sim::eci::msg;

namespace {
struct one_call {
	double ns;
	sim::eci::counters d;
};
template <class Inv> one_call timed_call(rig &r, Inv &inv, const std::vector<std::uint8_t> &req, std::vector<std::uint8_t> &resp)
{
	auto c0 = r.sys->stats();
	double t0 = r.sys->now();
	auto n = inv.call(req.data(), req.size(), resp.data(), resp.size());
	REQUIRE(n == req.size());
	REQUIRE(std::equal(req.begin(), req.end(), resp.begin()));
	return {r.sys->now() - t0, r.sys->stats() - c0};
}
} // namespace

TEST_CASE("Fig. 5a with the Exclusive answer: two round trips, four messages, ~900 ns")
{
	rig r;
	auto inv = r.invoker();
	std::vector<std::uint8_t> resp(256);
	timed_call(r, inv, pattern(64, 0), resp); // first call: the CPU does not hold B yet
	std::vector<double> t;
	for (unsigned i = 1; i <= 50; ++i) {
		auto c = timed_call(r, inv, pattern(64, i), resp);
		CHECK(c.d.round_trips == 2);
		CHECK(c.d.link_messages() == 4);
		CHECK(c.d[msg::RLDD] == 1);
		CHECK(c.d[msg::FEVX_EH] == 1);
		CHECK(c.d[msg::VICD] == 1);
		CHECK(c.d[msg::PEMD] == 1);
		CHECK(c.d[msg::PSHA] == 0);
		CHECK(c.d[msg::LCI] == 1);
		t.push_back(c.ns);
	}
	double m = median(t);
	INFO("median " << m << " ns");
	CHECK(m > 800);
	CHECK(m < 1000);
	// End state = start state with A and B swapped (paper Sec. 5).
	auto lay = r.eng->channel_layout(0);
	unsigned just = inv.parity() ^ 1;
	CHECK(r.sys->cpu_state(lay.ctrl_off(just)) == sim::eci::line_state::E);
	CHECK(r.sys->cpu_state(lay.ctrl_off(inv.parity())) == sim::eci::line_state::I);
}

TEST_CASE("Fig. 5a answering Shared costs more round trips and ~1.5x the latency")
{
	sim::eci::engine_config e;
	e.answer_exclusive = false;
	rig r(e);
	auto inv = r.invoker();
	std::vector<std::uint8_t> resp(256);
	timed_call(r, inv, pattern(64, 0), resp);
	std::vector<double> t;
	for (unsigned i = 1; i <= 50; ++i) {
		auto c = timed_call(r, inv, pattern(64, i), resp);
		CHECK(c.d.round_trips == 3);
		CHECK(c.d[msg::RC2D_S] == 1); // the store to the Shared line must upgrade
		CHECK(c.d[msg::PSHA] == 1);
		t.push_back(c.ns);
	}
	rig rx;
	auto ix = rx.invoker();
	timed_call(rx, ix, pattern(64, 0), resp);
	double ex = timed_call(rx, ix, pattern(64, 1), resp).ns;
	double m = median(t);
	INFO("shared median " << m << " ns, exclusive " << ex << " ns");
	CHECK(m > ex + 400);
	CHECK(m < 1800);
}

TEST_CASE("all four variants carry every payload size intact")
{
	for (auto v : {coherent::variant::cpu_dev, coherent::variant::cpu_cpu}) {
		sim::eci::engine_config e;
		e.v = v;
		rig r(e);
		auto inv = r.invoker();
		std::vector<std::uint8_t> resp(coherent::max_message);
		for (std::size_t n : {1, 8, 64, 119, 120, 121, 128, 240, 1000, 4096, 8192, 16384}) {
			auto req = pattern(n, static_cast<unsigned>(n));
			auto got = inv.call(req.data(), n, resp.data(), resp.size());
			INFO("variant " << coherent::to_string(v) << " payload " << n);
			REQUIRE(got == n);
			CHECK(std::equal(req.begin(), req.end(), resp.begin()));
		}
	}
	for (auto v : {coherent::variant::dev_dev, coherent::variant::dev_cpu}) {
		sim::eci::engine_config e;
		e.v = v;
		rig r(e);
		auto rx = r.receiver();
		std::vector<std::uint8_t> buf(coherent::max_message);
		std::uint32_t seq = 0;
		for (std::size_t n : {1, 8, 120, 121, 128, 1000, 4096, 16384}) {
			auto m = pattern(n, static_cast<unsigned>(n));
			r.eng->post(0, m, r.sys->now() + 3000);
			auto got = rx.receive(buf.data(), buf.size(), 10);
			INFO("variant " << coherent::to_string(v) << " payload " << n);
			REQUIRE(got == n);
			CHECK(std::equal(m.begin(), m.end(), buf.begin()));
			CHECK(rx.last_seq() - rx.session() == ++seq); // none lost, none duplicated
		}
	}
}

TEST_CASE("Fig. 5b: the load blocks until the device has a message; the next load acknowledges it")
{
	sim::eci::engine_config e;
	e.v = coherent::variant::dev_dev;
	rig r(e);
	auto rx = r.receiver();
	std::uint8_t buf[128];
	double t0 = r.sys->now();
	r.eng->post(0, pattern(32, 1), t0 + 50000);
	REQUIRE(rx.receive(buf, sizeof buf) == 32);
	CHECK(r.sys->now() >= t0 + 50000); // blocked in the load, no spinning
	CHECK(rx.stats().exchanges == 1);
	r.eng->post(0, pattern(32, 2));
	REQUIRE(rx.receive(buf, sizeof buf) == 32);
	CHECK(r.eng->stats().acked == 1);
}

TEST_CASE("latency grows by whole line exchanges with payload (Fig. 7 shape)")
{
	rig r;
	auto inv = r.invoker();
	std::vector<std::uint8_t> resp(coherent::max_message);
	timed_call(r, inv, pattern(8, 0), resp);
	double one = timed_call(r, inv, pattern(8, 1), resp).ns;
	CHECK(timed_call(r, inv, pattern(120, 1), resp).ns == Approx(one).epsilon(0.05)); // one line
	for (std::size_t n : {240, 1200, 4096, 16384}) {
		auto c = timed_call(r, inv, pattern(n, 2), resp);
		std::uint64_t lines = (n + 119) / 120, exchanges = 2 * lines - 1;
		INFO("payload " << n);
		CHECK(c.d.round_trips == 2 * exchanges);
		CHECK(c.ns == Approx(one * double(exchanges)).epsilon(0.1));
	}
}

TEST_CASE("pipelined mode keeps the lines of a message in flight together")
{
	sim::eci::engine_config e;
	e.data_lines = 128;
	rig r(e);
	coherent::cpu_options o;
	o.pipelined = true;
	auto inv = r.invoker(0, o);
	rig rs;
	auto seq = rs.invoker();
	std::vector<std::uint8_t> resp(coherent::max_message);
	for (std::size_t n : {8, 120, 121, 1000, 4096, 16384}) {
		auto req = pattern(n, 3);
		timed_call(r, inv, req, resp); // warm: the CPU takes the bank lines
		auto p = timed_call(r, inv, req, resp);
		auto s = timed_call(rs, seq, req, resp);
		INFO("payload " << n << " pipelined " << p.ns << " ns, line by line " << s.ns << " ns");
		if (n > 1000)
			CHECK(p.ns * 3 < s.ns);
		// The engine takes back only the data lines it lent: a message
		// that fits its control line costs what a line-by-line one does.
		if (n <= 120) {
			CHECK(p.ns == Approx(s.ns));
			CHECK(p.d.link_messages() == s.d.link_messages());
			CHECK(p.d[msg::LCI] == s.d[msg::LCI]);
		}
		// Each line of the request was lent (the CPU stored it) and comes
		// back before the engine reads it; a bank's lines share one
		// directory slice, whose occupancy bounds the call from below
		// (directory_test.cpp).
		const auto lines = static_cast<double>((n - std::min<std::size_t>(n, 120) + 127) / 128);
		CHECK(p.ns >= lines * r.sys->cfg().dir_occupancy_ns);
		// Above: before it writes an answer the engine takes back the lent
		// lines of the answer's bank (a line the CPU fetched early must not
		// keep an old answer), one more message per line on the same slice.
		CHECK(p.ns < 2 * lines * r.sys->cfg().dir_occupancy_ns + 30000);
	}
	auto big = pattern(coherent::layout{0, 128, 128}.max_pipelined() + 1, 1);
	CHECK_THROWS_MATCHES(inv.call(big.data(), big.size(), resp.data(), resp.size()), pioc::error,
			     Catch::Matchers::Predicate<pioc::error>([](auto &x) { return x.code() == errc::out_of_range; }));
}

TEST_CASE("'not ready' answers before the CPU's timeout; software retries on the other line")
{
	for (auto v : {coherent::variant::cpu_dev, coherent::variant::cpu_cpu}) {
		sim::eci::engine_config e;
		e.v = v;
		e.compute_ns = 95e6;   // longer than the 40 ms machine-check timeout
		e.not_ready_ns = 30e6;
		rig r(e);
		auto inv = r.invoker();
		std::vector<std::uint8_t> resp(256);
		auto req = pattern(100, 9);
		REQUIRE(inv.call(req.data(), req.size(), resp.data(), resp.size()) == 100);
		CHECK(std::equal(req.begin(), req.end(), resp.begin()));
		// CPU-homed: until the device has taken the line back, the CPU's
		// reload may read the "not ready" copy in DRAM again.
		if (v == coherent::variant::cpu_dev)
			CHECK(inv.stats().not_ready == 3);
		else
			CHECK(inv.stats().not_ready >= 3);
		CHECK(r.eng->stats().not_ready == 3);
		CHECK(r.sys->stats().machine_checks == 0);
		CHECK(r.eng->parity(0) == int(inv.parity())); // in step after the retries
		r.eng->set_compute_ns(10);
		auto c = timed_call(r, inv, pattern(64, 1), resp); // and back to normal
		CHECK(c.d.round_trips == (v == coherent::variant::cpu_dev ? 2u : 2u));
	}
	sim::eci::engine_config e;
	e.v = coherent::variant::dev_dev;
	e.not_ready_ns = 1e6;
	rig r(e);
	auto rx = r.receiver();
	std::uint8_t buf[64];
	CHECK(rx.receive(buf, sizeof buf, 3) == 0); // nothing to say: three NACKs, no fault
	CHECK(rx.stats().not_ready == 3);
	r.eng->post(0, pattern(10, 1));
	CHECK(rx.receive(buf, sizeof buf) == 10);
}

namespace {
struct silent_device : sim::eci::device_engine {
	void on_request(sim::eci::engine_ctx &, std::uint64_t, bool) override {}
};
} // namespace

TEST_CASE("a device that never answers takes the CPU down with a machine check")
{
	sim::eci::system sys;
	silent_device d;
	sys.attach(&d);
	std::uint64_t v;
	CHECK_THROWS_WITH(sys.cpu_load(0, &v, 8), Catch::Contains("deadlock") || Catch::Contains("machine check"));
	CHECK(sys.stats().machine_checks == 1);
	CHECK_THROWS_AS(sys.cpu_load(128, &v, 8), pioc::error);
}

TEST_CASE("evictions do not break the protocols")
{
	SECTION("device-homed: the CPU evicts the request line before signalling")
	{
		rig r;
		auto lay = r.eng->channel_layout(0);
		auto L = r.lines();
		auto inv = r.invoker();
		std::vector<std::uint8_t> resp(256);
		timed_call(r, inv, pattern(64, 0), resp);
		for (unsigned i = 0; i < 20; ++i) {
			// what a capacity eviction would do between the store and the load
			if (i % 2)
				L.evict(lay.ctrl_off(inv.parity() ^ 1));
			else
				L.evict(lay.ctrl_off(inv.parity()));
			timed_call(r, inv, pattern(64 + i, i), resp);
		}
		CHECK(r.sys->stats()[msg::VICC] + r.sys->stats()[msg::VICD] > 0);
	}
	SECTION("CPU-homed: silent evictions, a tiny L2 and both variants")
	{
		for (auto v : {coherent::variant::cpu_cpu, coherent::variant::dev_cpu}) {
			sim::eci::engine_config e;
			e.v = v;
			sim::eci::config c;
			c.cpu_capacity_lines = 1; // every new line evicts the previous one
			rig r(e, c);
			auto c0 = r.sys->stats();
			std::vector<std::uint8_t> buf(4096);
			// one owner per channel: each constructor opens a session
			std::optional<coherent::invoker<lines_t>> inv;
			std::optional<coherent::receiver<lines_t>> rx;
			if (v == coherent::variant::cpu_cpu)
				inv.emplace(r.invoker());
			else
				rx.emplace(r.receiver());
			for (unsigned i = 1; i <= 10; ++i) {
				auto m = pattern(300 * i, i);
				if (v == coherent::variant::cpu_cpu) {
					REQUIRE(inv->call(m.data(), m.size(), buf.data(), buf.size()) == m.size());
				} else {
					r.eng->post(0, m);
					REQUIRE(rx->receive(buf.data(), buf.size(), 5) == m.size());
					CHECK(rx->last_seq() - rx->session() == i);
				}
				CHECK(std::equal(m.begin(), m.end(), buf.begin()));
				auto lay = r.eng->channel_layout(0);
				r.lines().evict(lay.ctrl_off(0)); // a capacity eviction of whatever the CPU holds
				r.lines().evict(lay.ctrl_off(1));
			}
			auto d = r.sys->stats() - c0;
			CHECK(d.silent_evictions > 0);
			CHECK(d[msg::VICC] == 0); // silent: the device never heard of them
		}
	}
}

TEST_CASE("parity resynchronises after either side restarts")
{
	rig r;
	auto inv = r.invoker();
	std::vector<std::uint8_t> resp(256);
	for (unsigned i = 0; i < 3; ++i)
		timed_call(r, inv, pattern(64, i), resp);
	SECTION("device restart: nothing runs until the CPU's SYNC; the call fails out of step, then resync")
	{
		r.eng->restart();
		CHECK(r.eng->parity(0) == -1);
		auto req = pattern(200, 7);
		CHECK_THROWS_MATCHES(inv.call(req.data(), req.size(), resp.data(), resp.size()), pioc::error,
				     Catch::Matchers::Predicate<pioc::error>(
					     [](auto &x) { return x.code() == errc::device_error; }));
		CHECK(r.eng->stats().out_of_step == 1);
		CHECK(r.eng->stats().requests == 3); // the refused request did not run
		inv.resync();
		timed_call(r, inv, pattern(200, 7), resp);
		CHECK(r.eng->parity(0) == int(inv.parity()));
	}
	SECTION("software restart: a new owner opens a session and never takes the old answer")
	{
		// The previous owner's answer is still in the L2 (nothing cleaned it
		// when that process exited); the new invoker's SYNC moves past it.
		auto fresh = r.invoker();
		CHECK(fresh.session() != inv.session());
		for (unsigned i = 0; i < 3; ++i)
			timed_call(r, fresh, pattern(64, 10 + i), resp);
		CHECK(r.eng->parity(0) == int(fresh.parity()));
		CHECK(r.eng->stats().requests == 6);
	}
	SECTION("device restart in the middle of a multi-line message is a clear error, then resync")
	{
		auto req = pattern(1000, 3);
		r.eng->set_compute_ns(10);
		// restart the engine while the CPU is between chunks: post a timer into the model
		sim::eci::engine_ctx(*r.sys).at(r.sys->now() + 2500, [&] { r.eng->restart(); });
		CHECK_THROWS_AS(inv.call(req.data(), req.size(), resp.data(), resp.size()), pioc::error);
		inv.resync();
		timed_call(r, inv, pattern(200, 4), resp);
	}
}

TEST_CASE("channels: one per core, A and B in different TADs, line size is a parameter")
{
	sim::eci::engine_config e;
	e.channels = 4;
	rig r(e);
	std::vector<std::uint8_t> resp(512);
	for (std::uint32_t ch = 0; ch < 4; ++ch) {
		auto lay = r.eng->channel_layout(ch);
		CHECK(r.sys->tad_of(lay.ctrl_off(0)) != r.sys->tad_of(lay.ctrl_off(1)));
		auto inv = r.invoker(ch);
		timed_call(r, inv, pattern(300, ch), resp);
	}
	CHECK_THROWS_AS((coherent::layout{0, 128, 0}.check_tads(1)), pioc::error);

	sim::eci::config c;
	c.line_size = 64;
	rig r64({}, c);
	auto inv = r64.invoker();
	timed_call(r64, inv, pattern(56, 1), resp);
	auto one = timed_call(r64, inv, pattern(56, 2), resp);
	CHECK(one.d.round_trips == 2);
	auto two = timed_call(r64, inv, pattern(57, 2), resp); // 56 bytes fit one 64-byte line
	CHECK(two.d.round_trips == 6);

	sim::eci::config io;
	io.tad_in_order = true; // a TAD serves one miss at a time: safe only because A and B differ
	rig rio({}, io);
	auto i2 = rio.invoker();
	timed_call(rio, i2, pattern(64, 1), resp);
	CHECK(timed_call(rio, i2, pattern(64, 2), resp).d.round_trips == 2);
}

TEST_CASE("bad input gives clear errors")
{
	auto code = [](errc c) {
		return Catch::Matchers::Predicate<pioc::error>([c](auto &x) { return x.code() == c; });
	};
	rig r;
	auto inv = r.invoker();
	std::vector<std::uint8_t> big(coherent::max_message + 1), resp(16);
	CHECK_THROWS_MATCHES(inv.call(big.data(), big.size(), resp.data(), resp.size()), pioc::error,
			     code(errc::out_of_range));
	auto small = pattern(64, 1);
	CHECK_THROWS_MATCHES(inv.call(small.data(), small.size(), resp.data(), resp.size()), pioc::error,
			     code(errc::out_of_range)); // response does not fit
	CHECK_THROWS_MATCHES(coherent::layout::for_channel(1 << 20, 128, 0, 100), pioc::error, code(errc::misaligned));
	CHECK_THROWS_MATCHES(coherent::layout::for_channel(1 << 20, 128, 16, 65536), pioc::error,
			     code(errc::out_of_range));
	CHECK_THROWS_MATCHES(coherent::layout::for_channel(1 << 20, 96, 0, 65536), pioc::error,
			     code(errc::invalid_argument));
	sim::eci::system sys;
	sim::eci::engine_config e;
	e.v = coherent::variant::cpu_cpu;
	e.supported = {coherent::variant::cpu_dev, coherent::variant::dev_dev};
	CHECK_THROWS_MATCHES(sim::eci::proto_engine(sys, e), pioc::error, code(errc::not_supported));
	std::uint64_t v = 0;
	CHECK_THROWS_MATCHES(sys.cpu_load(120, &v, 16), pioc::error, code(errc::misaligned));
}
