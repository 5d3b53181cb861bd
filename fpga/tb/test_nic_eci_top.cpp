// Testbench of the ECI NIC image (nic_eci_top: the coherent engine with the
// RX/TX bridges and the MAC stand-in in near-end loopback) through its port
// wrapper (lib/rtl/nic_eci_rtl, pioc::rtl::nic_eci_ports). The directory
// controller and CPU cache model of dc_cpu.hpp plays the other side, with
// random stalls on every DC channel. The software side speaks the Fig. 5
// protocols as libpioc does: a frame is sent as a Fig. 5a request on
// TX_CHAN (120-byte chunks answered ACK, the last one answered with the TX
// stamp), received as a Fig. 5b message on RX_CHAN (ACK words; chunks of
// one message number, chunk indices in order, the last one flagged).
// Checked: every frame once, in order, byte-exact; the RX header is the
// MAC's RX stamp, which the MAC model (lib/sim/nic/mac_model) predicts from
// the TX stamp cycle for cycle; the CYCLES line follows the core clock.
// With the image's rx_banks pin set ([banks]), the receiver reads FEATURES
// and takes each message whole (chunk 0x7ff): the control line, then the
// data lines of the answered line's bank, all loads in flight at once; an
// adversary reads and drops data lines at random moments.
#include "dc_cpu.hpp"
#include "nic_eci_rtl.hpp"
#include "pioc/coherent/proto.hpp"
#include "pioc/regs/nic_eci.hpp"
#include "sim/nic/mac_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <vector>

using pioc::coherent::ctrl;
using pioc::coherent::kind;
using pioc::rtl::coh_event;
using pioc::rtl::line;
using pioc::rtl::nic_eci_ports;
namespace N = pioc::regs::nic_eci;

