// Testbench of the DMA NIC image's user side (nic_dma_top: the TX and RX
// paths between XDMA's H2C0 / C2H0 AXI4-Streams and the MAC stand-in in
// near-end loopback, the user BAR behind its AXI4 slave). The XDMA engines
// are played by two stream agents: H2C0 offers frames beat by beat with
// random idle cycles, C2H0 takes them with random backpressure; both streams
// are protocol-checked (valid held until ready, payload unchanged). The BAR
// is read through the AXI4 master with random stalls, as the driver
// (include/pioc/nic/dma_nic.hpp) reads it. Checked: every frame once, in
// order, byte-exact; RX and TX stamps in sequence, the RX stamp as the MAC
// model predicts from the TX stamp; the RX FIFO, full while C2H0 takes
// nothing, drops whole frames and counts them, the frames it kept intact;
// malformed (a partial beat before the last), runt and oversize frames
// counted, stamped with the error bit, never delivered; the stamp FIFO
// losing its oldest stamps when it overflows; RX_STAMP_DROP and
// TX_STAMP_DROP dropping their stamps before a sequence number, counted
// from the oldest; the cycle counts the model takes from this RTL (cut-through TX, RX beats on C2H0 three cycles after
// the MAC's).
#include "Vnic_dma_top.h"
#include "common/sim.hpp"
#include "nic_frames.hpp"
#include "pioc/regs/nic_dma.hpp"
#include "sim/nic/mac_model.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <deque>
#include <optional>

using namespace pioc::tb;
namespace R = pioc::regs::nic_dma;

namespace {

using nic::bytes;
using nic::pick_len;
using nic::random_frame;
constexpr std::size_t beat = 64;

/** One 512-bit beat as the stream carries it. */
struct beat_t {
	std::uint8_t data[beat]{};
	std::uint64_t keep = 0;
	bool last = false;
};

/** Flattens a beat's payload for the handshake checker. */
std::vector<std::uint64_t> payload(const std::uint32_t *w, std::uint64_t keep, bool last)
{
	std::vector<std::uint64_t> p(w, w + 16);
	p.push_back(keep);
	p.push_back(last);
	return p;
}

/** XDMA's H2C0: offers queued beats, with random idle cycles between them. */
class h2c_agent : public agent {
public:
	h2c_agent(Vnic_dma_top *m, std::mt19937_64 *rng, std::vector<std::string> *errors)
		: m_(m), idle_{rng, 0}, chk_("h2c", errors)
	{}
	/** Queues @p f as one frame; @p split: the bytes of each H2C descriptor
	 *  (the engine packs per descriptor, so a split not a multiple of 64
	 *  leaves a partial beat inside the frame). */
	void send(const bytes &f, std::vector<std::size_t> split = {})
	{
		if (split.empty())
			split.push_back(f.size());
		std::size_t at = 0;
		for (std::size_t i = 0; i < split.size(); ++i) {
			const std::size_t end = at + split[i];
			for (std::size_t b = at; b < end; b += beat) {
				beat_t x;
				const std::size_t n = std::min(beat, end - b);
				std::memcpy(x.data, f.data() + b, n);
				x.keep = n == 64 ? ~0ull : (1ull << n) - 1;
				x.last = i + 1 == split.size() && b + n == end;
				q_.push_back(x);
			}
			at = end;
		}
	}
	void drive() override
	{
		if (!offering_ && !q_.empty() && !idle_())
			offering_ = true;
		m_->h2c_tvalid = offering_;
		if (offering_) {
			const beat_t &x = q_.front();
			std::memcpy(m_->h2c_tdata.data(), x.data, beat);
			m_->h2c_tkeep = x.keep;
			m_->h2c_tlast = x.last;
		}
	}
	void sample() override
	{
		const bool fire = m_->h2c_tvalid && m_->h2c_tready;
		if (fire) {
			if (q_.front().last)
				last_taken.push_back(m_->cycles);
			q_.pop_front();
			offering_ = false;
		}
	}
	bool empty() const { return q_.empty() && !offering_; }

