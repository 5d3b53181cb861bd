// Testbench of the coherent invocation engine (coh_top) through the C++ port
// wrapper of lib/rtl (pioc::rtl::coh_engine_rtl). A small model of the Enzian
// directory controller and the CPU's cache plays the other side (dc_cpu.hpp).
// Random stalls on every DC channel; every channel checked.
// The software side follows Documentation/protocols.md: a session (SYNC) per
// channel after the engine's reset, the word written into the answered line,
// "not ready" evicted and the same line loaded again.
#include "coh_rtl.hpp"
#include "dc_cpu.hpp"
#include "pioc/bloom_hash.hpp"
#include "pioc/coherent/proto.hpp"
#include "pioc/pio_ops.hpp"
#include "pioc/regs/coh_dev.hpp"
#include "pioc/regs/pio_dev.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

using pioc::rtl::coh_engine_rtl;
using pioc::rtl::coh_event;
using pioc::rtl::line;
using pioc::coherent::ctrl;
using pioc::coherent::kind;
namespace C = pioc::regs::coh_dev;
namespace P = pioc::regs::pio_dev;

namespace {

using dc_cpu = tbdc::dc_cpu_t<coh_engine_rtl>;
using channel = tbdc::channel_t<coh_engine_rtl>;
using tbdc::st;
using tbdc::word0;

std::uint64_t response(std::size_t len, std::uint32_t seq)
{
	return ctrl::make(kind::response, true, std::uint32_t(len), seq).w;
}

/** The op on the first @p n bytes of @p req (the result's first bytes). */
line reference(unsigned op, const line &req, std::size_t n = C::PAYLOAD_MAX)
{
	line r = req;
	if (op == P::OP_NOT)
		for (auto &b : r)
			b = std::uint8_t(~b);
	if (op == P::OP_ADD1)
		for (std::size_t w = 0; 8 * w + 8 <= n; ++w) {
			std::uint64_t v;
			std::memcpy(&v, &r[8 * w], 8);
			++v;
			std::memcpy(&r[8 * w], &v, 8);
		}
	if (op == P::OP_BLOOM) {
		r.fill(0);
		pioc::bloom::hash_buffer(req.data(), n, r.data());
	}
	return r;
}

line random_line(std::mt19937_64 &rng)
{
	line l;
	for (auto &b : l)
		b = std::uint8_t(rng());
	return l;
}

} // namespace