namespace {

using dc_cpu = tbdc::dc_cpu_t<nic_eci_ports>;
using tbdc::word0;
constexpr std::size_t chunk = 128 - pioc::coherent::ctrl_bytes;
constexpr unsigned rx_ch = N::RX_CHAN.offset / N::CHANNEL_STRIDE, tx_ch = N::TX_CHAN.offset / N::CHANNEL_STRIDE;

/** The NIC from the CPU: its two channels and their sessions (E: the
 *  image's ports, nic_eci_ports or a twin of two images). */
template <class E> struct host_t {
	E &e;
	tbdc::dc_cpu_t<E> m{e};
	tbdc::channel_t<E> rx{m, rx_ch}, tx{m, tx_ch};
	std::uint32_t msg = 0, acks = 0; ///< last message number taken, ACK words written
	std::uint64_t features = 0;      ///< the FEATURES line, read at open as the driver does
	bool banks = false;              ///< RX messages come whole (FEAT_RX_BANKS)
	bool tx_banks = false;           ///< TX requests go whole (FEAT_TX_BANKS)
	std::uint64_t signal_cycles = 0; ///< the last receive: cycles from the signal's load to its answer
	/** Called with the line the signal loads (the answer's bank) before
	 *  its load is issued. */
	std::function<void(unsigned)> on_signal;

	host_t(E &eng, std::uint32_t session) : e(eng)
	{
		m.evict(N::FEATURES.offset);
		const line fl = m.load(N::FEATURES.offset);
		std::memcpy(&features, fl.data(), 8);
		banks = (features & N::FEAT_RX_BANKS) != 0;
		tx_banks = (features & N::FEAT_TX_BANKS) != 0;
		// the data lines: read at any moment (speculation), never held
		m.read_may_cross_lci = [](std::uint64_t a) { return a % N::CHANNEL_STRIDE >= 2 * N::LINE_BYTES; };
		tx.open(session);
		rx.open(session + 1000);
		msg = session + 1000;
		acks = msg;
	}

	/** Fig. 5a: the frame as one whole request (FEAT_TX_BANKS) or as
	 *  request chunks; returns the TX stamp. */
	std::uint64_t send(const std::vector<std::uint8_t> &f) { return tx_banks ? send_whole(f) : send_chunks(f); }

	/** The banked send, as the driver's pipelined call: frame bytes 120..
	 *  stored into the request line r's bank (each store claims its line),
	 *  then the word and bytes 0..119 into r, then the signal (the load of
	 *  the other line); the answer comes whole. */
	std::uint64_t send_whole(const std::vector<std::uint8_t> &f)
	{
		const std::uint32_t seq = ++tx.seq;
		const unsigned r = 1 - tx.par;
		for (std::size_t off = chunk, i = 0; off < f.size(); off += N::LINE_BYTES, ++i) {
			line d{};
			std::memcpy(d.data(), f.data() + off, std::min<std::size_t>(N::LINE_BYTES, f.size() - off));
			m.store(nic_eci_ports::data_line_addr(tx_ch, r, std::uint32_t(i)), d);
		}
		line w{};
		const std::uint64_t word =
			ctrl::make(kind::request, true, std::uint32_t(f.size()), seq, pioc::coherent::pipelined_chunk).w;
		std::memcpy(w.data(), &word, 8);
		std::memcpy(w.data() + pioc::coherent::ctrl_bytes, f.data(), std::min(chunk, f.size()));
		m.store(tx.addr(r), w);
		signal_at = e.counter();
		const line d = tx.await();
		REQUIRE(word0(d) == ctrl::make(kind::response, true, N::TX_RESP, seq, pioc::coherent::pipelined_chunk).w);
		std::uint64_t stamp;
		std::memcpy(&stamp, d.data() + pioc::coherent::ctrl_bytes, 8);
		return stamp;
	}
	std::uint64_t signal_at = 0; ///< the last whole send: the counter when its signal's load was issued

	std::uint64_t send_chunks(const std::vector<std::uint8_t> &f)
	{
		const std::uint32_t seq = ++tx.seq;
		const std::size_t n = std::max<std::size_t>(1, (f.size() + chunk - 1) / chunk);
		line d{};
		for (std::size_t k = 0; k < n; ++k) {
			const std::size_t off = k * chunk, len = std::min(chunk, f.size() - off);
			const bool last = k + 1 == n;
			d = tx.exchange(ctrl::make(kind::request, last, std::uint32_t(len), seq, std::uint32_t(k)).w,
					f.data() + off, len);
			if (!last)
				REQUIRE(word0(d) == ctrl::make(kind::ack, false, 0, seq, std::uint32_t(k)).w);
		}
		REQUIRE(word0(d) == ctrl::make(kind::response, true, N::TX_RESP, seq).w);
		std::uint64_t stamp;
		std::memcpy(&stamp, d.data() + pioc::coherent::ctrl_bytes, 8);
		return stamp;
	}

	std::vector<std::uint8_t> receive() { return banks ? receive_whole() : receive_chunks(); }

	/** The ACK word into the answered line, then the load of the other one
	 *  (the signal), timed. */
	line signal()
	{
		line r{};
		const std::uint64_t w = ctrl::make(kind::ack, true, 0, ++acks).w;
		std::memcpy(r.data(), &w, 8);
		m.store(rx.addr(1 - rx.par), r);
		if (on_signal)
			on_signal(rx.par);
		const std::uint64_t t0 = e.cycle();
		line d = rx.await();
		signal_cycles = e.cycle() - t0;
		return d;
	}

	/** Fig. 5b with data banks: the next message whole, its first 120 bytes
	 *  in the answered line x, the rest in bank x's data lines. */
	std::vector<std::uint8_t> receive_whole()
	{
		const std::uint32_t want = msg + 1;
		line d = signal();
		const unsigned x = rx.par ^ 1; // the line that answered
		ctrl w{word0(d)};
		INFO("message " << want << " word " << std::hex << w.w);
		REQUIRE(w.valid());
		REQUIRE(w.k() == kind::message);
		REQUIRE(w.seq() == want);
		REQUIRE(w.chunk() == pioc::coherent::pipelined_chunk);
		REQUIRE(w.last());
		REQUIRE(w.len() <= chunk + N::BANK_LINES * N::LINE_BYTES);
		std::vector<std::uint8_t> out(d.begin() + pioc::coherent::ctrl_bytes,
					      d.begin() + pioc::coherent::ctrl_bytes + std::min<std::size_t>(w.len(), chunk));
		std::vector<std::uint64_t> addrs;
		for (std::size_t j = chunk; j < w.len(); j += N::LINE_BYTES)
			addrs.push_back(nic_eci_ports::data_line_addr(rx_ch, x, std::uint32_t((j - chunk) / N::LINE_BYTES)));
		const std::vector<line> dl = m.load_lines(addrs);
		for (std::size_t i = 0; i < dl.size(); ++i) {
			const std::size_t n = std::min<std::size_t>(N::LINE_BYTES, w.len() - chunk - i * N::LINE_BYTES);
			out.insert(out.end(), dl[i].begin(), dl[i].begin() + n);
		}
		msg = want;
		return out;
	}

	/** Fig. 5b: the next message, chunk by chunk (RX_HDR + frame). */
	std::vector<std::uint8_t> receive_chunks()
	{
		std::vector<std::uint8_t> out;
		const std::uint32_t want = msg + 1;
		for (std::uint32_t k = 0;; ++k) {
			line d = rx.exchange(ctrl::make(kind::ack, true, 0, ++acks).w, nullptr, 0);
			ctrl w{word0(d)};
			INFO("message " << want << " chunk " << k << " word " << std::hex << w.w);
			REQUIRE(w.valid());
			REQUIRE(w.k() == kind::message);
			REQUIRE(w.seq() == want);
			REQUIRE(w.chunk() == k);
			REQUIRE(w.len() <= chunk);
			out.insert(out.end(), d.begin() + pioc::coherent::ctrl_bytes,
				   d.begin() + pioc::coherent::ctrl_bytes + w.len());
			if (w.last())
				break;
			REQUIRE(w.len() == chunk); // only the last chunk is short
		}
		msg = want;
		return out;
	}

	std::uint64_t cycles()
	{
		m.evict(N::CYCLES.offset);
		std::uint64_t v;
		line d = m.load(N::CYCLES.offset);
		std::memcpy(&v, d.data(), 8);
		return v;
	}
};
using host = host_t<nic_eci_ports>;

std::vector<std::uint8_t> frame(std::mt19937_64 &rng, std::size_t n)
{
	std::vector<std::uint8_t> f(n);
	for (auto &b : f)
		b = std::uint8_t(rng());
	return f;
}

/** Checks one received message against the frame sent and the MAC model. */
void check_message(const std::vector<std::uint8_t> &got, const std::vector<std::uint8_t> &sent,
		   std::uint64_t rx_expected)
{
	REQUIRE(got.size() == N::RX_HDR + sent.size());
	std::uint64_t rx_stamp;
	std::memcpy(&rx_stamp, got.data(), 8);
	CHECK(rx_stamp == rx_expected);
	std::size_t first = 0;
	while (first < sent.size() && got[N::RX_HDR + first] == sent[first])
		++first;
	INFO("first message byte that differs: " << N::RX_HDR + first);
	static std::vector<std::vector<std::uint8_t>> earlier;
	earlier.push_back(sent);
	if (getenv("COH_DEBUG") && first < sent.size()) {
		// where the bytes found there come from
		for (std::size_t f = 0; f < earlier.size(); ++f)
			for (std::size_t o = 0; o + 8 <= earlier[f].size(); ++o)
				if (std::memcmp(earlier[f].data() + o, got.data() + N::RX_HDR + first, 8) == 0)
					printf("  bytes at frame offset %zu are frame %zu's bytes at %zu (of %zu)\n", first,
					       f, o, earlier.size());
	}
	REQUIRE(first == sent.size());
}

std::size_t random_len(std::mt19937_64 &rng)
{
	switch (rng() % 4) {
	case 0: return N::MIN_FRAME + rng() % 61;           // one line or two
	case 1: return 120 * (1 + rng() % 20) - N::RX_HDR + rng() % 3; // around chunk boundaries
	case 2: return N::MTU - rng() % 3;
	default: return N::MIN_FRAME + rng() % (N::MTU - N::MIN_FRAME + 1);
	}
}

} // namespace