	std::vector<std::uint64_t> last_taken; ///< CYCLES when each frame's last beat left H2C0

private:
	Vnic_dma_top *m_;

public:
	stall idle_;

private:
	hs_checker chk_;
	std::deque<beat_t> q_;
	bool offering_ = false;
};

/** XDMA's C2H0: takes beats with random backpressure, checks the stream
 *  (valid held, payload stable, tkeep all ones before tlast and contiguous
 *  on it) and reassembles the frames. */
class c2h_agent : public agent {
public:
	c2h_agent(Vnic_dma_top *m, std::mt19937_64 *rng, std::vector<std::string> *errors)
		: m_(m), stall_{rng, 0}, chk_("c2h", errors), errors_(errors)
	{}
	void drive() override { m_->c2h_tready = !hold && !stall_(); }
	void sample() override
	{
		const std::uint64_t cycle = m_->cycles;
		const std::uint32_t *w = m_->c2h_tdata.data();
		chk_.observe(m_->c2h_tvalid, m_->c2h_tready, payload(w, m_->c2h_tkeep, m_->c2h_tlast), cycle);
		if (m_->c2h_tvalid && m_->c2h_tready) {
			const std::uint64_t k = m_->c2h_tkeep;
			if (!m_->c2h_tlast && k != ~0ull)
				errors_->push_back("c2h @" + std::to_string(cycle) + ": partial beat before tlast");
			if (k == 0 || (k & (k + 1)) != 0)
				errors_->push_back("c2h @" + std::to_string(cycle) +
						   ": tkeep not contiguous from byte 0");
			const auto *b = reinterpret_cast<const std::uint8_t *>(w);
			cur_.insert(cur_.end(), b, b + std::popcount(k));
			if (!first_seen_) {
				first_beat.push_back(cycle);
				first_seen_ = true;
			}
			if (m_->c2h_tlast) {
				frames.push_back(std::move(cur_));
				cur_.clear();
				last_beat.push_back(cycle);
				first_seen_ = false;
			}
		}
	}

	bool hold = false; ///< C2H0 without descriptors: tready low
	stall stall_;
	std::deque<bytes> frames;
	std::vector<std::uint64_t> first_beat, last_beat; ///< CYCLES of each frame's first / last beat

private:
	Vnic_dma_top *m_;
	hs_checker chk_;
	std::vector<std::string> *errors_;
	bytes cur_;
	bool first_seen_ = false;
};

struct dma_dut {
	explicit dma_dut(std::uint64_t seed, unsigned idle_pct = 20, unsigned bp_pct = 30)
		: s(seed), axi("bar", PIOC_AXI4_PORT(s.m.get(), s_), &s.rng, &errors), h2c(s.m.get(), &s.rng, &errors),
		  c2h(s.m.get(), &s.rng, &errors)
	{
		axi.stall_valid.percent = 20;
		axi.stall_ready.percent = 20;
		h2c.idle_.percent = idle_pct;
		c2h.stall_.percent = bp_pct;
		s.add(&axi);
		s.add(&h2c);
		s.add(&c2h);
		s.reset();
	}
	void wait(std::uint64_t tag)
	{
		REQUIRE(s.run_until([&] { return axi.done(tag); }, 200000));
	}
	std::uint32_t r32(std::uint64_t a)
	{
		std::uint32_t v = 0;
		wait(axi.read(a, &v, 4));
		return v;
	}
	std::uint64_t r64(std::uint64_t a)
	{
		std::uint64_t v = 0;
		wait(axi.read(a, &v, 8));
		return v;
	}
	/** Runs until every queued beat left H2C0 and the image is idle. */
	void drain(std::uint64_t max = 2000000)
	{
		REQUIRE(s.run_until([&] { return h2c.empty() && s.m->idle; }, max));
	}
	/** RX_STAMP_DROP or TX_STAMP_DROP (@p reg), as the driver writes it (32 bits). */
	void drop_stamps(std::uint64_t reg, std::uint32_t seq) { wait(axi.write(reg, &seq, 4)); }
	/** Pops every stamp of the FIFO at @p off. */
	std::vector<std::uint64_t> stamps(std::uint64_t off)
	{
		std::vector<std::uint64_t> v;
		for (std::uint64_t x; (x = r64(off)) != R::STAMP_EMPTY;)
			v.push_back(x);
		return v;
	}

