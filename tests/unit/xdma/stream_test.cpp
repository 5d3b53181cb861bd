// AXI4-Stream engines: the model (sim:xdma_stream, PG195's stream example
// design with each H2C looped back into its C2H) and the driver's stream
// rings. Packets byte-exact across descriptor boundaries on both sides, EOP
// ending packets, credits holding the stream when the C2H ring is full, and
// lengths that break PG195's stream rules refused by the driver and by the
// model (raw descriptors, so the model can disagree with the driver).
#include "sim/xdma/xdma_dev.hpp"

#include <pioc/device.hpp>
#include <pioc/sim/pcie_link.hpp>
#include <pioc/xdma/stream.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

using namespace pioc;
using namespace pioc::xdma;
namespace r = pioc::regs::xdma;

namespace {

sim::xdma_dev &model_of(device &dev) { return dynamic_cast<sim::xdma_dev &>(dev.sim_link()->device()); }

/** Posts @p pkt on @p tx from slot @p slot on in descriptors of at most
 *  @p seg bytes (EOP on the last); returns the slots used. */
unsigned post(stream_ring &tx, unsigned slot, const std::vector<std::uint8_t> &pkt, std::uint32_t seg)
{
	unsigned n = 0;
	for (std::size_t off = 0; off < pkt.size(); off += seg, ++n) {
		const std::uint32_t k = std::uint32_t(std::min<std::size_t>(seg, pkt.size() - off));
		std::memcpy(tx.buffer(slot + n), pkt.data() + off, k);
		tx.set_h2c(slot + n, k, off + k == pkt.size());
	}
	return n;
}

/** Polls @p rx at @p slot (simulated time passes) up to @p polls times. */
template <class IO>
bool wait_packet(const IO &io, stream_ring &rx, unsigned slot, stream_packet_info &p, int polls = 100000)
{
	for (int i = 0; i < polls; ++i) {
		if (rx.packet_at(io, slot, p))
			return true;
		io.idle(50);
	}
	return false;
}

/** The packet at @p slot, gathered from its descriptors' buffers. */
std::vector<std::uint8_t> gather(stream_ring &rx, unsigned slot, const stream_packet_info &p)
{
	std::vector<std::uint8_t> v;
	for (unsigned k = 0; k < p.descriptors; ++k) {
		const auto *b = reinterpret_cast<const std::uint8_t *>(rx.buffer(slot + k));
		v.insert(v.end(), b, b + rx.result(slot + k).length);
	}
	return v;
}

std::vector<std::uint8_t> random_packet(std::mt19937_64 &rng, std::size_t len)
{
	std::vector<std::uint8_t> v(len);
	for (auto &b : v)
		b = std::uint8_t(rng());
	return v;
}

} // namespace

TEST_CASE("stream: packets byte-exact across H2C and C2H descriptor boundaries, rings wrap")
{
	device dev = device::open("sim:xdma_stream");
	dma x(dev);
	REQUIRE(x.h2c(0).info().stream);
	stream_ring tx(x.h2c(0), 8, 2048), rx(x.c2h(0), 8, 1024);
	CHECK(tx.beat_bytes() == 64);
	tx.start();
	rx.start();
	std::mt19937_64 rng(5);
	unsigned ts = 0, rs = 0, posted = 0;
	x.config().visit([&](const auto &io) {
		for (int i = 0; i < 60; ++i) {
			// 1..6000 bytes: up to 3 H2C descriptors, up to 6 C2H ones
			const std::size_t len = i < 3 ? std::size_t(1024 * (i + 1)) : 1 + rng() % 6000;
			const auto pkt = random_packet(rng, len);
			const unsigned n = post(tx, ts, pkt, 2048);
			tx.credit(io, n);
			ts += n;
			posted += n;
			stream_packet_info p;
			REQUIRE(wait_packet(io, rx, rs, p));
			CHECK(p.len == len);
			CHECK(p.descriptors == (len + 1023) / 1024);
			for (unsigned k = 0; k + 1 < p.descriptors; ++k) {
				CHECK(rx.result(rs + k).length == 1024);
				CHECK(!(rx.result(rs + k).status & r::C2H_RESULT_EOP));
			}
			CHECK((rx.result(rs + p.descriptors - 1).status & r::C2H_RESULT_EOP));
			REQUIRE(gather(rx, rs, p) == pkt);
			rx.release(rs, p.descriptors);
			rx.credit(io, p.descriptors);
			rs += p.descriptors;
			// the TX slots come back when the write-back says so
			for (int k = 0; k < 1000 && tx.completed() != (posted & r::WB_COUNT_MASK); ++k)
				io.idle(50);
			REQUIRE(tx.completed() == posted);
		}
	});
	CHECK(rs > 8 * 4); // both rings wrapped several times
	CHECK(model_of(dev).stream_malformed() == 0);
}

