// Testbench of the PCIe PIO NIC image (nic_pio_top: NIC core + MAC stand-in
// in loopback) over its AXI4 slave, with random idle cycles and backpressure
// on every AXI channel (protocol-checked) and the MAC's own backpressure on
// the TX stream (its frame store fills with back-to-back MTU frames). The
// host side does what the driver (include/pioc/nic/pio_nic.hpp) does: frame
// into TX_BUF, length into TX_DESC, TX_HEAD; RX_HEAD, descriptor, frame,
// RX_TAIL. Checked: every frame delivered once, in order, byte-exact; every
// RX stamp equal to the MAC model's prediction from the TX stamp (the NIC
// takes an RX beat every cycle); RX ring full (frames dropped and counted,
// the kept ones intact); ring wrap with small rings; TX ring overrun refused;
// runt and oversize frames completed with DESC_ERR, counted, never delivered;
// the idle output (cycles a simulator may skip) against a twin that
// evaluates every cycle.
#include "Vnic_pio_top.h"
#include "Vnic_pio_top___024root.h"
#include "common/sim.hpp"
#include "nic_frames.hpp"
#include "pioc/regs/nic_pio.hpp"
#include "sim/nic/mac_model.hpp"
#include "sim/nic/pio_nic_model.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <optional>

using namespace pioc::tb;
namespace R = pioc::regs::nic_pio;

namespace {

struct nic_dut {
	explicit nic_dut(std::uint64_t seed, unsigned stall_pct = 30)
		: s(seed), axi("nic", PIOC_AXI4_PORT(s.m.get(), s_), &s.rng, &errors)
	{
		axi.stall_valid.percent = stall_pct;
		axi.stall_ready.percent = stall_pct;
		s.add(&axi);
		s.reset();
	}
	void wait(std::uint64_t tag) { REQUIRE(s.run_until([&] { return axi.done(tag); }, 2000000)); }
	void write(std::uint64_t a, const void *d, std::size_t n) { wait(axi.write(a, d, n)); }
	void read(std::uint64_t a, void *d, std::size_t n) { wait(axi.read(a, d, n)); }
	void w32(std::uint64_t a, std::uint32_t v) { write(a, &v, 4); }
	void w64(std::uint64_t a, std::uint64_t v) { write(a, &v, 8); }
	std::uint32_t r32(std::uint64_t a)
	{
		std::uint32_t v = 0;
		read(a, &v, 4);
		return v;
	}
	std::uint64_t r64(std::uint64_t a)
	{
		std::uint64_t v = 0;
		read(a, &v, 8);
		return v;
	}

	std::vector<std::string> errors;
	sim<Vnic_pio_top> s;
	axi4_master<std::uint32_t> axi;
};

using nic::bytes;
using nic::pick_len;
using nic::random_frame;

/** The driver's side of the rings, kept in step with the device. */
struct host {
	nic_dut &d;
	std::uint32_t rx_size, tx_size;
	std::uint32_t tx_head = 0, tx_reaped = 0, rx_tail = 0;