	std::vector<std::string> errors;
	sim<Vnic_dma_top> s;
	axi4_master<std::uint32_t> axi;
	h2c_agent h2c;
	c2h_agent c2h;
};

std::uint64_t seq_of(std::uint64_t st) { return st >> R::STAMP_SEQ_SHIFT; }
std::uint64_t cycle_of(std::uint64_t st) { return st & R::STAMP_CYCLE_MASK; }
bool err_of(std::uint64_t st) { return (st & R::STAMP_ERR) != 0; }

} // namespace

TEST_CASE("nic_dma_top: the user BAR", "[nic_dma]")
{
	dma_dut d(61);
	CHECK(d.r32(R::ID.offset) == R::id_value);
	CHECK(d.r32(R::VERSION.offset) == R::VERSION.reset);
	const std::uint64_t c0 = d.r64(R::CYCLES.offset), c1 = d.r64(R::CYCLES.offset);
	CHECK(c1 > c0);
	CHECK(d.r64(R::RX_STAMP.offset) == R::STAMP_EMPTY);
	CHECK(d.r64(R::TX_STAMP.offset) == R::STAMP_EMPTY);
	for (auto reg : {R::RX_DROPS, R::RUNTS, R::OVERSIZE, R::MALFORMED})
		CHECK(d.r32(reg.offset) == 0);
	// holes read all ones; writes change nothing
	CHECK(d.r64(0x30) == ~0ull);
	CHECK(d.r64(0xff8) == ~0ull);
	std::uint32_t z = 0;
	d.wait(d.axi.write(R::ID.offset, &z, 4));
	d.wait(d.axi.write(R::RX_DROPS.offset, &z, 4));
	CHECK(d.r32(R::ID.offset) == R::id_value);
	// a stamp pops only on a whole 64-bit read: a 32-bit read of it reads
	// all ones and leaves the stamp where it is
	const bytes f = random_frame(d.s.rng, 100);
	d.h2c.send(f);
	d.drain();
	CHECK(d.r32(R::RX_STAMP.offset) == 0xffffffffu);
	CHECK(d.r32(R::RX_STAMP.offset + 4) == 0xffffffffu);
	const std::uint64_t st = d.r64(R::RX_STAMP.offset);
	CHECK(st != R::STAMP_EMPTY);
	CHECK(seq_of(st) == 0);
	CHECK(d.r64(R::RX_STAMP.offset) == R::STAMP_EMPTY);
	REQUIRE(d.c2h.frames.size() == 1);
	CHECK(d.c2h.frames.front() == f);
	REQUIRE(d.errors.empty());
}

/** Random frames, paced so that the RX FIFO never fills (at most @p window
 *  bytes between H2C0 and C2H0). */