TEST_CASE("stream: EOP ends a packet, descriptors without it continue the packet")
{
	device dev = device::open("sim:xdma_stream");
	dma x(dev);
	stream_ring tx(x.h2c(0), 8, 256), rx(x.c2h(0), 8, 1024);
	tx.start();
	rx.start();
	x.config().visit([&](const auto &io) {
		for (unsigned s = 0; s < 5; ++s)
			std::memset(tx.buffer(s), int('a' + s), 256);
		// three descriptors, EOP only on the third: one packet of 128+192+100
		tx.set_h2c(0, 128, false);
		tx.set_h2c(1, 192, false);
		tx.set_h2c(2, 100, true);
		// then two descriptors with EOP each: two packets
		tx.set_h2c(3, 64, true);
		tx.set_h2c(4, 70, true);
		tx.credit(io, 5);
		stream_packet_info p;
		REQUIRE(wait_packet(io, rx, 0, p));
		CHECK(p.len == 420);
		CHECK(p.descriptors == 1);
		const auto v = gather(rx, 0, p);
		CHECK(std::count(v.begin(), v.end(), 'a') == 128);
		CHECK(std::count(v.begin(), v.end(), 'b') == 192);
		CHECK(std::count(v.begin(), v.end(), 'c') == 100);
		REQUIRE(wait_packet(io, rx, 1, p));
		CHECK(p.len == 64);
		REQUIRE(wait_packet(io, rx, 2, p));
		CHECK(p.len == 70);
		CHECK(gather(rx, 2, p) == std::vector<std::uint8_t>(70, 'e'));
	});
}

TEST_CASE("stream: a full C2H ring holds the stream until credits come back; nothing lost, in order")
{
	device dev = device::open("sim:xdma_stream");
	dma x(dev);
	stream_ring tx(x.h2c(0), 16, 1024), rx(x.c2h(0), 4, 1024);
	tx.start();
	rx.start();
	std::vector<std::vector<std::uint8_t>> sent;
	std::mt19937_64 rng(9);
	x.config().visit([&](const auto &io) {
		for (unsigned i = 0; i < 7; ++i) {
			sent.push_back(random_packet(rng, 60 + rng() % 964));
			post(tx, i, sent.back(), 1024);
		}
		tx.credit(io, 7);
		for (int k = 0; k < 2000; ++k)
			io.idle(50);
		// four descriptors credited: four packets in, three wait on the stream
		CHECK(model_of(dev).c2h_stream_waiting(0) == 3);
		stream_packet_info p;
		for (unsigned i = 0; i < 7; ++i) {
			REQUIRE(wait_packet(io, rx, i, p));
			REQUIRE(gather(rx, i, p) == sent[i]);
			rx.release(i, 1);
			rx.credit(io, 1);
		}
		for (int k = 0; k < 200; ++k)
			io.idle(50);
		CHECK(!rx.packet_at(io, 7, p));
	});
	CHECK(model_of(dev).c2h_stream_waiting(0) == 0);
}