	void set_rings(std::uint32_t rx, std::uint32_t tx)
	{
		rx_size = rx;
		tx_size = tx;
		d.w32(R::RX_RING_SIZE.offset, rx);
		d.w32(R::TX_RING_SIZE.offset, tx);
		REQUIRE(d.r32(R::RX_RING_SIZE.offset) == rx);
		REQUIRE(d.r32(R::TX_RING_SIZE.offset) == tx);
	}
	/** Queues frame @p f with descriptor length @p len (may differ from the bytes stored). */
	void send(const bytes &f, std::uint64_t len)
	{
		const std::uint32_t slot = tx_head & (tx_size - 1);
		if (!f.empty())
			d.axi.write(R::TX_BUF.offset + slot * R::SLOT_BYTES, f.data(), f.size());
		d.axi.write(R::TX_DESC.offset + slot * R::DESC_BYTES, &len, 8);
		++tx_head;
		d.w32(R::TX_HEAD.offset, tx_head);
	}
	/** Next TX completion: {word 0, stamp}; nullopt if still pending. */
	std::optional<std::pair<std::uint64_t, std::uint64_t>> reap()
	{
		if (tx_reaped == tx_head)
			return std::nullopt;
		const std::uint64_t a = R::TX_DESC.offset + (tx_reaped & (tx_size - 1)) * R::DESC_BYTES;
		const std::uint64_t w0 = d.r64(a);
		if (!(w0 & R::DESC_DONE))
			return std::nullopt;
		++tx_reaped;
		return std::pair{w0, d.r64(a + 8)};
	}
	/** Next received frame and its stamp; nullopt if none. */
	std::optional<std::pair<bytes, std::uint64_t>> receive()
	{
		if (d.r32(R::RX_HEAD.offset) == rx_tail)
			return std::nullopt;
		const std::uint64_t a = R::RX_DESC.offset + (rx_tail & (rx_size - 1)) * R::DESC_BYTES;
		const std::uint64_t w0 = d.r64(a);
		REQUIRE((w0 & R::DESC_DONE) != 0);
		bytes b(w0 & R::DESC_LEN_MASK);
		d.read(R::RX_BUF.offset + (rx_tail & (rx_size - 1)) * R::SLOT_BYTES, b.data(), b.size());
		const std::uint64_t ts = d.r64(a + 8);
		d.w32(R::RX_TAIL.offset, ++rx_tail);
		return std::pair{std::move(b), ts};
	}
};

} // namespace

TEST_CASE("nic_pio_top: identification, ring sizes and write rules", "[nic_pio]")
{
	nic_dut d(21);
	CHECK(d.r32(R::ID.offset) == R::id_value);
	CHECK(d.r32(R::VERSION.offset) == R::VERSION.reset);
	CHECK(d.r32(R::RX_RING_SIZE.offset) == R::RX_RING_SIZE.reset);
	CHECK(d.r32(R::TX_RING_SIZE.offset) == R::TX_RING_SIZE.reset);
	const std::uint64_t c0 = d.r64(R::CYCLES.offset), c1 = d.r64(R::CYCLES.offset);
	CHECK(c1 > c0);
	// ring sizes: powers of two in 2..MAX_RING only
	for (std::uint32_t bad : {0u, 1u, 3u, 96u, 128u}) {
		d.w32(R::RX_RING_SIZE.offset, bad);
		CHECK(d.r32(R::RX_RING_SIZE.offset) == R::RX_RING_SIZE.reset);
	}
	d.w32(R::TX_RING_SIZE.offset, 8);
	CHECK(d.r32(R::TX_RING_SIZE.offset) == 8);
	// read-only registers and whole-word writes to registers are ignored
	d.w32(R::ID.offset, 0);
	d.w32(R::RX_HEAD.offset, 5);
	d.w64(R::RX_RING_SIZE.offset, 0x0000000400000004ull);
	CHECK(d.r32(R::ID.offset) == R::id_value);
	CHECK(d.r32(R::RX_HEAD.offset) == 0);
	CHECK(d.r32(R::RX_RING_SIZE.offset) == R::RX_RING_SIZE.reset);
	// RX_TAIL cannot pass RX_HEAD; TX_HEAD cannot overrun the ring
	d.w32(R::RX_TAIL.offset, 1);
	CHECK(d.r32(R::RX_TAIL.offset) == 0);
	d.w32(R::TX_HEAD.offset, 9);
	CHECK(d.r32(R::TX_HEAD.offset) == 0);
	// holes read all ones
	CHECK(d.r64(0x0800) == ~0ull);
	CHECK(d.r64(0x3000) == ~0ull);
	CHECK(d.r32(R::OVERSIZE.offset + 4) == 0xffffffffu);
	// TX_DESC and the buffers keep what the host writes
	d.w64(R::TX_DESC.offset + 0x3f8, 0x0123456789abcdefull);
	CHECK(d.r64(R::TX_DESC.offset + 0x3f8) == 0x0123456789abcdefull);
	const bytes pat = random_frame(d.s.rng, 200);
	bytes back(pat.size());
	d.write(R::TX_BUF.offset + 63 * R::SLOT_BYTES + 3, pat.data(), pat.size());
	d.read(R::TX_BUF.offset + 63 * R::SLOT_BYTES + 3, back.data(), back.size());
	CHECK(back == pat);
	// RX_BUF is read-only for the host
	d.w64(R::RX_BUF.offset, 0x5555);
	REQUIRE(d.errors.empty());
}

