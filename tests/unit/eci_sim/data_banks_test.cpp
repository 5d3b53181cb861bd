// The data banks (the multi-line Fig. 5b variant, Documentation/protocols.md
// "Data banks"): a whole message per exchange, its bytes past the control
// line in the answered line's bank, and a device that takes back only the
// data lines it lent. Sizes around every boundary, stale lines, the
// adversary, the traffic a small message costs, and the faults that must be
// caught.
#include "fixture.hpp"

#include <pioc/regs/nic_eci.hpp>

#include <catch2/catch.hpp>

#include <cstring>

using namespace pioc;
using namespace fx;
using sim::eci::msg;

namespace {
constexpr std::uint32_t bank = regs::nic_eci::BANK_LINES; // the ECI NIC's banks

sim::eci::engine_config banks_5b(std::uint32_t lines = bank)
{
	sim::eci::engine_config e;
	e.v = coherent::variant::dev_dev;
	e.data_lines = lines;
	return e;
}

/** Message @p k of @p n bytes: its number first, every byte depends on k,
 *  so a line left from an earlier message differs from this one's. */
std::vector<std::uint8_t> message(std::uint32_t k, std::size_t n)
{
	auto v = pattern(n, k);
	std::memcpy(v.data(), &k, std::min<std::size_t>(4, n));
	return v;
}

/** Posts one message per size (message k, 1-based, at now + k * @p gap_ns),
 *  receives them all; returns how many came wrong, out of order or not at all. */
unsigned post_and_receive(rig &r, coherent::receiver<lines_t> &rx, const std::vector<std::size_t> &sizes,
			  double gap_ns = 1000)
{
	const double t0 = r.sys->now();
	for (std::uint32_t k = 1; k <= sizes.size(); ++k)
		r.eng->post(0, message(k, sizes[k - 1]), t0 + gap_ns * k);
	std::vector<std::uint8_t> buf(coherent::max_message);
	unsigned bad = 0;
	const std::uint32_t first = rx.last_seq();
	for (std::uint32_t k = 1; k <= sizes.size(); ++k) {
		const auto want = message(k, sizes[k - 1]);
		std::size_t got = 0;
		try {
			got = rx.receive(buf.data(), buf.size(), 1000);
		} catch (const pioc::error &) {
			return bad + static_cast<unsigned>(sizes.size() - k + 1);
		}
		if (got != want.size() || rx.last_seq() - first != k || !std::equal(want.begin(), want.end(), buf.begin()))
			++bad;
	}
	return bad;
}

coherent::receiver<lines_t> receiver(rig &r, coherent::layout lay)
{
	coherent::cpu_options o;
	o.max_not_ready = 1000;
	return coherent::receiver<lines_t>(r.lines(), lay, o);
}

/** Sizes at every boundary of a bank of @p lines lines: one line, the
 *  control line full and one past, two lines and one past, around a bank
 *  line in the middle, the largest whole message and one past it (that one
 *  goes line by line); then each size twice more, largest first, so each
 *  bank sees shorter messages after longer ones. */
std::vector<std::size_t> boundary_sizes(std::uint32_t lines)
{
	const std::size_t max = coherent::layout{0, 128, lines}.max_pipelined(), mid = 120 + 128 * (lines / 2);
	std::vector<std::size_t> v{1, 8, 64, 119, 120, 121, 248, 249, mid - 1, mid, mid + 1, max - 1, max, max + 1};
	const std::vector<std::size_t> up = v;
	for (auto it = up.rbegin(); it != up.rend(); ++it)
		v.insert(v.end(), {*it, *it});
	return v;
}
} // namespace

TEST_CASE("data banks (5b): every size whole in one exchange, once, in order, byte-exact")
{
	rig r(banks_5b());
	auto lay = r.eng->channel_layout(0);
	auto rx = receiver(r, lay);
	const auto sizes = boundary_sizes(bank);
	const auto before = rx.stats();
	CHECK(post_and_receive(r, rx, sizes) == 0);
	std::size_t whole = 0;
	for (std::size_t n : sizes)
		whole += n <= lay.max_pipelined();
	CHECK(rx.stats().banked == whole);
	CHECK(r.eng->stats().banked == whole);
	// One exchange per whole message; the one too long for a bank went line
	// by line (ceil(n / 120) exchanges, three times).
	const std::size_t too_long = lay.max_pipelined() + 1;
	const auto &st = rx.stats();
	CHECK(st.calls - before.calls == sizes.size());
	CHECK((st.exchanges - before.exchanges) - (st.not_ready - before.not_ready) ==
	      whole + 3 * ((too_long + 119) / 120));
}

TEST_CASE("data banks (5b): line by line although the banks exist (bank_messages off)")
{
	auto e = banks_5b();
	e.bank_messages = false;
	rig r(e);
	auto rx = receiver(r, r.eng->channel_layout(0));
	CHECK(post_and_receive(r, rx, {1, 121, 2000, 9720}) == 0);
	CHECK(rx.stats().banked == 0);
	CHECK(r.eng->stats().banked == 0);
}