TEST_CASE("stream: lengths that break PG195's stream rules are refused, naming engine, descriptor, size and rule")
{
	device dev = device::open("sim:xdma_stream");
	dma x(dev);
	CHECK_THROWS_WITH(stream_ring(x.c2h(0), 8, 1000),
			  Catch::Contains("C2H0") && Catch::Contains("1000 bytes") &&
				  Catch::Contains("multiples of 64"));
	CHECK_THROWS_WITH(stream_ring(x.c2h(0), 6, 1024), Catch::Contains("power of two"));
	stream_ring tx(x.h2c(0), 4, 512);
	CHECK_THROWS_WITH(tx.set_h2c(1, 100, false),
			  Catch::Contains("H2C0") && Catch::Contains("descriptor 1") && Catch::Contains("100 bytes") &&
				  Catch::Contains("multiple of the 64-byte stream beat"));
	CHECK_THROWS_WITH(tx.set_h2c(2, 0, true), Catch::Contains("descriptor 2") && Catch::Contains("1..512"));
	CHECK_THROWS_WITH(tx.set_h2c(2, 513, true), Catch::Contains("513 bytes"));
	CHECK_NOTHROW(tx.set_h2c(2, 100, true)); // the last beat of a packet may be partial
	CHECK_THROWS_WITH(stream_ring(x.h2c(0), 4, 512), Catch::Contains("already in use"));
	auto buf = dev.alloc_dma(4096);
	CHECK_THROWS_WITH(x.h2c(1).prepare(buf, 0, 4096, 0),
			  Catch::Contains("H2C1") && Catch::Contains("AXI4-Stream") && Catch::Contains("stream_ring"));

	device mm = device::open("sim:xdma");
	dma xm(mm);
	CHECK_THROWS_WITH(stream_ring(xm.h2c(0), 4, 512), Catch::Contains("memory-mapped"));
}

TEST_CASE("stream model: a partial beat inside a packet is dropped, a C2H length off 64 bytes stops the run")
{
	device dev = device::open("sim:xdma_stream");
	dma x(dev);
	auto mem = dev.alloc_dma(8192);
	auto *d = static_cast<r::descriptor *>(mem.cpu);
	auto *data = static_cast<std::uint8_t *>(mem.cpu) + 4096;
	std::memset(data, 0x5a, 1024);
	const region &cfg = x.config();
	auto run = [&](bool c2h, const chain_head &h) {
		const std::uint64_t eng = r::engine_base(c2h, 1), sg = r::sgdma_base(c2h, 1);
		cfg.write<std::uint32_t>(sg + r::SG_DESC_LO, std::uint32_t(h.bus));
		cfg.write<std::uint32_t>(sg + r::SG_DESC_HI, std::uint32_t(h.bus >> 32));
		cfg.write<std::uint32_t>(sg + r::SG_DESC_ADJ, h.adj);
		cfg.write<std::uint32_t>(eng + r::ENG_CTRL, r::IE_INVALID_LENGTH | r::CTRL_RUN);
		std::uint32_t st = 0;
		for (int i = 0; i < 100; ++i)
			st = cfg.read<std::uint32_t>(eng + r::ENG_STATUS);
		cfg.write<std::uint32_t>(eng + r::ENG_CTRL, 0);
		return st;
	};
	// H2C1 without the driver: 100 bytes without EOP, then 100 with EOP
	const segment two[2] = {{mem.bus + 4096, 0, 100}, {mem.bus + 4096, 0, 100}};
	const chain_head h = build_chain(d, mem.bus, 2, two);
	d[1].control |= r::DESC_EOP;
	run(false, h);
	CHECK(model_of(dev).stream_malformed() == 1);
	CHECK(model_of(dev).c2h_stream_waiting(1) == 0);
	// the same with 64 bytes first: a packet of 164 bytes waits for C2H1
	d[0].length = 64;
	run(false, h);
	CHECK(model_of(dev).stream_malformed() == 1);
	CHECK(model_of(dev).c2h_stream_waiting(1) == 1);
	// C2H1 with a 100-byte descriptor: invalid_length, nothing taken
	const segment one{mem.bus + 2048, mem.bus + 4096, 100};
	CHECK((run(true, build_chain(d + 8, mem.bus + 256, 1, std::span(&one, 1))) & r::ST_INVALID_LENGTH));
	CHECK(model_of(dev).c2h_stream_waiting(1) == 1);
}

TEST_CASE("stream: a C2H ring started again fetches its credited descriptors before any packet")
{
	device dev = device::open("sim:xdma_stream");
	dma x(dev);
	const std::uint64_t credits = r::sgdma_base(true, 0) + r::SG_DESC_CREDITS;
	for (int round = 0; round < 2; ++round) {
		INFO("round " << round);
		stream_ring rx(x.c2h(0), 8, 1024);
		rx.start();
		// the engine fetches every credited descriptor at once and waits
		// for data (credits read what is left)
		for (int i = 0; i < 20; ++i)
			(void)x.config().read<std::uint32_t>(r::engine_base(true, 0) + r::ENG_STATUS);
		CHECK(x.config().read<std::uint32_t>(credits) == 0);
	} // the ring stops the engine (waiting for data) and the next starts it
}