TEST_CASE("nic_eci_top: one frame at a time, every size class, random stalls", "[nic_eci]")
{
	for (unsigned stall : {0u, 30u}) {
		nic_eci_ports e({7 + stall, stall});
		host h(e, 100);
		pioc::sim::nic::mac_model mac;
		std::mt19937_64 rng(11 + stall);
		for (int i = 0; i < 40; ++i) {
			const auto f = frame(rng, random_len(rng));
			INFO("stall " << stall << " frame " << i << " of " << f.size() << " bytes");
			const std::uint64_t tx = h.send(f);
			REQUIRE((tx & N::TX_DROPPED) == 0);
			const auto r = mac.transmit(tx, f.size());
			REQUIRE(r.tx_stamp == tx); // the MAC's store was empty: it took the last beat at once
			check_message(h.receive(), f, r.rx_stamp);
		}
		CHECK(e.runt_count() == 0);
		CHECK(e.oversize_count() == 0);
		REQUIRE(e.protocol_errors().empty());
	}
}

TEST_CASE("nic_eci_top: frames queue in the RX buffer, delivered once and in order", "[nic_eci]")
{
	nic_eci_ports e({3, 20});
	host h(e, 7);
	pioc::sim::nic::mac_model mac;
	std::mt19937_64 rng(5);
	std::deque<std::pair<std::vector<std::uint8_t>, std::uint64_t>> sent;
	for (int round = 0; round < 4; ++round) {
		const int burst = 1 + int(rng() % 12);
		for (int i = 0; i < burst; ++i) {
			auto f = frame(rng, round % 2 ? random_len(rng) : random_len(rng) / 8 + N::MIN_FRAME);
			INFO("round " << round << " frame " << i << " of " << f.size() << " bytes");
			const std::uint64_t tx = h.send(f);
			REQUIRE((tx & N::TX_DROPPED) == 0);
			const std::uint64_t rx = mac.transmit(tx, f.size()).rx_stamp;
			sent.emplace_back(std::move(f), rx);
		}
		while (!sent.empty()) {
			check_message(h.receive(), sent.front().first, sent.front().second);
			sent.pop_front();
		}
	}
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top: more frames than the RX queue holds: the MAC is held, none dropped", "[nic_eci]")
{
	// 44 short frames sent before any is read: the RX bridge's 32 frame
	// entries fill, it holds tready low, the MAC keeps the rest in its store
	nic_eci_ports e({6, 10});
	host h(e, 21);
	std::mt19937_64 rng(21);
	std::vector<std::vector<std::uint8_t>> sent;
	for (int i = 0; i < 44; ++i) {
		sent.push_back(frame(rng, N::MIN_FRAME + rng() % 60));
		REQUIRE((h.send(sent.back()) & N::TX_DROPPED) == 0);
	}
	e.step(2000);
	std::uint64_t last = 0;
	for (std::size_t i = 0; i < sent.size(); ++i) {
		INFO("frame " << i);
		const auto got = h.receive();
		REQUIRE(got.size() == N::RX_HDR + sent[i].size());
		REQUIRE(std::memcmp(got.data() + N::RX_HDR, sent[i].data(), sent[i].size()) == 0);
		std::uint64_t stamp;
		std::memcpy(&stamp, got.data(), 8);
		REQUIRE(stamp > last);
		last = stamp;
	}
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top: a new RX session in the middle of a message gets that message whole", "[nic_eci]")
{
	nic_eci_ports e({4, 15});
	host h(e, 40);
	pioc::sim::nic::mac_model mac;
	std::mt19937_64 rng(4);
	const auto f = frame(rng, 3000), g = frame(rng, 200);
	const std::uint64_t rx_f = mac.transmit(h.send(f), f.size()).rx_stamp;
	const std::uint64_t rx_g = mac.transmit(h.send(g), g.size()).rx_stamp;
	// three chunks of f taken, then the receiver opens a new session (as
	// pioc::coherent::receiver::resync() after a restart)
	for (std::uint32_t k = 0; k < 3; ++k) {
		line d = h.rx.exchange(ctrl::make(kind::ack, true, 0, ++h.acks).w, nullptr, 0);
		REQUIRE(ctrl{word0(d)}.chunk() == k);
		REQUIRE_FALSE(ctrl{word0(d)}.last());
	}
	h.rx.open(777);
	h.msg = h.acks = 777;
	check_message(h.receive(), f, rx_f); // from its chunk 0, numbered in the new session
	check_message(h.receive(), g, rx_g);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top: the MAC drops an oversize and a runt frame: the TX answer says so, the next frame passes",
	  "[nic_eci]")
{
	nic_eci_ports e({9, 10});
	host h(e, 3);
	std::mt19937_64 rng(9);
	std::uint64_t before = e.counter();
	for (std::size_t n : {std::size_t(N::MTU + 1), std::size_t(N::MIN_FRAME - 1), std::size_t(N::MTU + 120)}) {
		const std::uint64_t tx = h.send(frame(rng, n));
		INFO(n << " bytes: answer " << std::hex << tx);
		CHECK((tx & N::TX_DROPPED) != 0);
		const std::uint64_t at = tx & ~N::TX_DROPPED;
		CHECK(at > before); // the cycle the MAC took its last beat
		CHECK(at < e.counter());
		before = at;
	}
	CHECK(e.oversize_count() == 2);
	CHECK(e.runt_count() == 1);
	pioc::sim::nic::mac_model mac;
	const auto f = frame(rng, 1000);
	const std::uint64_t tx = h.send(f);
	REQUIRE((tx & N::TX_DROPPED) == 0);
	check_message(h.receive(), f, mac.transmit(tx, f.size()).rx_stamp);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top: an RX poll without a frame is answered not ready; the CYCLES line", "[nic_eci]")
{
	nic_eci_ports e({1, 0});
	host h(e, 1);
	const std::uint64_t c0 = h.cycles();
	// the RX channel's load is held for NOT_READY_CYCLES, then answered not ready
	h.rx.m.store(h.rx.addr(1 - h.rx.par), [] {
		line l{};
		std::uint64_t w = ctrl::make(kind::ack, true, 0, 5000).w;
		std::memcpy(l.data(), &w, 8);
		return l;
	}());
	const std::uint64_t t0 = e.cycle();
	line d = h.m.load(h.rx.addr(h.rx.par));
	CHECK_FALSE(ctrl{word0(d)}.valid());
	CHECK(e.cycle() - t0 >= N::NOT_READY_CYCLES);
	CHECK(e.cycle() - t0 < N::NOT_READY_CYCLES + 60);
	const std::uint64_t c1 = h.cycles();
	CHECK(c1 > c0 + N::NOT_READY_CYCLES);
	CHECK(c1 - c0 <= e.cycle() - t0 + 200);
	REQUIRE(e.protocol_errors().empty());
}

// ---- data banks (rx_banks pin set: FEAT_RX_BANKS)

namespace {

constexpr std::uint64_t bank_features = N::FEAT_RX_BANKS | std::uint64_t(N::BANK_LINES) << N::FEAT_LINES_SHIFT;

/** Frames sent and not received yet, with the RX stamps the MAC model
 *  (one per test: it keeps the MAC's store) predicts for them. */
struct in_flight {
	pioc::sim::nic::mac_model mac;
	std::deque<std::pair<std::vector<std::uint8_t>, std::uint64_t>> q;
	std::uint64_t last_tx = 0; ///< the TX stamp of the last frame sent

	template <class H> void send(H &h, std::vector<std::uint8_t> f)
	{
		const std::uint64_t tx = h.send(f);
		REQUIRE((tx & N::TX_DROPPED) == 0);
		last_tx = tx;
		const std::uint64_t rx = mac.transmit(tx, f.size()).rx_stamp;
		q.emplace_back(std::move(f), rx);
	}
	/** Receives every frame queued: each once, in order, byte-exact, stamped as predicted. */
	template <class H> void receive_all(H &h)
	{
		for (; !q.empty(); q.pop_front()) {
			INFO(q.size() << " frames queued, the next of " << q.front().first.size() << " bytes");
			check_message(h.receive(), q.front().first, q.front().second);
		}
	}
};

/** Frame sizes at every edge of the banked packing: message n = RX_HDR + f
 *  bytes, 120 in the control line, then 128 per data line. */
std::vector<std::size_t> edge_sizes()
{
	std::vector<std::size_t> v{N::MIN_FRAME, 64, chunk - N::RX_HDR, chunk - N::RX_HDR + 1};
	for (std::size_t k : {1u, 2u, 7u, 40u, 73u, 74u})
		for (int d : {-1, 0, 1})
			v.push_back(chunk + k * N::LINE_BYTES - N::RX_HDR + d);
	v.push_back(N::MTU - 1);
	v.push_back(N::MTU);
	return v;
}

bool is_data_line(std::uint64_t a, unsigned ch = rx_ch)
{
	return a / N::CHANNEL_STRIDE == ch && a % N::CHANNEL_STRIDE >= 2 * N::LINE_BYTES;
}

/** Data-line LCIs the CPU saw (of channel @p ch), and its reads of data lines. */
unsigned data_lcis(const dc_cpu &m, unsigned ch = rx_ch)
{
	unsigned n = 0;
	for (auto &[a, c] : m.lci_at)
		n += is_data_line(a, ch) ? c : 0;
	return n;
}
unsigned data_reads(const dc_cpu &m)
{
	unsigned n = 0;
	for (auto &[a, c] : m.read_at)
		n += is_data_line(a) ? c : 0;
	return n;
}

/** The CPU as an adversary: every cycle with probability @p pct percent it
 *  reads a random data line of channel @p ch (a prefetch, a speculative
 *  load: the line stays in its cache) or drops a clean cached one. */
void adversary(host &h, std::mt19937_64 &rng, unsigned pct, unsigned ch = rx_ch)
{
	h.m.on_pump = [&h, &rng, pct, ch] {
		if (rng() % 100 >= pct)
			return;
		const auto a = nic_eci_ports::data_line_addr(ch, unsigned(rng() % 2), std::uint32_t(rng() % N::BANK_LINES));
		auto &l = h.m.lines[a];
		if (rng() % 3 == 0) {
			if (l.s == tbdc::st::S || l.s == tbdc::st::E)
				l.s = tbdc::st::I; // a clean line is dropped silently
		} else {
			h.m.speculate(a);
		}
	};
}

/** The CPU drops its copy of data line @p a (clean: silently, the device
 *  still counts it lent) and reads it again on its own. */
template <class H> void reread(H &h, std::uint64_t a)
{
	auto &l = h.m.lines[a];
	if (l.s == tbdc::st::S || l.s == tbdc::st::E)
		l.s = tbdc::st::I;
	h.m.speculate(a);
}

/** The CPU racing the delivery: at each signal, a random number of cycles
 *  after its load, it drops the data lines of the bank the answer comes in
 *  and reads them all again, in a random order, so that they reach the
 *  device while it takes the bank back and writes it (reads crossing the
 *  LCI of their line, reads of a line before the device wrote it). */
template <class H> void racer(H &h, std::mt19937_64 &rng)
{
	struct state { int bank = -1; unsigned wait = 0; };
	auto st = std::make_shared<state>();
	h.on_signal = [st, &rng](unsigned x) {
		st->bank = int(x);
		st->wait = unsigned(rng() % 48);
	};
	h.m.on_pump = [&h, &rng, st] {
		if (st->bank < 0 || st->wait-- > 0)
			return;
		std::vector<std::uint32_t> order(N::BANK_LINES);
		for (std::uint32_t i = 0; i < order.size(); ++i)
			order[i] = i;
		std::shuffle(order.begin(), order.end(), rng);
		order.resize(30);
		for (std::uint32_t i : order) {
			reread(h, nic_eci_ports::data_line_addr(rx_ch, unsigned(st->bank), i));
		}
		st->bank = -1;
	};
}

} // namespace

TEST_CASE("nic_eci_top banks: the CPU reads a bank's lines while the device takes it back and fills it",
	  "[nic_eci][banks]")
{
	for (unsigned stall : {0u, 25u}) {
		nic_eci_ports e({61 + stall, stall, true});
		host h(e, 800);
		in_flight fl;
		std::mt19937_64 rng(61 + stall), race(stall);
		racer(h, race);
		for (int i = 0; i < 40; ++i) {
			INFO("stall " << stall << " round " << i);
			// frames waiting in the RX buffer: the delivery starts at the signal
			for (int j = 0; j < 2; ++j)
				fl.send(h, frame(rng, N::MTU - (rng() % 2) * (rng() % 5000)));
			e.step(3000);
			fl.receive_all(h);
		}
		h.m.on_pump = nullptr;
		REQUIRE(e.protocol_errors().empty());
	}
}

TEST_CASE("nic_eci_top banks: FEATURES says what the pin says; off: messages line by line", "[nic_eci][banks]")
{
	nic_eci_ports off({2, 0});
	host h(off, 9);
	CHECK(h.features == 0);
	pioc::sim::nic::mac_model mac;
	std::mt19937_64 rng(2);
	const auto f = frame(rng, 700);
	check_message(h.receive(), f, mac.transmit(h.send(f), f.size()).rx_stamp); // receive_chunks
	nic_eci_ports on({2, 0, true});
	host g(on, 9);
	CHECK(g.features == bank_features);
	REQUIRE(off.protocol_errors().empty());
}

TEST_CASE("nic_eci_top banks: every packing edge and size class, in order, byte-exact, random stalls",
	  "[nic_eci][banks]")
{
	for (unsigned stall : {0u, 30u}) {
		nic_eci_ports e({17 + stall, stall, true});
		host h(e, 300);
		REQUIRE(h.banks);
		in_flight fl;
		std::mt19937_64 rng(31 + stall);
		std::vector<std::size_t> sizes = edge_sizes();
		for (int i = 0; i < 16; ++i)
			sizes.push_back(random_len(rng));
		for (std::size_t i = 0; i < sizes.size(); ++i) {
			INFO("stall " << stall << " frame " << i);
			fl.send(h, frame(rng, sizes[i]));
			fl.receive_all(h);
		}
		REQUIRE(e.protocol_errors().empty());
	}
}

TEST_CASE("nic_eci_top banks: bursts, and more frames than the RX queue holds", "[nic_eci][banks]")
{
	nic_eci_ports e({23, 20, true});
	host h(e, 70);
	in_flight fl;
	std::mt19937_64 rng(23);
	for (int round = 0; round < 4; ++round) {
		INFO("round " << round);
		const int burst = 1 + int(rng() % 12);
		for (int i = 0; i < burst; ++i)
			fl.send(h, frame(rng, round % 2 ? random_len(rng) : random_len(rng) / 8 + N::MIN_FRAME));
		fl.receive_all(h);
	}
	// 44 short frames before any is read: the MAC is held, none dropped
	std::vector<std::vector<std::uint8_t>> held;
	for (int i = 0; i < 44; ++i) {
		held.push_back(frame(rng, N::MIN_FRAME + rng() % 60));
		REQUIRE((h.send(held.back()) & N::TX_DROPPED) == 0);
	}
	e.step(2000);
	for (std::size_t i = 0; i < held.size(); ++i) {
		INFO("held frame " << i);
		const auto got = h.receive();
		REQUIRE(got.size() == N::RX_HDR + held[i].size());
		REQUIRE(std::memcmp(got.data() + N::RX_HDR, held[i].data(), held[i].size()) == 0);
	}
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top banks: the CPU reads data lines at any moment; shorter after longer on a bank",
	  "[nic_eci][banks]")
{
	for (unsigned pct : {2u, 20u}) {
		nic_eci_ports e({41 + pct, 15, true});
		host h(e, 500);
		in_flight fl;
		std::mt19937_64 rng(41 + pct), adv(pct);
		adversary(h, adv, pct);
		// long, long, then shorter and shorter: every bank's next message
		// uses fewer lines than its last, over lines the CPU still holds
		std::vector<std::size_t> sizes{N::MTU, N::MTU - 1, 5000, 4999, 1000, 999, 300, 249, N::MIN_FRAME, 64};
		for (int i = 0; i < 12; ++i)
			sizes.push_back(random_len(rng));
		for (std::size_t i = 0; i < sizes.size(); ++i) {
			INFO("adversary " << pct << "% frame " << i);
			fl.send(h, frame(rng, sizes[i]));
			fl.receive_all(h);
		}
		// frames waiting in the RX buffer while the adversary reads
		for (int i = 0; i < 6; ++i)
			fl.send(h, frame(rng, i % 2 ? N::MTU - 7 * i : N::MIN_FRAME + 50 * i));
		fl.receive_all(h);
		h.m.on_pump = nullptr;
		CHECK(data_lcis(h.m) > 0);
		REQUIRE(e.protocol_errors().empty());
	}
}

TEST_CASE("nic_eci_top banks: a 64-byte frame costs no data-line traffic", "[nic_eci][banks]")
{
	nic_eci_ports e({5, 10, true});
	host h(e, 60);
	in_flight fl;
	std::mt19937_64 rng(6);
	auto one = [&](std::size_t len) {
		fl.send(h, frame(rng, len));
		fl.receive_all(h);
	};
	// A message that fits the control line takes nothing back, also right
	// after the reset (when every data line counts as lent).
	for (int i = 0; i < 20; ++i)
		one(64);
	CHECK(data_lcis(h.m) == 0);
	CHECK(data_reads(h.m) == 0);
	// The first message with bank bytes on each bank takes all its lines
	// back once (the CPU may hold lines from before the reset) ...
	one(200);
	one(200);
	CHECK(data_lcis(h.m) == 2 * N::BANK_LINES);
	// ... and small messages after them leave the lent line with the CPU.
	const unsigned lci0 = data_lcis(h.m);
	for (int i = 0; i < 20; ++i)
		one(64);
	CHECK(data_lcis(h.m) == lci0);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top banks: cycles from the signal to the answer, and per data line", "[nic_eci][banks]")
{
	// No stalls; the frame waits in the RX buffer when the signal comes, so
	// the cycles are the engine's: take the other control line back, consume
	// the ACK, copy the message into the bank (a chunk a cycle), take back
	// the bank's lent lines, answer. Printed for Documentation/nic.md (the
	// model, lib/sim/eci, is calibrated to them).
	nic_eci_ports e({71, 0, true});
	host h(e, 900);
	in_flight fl;
	std::mt19937_64 rng(71);
	auto timed = [&](std::size_t n) {
		fl.send(h, frame(rng, n));
		e.step(2000);
		const std::uint64_t lci0 = h.m.lci;
		fl.receive_all(h);
		return std::pair{h.signal_cycles, h.m.lci - lci0};
	};
	// each size twice per bank: the second use of a bank takes back the lines the first lent
	std::map<std::size_t, std::uint64_t> sig;
	const std::size_t sizes[] = {N::MIN_FRAME, chunk + N::LINE_BYTES - N::RX_HDR, N::MTU};
	for (std::size_t n : sizes)
		for (int i = 0; i < 4; ++i) {
			const auto [cyc, lcis] = timed(n);
			if (i >= 2)
				sig[n] = cyc; // steady state
			INFO(n << "-byte frame: " << cyc << " cycles, " << lcis << " LCIs");
			CHECK(cyc < N::NOT_READY_CYCLES);
		}
	// a data line read on its own, and 75 with all in flight
	const std::uint64_t a = nic_eci_ports::data_line_addr(rx_ch, 0, 3);
	h.m.lines[a].s = tbdc::st::I;
	std::uint64_t t0 = e.cycle();
	h.m.load(a);
	const std::uint64_t one = e.cycle() - t0;
	std::vector<std::uint64_t> all;
	for (std::uint32_t i = 0; i < N::BANK_LINES; ++i) {
		all.push_back(nic_eci_ports::data_line_addr(rx_ch, 1, i));
		h.m.lines[all.back()].s = tbdc::st::I;
	}
	t0 = e.cycle();
	h.m.load_lines(all);
	const std::uint64_t many = e.cycle() - t0;
	printf("SIMULATED nic_eci_top (RTL cycles at %g MHz, no stalls): signal to answer %lu (0 data lines), "
	       "%lu (1), %lu (75, MTU); a data line read %lu; 75 in flight %lu (%.2f per line)\n",
	       double(N::clock_mhz), (unsigned long)sig[sizes[0]], (unsigned long)sig[sizes[1]],
	       (unsigned long)sig[sizes[2]], (unsigned long)one, (unsigned long)many, double(many) / N::BANK_LINES);
	CHECK(sig[sizes[0]] < sig[sizes[2]]);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top banks: a read of a data line crosses the device's take-back of it", "[nic_eci][banks]")
{
	// Only a high line of the bank is lent (a speculative read after a short
	// message); the next message is an MTU frame, so that line's LCI goes
	// out at once while its row is written last. At the signal the CPU drops
	// the line and reads it again a few cycles later: the read reaches the
	// device while the LCI is out, is answered with the old row, and the
	// line must be taken back once more before the answer.
	for (unsigned stall : {0u, 20u}) {
		nic_eci_ports e({81 + stall, stall, true});
		host h(e, 1200);
		in_flight fl;
		std::mt19937_64 rng(81 + stall);
		constexpr std::uint32_t high = N::BANK_LINES - 3;
		struct shot { int bank = -1; unsigned wait = 0; };
		auto sh = std::make_shared<shot>();
		h.on_signal = [sh, &rng](unsigned x) {
			sh->bank = int(x);
			sh->wait = unsigned(rng() % 24);
		};
		h.m.on_pump = [&h, sh] {
			if (sh->bank < 0 || sh->wait-- > 0)
				return;
			reread(h, nic_eci_ports::data_line_addr(rx_ch, unsigned(sh->bank), high));
			sh->bank = -1;
		};
		for (int round = 0; round < 40; ++round) {
			INFO("stall " << stall << " round " << round);
			for (int j = 0; j < 2; ++j)
				fl.send(h, frame(rng, 200));
			fl.receive_all(h);
			// both banks: the high line lent, in the CPU's cache
			for (unsigned b : {0u, 1u})
				h.m.load(nic_eci_ports::data_line_addr(rx_ch, b, high));
			for (int j = 0; j < 2; ++j)
				fl.send(h, frame(rng, N::MTU));
			e.step(3000);
			fl.receive_all(h);
		}
		h.m.on_pump = nullptr;
		REQUIRE(e.protocol_errors().empty());
	}
}

TEST_CASE("nic_eci_top banks: a new RX session; a poll without a frame is answered not ready", "[nic_eci][banks]")
{
	nic_eci_ports e({91, 15, true});
	host h(e, 40);
	in_flight fl;
	std::mt19937_64 rng(91);
	for (std::size_t n : {std::size_t(3000), std::size_t(200)})
		fl.send(h, frame(rng, n));
	fl.receive_all(h);
	// a new session (pioc::coherent::receiver::resync() after a restart):
	// the next messages are numbered from its SYNC and still come whole
	h.rx.open(777);
	h.msg = h.acks = 777;
	for (std::size_t n : {std::size_t(N::MTU), std::size_t(100), std::size_t(5000)})
		fl.send(h, frame(rng, n));
	fl.receive_all(h);
	// nothing to deliver: the signal is held NOT_READY_CYCLES, then not ready
	h.m.store(h.rx.addr(1 - h.rx.par), [&] {
		line l{};
		const std::uint64_t w = ctrl::make(kind::ack, true, 0, ++h.acks).w;
		std::memcpy(l.data(), &w, 8);
		return l;
	}());
	const std::uint64_t t0 = e.cycle();
	CHECK_FALSE(ctrl{word0(h.m.load(h.rx.addr(h.rx.par)))}.valid());
	CHECK(e.cycle() - t0 >= N::NOT_READY_CYCLES);
	// a frame then: the same signal (evict, load again) gets it whole
	fl.send(h, frame(rng, 2000));
	h.m.evict(h.rx.addr(h.rx.par));
	const line d = h.rx.await();
	CHECK(ctrl{word0(d)}.chunk() == pioc::coherent::pipelined_chunk);
	CHECK(ctrl{word0(d)}.seq() == h.msg + 1);
	REQUIRE(e.protocol_errors().empty());
}

// ---- idle-cycle skipping (nic_eci_top's quiet / quiet_for)

namespace {

/** Two images driven alike, no stalls (the stall generator draws per edge
 *  evaluated): `every` evaluates every edge, `skips` leaves out the edges in
 *  which its quiet output says it only waits (nic_eci_ports::skip_quiet, as
 *  the library's rtl:nic_eci runs), advancing its counter and held reads'
 *  timers instead. The directory side reaches both through this one port
 *  object: each input is delayed by a random link latency (so the images
 *  wait, holding reads, with frames in the bridges and on the MAC's line),
 *  then given to both at the same edge. Every edge the two must agree: the
 *  events (answers with their data, write acknowledgements, LCI, UL) and the
 *  edge they come in, the counter, busy. A quiet output that is high while
 *  anything but the counter and the timers would move leaves `skips`
 *  behind: an event, a stamp or a data byte then differs. */
struct twin_ports {
	twin_ports(std::uint64_t seed, bool banks, unsigned max_delay)
		: every({seed, 0, banks, false, banks}), skips({seed, 0, banks, true, banks}), rng(seed), delay(max_delay)
	{
	}
	nic_eci_ports every, skips;
	std::mt19937_64 rng;
	unsigned delay;
	struct input {
		std::uint64_t due;
		std::function<void(nic_eci_ports &)> f;
	};
	std::deque<input> q;
	std::deque<coh_event> events;
	std::uint64_t last_due = 0;

	void later(std::function<void(nic_eci_ports &)> f)
	{
		last_due = std::max(last_due, every.cycle() + rng() % (delay + 1)); // in order, as on a link
		q.push_back({last_due, std::move(f)});
	}
	void read_request(std::uint32_t id, std::uint64_t a, bool excl)
	{
		later([=](nic_eci_ports &p) { p.read_request(id, a, excl); });
	}
	void write_back(std::uint32_t id, std::uint64_t a, const line &d)
	{
		later([=](nic_eci_ports &p) { p.write_back(id, a, d); });
	}
	void local_ack(std::uint64_t a, bool inv)
	{
		later([=](nic_eci_ports &p) { p.local_ack(a, inv); });
	}

	static bool same(const coh_event &a, const coh_event &b)
	{
		return a.type == b.type && a.id == b.id && a.addr == b.addr && a.flag == b.flag && a.data == b.data;
	}
	void step(std::uint64_t n = 1)
	{
		for (; n > 0; --n) {
			for (; !q.empty() && q.front().due <= every.cycle(); q.pop_front()) {
				q.front().f(every);
				q.front().f(skips);
			}
			every.step();
			skips.step();
			if (every.counter() != skips.counter() || every.busy() != skips.busy())
				FAIL("cycle " << every.cycle() << ": counter " << every.counter() << " / " << skips.counter()
					      << ", busy " << every.busy() << " / " << skips.busy());
			for (;;) {
				auto a = every.next_event();
				auto b = skips.next_event();
				if (a.has_value() != b.has_value() || (a && !same(*a, *b)))
					FAIL("cycle " << every.cycle() << ": an event in one image only, or different: type "
						      << (a ? int(a->type) : -1) << " / " << (b ? int(b->type) : -1) << " addr "
						      << std::hex << (a ? a->addr : 0) << " / " << (b ? b->addr : 0));
				if (!a)
					break;
				events.push_back(*a);
			}
		}
	}
	std::optional<coh_event> next_event()
	{
		if (events.empty())
			return std::nullopt;
		coh_event e = events.front();
		events.pop_front();
		return e;
	}
	std::uint64_t cycle() const { return every.cycle(); }
	std::uint64_t counter() const { return every.counter(); }
	static std::uint64_t line_addr(unsigned ch, unsigned k) { return nic_eci_ports::line_addr(ch, k); }
};

} // namespace

// A host whose directory answers after a random link latency (0..300
// cycles): frames of every size class one at a time and in bursts (so a
// frame waits in the RX bridge for the signal, or is on the MAC's line while
// the CPU's reads are held), RX polls without a frame (held reads that
// time out: quiet_for), line by line and with data banks (RX and TX), the CPU rereading a
// bank's lines while the device takes them back, then reading data lines at
// random. The skipping image must leave out most edges.
TEST_CASE("nic_eci_top: quiet is high only when nothing but the counter and the timers would change",
	  "[nic_eci][idle]")
{
	for (bool banks : {false, true}) {
		INFO("rx_banks " << banks);
		twin_ports t(131 + banks, banks, 300);
		host_t<twin_ports> h(t, 50);
		REQUIRE(h.banks == banks);
		in_flight fl;
		std::mt19937_64 rng(17 + banks), adv(3);
		for (int round = 0; round < 12; ++round) {
			INFO("round " << round);
			if (banks && round == 4)
				racer(h, adv); // reads of a bank's lines crossing their take-back
			if (banks && round == 8) {
				h.on_signal = nullptr;
				h.m.on_pump = [&] {
					if (adv() % 100 < 3)
						h.m.speculate(nic_eci_ports::data_line_addr(rx_ch, unsigned(adv() % 2),
											  std::uint32_t(adv() % N::BANK_LINES)));
				};
			}
			const int burst = 1 + int(rng() % 3);
			for (int i = 0; i < burst; ++i)
				fl.send(h, frame(rng, random_len(rng)));
			if (round % 3 == 1)
				t.step(rng() % 700); // the frames reach the RX bridge before the signal
			fl.receive_all(h);
			if (round % 4 == 2) {
				// a poll with nothing to deliver: held, then not ready after NOT_READY_CYCLES
				line l{};
				const std::uint64_t w = ctrl::make(kind::ack, true, 0, ++h.acks).w;
				std::memcpy(l.data(), &w, 8);
				h.m.store(h.rx.addr(1 - h.rx.par), l);
				CHECK_FALSE(ctrl{word0(h.m.load(h.rx.addr(h.rx.par)))}.valid());
				// the same signal again, with a frame now on its way
				fl.send(h, frame(rng, random_len(rng)));
				h.m.evict(h.rx.addr(h.rx.par));
				const line d = h.rx.await();
				ctrl c{word0(d)};
				REQUIRE(c.valid());
				if (banks) {
					REQUIRE(c.chunk() == pioc::coherent::pipelined_chunk);
				} else {
					while (!c.last()) { // the rest of the message line by line
						c = ctrl{word0(h.rx.exchange(ctrl::make(kind::ack, true, 0, ++h.acks).w, nullptr, 0))};
						REQUIRE(c.valid());
					}
				}
				h.msg = c.seq();
				fl.q.clear();
			}
			t.step(rng() % 2000); // the host away: the image goes idle
		}
		h.m.on_pump = nullptr;
		h.on_signal = nullptr;
		t.step(1000);
		REQUIRE(t.every.protocol_errors().empty());
		REQUIRE(t.skips.protocol_errors().empty());
		CHECK(t.every.skipped() == 0);
		const double left_out = double(t.skips.skipped()) / double(t.skips.cycle());
		printf("SIMULATED nic_eci_top twin (rx_banks %d): %lu cycles, %lu left out as quiet (%.0f%%)\n", int(banks),
		       (unsigned long)t.skips.cycle(), (unsigned long)t.skips.skipped(), 100 * left_out);
		CHECK(left_out > 0.5);
	}
}

// ---- TX data banks (tx_banks pin set: FEAT_TX_BANKS)

namespace {

/** Frame sizes at every edge of the banked request: 120 bytes in the
 *  control line, then 128 per data line. */
std::vector<std::size_t> tx_edge_sizes()
{
	std::vector<std::size_t> v{N::MIN_FRAME, 64, 112, 113, chunk - 1, chunk, chunk + 1};
	for (std::size_t k : {1u, 2u, 7u, 40u, 73u, 74u})
		for (int d : {-1, 0, 1})
			v.push_back(chunk + k * N::LINE_BYTES + d);
	v.push_back(N::MTU - 1);
	v.push_back(N::MTU);
	return v;
}

} // namespace

TEST_CASE("nic_eci_top tx banks: FEATURES says what the pins say", "[nic_eci][tx_banks]")
{
	nic_eci_ports tx({2, 0, false, false, true});
	host h(tx, 9);
	CHECK(h.features == (N::FEAT_TX_BANKS | std::uint64_t(N::BANK_LINES) << N::FEAT_LINES_SHIFT));
	CHECK(h.tx_banks);
	CHECK_FALSE(h.banks);
	nic_eci_ports both({2, 0, true, false, true});
	host g(both, 9);
	CHECK(g.features == (N::FEAT_RX_BANKS | N::FEAT_TX_BANKS | std::uint64_t(N::BANK_LINES) << N::FEAT_LINES_SHIFT));
	REQUIRE(tx.protocol_errors().empty());
}

TEST_CASE("nic_eci_top tx banks: every edge and size class, whole requests and line by line, random stalls",
	  "[nic_eci][tx_banks]")
{
	for (unsigned stall : {0u, 30u})
		for (bool rx_banks : {false, true}) {
			nic_eci_ports e({27 + stall, stall, rx_banks, false, true});
			host h(e, 300);
			REQUIRE(h.tx_banks);
			in_flight fl;
			std::mt19937_64 rng(37 + stall);
			std::vector<std::size_t> sizes = tx_edge_sizes();
			for (int i = 0; i < 16; ++i)
				sizes.push_back(random_len(rng));
			for (std::size_t i = 0; i < sizes.size(); ++i) {
				INFO("stall " << stall << " rx_banks " << rx_banks << " frame " << i << " of " << sizes[i]);
				// line-by-line requests stay valid on the same channel
				h.tx_banks = i % 5 != 3;
				fl.send(h, frame(rng, sizes[i]));
				fl.receive_all(h);
			}
			REQUIRE(e.protocol_errors().empty());
		}
}

TEST_CASE("nic_eci_top tx banks: the CPU reads and drops TX data lines at any moment; shorter after longer",
	  "[nic_eci][tx_banks]")
{
	for (unsigned pct : {2u, 20u}) {
		nic_eci_ports e({51 + pct, 15, true, false, true});
		host h(e, 500);
		in_flight fl;
		std::mt19937_64 rng(51 + pct), adv(pct);
		adversary(h, adv, pct, tx_ch);
		// long, long, then shorter and shorter: each bank's next request uses
		// fewer lines than its last, over lines the CPU still holds
		std::vector<std::size_t> sizes{N::MTU, N::MTU - 1, 5000, 4999, 1000, 999, 300, 249, N::MIN_FRAME, 64};
		for (int i = 0; i < 12; ++i)
			sizes.push_back(random_len(rng));
		for (std::size_t i = 0; i < sizes.size(); ++i) {
			INFO("adversary " << pct << "% frame " << i << " of " << sizes[i]);
			fl.send(h, frame(rng, sizes[i]));
			if (i % 3 == 2)
				fl.receive_all(h);
		}
		fl.receive_all(h);
		h.m.on_pump = nullptr;
		REQUIRE(e.protocol_errors().empty());
	}
}

TEST_CASE("nic_eci_top tx banks: a 64-byte frame costs no data-line traffic", "[nic_eci][tx_banks]")
{
	nic_eci_ports e({5, 10, true, false, true});
	host h(e, 60);
	in_flight fl;
	std::mt19937_64 rng(7);
	auto one = [&](std::size_t n) {
		fl.send(h, frame(rng, n));
		fl.receive_all(h);
	};
	// after a reset every data line counts as lent: the first request on
	// each bank takes them all back once
	one(64);
	one(64);
	CHECK(data_lcis(h.m, tx_ch) == 2 * N::BANK_LINES);
	const unsigned lci0 = data_lcis(h.m, tx_ch);
	for (int i = 0; i < 20; ++i)
		one(64);
	CHECK(data_lcis(h.m, tx_ch) == lci0);
	// a 1000-byte frame: its 7 lines stored, taken back at its signal
	one(1000);
	CHECK(data_lcis(h.m, tx_ch) == lci0 + 7);
	REQUIRE(e.protocol_errors().empty());
}

TEST_CASE("nic_eci_top tx banks: cycles from the signal to the last beat at the MAC", "[nic_eci][tx_banks]")
{
	// No stalls. The signal's load to the TX stamp (the cycle the MAC took
	// the frame's last beat): take the other control line and the request's
	// stored lines back, examine, read the bank and stream the rows (two
	// beats each). Printed for Documentation/nic.md (the model's calibration).
	nic_eci_ports e({73, 0, true, false, true});
	host h(e, 910);
	in_flight fl;
	std::mt19937_64 rng(73);
	const std::size_t sizes[] = {N::MIN_FRAME, chunk + 100, N::MTU}; // 0, 1, 75 data lines
	std::map<std::size_t, std::uint64_t> cyc;
	for (std::size_t n : sizes)
		for (int i = 0; i < 4; ++i) {
			fl.send(h, frame(rng, n));
			if (i >= 2)
				cyc[n] = fl.last_tx - h.signal_at; // steady state: each bank used before
			fl.receive_all(h);
		}
	printf("SIMULATED nic_eci_top TX banks (RTL cycles at %g MHz, no stalls): signal to the last beat at the MAC "
	       "%lu (0 data lines), %lu (1), %lu (75, MTU)\n",
	       double(N::clock_mhz), (unsigned long)cyc[sizes[0]], (unsigned long)cyc[sizes[1]],
	       (unsigned long)cyc[sizes[2]]);
	CHECK(cyc[sizes[0]] < cyc[sizes[1]]);
	CHECK(cyc[sizes[1]] < cyc[sizes[2]]);
	REQUIRE(e.protocol_errors().empty());
}