TEST_CASE("coh_top: control block", "[coh]")
{
	coh_engine_rtl e({3, 30});
	CHECK(e.ctrl_read(C::ID.offset) == C::id_value);
	CHECK(e.ctrl_read(C::VERSION.offset) == C::VERSION.reset);
	CHECK(e.ctrl_read(C::CONFIG.offset) == C::CONFIG.reset);
	CHECK(e.ctrl_read(C::TIMEOUT.offset) == C::TIMEOUT.reset);
	CHECK(e.ctrl_read(C::CHANNELS.offset) == C::CPU_CHANNELS); // what the engine is built with
	e.ctrl_write(C::SCRATCH.offset, 0x12345678);
	CHECK(e.ctrl_read(C::SCRATCH.offset) == 0x12345678);
	std::uint32_t lo = e.ctrl_read(C::CYCLES.offset);
	CHECK(lo > 0);
	CHECK(e.ctrl_read(C::CYCLES.offset + 4) == 0);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: Fig. 5a invocations of every op, Exclusive answers", "[coh]")
{
	coh_engine_rtl e({5, 25});
	dc_cpu m(e);
	std::mt19937_64 rng(5);
	channel c{m, 0};
	c.open(100);
	unsigned n = 0;
	for (unsigned op : {unsigned(P::OP_ECHO), unsigned(P::OP_NOT), unsigned(P::OP_ADD1), unsigned(P::OP_BLOOM)}) {
		e.ctrl_write(C::OP.offset, op);
		for (int i = 0; i < 6; ++i) {
			line req = random_line(rng);
			unsigned lci0 = m.lci, wb0 = m.wbs, up0 = m.upgrades;
			line d = c.invoke(req);
			++n;
			line ref = reference(op, req);
			std::uint64_t len = op == P::OP_BLOOM ? 64 : C::PAYLOAD_MAX;
			INFO("op " << op << " invocation " << i);
			REQUIRE(word0(d) == response(len, c.seq));
			REQUIRE(std::memcmp(d.data() + C::PAYLOAD_OFF, ref.data(), len) == 0);
			// two round trips: one LCI with its write-back, no upgrade
			CHECK(m.lci - lci0 == 1);
			CHECK(m.wbs - wb0 == 1);
			CHECK(m.upgrades - up0 == 0);   // the SYNC's store made R Exclusive
			// end state: answered line Exclusive, the other Invalid
			CHECK(m.lines[c.addr(1 - c.par)].s == st::E);
			CHECK(m.lines[c.addr(c.par)].s == st::I);
		}
	}
	m.run([&] { return false; }, 200);
	CHECK(m.ul == m.lci);
	CHECK(e.ctrl_read(C::INVOKE_COUNT.offset) == n);
	CHECK(c.not_ready == 0);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: Shared answers cost an upgrade per call", "[coh]")
{
	coh_engine_rtl e({6, 20});
	dc_cpu m(e);
	std::mt19937_64 rng(6);
	e.ctrl_write(C::CONFIG.offset, 0);
	channel c{m, 1};
	c.open(3);
	unsigned up0 = m.upgrades;
	for (int i = 0; i < 5; ++i) {
		line req = random_line(rng);
		line d = c.invoke(req);
		REQUIRE(word0(d) == response(120, c.seq));
		REQUIRE(std::memcmp(d.data() + 8, req.data(), 120) == 0);
		CHECK(m.lines[c.addr(1 - c.par)].s == st::S);
	}
	CHECK(m.upgrades - up0 == 5);   // one upgrade per Shared answer
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: NOT_READY before the timeout, retry on the other line", "[coh]")
{
	coh_engine_rtl e({7, 20});
	dc_cpu m(e);
	std::mt19937_64 rng(7);
	e.ctrl_write(C::TIMEOUT.offset, 300);
	e.ctrl_write(C::DELAY.offset, 1000);
	e.ctrl_write(C::OP.offset, unsigned(P::OP_NOT));
	channel c{m, 2};
	c.open(0);
	for (int i = 1; i <= 4; ++i) {
		line req = random_line(rng);
		line d = c.invoke(req);
		line ref = reference(unsigned(P::OP_NOT), req);
		REQUIRE(word0(d) == response(120, std::uint32_t(i)));
		REQUIRE(std::memcmp(d.data() + 8, ref.data(), 120) == 0);
		CHECK(m.lines[c.addr(1 - c.par)].s == st::E);
	}
	CHECK(c.not_ready >= 4 * 2);
	CHECK(e.ctrl_read(C::NOT_READY_COUNT.offset) == c.not_ready);
	CHECK(m.max_hold < 300 + 100);   // no load held past the timeout
	// back to fast calls: still in step
	e.ctrl_write(C::DELAY.offset, 0);
	unsigned nr = c.not_ready;
	for (int i = 0; i < 3; ++i) {
		line req = random_line(rng);
		line d = c.invoke(req);
		REQUIRE(word0(d) == response(120, c.seq));
	}
	CHECK(c.not_ready == nr);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: four channels held at the same time", "[coh]")
{
	coh_engine_rtl e({8, 30});
	dc_cpu m(e);
	std::mt19937_64 rng(8);
	e.ctrl_write(C::OP.offset, unsigned(P::OP_ADD1));
	std::vector<channel> cs;
	for (unsigned ch = 0; ch < C::CPU_CHANNELS; ++ch)
		cs.push_back({m, ch});
	for (auto &c : cs)
		c.open(1000 * c.ch);
	for (int round = 0; round < 3; ++round) {
		std::vector<line> reqs;
		std::vector<std::uint32_t> ids;
		for (auto &c : cs) {
			reqs.push_back(random_line(rng));
			line r{};
			std::uint64_t w = ctrl::make(kind::request, true, 120, ++c.seq).w;
			std::memcpy(r.data(), &w, 8);
			std::memcpy(r.data() + 8, reqs.back().data(), 120);
			m.store(c.addr(1 - c.par), r);
		}
		for (auto &c : cs)
			ids.push_back(m.start_load(c.addr(c.par)));
		REQUIRE(m.run([&] {
			for (auto id : ids)
				if (!m.rd_done.count(id))
					return false;
			return true;
		}));
		for (std::size_t i = 0; i < cs.size(); ++i) {
			line ref = reference(unsigned(P::OP_ADD1), reqs[i]);
			REQUIRE(word0(m.rd_done[ids[i]]) == response(120, cs[i].seq));
			REQUIRE(std::memcmp(m.rd_done[ids[i]].data() + 8, ref.data(), 120) == 0);
			m.rd_done.erase(ids[i]);
			cs[i].par ^= 1;
		}
	}
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: Fig. 5b device-initiated messages: SYNC, ACK words, re-reads", "[coh]")
{
	coh_engine_rtl e({9, 25});
	dc_cpu m(e);
	e.ctrl_write(C::TIMEOUT.offset, 400);
	channel r{m, unsigned(C::CPU_CHANNELS)}; // the receiver's steps are the invoker's
	auto put = [&](std::uint64_t a, std::uint64_t w) {
		line l{};
		std::memcpy(l.data(), &w, 8);
		m.store(a, l);
	};
	// after the reset only a SYNC is a signal: an ACK is out of step, in the fill only
	put(r.addr(1), ctrl::make(kind::ack, true, 0, 5).w);
	CHECK(word0(m.load(r.addr(0))) == ctrl::make(kind::sync_ack, true, 0, 5).w);
	m.evict(r.addr(0));
	r.open(50); // messages are numbered from 51
	// no message: the ACK's load is held, then not ready (in the fill only)
	put(r.addr(1 - r.par), ctrl::make(kind::ack, true, 0, 51).w);
	std::uint64_t t0 = e.cycle();
	CHECK(word0(m.load(r.addr(r.par))) == ctrl::make(kind::not_ready, true, 0, 0).w);
	CHECK(e.cycle() - t0 >= 400);
	m.evict(r.addr(r.par));
	for (std::uint8_t i = 1; i <= 6; ++i) {
		std::uint8_t msg[120];
		std::memset(msg, i, sizeof msg);
		e.push_message(msg, 10u * i);
	}
	for (std::uint32_t i = 1; i <= 6; ++i) {
		line d = i == 1 ? r.await() : r.exchange(ctrl::make(kind::ack, true, 0, 50 + i).w, nullptr, 0);
		INFO("message " << i);
		REQUIRE(word0(d) == ctrl::make(kind::message, true, 10 * i, 50 + i).w);
		CHECK(d[8] == i);
		CHECK(d[8 + 10 * i - 1] == i);
		CHECK(d[8 + 10 * i] == 0);
		if (i == 3) { // the message line evicted before the copy: the same message again, none consumed
			std::uint64_t a = r.addr(1 - r.par);
			m.evict(a);
			CHECK(m.load(a) == d);
		}
		if (i == 4) { // a speculative read of the next line before the ACK: not ready, none consumed
			std::uint64_t a = r.addr(r.par);
			CHECK(word0(m.load(a)) == ctrl::make(kind::not_ready, true, 0, 0).w);
			m.evict(a);
		}
	}
	CHECK(e.ctrl_read(C::INVOKE_COUNT.offset) == 6);
	// each signal took the other line back: the CPU holds only the last answer
	m.run([&] { return false; }, 300);
	CHECK(m.lines[r.addr(1 - r.par)].s == st::E);
	CHECK(m.lines[r.addr(r.par)].s == st::I);
	CHECK(m.ul == m.lci);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: payload lengths 0..120 of every op", "[coh]")
{
	coh_engine_rtl e({10, 20});
	dc_cpu m(e);
	std::mt19937_64 rng(10);
	channel c{m, 3};
	c.open(77);
	for (unsigned op : {unsigned(P::OP_ECHO), unsigned(P::OP_NOT), unsigned(P::OP_ADD1), unsigned(P::OP_BLOOM)}) {
		e.ctrl_write(C::OP.offset, op);
		for (std::size_t n : {0, 1, 7, 8, 9, 64, 119, 120}) {
			line req = random_line(rng);
			line d = c.invoke(req.data(), n);
			line ref = reference(op, req, n);
			std::size_t len = op == P::OP_BLOOM ? (n ? 64 : 0) : n;
			INFO("op " << op << " length " << n);
			REQUIRE(word0(d) == response(len, c.seq));
			REQUIRE(std::memcmp(d.data() + 8, ref.data(), len) == 0);
		}
	}
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("coh_top: SYNC, re-reads and speculative reads, requests the engine does not serve", "[coh]")
{
	coh_engine_rtl e({11, 20});
	dc_cpu m(e);
	std::mt19937_64 rng(11);
	channel c{m, 0};
	line req = random_line(rng);
	auto count = [&] { return e.ctrl_read(C::INVOKE_COUNT.offset); };
	// after the reset nothing runs before a SYNC: a request is out of step
	// (SYNC_ACK with its number), in the fill only
	{
		line r{};
		std::uint64_t w = ctrl::make(kind::request, true, 120, 1).w;
		std::memcpy(r.data(), &w, 8);
		m.store(c.addr(1), r);
		CHECK(word0(m.load(c.addr(0))) == ctrl::make(kind::sync_ack, true, 0, 1).w);
		m.evict(c.addr(0));
		CHECK(count() == 0);
	}
	c.open(6);
	REQUIRE(word0(c.invoke(req)) == response(120, 7));
	CHECK(count() == 1);
	// the answered line evicted before the payload copy and read again: the
	// same answer, the request does not run again
	line ans = m.lines[c.addr(1 - c.par)].d;
	m.evict(c.addr(1 - c.par));
	CHECK(m.load(c.addr(1 - c.par)) == ans);
	CHECK(count() == 1);
	// a speculative read of the next line before the CPU writes its word:
	// not ready (in the fill only), nothing runs
	CHECK(word0(m.load(c.addr(c.par))) == ctrl::make(kind::not_ready, true, 0, 7).w);
	m.evict(c.addr(c.par));
	CHECK(count() == 1);
	// the CPU's word written and evicted (VICD) before its signal: a re-read
	// gives the word back; the signal then runs it once
	{
		line r{};
		std::uint64_t w = ctrl::make(kind::request, true, 120, 8).w;
		std::memcpy(r.data(), &w, 8);
		std::memcpy(r.data() + 8, req.data(), 120);
		m.store(c.addr(1 - c.par), r);
		m.evict(c.addr(1 - c.par));
		CHECK(word0(m.load(c.addr(1 - c.par))) == w);
		REQUIRE(word0(c.await()) == response(120, 8));
		CHECK(count() == 2);
		c.seq = 8;
	}
	// A load without a request (the answered line's word not valid) is answered not ready.
	line zero{};
	unsigned nr0 = c.not_ready;
	m.store(c.addr(1 - c.par), zero);
	CHECK(word0(m.load(c.addr(c.par))) == ctrl::make(kind::not_ready, true, 0, 8).w);
	m.evict(c.addr(c.par));
	// A first chunk of two is acknowledged; a chunk out of order then gets SYNC_ACK.
	line d = c.exchange(ctrl::make(kind::request, false, 120, 9, 0).w, req.data(), 120);
	CHECK(word0(d) == ctrl::make(kind::ack, false, 0, 9, 0).w);
	d = c.exchange(ctrl::make(kind::request, true, 10, 9, 2).w, req.data(), 10);
	CHECK(word0(d) == ctrl::make(kind::sync_ack, true, 0, 9).w);
	// ... as does a MORE when nothing is left to send, and a pipelined request
	d = c.exchange(ctrl::make(kind::more, true, 0, 9, 1).w, nullptr, 0);
	CHECK(word0(d) == ctrl::make(kind::sync_ack, true, 0, 9).w);
	d = c.exchange(ctrl::make(kind::request, true, 200, 9, pioc::coherent::pipelined_chunk).w, req.data(), 120);
	CHECK(word0(d) == ctrl::make(kind::sync_ack, true, 0, 9).w);
	c.seq = 9;
	REQUIRE(word0(c.invoke(req)) == response(120, 10));
	CHECK(c.not_ready == nr0);
	REQUIRE(e.protocol_errors().empty());
}

namespace {
/** One Fig. 5a call as pioc/coherent/invoke.hpp makes it: 120-byte request
 *  chunks (ACK for all but the last), then response chunks (MORE for all
 *  but the first); checks every control word. */
std::vector<std::uint8_t> call_chunks(channel &c, const std::vector<std::uint8_t> &req)
{
	const std::size_t in = C::PAYLOAD_MAX;
	const std::uint32_t seq = ++c.seq;
	const std::size_t nreq = req.empty() ? 1 : (req.size() + in - 1) / in;
	line d;
	for (std::size_t k = 0; k < nreq; ++k) {
		std::size_t off = k * in, len = std::min(in, req.size() - off);
		bool last = k + 1 == nreq;
		d = c.exchange(ctrl::make(kind::request, last, std::uint32_t(len), seq, std::uint32_t(k)).w,
			       req.data() + off, len);
		if (!last)
			REQUIRE(word0(d) == ctrl::make(kind::ack, false, 0, seq, std::uint32_t(k)).w);
	}
	std::vector<std::uint8_t> resp;
	for (std::uint32_t k = 1;; ++k) {
		ctrl w{word0(d)};
		REQUIRE(w.valid());
		REQUIRE(w.k() == kind::response);
		REQUIRE(w.seq() == seq);
		REQUIRE(w.chunk() == k - 1);
		REQUIRE(w.len() <= in);
		resp.insert(resp.end(), d.begin() + C::PAYLOAD_OFF, d.begin() + C::PAYLOAD_OFF + w.len());
		if (w.last())
			break;
		REQUIRE(w.len() == in);
		d = c.exchange(ctrl::make(kind::more, true, 0, seq, k).w, nullptr, 0);
	}
	return resp;
}

} // namespace

TEST_CASE("coh_top: multi-chunk messages (ACK / MORE) up to 16 KiB, every op", "[coh]")
{
	coh_engine_rtl e({12, 20});
	dc_cpu m(e);
	std::mt19937_64 rng(12);
	std::vector<channel> cs{{m, 0}, {m, 3}};
	for (auto &c : cs)
		c.open(0xfffffff0u + c.ch); // numbers wrap around inside the run
	unsigned answers = 0;
	for (unsigned op : {unsigned(P::OP_ECHO), unsigned(P::OP_NOT), unsigned(P::OP_ADD1), unsigned(P::OP_BLOOM)}) {
		e.ctrl_write(C::OP.offset, op);
		for (std::size_t n : {1, 120, 121, 240, 255, 1000, 4096, 16384}) {
			auto &c = cs[n % 2];
			std::vector<std::uint8_t> req(n);
			for (auto &b : req)
				b = std::uint8_t(rng());
			INFO("op " << op << ", " << n << " bytes, channel " << c.ch);
			auto resp = call_chunks(c, req);
			auto want = pioc::pio::apply(op, req.data(), req.size());
			answers += unsigned(want.empty() ? 1 : (want.size() + 119) / 120);
			REQUIRE(resp == want);
		}
	}
	// back to one-line calls on both channels
	for (auto &c : cs) {
		line req = random_line(rng);
		line d = c.invoke(req);
		++answers;
		REQUIRE(word0(d) == response(64, c.seq));
	}
	CHECK(e.ctrl_read(C::INVOKE_COUNT.offset) == answers);
	for (auto &c : cs)
		CHECK(c.not_ready == 0);
	m.run([&] { return false; }, 300);
	CHECK(m.ul == m.lci);
	REQUIRE(e.protocol_errors().empty());
}