/** Random frames through the loopback; at most one RX ring of frames
 *  unconsumed, so none is dropped. */
static void run_traffic(std::uint64_t seed, std::uint32_t rx, std::uint32_t tx, unsigned frames, unsigned stall)
{
	nic_dut d(seed, stall);
	host h{d};
	h.set_rings(rx, tx);
	std::mt19937_64 &rng = d.s.rng;
	pioc::sim::nic::mac_model model;
	std::deque<bytes> sent;                 // awaiting RX, in order
	std::vector<std::size_t> lens;          // per frame
	std::vector<std::uint64_t> tx_ts, rx_ts; // stamps per frame, in order
	unsigned queued = 0, received = 0;
	while (received < frames) {
		while (queued < frames && h.tx_head - h.tx_reaped < tx && queued - received < rx) {
			bytes f = random_frame(rng, pick_len(rng));
			h.send(f, f.size());
			lens.push_back(f.size());
			sent.push_back(std::move(f));
			++queued;
		}
		while (auto c = h.reap()) {
			REQUIRE(tx_ts.size() < lens.size());
			CHECK((c->first & R::DESC_LEN_MASK) == lens[tx_ts.size()]);
			CHECK((c->first & R::DESC_ERR) == 0);
			tx_ts.push_back(c->second);
		}
		while (auto f = h.receive()) {
			REQUIRE(!sent.empty());
			REQUIRE(f->first.size() == sent.front().size());
			REQUIRE(f->first == sent.front());
			rx_ts.push_back(f->second);
			sent.pop_front();
			++received;
		}
	}
	while (tx_ts.size() < frames) {
		std::optional<std::pair<std::uint64_t, std::uint64_t>> c;
		REQUIRE(d.s.run_until([&] { return (c = h.reap()).has_value(); }, 100000));
		tx_ts.push_back(c->second);
	}
	// The NIC takes an RX beat every cycle, so the MAC model, given the TX
	// stamps, predicts every RX stamp to the cycle.
	for (unsigned i = 0; i < frames; ++i) {
		const auto m = model.transmit(tx_ts[i], lens[i]);
		REQUIRE(m.delivered);
		CHECK(rx_ts[i] == m.rx_stamp);
		CHECK(rx_ts[i] > tx_ts[i]);
	}
	CHECK(d.r32(R::RX_DROPS.offset) == 0);
	CHECK(d.r32(R::RUNTS.offset) == 0);
	CHECK(d.r32(R::OVERSIZE.offset) == 0);
	CHECK(d.r32(R::RX_HEAD.offset) == frames);
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_pio_top: random frames, once, in order, byte-exact, stamps as the MAC model", "[nic_pio]")
{
	SECTION("full rings, AXI stalls") { run_traffic(31, 64, 64, 120, 30); }
	SECTION("ring wrap: 2-slot rings") { run_traffic(32, 2, 2, 40, 20); }
	SECTION("ring wrap: 4 RX, 8 TX, no stalls") { run_traffic(33, 4, 8, 60, 0); }
}

TEST_CASE("nic_pio_top: MTU frames under one doorbell: the MAC stalls the TX stream, nothing is lost", "[nic_pio]")
{
	// The TX engine streams 64 bytes a cycle, the line drains 50: with eight
	// 9600-byte frames queued at once the MAC's 16 KiB frame store fills and
	// holds s_tready low, so the frames' TX stamps are further apart than
	// their 150 beats.
	nic_dut d(45, 20);
	host h{d};
	h.set_rings(16, 8);
	std::vector<bytes> frames;
	for (unsigned i = 0; i < 8; ++i) {
		frames.push_back(random_frame(d.s.rng, 9600 - i));
		const std::uint32_t slot = i;
		d.axi.write(R::TX_BUF.offset + slot * R::SLOT_BYTES, frames.back().data(), frames.back().size());
		const std::uint64_t len = frames.back().size();
		d.axi.write(R::TX_DESC.offset + slot * R::DESC_BYTES, &len, 8);
	}
	h.tx_head = 8;
	d.w32(R::TX_HEAD.offset, 8);
	std::vector<std::uint64_t> tx_ts;
	while (tx_ts.size() < 8) {
		std::optional<std::pair<std::uint64_t, std::uint64_t>> c;
		REQUIRE(d.s.run_until([&] { return (c = h.reap()).has_value(); }, 100000));
		CHECK((c->first & R::DESC_ERR) == 0);
		tx_ts.push_back(c->second);
	}
	std::uint64_t longest_gap = 0;
	for (unsigned i = 1; i < 8; ++i)
		longest_gap = std::max(longest_gap, tx_ts[i] - tx_ts[i - 1]);
	CHECK(longest_gap > 150); // the stream was stalled
	pioc::sim::nic::mac_model model;
	for (unsigned i = 0; i < 8; ++i) {
		std::optional<std::pair<bytes, std::uint64_t>> got;
		REQUIRE(d.s.run_until([&] { return (got = h.receive()).has_value(); }, 100000));
		CHECK(got->first == frames[i]);
		CHECK(got->second == model.transmit(tx_ts[i], frames[i].size()).rx_stamp);
	}
	CHECK(d.r32(R::RX_DROPS.offset) == 0);
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_pio_top: RX ring full drops whole frames and counts them", "[nic_pio]")
{
	nic_dut d(41, 10);
	host h{d};
	h.set_rings(4, 16);
	std::vector<bytes> frames;
	for (unsigned i = 0; i < 10; ++i) {
		frames.push_back(random_frame(d.s.rng, 64 + 97 * i));
		h.send(frames.back(), frames.back().size());
	}
	REQUIRE(d.s.run_until([&] { return d.r32(R::TX_TAIL.offset) == 10; }, 200000));
	d.s.run_until([] { return false; }, 2000); // let the last frame come back
	CHECK(d.r32(R::RX_HEAD.offset) == 4);
	CHECK(d.r32(R::RX_DROPS.offset) == 6);
	for (unsigned i = 0; i < 4; ++i) {
		auto f = h.receive();
		REQUIRE(f);
		CHECK(f->first == frames[i]);
	}
	CHECK(!h.receive());
	// room again: the next frames arrive intact
	while (h.reap()) {
	}
	for (unsigned i = 0; i < 3; ++i) {
		const bytes f = random_frame(d.s.rng, 1500 + i);
		h.send(f, f.size());
		std::optional<std::pair<bytes, std::uint64_t>> got;
		REQUIRE(d.s.run_until([&] { return (got = h.receive()).has_value(); }, 100000));
		CHECK(got->first == f);
	}
	CHECK(d.r32(R::RX_DROPS.offset) == 6);
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_pio_top: runt and oversize frames fail with DESC_ERR and are never delivered", "[nic_pio]")
{
	nic_dut d(51, 20);
	host h{d};
	h.set_rings(8, 8);
	const bytes good = random_frame(d.s.rng, 700);
	const bytes runt = random_frame(d.s.rng, 59);
	h.send(runt, 59);
	h.send(bytes{}, 0);                               // empty descriptor: one beat, tkeep 0
	h.send(random_frame(d.s.rng, 9600), 9601);        // one byte over the MTU
	h.send(random_frame(d.s.rng, 2000), 0xffff);      // length far beyond the slot
	h.send(good, good.size());
	for (std::uint64_t want : {59u, 0u, 9601u, 0xffffu, 700u}) {
		std::optional<std::pair<std::uint64_t, std::uint64_t>> c;
		REQUIRE(d.s.run_until([&] { return (c = h.reap()).has_value(); }, 100000));
		CHECK((c->first & R::DESC_LEN_MASK) == want);
		CHECK(((c->first & R::DESC_ERR) != 0) == (want != 700));
	}
	std::optional<std::pair<bytes, std::uint64_t>> got;
	REQUIRE(d.s.run_until([&] { return (got = h.receive()).has_value(); }, 100000));
	CHECK(got->first == good);
	d.s.run_until([] { return false; }, 1000);
	CHECK(!h.receive());
	CHECK(d.r32(R::RUNTS.offset) == 2);
	CHECK(d.r32(R::OVERSIZE.offset) == 2);
	CHECK(d.r32(R::RX_DROPS.offset) == 0);
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_pio_top: a full TX ring refuses a doorbell that would overrun it", "[nic_pio]")
{
	nic_dut d(61, 0);
	host h{d};
	h.set_rings(64, 2);
	const bytes f = random_frame(d.s.rng, 9600);
	h.send(f, f.size());
	h.send(f, f.size());
	d.w32(R::TX_HEAD.offset, 4);          // two more before either finished: overrun, refused
	CHECK(d.r32(R::TX_HEAD.offset) == 2);
	d.w32(R::TX_HEAD.offset, 1);          // backwards: refused
	CHECK(d.r32(R::TX_HEAD.offset) == 2);
	REQUIRE(d.s.run_until([&] { return d.r32(R::TX_TAIL.offset) == 2; }, 100000));
	d.w32(R::TX_HEAD.offset, 4);          // both slots done: the ring has room again
	CHECK(d.r32(R::TX_HEAD.offset) == 4);
	REQUIRE(d.s.run_until([&] { return d.r32(R::TX_TAIL.offset) == 4; }, 100000));
	REQUIRE(d.errors.empty());
}

namespace {

/** A fresh image, no AXI stalls: one 64-byte frame sent; returns the NIC's
 *  cycle counter when the doorbell was queued. */
std::uint64_t send_one(nic_dut &d)
{
	const bytes f(64, 0x5a);
	d.write(R::TX_BUF.offset, f.data(), f.size());
	d.w64(R::TX_DESC.offset, f.size());
	d.s.m->eval();
	const std::uint64_t at = d.s.m->cycles;
	d.w32(R::TX_HEAD.offset, 1);
	return at;
}

/** Steps until the NIC's counter reads @p c (the next access arrives then). */
void step_to(nic_dut &d, std::uint64_t c)
{
	REQUIRE(d.s.m->cycles <= c);
	while (d.s.m->cycles < c)
		d.s.step();
}

} // namespace

// The behavioural model's timing constants (lib/sim/nic/pio_nic_model.hpp)
// are this RTL's cycle counts; here they are measured on the RTL, so a change
// of either side fails here (and in tests/rtl, through the link).
TEST_CASE("nic_pio_top: the cycle counts the behavioural model charges", "[nic_pio][model]")
{
	const pioc::sim::nic::pio_nic_model::timing t;
	// BAR port: a write takes write_cycles + 1 per beat, a read read_cycles + 1 per beat
	{
		nic_dut d(71, 0);
		for (std::size_t n : {4u, 8u, 64u, 256u}) {
			const bytes b(n, 1);
			const std::uint64_t t0 = d.s.cycle;
			d.write(R::TX_BUF.offset, b.data(), n);
			CHECK(d.s.cycle - t0 == t.write_cycles + (n + 7) / 8);
		}
		for (std::uint64_t off : {std::uint64_t(R::RX_HEAD.offset), std::uint64_t(R::RX_BUF.offset)}) {
			const std::uint64_t t0 = d.s.cycle;
			d.r64(off);
			CHECK(d.s.cycle - t0 == t.read_cycles + 1);
		}
	}
	// TX: the doorbell (one beat) acts one cycle after it arrives; the first
	// beat of a one-beat frame leaves tx_start_cycles later
	std::uint64_t tx_stamp = 0, rx_stamp = 0;
	{
		nic_dut d(72, 0);
		const std::uint64_t at = send_one(d);
		REQUIRE(d.s.run_until([&] { return d.r32(R::RX_HEAD.offset) == 1; }, 10000));
		tx_stamp = d.r64(R::TX_DESC.offset + 8);
		rx_stamp = d.r64(R::RX_DESC.offset + 8);
		CHECK(tx_stamp == at + 1 + t.tx_start_cycles);
	}
	// A read is taken one cycle after it arrives: DESC_DONE shows to reads
	// arriving tx_done_cycles - 1 after the last TX beat, RX_HEAD to reads
	// arriving rx_land_cycles - 1 after the last RX beat, not a cycle earlier
	for (unsigned late : {0u, 1u}) {
		nic_dut d(72, 0);
		send_one(d);
		step_to(d, tx_stamp + t.tx_done_cycles - 2 + late);
		CHECK(((d.r64(R::TX_DESC.offset) & R::DESC_DONE) != 0) == bool(late));
	}
	for (unsigned late : {0u, 1u}) {
		nic_dut d(72, 0);
		send_one(d);
		step_to(d, rx_stamp + t.rx_land_cycles - 2 + late);
		CHECK(d.r32(R::RX_HEAD.offset) == late);
	}
}

namespace {

/** Records the NIC counter's value in every cycle rx_irq is high. */
struct irq_probe final : agent {
	explicit irq_probe(const Vnic_pio_top *m) : m(m) {}
	void drive() override {}
	void sample() override
	{
		if (m->rx_irq)
			pulses.push_back(m->cycles);
	}
	const Vnic_pio_top *m;
	std::vector<std::uint64_t> pulses;
};

} // namespace

// RX_IRQ_ARM: one-shot, raised by a landing while armed, one cycle wide, in
// the cycle the behavioural model sends its MSI-X write (the frame's RX
// stamp + rx_land_cycles); nothing for a frame already waiting, nothing
// when not re-armed, nothing after a disarm.
TEST_CASE("nic_pio_top: the RX interrupt is one-shot and pulses when the frame lands", "[nic_pio][irq]")
{
	const pioc::sim::nic::pio_nic_model::timing t;
	nic_dut d(81, 20);
	irq_probe probe(d.s.m.get());
	d.s.add(&probe);
	host h{d};
	h.set_rings(8, 8);
	auto send_and_receive = [&](std::size_t len) {
		const bytes f = random_frame(d.s.rng, len);
		h.send(f, f.size());
		std::optional<std::pair<bytes, std::uint64_t>> got;
		REQUIRE(d.s.run_until([&] { return (got = h.receive()).has_value(); }, 100000));
		CHECK(got->first == f);
		return got->second; // the RX stamp
	};
	CHECK(d.r32(R::RX_IRQ_ARM.offset) == 0);
	d.w32(R::RX_IRQ_ARM.offset, 1);
	CHECK(d.r32(R::RX_IRQ_ARM.offset) == 1);
	const std::uint64_t stamp = send_and_receive(300);
	REQUIRE(probe.pulses.size() == 1);
	CHECK(probe.pulses[0] == stamp + t.rx_land_cycles);
	CHECK(d.r32(R::RX_IRQ_ARM.offset) == 0); // disarmed by the interrupt
	CHECK(d.r32(R::RX_IRQS.offset) == 1);
	// not re-armed: frames land unannounced
	for (std::size_t len : {64u, 9600u, 700u})
		send_and_receive(len);
	CHECK(probe.pulses.size() == 1);
	// armed with a frame already waiting: nothing (the driver re-reads RX_HEAD)
	const bytes waiting = random_frame(d.s.rng, 128);
	h.send(waiting, waiting.size());
	REQUIRE(d.s.run_until([&] { return d.r32(R::RX_HEAD.offset) == h.rx_tail + 1; }, 100000));
	d.w32(R::RX_IRQ_ARM.offset, 1);
	d.s.run_until([] { return false; }, 200);
	CHECK(probe.pulses.size() == 1);
	REQUIRE(h.receive());
	// still armed: the next landing raises it
	const std::uint64_t stamp2 = send_and_receive(1500);
	REQUIRE(probe.pulses.size() == 2);
	CHECK(probe.pulses[1] == stamp2 + t.rx_land_cycles);
	// armed, then disarmed: nothing
	d.w32(R::RX_IRQ_ARM.offset, 1);
	d.w32(R::RX_IRQ_ARM.offset, 0);
	send_and_receive(60);
	CHECK(probe.pulses.size() == 2);
	CHECK(d.r32(R::RX_IRQS.offset) == 2);
	REQUIRE(d.errors.empty());
}

namespace {

/** Every output of the image that means something, in one vector, so two
 *  images can be compared; the counter first. A channel's payload counts
 *  only with its valid up: the front end clears its burst counters in its
 *  first cycle between bursts (RLAST follows them) and sets them again when
 *  it takes the next burst, so a skip may leave them as they were. */
std::vector<std::uint64_t> outputs_of(const Vnic_pio_top &m)
{
	const bool r = m.s_rvalid, b = m.s_bvalid;
	return {m.cycles,   m.s_awready,     m.s_wready,     m.s_bvalid,     b ? m.s_bid : 0u,
		b ? m.s_bresp : 0u, m.s_arready, m.s_rvalid, r ? m.s_rid : 0u, r ? m.s_rdata : 0u,
		r ? m.s_rresp : 0u, r ? m.s_rlast : 0u, m.rx_irq, m.idle};
}

/** Two images driven alike, no AXI stalls (the stall generator draws per
 *  cycle evaluated): `every` evaluates every cycle, `skips` jumps over the
 *  cycles in which it says it is idle and its port is quiet, advancing only
 *  its cycle counter, as lib/rtl/rtl_clock.hpp does. An idle output that is
 *  high while anything else would still move (a frame on the MAC's line, a
 *  landing, a stamp, an interrupt) leaves `skips` behind: its outputs, its
 *  read data or its interrupt pulses then differ from `every`'s. */
struct idle_twin {
	explicit idle_twin(std::uint64_t seed) : every(seed, 0), skips(seed, 0), pa(every.s.m.get()), pb(skips.s.m.get())
	{
		every.s.add(&pa);
		skips.s.add(&pb);
	}

	/** Both images one cycle; every output must agree. */
	void step()
	{
		step_every();
		skips.s.step();
		same();
	}
	/** One cycle of `every`: a cycle that starts idle and in which no valid
	 *  is driven on AW, W or AR must end with the same outputs but for the
	 *  counter (also in the middle of a transfer: the front end must not
	 *  count as idle then). */
	void step_every()
	{
		const bool idle = every.s.m->idle;
		auto before = outputs_of(*every.s.m);
		every.s.step();
		const Vnic_pio_top &m = *every.s.m;
		if (idle && !m.s_awvalid && !m.s_wvalid && !m.s_arvalid) {
			before[0] += 1; // the counter
			REQUIRE(outputs_of(m) == before);
		}
	}
	void same()
	{
		REQUIRE(every.s.cycle == skips.s.cycle);
		REQUIRE(outputs_of(*every.s.m) == outputs_of(*skips.s.m));
	}

	/** @p n cycles with the port quiet. */
	void run(std::uint64_t n)
	{
		for (std::uint64_t i = 0; i < n; ++i)
			step_every();
		std::uint64_t left = n;
		while (left && !(skips.s.m->idle && skips.axi.quiet())) {
			skips.s.step();
			--left;
		}
		if (left) {
			skips.s.m->rootp->nic_pio_top__DOT__u_nic__DOT__u_cnt__DOT__count += left;
			skips.s.cycle += left;
			skips.axi.cycle += left; // its error messages keep the model's cycle numbers
			skips.s.m->eval();
			skipped += left;
		}
		same();
	}

	/** Queues the same transfer on both (@p queue returns its tag) and
	 *  steps both until it is done: in the same cycle. */
	template <class F> void both(F &&queue)
	{
		const std::uint64_t ta = queue(every), tb = queue(skips);
		while (!every.axi.done(ta)) {
			step();
			REQUIRE(every.axi.done(ta) == skips.axi.done(tb));
		}
		REQUIRE(skips.axi.done(tb));
	}
	void write(std::uint64_t a, const void *d, std::size_t n)
	{
		both([&](nic_dut &x) { return x.axi.write(a, d, n); });
	}
	void w32(std::uint64_t a, std::uint32_t v) { write(a, &v, 4); }
	void w64(std::uint64_t a, std::uint64_t v) { write(a, &v, 8); }
	/** Both images' answers must agree; returns `every`'s. */
	bytes read(std::uint64_t a, std::size_t n)
	{
		bytes ra(n), rb(n);
		both([&](nic_dut &x) { return x.axi.read(a, &x == &every ? ra.data() : rb.data(), n); });
		REQUIRE(ra == rb);
		return ra;
	}
	std::uint64_t r64(std::uint64_t a)
	{
		const bytes b = read(a, 8);
		std::uint64_t v = 0;
		std::memcpy(&v, b.data(), 8);
		return v;
	}

	nic_dut every, skips;
	irq_probe pa, pb;
	std::uint64_t skipped = 0;
};

} // namespace

// The image's idle output, against a twin that evaluates every cycle: a
// polling host with long and short gaps (so skips start just after a
// doorbell, a landing, an interrupt), frame bursts, runts and oversize
// frames, an RX ring left full (drops), the interrupt armed now and then.
TEST_CASE("nic_pio_top: idle is high only when nothing but the counter would change", "[nic_pio][idle]")
{
	idle_twin t(91);
	std::mt19937_64 rng(92);
	const std::uint32_t rx_size = 8, tx_size = 8;
	t.w32(R::RX_RING_SIZE.offset, rx_size);
	t.w32(R::TX_RING_SIZE.offset, tx_size);
	std::uint32_t tx_head = 0, tx_reaped = 0, rx_tail = 0, sent = 0, received = 0;
	for (unsigned round = 0; round < 160; ++round) {
		if (rng() % 3 == 0)
			t.w32(R::RX_IRQ_ARM.offset, 1);
		for (unsigned n = rng() % 4; n > 0 && tx_head - tx_reaped < tx_size; --n) {
			const unsigned kind = rng() % 10;
			const std::size_t len = kind == 0 ? 59 : kind == 1 ? 9601 : pick_len(rng);
			const bytes f = random_frame(rng, std::min<std::size_t>(len, R::SLOT_BYTES));
			const std::uint32_t slot = tx_head & (tx_size - 1);
			t.write(R::TX_BUF.offset + slot * R::SLOT_BYTES, f.data(), f.size());
			t.w64(R::TX_DESC.offset + slot * R::DESC_BYTES, len);
			t.w32(R::TX_HEAD.offset, ++tx_head);
			++sent;
		}
		t.run(rng() % 2 ? rng() % 20 : rng() % 4000);
		// reap TX completions; consume RX frames, except now and then (drops)
		while (tx_reaped != tx_head &&
		       (t.r64(R::TX_DESC.offset + (tx_reaped & (tx_size - 1)) * R::DESC_BYTES) & R::DESC_DONE))
			++tx_reaped;
		if (rng() % 4 != 0) {
			while (std::uint32_t(t.r64(R::RX_HEAD.offset)) != rx_tail) {
				const std::uint64_t d = R::RX_DESC.offset + (rx_tail & (rx_size - 1)) * R::DESC_BYTES;
				const std::uint64_t w0 = t.r64(d);
				REQUIRE((w0 & R::DESC_DONE) != 0);
				t.read(R::RX_BUF.offset + (rx_tail & (rx_size - 1)) * R::SLOT_BYTES, w0 & R::DESC_LEN_MASK);
				t.r64(d + 8);
				t.w32(R::RX_TAIL.offset, ++rx_tail);
				++received;
			}
		}
		t.r64(R::CYCLES.offset);
		t.run(rng() % 2 ? rng() % 8 : rng() % 3000);
	}
	const std::uint64_t drops_runts = t.r64(R::RX_DROPS.offset), oversize = t.r64(R::OVERSIZE.offset);
	CHECK(t.pa.pulses == t.pb.pulses);
	// the run went through what it is meant to
	CHECK(received > 100);
	CHECK(t.pa.pulses.size() > 10);
	CHECK(std::uint32_t(drops_runts) > 0);
	CHECK(drops_runts >> 32 > 0);
	CHECK(std::uint32_t(oversize) > 0);
	CHECK(t.skipped * 4 > t.every.s.cycle);   // measured: 44 %
	WARN(sent << " frames, " << received << " received, " << t.pa.pulses.size() << " interrupts; " << t.skipped
		  << " of " << t.every.s.cycle << " cycles skipped");
	REQUIRE(t.every.errors.empty());
	REQUIRE(t.skips.errors.empty());
}
