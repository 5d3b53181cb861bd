// The PIO NIC model driven through its BAR as a host would: frames written
// into TX_BUF/TX_DESC, TX_HEAD rung, RX frames read from RX_DESC/RX_BUF.
#include "sim/nic/pio_nic_model.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>

using pioc::sim::nic::pio_nic_model;
namespace r = pioc::regs::nic_pio;

namespace {

struct bar_host {
	pio_nic_model dev;
	std::uint64_t t = 1000; // ns
	std::uint32_t tx_head = 0, rx_tail = 0;

	std::uint64_t rd(std::uint64_t off, std::size_t len = 4)
	{
		std::uint64_t v = 0;
		dev.read(0, off, &v, len, t);
		return v;
	}
	void wr32(std::uint64_t off, std::uint32_t v) { dev.posted_write(0, off, &v, 4, t); }
	void send(const std::vector<std::uint8_t> &f)
	{
		stage(f);
		wr32(r::TX_HEAD.offset, ++tx_head);
	}
	/** Frame and descriptor into TX slot tx_head + @p ahead, no doorbell. */
	void stage(const std::vector<std::uint8_t> &f, std::uint32_t ahead = 0)
	{
		const std::uint32_t slot = (tx_head + ahead) & (rd(r::TX_RING_SIZE.offset) - 1);
		for (std::size_t o = 0; o < f.size(); o += 64)
			dev.posted_write(0, r::TX_BUF.offset + slot * r::SLOT_BYTES + o, f.data() + o,
					 std::min<std::size_t>(64, f.size() - o), t);
		std::uint64_t w0 = f.size();
		dev.posted_write(0, r::TX_DESC.offset + slot * r::DESC_BYTES, &w0, 8, t);
	}
	/** Next RX frame or empty; its MAC stamp in @p stamp. */
	std::vector<std::uint8_t> receive(std::uint64_t &stamp)
	{
		if (rd(r::RX_HEAD.offset) == rx_tail)
			return {};
		const std::uint32_t slot = rx_tail & (rd(r::RX_RING_SIZE.offset) - 1);
		const std::uint64_t w0 = rd(r::RX_DESC.offset + slot * r::DESC_BYTES, 8);
		REQUIRE((w0 & r::DESC_DONE) != 0);
		stamp = rd(r::RX_DESC.offset + slot * r::DESC_BYTES + 8, 8);
		std::vector<std::uint8_t> f(w0 & r::DESC_LEN_MASK);
		dev.read(0, r::RX_BUF.offset + slot * r::SLOT_BYTES, f.data(), f.size(), t);
		wr32(r::RX_TAIL.offset, ++rx_tail);
		return f;
	}
};

std::vector<std::uint8_t> random_frame(std::mt19937_64 &rng, std::size_t len)
{
	std::vector<std::uint8_t> f(len);
	for (auto &b : f)
		b = std::uint8_t(rng());
	return f;
}

} // namespace

TEST_CASE("pio nic model: frames come back once, in order, byte-exact across ring wraps")
{
	bar_host h;
	h.wr32(r::RX_RING_SIZE.offset, 8);
	h.wr32(r::TX_RING_SIZE.offset, 4);
	REQUIRE(h.rd(r::RX_RING_SIZE.offset) == 8);
	REQUIRE(h.rd(r::TX_RING_SIZE.offset) == 4);
	std::mt19937_64 rng(3);
	std::deque<std::vector<std::uint8_t>> sent;
	unsigned got = 0;
	while (got < 100) {
		if (sent.size() < 100 - got && h.tx_head - h.rd(r::TX_TAIL.offset) < 4 && h.tx_head < 100) {
			auto f = random_frame(rng, 60 + rng() % 9541);
			h.send(f);
			sent.push_back(std::move(f));
		}
		h.t += 50 + rng() % 500;
		std::uint64_t stamp = 0;
		auto f = h.receive(stamp);
		if (!f.empty()) {
			REQUIRE(!sent.empty());
			REQUIRE(f == sent.front());
			sent.pop_front();
			++got;
		}
	}
	REQUIRE(h.rd(r::RX_DROPS.offset) == 0);
	REQUIRE(h.dev.ignored_writes() == 0);
}

TEST_CASE("pio nic model: TX and RX stamps follow the MAC's line timing")
{
	bar_host h;
	std::mt19937_64 rng(4);
	auto f = random_frame(rng, 1536);
	h.send(f);
	// Everything was sent at h.t; the BAR port takes one access at a time:
	// the ring-size read (3 + 1 beat), 24 64-byte writes (2 + 8 beats each),
	// the descriptor (2 + 1); the doorbell acts on its one beat.
	const std::uint64_t doorbell = pio_nic_model::cycle_from(h.t) + 4 + 24 * 10 + 3 + 1;
	h.t += 4000;
	REQUIRE(h.rd(r::TX_TAIL.offset) == 1);
	const std::uint64_t tx_w0 = h.rd(r::TX_DESC.offset, 8);
	REQUIRE((tx_w0 & r::DESC_DONE) != 0);
	REQUIRE((tx_w0 & r::DESC_ERR) == 0);
	const std::uint64_t tx_stamp = h.rd(r::TX_DESC.offset + 8, 8);
	// 3 cycles to start (descriptor, row read), 24 beats
	REQUIRE(tx_stamp == doorbell + 3 + 24 - 1);
	std::uint64_t rx_stamp = 0;
	REQUIRE(h.receive(rx_stamp) == f);
	// store-and-forward: committed at tx_stamp, line from tx_stamp+1 for
	// 1560 byte-times (31.2 cycles), then 24 beats
	const std::uint64_t off_line = ((tx_stamp + 1) * 50 + 1560 + 49) / 50;
	REQUIRE(rx_stamp == off_line + 24 - 1);
}