static void run_traffic(std::uint64_t seed, unsigned frames, unsigned idle, unsigned bp, std::size_t window)
{
	dma_dut d(seed, idle, bp);
	std::mt19937_64 &rng = d.s.rng;
	std::vector<bytes> sent;
	std::size_t in_flight = 0, delivered = 0;
	while (sent.size() < frames || delivered < frames) {
		while (sent.size() < frames) {
			bytes f = random_frame(rng, pick_len(rng));
			if (in_flight + f.size() > window)
				break;
			in_flight += f.size();
			d.h2c.send(f);
			sent.push_back(std::move(f));
		}
		REQUIRE(d.s.run_until([&] { return d.c2h.frames.size() > delivered; }, 200000));
		for (; delivered < d.c2h.frames.size(); ++delivered) {
			REQUIRE(delivered < sent.size());
			REQUIRE(d.c2h.frames[delivered].size() == sent[delivered].size());
			REQUIRE(d.c2h.frames[delivered] == sent[delivered]);
			in_flight -= sent[delivered].size();
		}
	}
	d.drain();
	const auto tx = d.stamps(R::TX_STAMP.offset), rx = d.stamps(R::RX_STAMP.offset);
	REQUIRE(tx.size() == frames);
	REQUIRE(rx.size() == frames);
	// The NIC takes an RX beat every cycle, so the MAC model, given the TX
	// stamps, predicts every RX stamp to the cycle.
	pioc::sim::nic::mac_model model;
	for (unsigned i = 0; i < frames; ++i) {
		CHECK(seq_of(tx[i]) == i);
		CHECK(seq_of(rx[i]) == i);
		CHECK(!err_of(tx[i]));
		CHECK(!err_of(rx[i]));
		const auto m = model.transmit(cycle_of(tx[i]), sent[i].size());
		REQUIRE(m.delivered);
		CHECK(cycle_of(rx[i]) == m.rx_stamp);
	}
	for (auto reg : {R::RX_DROPS, R::RUNTS, R::OVERSIZE, R::MALFORMED})
		CHECK(d.r32(reg.offset) == 0);
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_dma_top: random frames once, in order, byte-exact, stamps in sequence and as the MAC model", "[nic_dma]")
{
	SECTION("H2C idle 20%, C2H backpressure 30%") { run_traffic(71, 150, 20, 30, 40000); }
	SECTION("H2C back to back, C2H backpressure 60%") { run_traffic(72, 80, 0, 60, 40000); }
	SECTION("no stalls, frames back to back") { run_traffic(73, 120, 0, 0, 60000); }
}

TEST_CASE("nic_dma_top: a full RX FIFO drops whole frames and counts them, the kept ones intact", "[nic_dma]")
{
	// C2H0 without descriptors: tready low. A frame gets in only with room
	// for an MTU frame (150 beats) in the 1024-beat FIFO and a frame slot
	// of the 128: six MTU frames, or 128 short ones.
	const unsigned mtu_beats = unsigned((R::MTU + 63) / 64), fifo_beats = unsigned(R::RX_FIFO_BYTES / 64);
	struct shape {
		std::size_t len;
		unsigned sent, kept;
	};
	for (const shape sh : {shape{9600, 10, 6}, shape{64, 200, unsigned(R::RX_FIFO_FRAMES)},
			       shape{1984, 40,
				     unsigned(R::RX_FIFO_FRAMES) < (fifo_beats - mtu_beats) / 31 + 1
					     ? unsigned(R::RX_FIFO_FRAMES)
					     : (fifo_beats - mtu_beats) / 31 + 1}}) {
		dma_dut d(80 + sh.len, 10, 20);
		d.c2h.hold = true;
		std::vector<bytes> sent;
		for (unsigned i = 0; i < sh.sent; ++i) {
			sent.push_back(random_frame(d.s.rng, sh.len));
			d.h2c.send(sent.back());
		}
		REQUIRE(d.s.run_until([&] { return d.h2c.empty(); }, 1000000));
		d.s.run_until([] { return false; }, 400); // the last frame through the MAC
		CHECK(d.r32(R::RX_DROPS.offset) == sh.sent - sh.kept);
		CHECK(d.c2h.frames.empty());
		d.c2h.hold = false;
		d.drain();
		REQUIRE(d.c2h.frames.size() == sh.kept);
		for (unsigned i = 0; i < sh.kept; ++i)
			REQUIRE(d.c2h.frames[i] == sent[i]);
		const auto rx = d.stamps(R::RX_STAMP.offset);
		REQUIRE(rx.size() == sh.kept);
		for (unsigned i = 0; i < sh.kept; ++i)
			CHECK(seq_of(rx[i]) == i);
		CHECK(d.stamps(R::TX_STAMP.offset).size() == sh.sent);
		// and it takes frames again once drained
		const bytes f = random_frame(d.s.rng, 300);
		d.h2c.send(f);
		d.drain();
		REQUIRE(d.c2h.frames.size() == sh.kept + 1);
		CHECK(d.c2h.frames.back() == f);
		CHECK(d.r32(R::RX_DROPS.offset) == sh.sent - sh.kept);
		REQUIRE(d.errors.empty());
	}
}

TEST_CASE("nic_dma_top: malformed, runt and oversize frames counted, stamped as errors, never delivered", "[nic_dma]")
{
	dma_dut d(91);
	std::mt19937_64 &rng = d.s.rng;
	struct tx {
		bytes f;
		std::vector<std::size_t> split;
		bool good;
	};
	std::vector<tx> plan = {
		{random_frame(rng, 500), {}, true},
		{random_frame(rng, 500), {100, 400}, false}, // partial beat inside: malformed
		{random_frame(rng, 200), {}, true},
		{random_frame(rng, 30), {}, false},	       // runt
		{random_frame(rng, 9664), {}, false},	       // oversize
		{random_frame(rng, 1000), {640, 360}, true},   // split on a beat boundary: fine
		{random_frame(rng, 9600), {9000, 600}, false}, // MTU-sized, malformed at its 141st beat
		{random_frame(rng, 70), {64, 6}, true},
		{random_frame(rng, 40), {20, 20}, false}, // malformed and short
		{random_frame(rng, 9600), {}, true},
	};
	std::vector<bytes> good;
	for (const auto &t : plan) {
		d.h2c.send(t.f, t.split);
		if (t.good)
			good.push_back(t.f);
	}
	d.drain();
	REQUIRE(d.c2h.frames.size() == good.size());
	for (std::size_t i = 0; i < good.size(); ++i)
		REQUIRE(d.c2h.frames[i] == good[i]);
	CHECK(d.r32(R::MALFORMED.offset) == 3);
	CHECK(d.r32(R::RUNTS.offset) == 1);
	CHECK(d.r32(R::OVERSIZE.offset) == 1);
	CHECK(d.r32(R::RX_DROPS.offset) == 0);
	const auto txs = d.stamps(R::TX_STAMP.offset);
	REQUIRE(txs.size() == plan.size());
	for (std::size_t i = 0; i < plan.size(); ++i) {
		CHECK(seq_of(txs[i]) == i);
		CHECK(err_of(txs[i]) == !plan[i].good);
	}
	// a malformed frame's stamp is the cycle its last beat left H2C0, the
	// others the MAC's (one cycle after it left H2C0 when the MAC has room)
	REQUIRE(d.h2c.last_taken.size() == plan.size());
	for (std::size_t i : {1, 6, 8})
		CHECK(cycle_of(txs[i]) == d.h2c.last_taken[i]);
	CHECK(cycle_of(txs[0]) == d.h2c.last_taken[0] + 1);
	const auto rxs = d.stamps(R::RX_STAMP.offset);
	REQUIRE(rxs.size() == good.size());
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_dma_top: a full stamp FIFO loses its oldest stamps", "[nic_dma]")
{
	dma_dut d(101, 0, 0);
	const unsigned n = unsigned(R::STAMP_FIFO) + 6;
	for (unsigned i = 0; i < n; ++i)
		d.h2c.send(random_frame(d.s.rng, 60));
	d.drain(4000000);
	REQUIRE(d.c2h.frames.size() == n);
	const auto tx = d.stamps(R::TX_STAMP.offset);
	REQUIRE(tx.size() == R::STAMP_FIFO);
	for (std::size_t i = 0; i < tx.size(); ++i)
		CHECK(seq_of(tx[i]) == i + 6);
	// RX_STAMP_DROP counts from the oldest stamp left after the overflow
	// (sequence 6): 3 lies behind it (nothing goes), 1000 drops 994
	d.drop_stamps(R::RX_STAMP_DROP.offset, 3);
	d.drop_stamps(R::RX_STAMP_DROP.offset, 1000);
	const auto rx = d.stamps(R::RX_STAMP.offset);
	REQUIRE(rx.size() == n - 1000);
	for (std::size_t i = 0; i < rx.size(); ++i)
		CHECK(seq_of(rx[i]) == i + 1000);
	REQUIRE(d.errors.empty());
}

TEST_CASE("nic_dma_top: RX_STAMP_DROP and TX_STAMP_DROP drop their stamps before a sequence number", "[nic_dma]")
{
	for (const bool rx : {true, false}) {
		INFO((rx ? "RX" : "TX"));
		const std::uint64_t stamp = rx ? R::RX_STAMP.offset : R::TX_STAMP.offset;
		const std::uint64_t reg = rx ? R::RX_STAMP_DROP.offset : R::TX_STAMP_DROP.offset;
		const std::uint64_t other = rx ? R::TX_STAMP.offset : R::RX_STAMP.offset;
		dma_dut d(103, 0, 0);
		for (unsigned i = 0; i < 10; ++i)
			d.h2c.send(random_frame(d.s.rng, 60));
		d.drain();
		d.drop_stamps(reg, 4); // 0..3 go
		d.drop_stamps(reg, 2); // behind the oldest (4): nothing
		d.drop_stamps(reg, 4); // the oldest itself: nothing
		CHECK(seq_of(d.r64(stamp)) == 4);
		// writes without both low byte strobes are ignored
		const std::uint8_t b = 9;
		d.wait(d.axi.write(reg, &b, 1));
		CHECK(seq_of(d.r64(stamp)) == 5);
		// a 64-bit write carries the sequence in its low bits too
		const std::uint64_t w = 8 | (0xffffull << 16);
		d.wait(d.axi.write(reg, &w, 8));
		CHECK(seq_of(d.r64(stamp)) == 8);
		CHECK(d.r64(reg) == ~0ull); // write-only
		d.drop_stamps(reg, 100); // ahead of every stamp: all go
		CHECK(d.r64(stamp) == R::STAMP_EMPTY);
		// later stamps are counted on from there; the other FIFO is untouched
		for (unsigned i = 0; i < 3; ++i)
			d.h2c.send(random_frame(d.s.rng, 60));
		d.drain();
		d.drop_stamps(reg, 11);
		const auto got = d.stamps(stamp);
		REQUIRE(got.size() == 2);
		CHECK(seq_of(got[0]) == 11);
		CHECK(seq_of(got[1]) == 12);
		const auto kept = d.stamps(other);
		REQUIRE(kept.size() == 13);
		for (std::size_t i = 0; i < kept.size(); ++i)
			CHECK(seq_of(kept[i]) == i);
		REQUIRE(d.errors.empty());
	}
}

TEST_CASE("nic_dma_top: cycle counts the model takes from the RTL", "[nic_dma]")
{
	// One frame, no stalls: a beat is on the MAC's TX stream one cycle after
	// it left H2C0, so the TX stamp is the cycle after the last beat left
	// H2C0; an RX beat is on C2H0 three cycles after the MAC offered it, so
	// the last C2H0 beat comes three cycles after the RX stamp, the beats
	// back to back.
	for (std::size_t len : {64, 1536, 9600}) {
		dma_dut d(110 + len, 0, 0);
		d.h2c.send(random_frame(d.s.rng, len));
		d.drain();
		const auto tx = d.stamps(R::TX_STAMP.offset), rx = d.stamps(R::RX_STAMP.offset);
		REQUIRE(tx.size() == 1);
		REQUIRE(rx.size() == 1);
		REQUIRE(d.h2c.last_taken.size() == 1);
		REQUIRE(d.c2h.last_beat.size() == 1);
		INFO("len " << len);
		CHECK(cycle_of(tx[0]) == d.h2c.last_taken[0] + 1);
		CHECK(d.c2h.last_beat[0] == cycle_of(rx[0]) + 3);
		CHECK(d.c2h.last_beat[0] - d.c2h.first_beat[0] == (len + 63) / 64 - 1);
		REQUIRE(d.errors.empty());
	}
}