TEST_CASE("data banks: an engine that forgets its lent lines hands out stale data (caught)")
{
	// The CPU keeps the bank lines it loaded for one message; the engine
	// must take them back before it writes the next message into them.
	auto e = banks_5b();
	e.fault_no_take_back = true;
	rig r(e);
	auto rx = receiver(r, r.eng->channel_layout(0));
	CHECK(post_and_receive(r, rx, boundary_sizes(bank)) > 0);

}

TEST_CASE("data banks (5a): a response bank read early by the CPU is taken back (the adversary catches the fault)")
{
	// 5a's request always uses the bank of the last response, so the signal
	// takes those lines back; only a speculative read between the signal and
	// the answer leaves the CPU an old copy of the response's bank.
	for (bool fault : {false, true}) {
		sim::eci::engine_config e;
		e.data_lines = bank;
		e.fault_no_take_back = fault;
		rig r(e);
		r.sys->adversary(7, 0.25, channel_lines(r.eng->channel_layout(0), r.eng->window_base()));
		coherent::cpu_options o;
		o.pipelined = true;
		o.max_not_ready = 1000;
		auto inv = r.invoker(0, o);
		// echo_calls numbers each request in its first 4 bytes: 4 at least.
		const unsigned bad = echo_calls(inv, 400, {4, 121, 3000, 9000, 500, 249});
		INFO((fault ? "without" : "with") << " the take-back of lent lines");
		if (fault)
			CHECK(bad > 0);
		else
			CHECK(bad == 0);
	}
}

TEST_CASE("data banks under the adversary: evictions and speculative reads of every line, every message exact")
{
	for (std::uint64_t seed : {1, 2, 3}) {
		rig r(banks_5b(40));
		auto lay = r.eng->channel_layout(0);
		r.sys->adversary(seed, 0.25, channel_lines(lay, r.eng->window_base()));
		auto rx = receiver(r, lay);
		std::vector<std::size_t> sizes;
		for (unsigned i = 0; i < 40; ++i)
			for (std::size_t n : boundary_sizes(40))
				sizes.push_back(n);
		INFO("seed " << seed);
		CHECK(post_and_receive(r, rx, sizes, 200) == 0);
		CHECK(r.sys->adversary_reads() > sizes.size() / 4);
		CHECK(r.sys->adversary_evictions() > sizes.size() / 4);
		// The speculative reads lent lines the engine then had to take back.
		CHECK(r.eng->stats().data_taken_back > 0);
	}
	// The same with the fault: the adversary's early reads keep old data.
	auto e = banks_5b(40);
	e.fault_no_take_back = true;
	rig r(e);
	auto lay = r.eng->channel_layout(0);
	r.sys->adversary(1, 0.25, channel_lines(lay, r.eng->window_base()));
	auto rx = receiver(r, lay);
	CHECK(post_and_receive(r, rx, boundary_sizes(40), 200) > 0);
}

TEST_CASE("data banks: a message waiting only for its bank's lines is not answered 'not ready'")
{
	// The ECI NIC answers a held load "not ready" after 1 us; taking back
	// the lines of a bank the CPU read (one directory slice, 65 ns each)
	// can take longer. A queued message must still come on this load.
	auto e = banks_5b();
	e.not_ready_ns = 1000;
	rig r(e);
	auto rx = receiver(r, r.eng->channel_layout(0));
	const std::size_t max = r.eng->channel_layout(0).max_pipelined();
	std::vector<std::uint8_t> buf(coherent::max_message);
	for (std::uint32_t k = 1; k <= 6; ++k) {
		const auto m = message(k, max);
		r.eng->post(0, m);
		INFO("message " << k);
		REQUIRE(rx.receive(buf.data(), buf.size(), 1) == max);
		CHECK(std::equal(m.begin(), m.end(), buf.begin()));
	}
	CHECK(r.eng->stats().data_taken_back >= 4 * bank); // messages 3..6 found their bank lent
	CHECK(r.eng->stats().not_ready == 0);
}

TEST_CASE("data banks: a 64-byte message costs no data-line traffic")
{
	// 5b: the same messages with banks and without; after the first (the
	// CPU takes its control lines) every one costs the same messages.
	rig with(banks_5b()), without(banks_5b(0));
	auto rw = receiver(with, with.eng->channel_layout(0));
	auto ro = receiver(without, without.eng->channel_layout(0));
	std::vector<std::size_t> small(20, 64);
	REQUIRE(post_and_receive(with, rw, small) == 0);
	REQUIRE(post_and_receive(without, ro, small) == 0);
	auto c0w = with.sys->stats(), c0o = without.sys->stats();
	REQUIRE(post_and_receive(with, rw, small) == 0);
	REQUIRE(post_and_receive(without, ro, small) == 0);
	auto dw = with.sys->stats() - c0w, dout = without.sys->stats() - c0o;
	CHECK(dw.link_messages() == dout.link_messages());
	CHECK(dw[msg::LCI] == dout[msg::LCI]);
	CHECK(with.eng->stats().data_taken_back == 0);
	CHECK(rw.stats().banked == 40);

	// After a 9600-byte message the CPU holds most of one bank; small
	// messages carry no bank data, so they take nothing back either.
	REQUIRE(post_and_receive(with, rw, {9600}) == 0);
	const auto back = with.eng->stats().data_taken_back;
	REQUIRE(post_and_receive(with, rw, small) == 0);
	CHECK(with.eng->stats().data_taken_back == back);
}