TEST_CASE("pio nic model: MTU frames rung at once wait for the MAC's store")
{
	bar_host h;
	std::mt19937_64 rng(5);
	std::vector<std::vector<std::uint8_t>> frames;
	for (std::uint32_t i = 0; i < 3; ++i) {
		frames.push_back(random_frame(rng, 9600));
		h.stage(frames.back(), i);
	}
	h.tx_head += 3;
	h.wr32(r::TX_HEAD.offset, h.tx_head);
	h.t += 100000;
	REQUIRE(h.rd(r::TX_TAIL.offset) == 3);
	std::uint64_t stamp[3];
	for (unsigned i = 0; i < 3; ++i)
		stamp[i] = h.rd(r::TX_DESC.offset + i * r::DESC_BYTES + 8, 8);
	// The NIC streams 150 beats a frame, but the MAC's 256-beat store takes
	// frame 1's last beat only once the RX stream read frame 0's beat 43:
	// frame 0 off the line ceil(9624 / 50) = 193 cycles after stamp + 1,
	// + 44 -> 238 cycles after frame 0's stamp (150 without the stall).
	REQUIRE(stamp[1] - stamp[0] == 238);
	REQUIRE(stamp[2] - stamp[1] == 238);
	for (const auto &f : frames) {
		std::uint64_t rx = 0;
		REQUIRE(h.receive(rx) == f);
	}
}

TEST_CASE("pio nic model: a full RX ring drops and counts, later frames still arrive")
{
	bar_host h;
	h.wr32(r::RX_RING_SIZE.offset, 2);
	std::mt19937_64 rng(5);
	std::vector<std::vector<std::uint8_t>> frames;
	for (int i = 0; i < 3; ++i) {
		frames.push_back(random_frame(rng, 100));
		h.send(frames.back());
	}
	h.t += 5000;
	REQUIRE(h.rd(r::RX_HEAD.offset) == 2);
	REQUIRE(h.rd(r::RX_DROPS.offset) == 1);
	std::uint64_t s;
	REQUIRE(h.receive(s) == frames[0]);
	REQUIRE(h.receive(s) == frames[1]);
	auto f = random_frame(rng, 200);
	h.send(f);
	h.t += 5000;
	REQUIRE(h.receive(s) == f);
}

TEST_CASE("pio nic model: runts and oversize frames complete with DESC_ERR, never arrive")
{
	bar_host h;
	std::mt19937_64 rng(6);
	h.send(random_frame(rng, 40));
	h.send(random_frame(rng, 9700));
	auto good = random_frame(rng, 64);
	h.send(good);
	h.t += 10000;
	REQUIRE(h.rd(r::TX_TAIL.offset) == 3);
	REQUIRE((h.rd(r::TX_DESC.offset, 8) & r::DESC_ERR) != 0);
	REQUIRE((h.rd(r::TX_DESC.offset + r::DESC_BYTES, 8) & r::DESC_ERR) != 0);
	REQUIRE((h.rd(r::TX_DESC.offset + 2 * r::DESC_BYTES, 8) & r::DESC_ERR) == 0);
	REQUIRE(h.rd(r::RUNTS.offset) == 1);
	REQUIRE(h.rd(r::OVERSIZE.offset) == 1);
	std::uint64_t s;
	REQUIRE(h.receive(s) == good);
	REQUIRE(h.receive(s).empty());
}

TEST_CASE("pio nic model: ring sizes and indices outside the rules are ignored")
{
	bar_host h;
	h.wr32(r::RX_RING_SIZE.offset, 12);  // not a power of two
	h.wr32(r::TX_RING_SIZE.offset, 128); // above MAX_RING
	REQUIRE(h.rd(r::RX_RING_SIZE.offset) == 64);
	REQUIRE(h.rd(r::TX_RING_SIZE.offset) == 64);
	h.wr32(r::TX_HEAD.offset, 65);       // more than a ring at once
	h.wr32(r::RX_TAIL.offset, 1);        // past RX_HEAD
	REQUIRE(h.rd(r::TX_HEAD.offset) == 0);
	REQUIRE(h.rd(r::RX_TAIL.offset) == 0);
	REQUIRE(h.dev.ignored_writes() == 4);
	REQUIRE(h.rd(r::ID.offset) == r::id_value);
}