TEST_CASE("data banks: a small pipelined 5a call after a big one takes back only what was lent")
{
	sim::eci::engine_config e;
	e.data_lines = bank;
	rig r(e);
	coherent::cpu_options o;
	o.pipelined = true;
	auto inv = r.invoker(0, o);
	rig rs; // line by line, no banks
	auto seq = rs.invoker();
	std::vector<std::uint8_t> resp(coherent::max_message);
	auto time_call = [&](rig &g, auto &i, std::size_t n) {
		auto req = pattern(n, static_cast<unsigned>(n));
		const double t0 = g.sys->now();
		REQUIRE(i.call(req.data(), n, resp.data(), resp.size()) == n);
		REQUIRE(std::equal(req.begin(), req.end(), resp.begin()));
		return g.sys->now() - t0;
	};
	// After the reset every line counts as lent (the device cannot know
	// what the CPU kept): the first call on each bank takes it back once.
	time_call(r, inv, 64);
	time_call(r, inv, 64);
	const auto warm = r.eng->stats().data_taken_back;
	CHECK(warm == 2 * bank);
	time_call(rs, seq, 64);
	// Small calls: one exchange, as line by line (5.57 us before the lent
	// bits, when every signal took a whole bank back).
	const double one = time_call(rs, seq, 64);
	CHECK(time_call(r, inv, 64) == Approx(one));
	CHECK(r.eng->stats().data_taken_back == warm);
	// A 9600-byte call lends the lines of both banks (request stored into
	// bank r, response loaded from bank x); the next two small calls take
	// back at most what the big one lent, then nothing.
	time_call(r, inv, 9600);
	const auto after_big = r.eng->stats().data_taken_back;
	time_call(r, inv, 64);
	time_call(r, inv, 64);
	const auto lent = 2 * ((9600 - 120 + 127) / 128);
	CHECK(r.eng->stats().data_taken_back - after_big <= lent);
	const auto settled = r.eng->stats().data_taken_back;
	INFO("one exchange " << one << " ns");
	CHECK(time_call(r, inv, 64) == Approx(one));
	CHECK(r.eng->stats().data_taken_back == settled);
}

TEST_CASE("receiver: a whole message on a channel without data lines is a device error")
{
	rig r(banks_5b());
	auto lay = r.eng->channel_layout(0);
	lay.data_lines = 0; // the CPU side thinks the channel has no banks
	auto rx = receiver(r, lay);
	r.eng->post(0, message(1, 64));
	std::vector<std::uint8_t> buf(256);
	CHECK_THROWS_MATCHES(rx.receive(buf.data(), buf.size(), 1000), pioc::error,
			     Catch::Matchers::Predicate<pioc::error>([](const pioc::error &x) {
				     return x.code() == errc::device_error &&
					    std::string(x.what()).find("0 data lines per bank") != std::string::npos;
			     }));
}

TEST_CASE("data banks on 5d are refused: the lent-bit rule needs the device as home")
{
	auto e = banks_5b();
	e.v = coherent::variant::dev_cpu;
	sim::eci::system sys;
	CHECK_THROWS_MATCHES(sim::eci::proto_engine(sys, e), pioc::error,
			     Catch::Matchers::Predicate<pioc::error>([](const pioc::error &x) {
				     return x.code() == errc::not_supported &&
					    std::string(x.what()).find("5d") != std::string::npos;
			     }));
}

TEST_CASE("claim_lines: ownership of a bank's lines requested together; the stores after it hit")
{
	rig r(banks_5b(40));
	auto lay = r.eng->channel_layout(0);
	auto L = r.lines();
	std::vector<std::uint64_t> offs;
	for (std::uint32_t i = 0; i < 40; ++i)
		offs.push_back(lay.data_off(0, i));
	const auto c0 = r.sys->stats();
	const double t0 = r.sys->now();
	L.claim_lines(offs.data(), offs.size());
	const double claim_ns = r.sys->now() - t0;
	const auto d = r.sys->stats() - c0;
	CHECK(d[msg::RLDX] == 40);
	for (std::uint64_t o : offs)
		CHECK(r.sys->cpu_state(o) == sim::eci::line_state::E);
	// One RLDX round trip is two link crossings (300 ns) at least: forty of
	// them one after another would take 12 us; in flight, the directory
	// slice that serves the bank (65 ns a message) bounds them.
	INFO("40 claims " << claim_ns << " ns");
	CHECK(claim_ns < 40 * 2 * r.sys->cfg().link_ns / 2);
	const auto c1 = r.sys->stats();
	const std::uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	for (std::uint64_t o : offs)
		L.store_bytes(o, b, sizeof b);
	CHECK((r.sys->stats() - c1).cpu_misses == 0);
	CHECK(r.eng->stats().data_taken_back == 0); // lent, nothing asked back yet
}
