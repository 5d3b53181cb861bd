// The DMA NIC (sim:nic_dma: the XDMA stream engine model with the MAC on
// its streams) through its driver, device::open and the simulated link: the
// same driver code a real XDMA design would run.
#include "sim/nic/dma_nic_model.hpp"
#include "sim/nic/mac_model.hpp"
#include "sim/xdma/xdma_dev.hpp"
#include "unit/nic/random_frame.hpp"
#include "unit/nic/stamp_drop.hpp"

#include <pioc/nic/dma_nic.hpp>
#include <pioc/regs/nic_dma.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

using namespace pioc::nic;
namespace rd = pioc::regs::nic_dma;

namespace {

using nic_test::random_frame;

std::uint32_t reg32(pioc::device &dev, const rd::reg &r)
{
	return dev.map(pioc::nic::dma_nic_bar(dev), pioc::mem_type::uc).read<std::uint32_t>(r.offset);
}

static_assert(driver<dma_nic<pioc::sim_io>>);
static_assert(driver<dma_nic<pioc::mmio_io>>);

} // namespace

TEST_CASE("dma nic: every frame once, in order, byte-exact; ring wrap, full TX ring, batched sends")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {8, 4}, [](auto &nic) {
		REQUIRE(nic.rings().rx == 8);
		std::mt19937_64 rng(11);
		std::deque<std::vector<std::byte>> in_flight;
		std::vector<std::byte> buf(mtu);
		unsigned sent = 0, got = 0, full = 0, reaped = 0;
		std::uint64_t last_rx_stamp = 0, last_tx_stamp = 0;
		while (got < 80) {
			// bursts of up to 6 into a 4-slot TX ring: a burst finds it full
			std::vector<std::vector<std::byte>> burst;
			for (int b = 0; b < 6 && sent + burst.size() < 80; ++b)
				burst.push_back(random_frame(rng, 60 + rng() % (mtu - 59)));
			std::vector<std::span<const std::byte>> spans(burst.begin(), burst.end());
			const std::size_t n = nic.send_batch(spans);
			full += n < burst.size();
			for (std::size_t k = 0; k < n; ++k)
				in_flight.push_back(std::move(burst[k]));
			sent += unsigned(n);
			tx_info ti;
			while (nic.poll_tx(ti)) {
				REQUIRE(ti.mac_cycle > last_tx_stamp);
				last_tx_stamp = ti.mac_cycle;
				++reaped;
			}
			while (std::size_t len = nic.poll_rx(buf)) {
				REQUIRE(!in_flight.empty());
				REQUIRE(len == in_flight.front().size());
				REQUIRE(std::equal(buf.begin(), buf.begin() + len, in_flight.front().begin()));
				const rx_info ri = nic.last_rx();
				REQUIRE(ri.len == len);
				REQUIRE(ri.mac_cycle > last_rx_stamp);
				last_rx_stamp = ri.mac_cycle;
				in_flight.pop_front();
				++got;
			}
		}
		CHECK(full > 0);
		CHECK(sent == 80);
		tx_info ti;
		for (int i = 0; i < 1000 && reaped < 80; ++i)
			reaped += nic.poll_tx(ti);
		CHECK(reaped == 80);
		CHECK(nic.poll_rx(buf) == 0);
	});
	CHECK(reg32(dev, rd::RX_DROPS) == 0);
}

TEST_CASE("dma nic: a full RX ring: the RX FIFO holds what fits in RX_FIFO_BYTES, drops the rest whole; the rest "
	  "arrive intact")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {4, 64}, [](auto &nic) {
		std::mt19937_64 rng(3);
		std::vector<std::vector<std::byte>> frames;
		for (int i = 0; i < 30; ++i) {
			frames.push_back(random_frame(rng, mtu));
			REQUIRE(nic.send(frames.back()));
		}
		// Nothing read: the MAC loops all 30 back; 4 fill the RX ring, C2H0
		// takes c2h_stream_packets more ahead of its descriptors, the RX
		// FIFO keeps frames while it has room for an MTU frame (6: the
		// RTL's rule), the others are dropped.
		tx_info ti;
		for (int reaped = 0, i = 0; i < 100000 && reaped < 30; ++i)
			reaped += nic.poll_tx(ti);
		// and the last frames' way back through the MAC (each read of the
		// cycle counter is a PCIe round trip of simulated time)
		const std::uint64_t until = nic.now() + 25'000; // 100 us
		while (nic.now() < until) {}
		std::vector<std::byte> buf(mtu);
		const unsigned fifo_beats = unsigned(rd::RX_FIFO_BYTES / 64), mtu_beats = unsigned((mtu + 63) / 64);
		const unsigned keep = 4 + pioc::sim::nic::c2h_stream_packets + (fifo_beats - mtu_beats) / mtu_beats + 1;
		REQUIRE(keep == 12);
		for (unsigned i = 0; i < keep; ++i) {
			std::size_t len = 0;
			for (int k = 0; k < 100000 && !(len = nic.poll_rx(buf)); ++k) {}
			REQUIRE(len == frames[i].size());
			REQUIRE(std::equal(buf.begin(), buf.begin() + len, frames[i].begin()));
		}
		for (int k = 0; k < 2000; ++k)
			REQUIRE(nic.poll_rx(buf) == 0);
	});
	CHECK(reg32(dev, rd::RX_DROPS) == 30 - 12);
}

TEST_CASE("dma nic: runt and oversize frames are refused before the device; the model drops those that reach it")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {8, 8}, [](auto &nic) {
		std::vector<std::byte> small(59), big(mtu + 1), ok(60);
		CHECK_THROWS_WITH(nic.send(small),
				  Catch::Contains("sim:nic_dma") && Catch::Contains("59-byte") &&
					  Catch::Contains("60-byte minimum"));
		CHECK_THROWS_WITH(nic.send(big), Catch::Contains("9601-byte") && Catch::Contains("MTU"));
		const std::span<const std::byte> batch[] = {ok, small};
		CHECK_THROWS_WITH(nic.send_batch(batch), Catch::Contains("59-byte"));
	});
	CHECK(reg32(dev, rd::RUNTS) == 0);
	CHECK(reg32(dev, rd::OVERSIZE) == 0);

	// Past the driver, on the stream ring itself: the MAC drops them and the
	// TX stamp says so; a partial beat inside a frame is dropped as malformed.
	pioc::xdma::dma x(dev);
	pioc::xdma::stream_ring tx(x.h2c(0), 8, 16384);
	tx.start();
	const pioc::region user = dev.map(pioc::nic::dma_nic_bar(dev), pioc::mem_type::uc);
	x.config().visit([&](const auto &io) {
		tx.set_h2c(0, 40, true);    // runt
		tx.set_h2c(1, 9664, false); // 9664 + 64: oversize
		tx.set_h2c(2, 64, true);
		tx.credit(io, 3);
		for (int k = 0; k < 200; ++k)
			io.idle(100);
	});
	CHECK(reg32(dev, rd::RUNTS) == 1);
	CHECK(reg32(dev, rd::OVERSIZE) == 1);
	std::uint64_t st = user.read<std::uint64_t>(rd::TX_STAMP.offset);
	CHECK((st >> rd::STAMP_SEQ_SHIFT) == 0);
	CHECK((st & rd::STAMP_ERR));
	st = user.read<std::uint64_t>(rd::TX_STAMP.offset);
	CHECK((st >> rd::STAMP_SEQ_SHIFT) == 1);
	CHECK((st & rd::STAMP_ERR));
	CHECK(user.read<std::uint64_t>(rd::TX_STAMP.offset) == rd::STAMP_EMPTY);
	CHECK(user.read<std::uint64_t>(rd::RX_STAMP.offset) == rd::STAMP_EMPTY); // neither came back
}

TEST_CASE("dma nic: stamps follow the MAC model: RX stamp = the MAC's prediction from the TX stamp")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {8, 8}, [](auto &nic) {
		std::mt19937_64 rng(1);
		std::vector<std::byte> buf(mtu);
		for (std::size_t len : {64u, 1536u, 9600u}) {
			const auto f = random_frame(rng, len);
			REQUIRE(nic.send(f));
			std::size_t n = 0;
			for (int k = 0; k < 100000 && !(n = nic.poll_rx(buf)); ++k) {}
			REQUIRE(n == len);
			tx_info ti;
			for (int k = 0; k < 1000 && !nic.poll_tx(ti); ++k) {}
			REQUIRE(ti.len == len);
			// one frame alone on an idle line: the MAC's store-and-forward
			const auto m = pioc::sim::nic::mac_model{}.transmit(ti.mac_cycle, len);
			CHECK(nic.last_rx().mac_cycle == m.rx_stamp);
			CHECK(nic.last_rx().mac_cycle > ti.mac_cycle);
		}
	});
}

TEST_CASE("dma nic: frames back to back with a ring's worth in flight, both link presets: none lost or changed")
{
	for (const char *spec : {"sim:nic_dma", "sim:nic_dma@enzian-gen3x8"}) {
		INFO(spec);
		auto dev = pioc::device::open(spec);
		with_dma_nic(dev, {64, 64}, [](auto &nic) {
			std::mt19937_64 rng(7);
			std::deque<std::vector<std::byte>> in_flight;
			std::vector<std::byte> buf(mtu);
			unsigned sent = 0, got = 0;
			for (int spin = 0; got < 2000 && spin < 10'000'000; ++spin) {
				if (sent < 2000 && in_flight.size() < 64) {
					auto f = random_frame(rng, 64);
					if (nic.send(f)) {
						in_flight.push_back(std::move(f));
						++sent;
					}
				}
				tx_info ti;
				while (nic.poll_tx(ti)) {}
				while (std::size_t len = nic.poll_rx(buf)) {
					INFO("frame " << got);
					REQUIRE(!in_flight.empty());
					REQUIRE(len == in_flight.front().size());
					REQUIRE(std::equal(buf.begin(), buf.begin() + len, in_flight.front().begin()));
					in_flight.pop_front();
					++got;
				}
			}
			CHECK(got == 2000);
		});
		CHECK(reg32(dev, rd::RX_DROPS) == 0);
	}
}

TEST_CASE("dma nic: a long stream that reads no stamp leaves the model holding no more stamps than twice the FIFOs and the "
	  "frames in flight")
{
	// nicbench throughput reclaims TX slots without their stamps and never
	// asks for an RX stamp: the model must not keep a word per frame for a
	// read that never comes (it kept 2 x 16 bytes a frame: 2.6 MB more
	// resident per 80,000 frames).
	auto dev = pioc::device::open("sim:nic_dma");
	const auto &user = dynamic_cast<const pioc::sim::nic::dma_nic_user &>(
		dynamic_cast<pioc::sim::xdma_dev &>(dev.sim_link()->device()).user());
	with_dma_nic(dev, {64, 64}, [&](auto &nic) {
		std::mt19937_64 rng(11);
		std::vector<std::byte> buf(mtu);
		unsigned sent = 0, got = 0;
		std::size_t most = 0;
		for (int spin = 0; got < 8000 && spin < 20'000'000; ++spin) {
			if (sent < 8000 && sent - got < 64 && nic.send(random_frame(rng, 64)))
				++sent;
			nic.reclaim_tx();
			while (nic.poll_rx(buf) != 0)
				++got;
			most = std::max(most, user.stamps_held());
		}
		REQUIRE(got == 8000);
		INFO("stamps held at most " << most);
		// Per FIFO: its depth in it, up to its depth more waiting before
		// they are moved in, and the frames in flight.
		CHECK(most <= 2 * (2 * rd::STAMP_FIFO + 64 + 1));
	});
}

TEST_CASE("dma nic: MTU frames back to back on Enzian's gen3 x8 overrun the RX FIFO: whole frames dropped and "
	  "counted, every other one intact and in order")
{
	// C2H0 writes at the x8 link's DMA write rate (6.62 GB/s in the PCIe
	// model) and H2C0 reads at its read rate (6.71 GB/s): in loopback the
	// transmit side outruns the receive side by 1.4%, the 64 KiB RX FIFO
	// fills after some 470 MTU frames and the NIC drops whole frames, as a
	// NIC whose host does not keep up must (the MAC cannot be held back).
	// On pc-gen3x16 the MAC's store (about 10 GB/s for MTU frames) is the
	// bottleneck and nothing is dropped. Each frame carries its index.
	auto dev = pioc::device::open("sim:nic_dma@enzian-gen3x8");
	unsigned got = 0, skipped = 0;
	with_dma_nic(dev, {64, 64}, [&](auto &nic) {
		std::mt19937_64 rng(11);
		std::deque<std::vector<std::byte>> in_flight;
		std::vector<std::byte> buf(mtu);
		unsigned sent = 0;
		const unsigned n = 1000;
		for (int spin = 0; got + skipped < n && spin < 10'000'000; ++spin) {
			if (sent < n && in_flight.size() < 64) {
				auto f = random_frame(rng, mtu);
				std::memcpy(f.data(), &sent, sizeof sent);
				if (nic.send(f)) {
					in_flight.push_back(std::move(f));
					++sent;
				}
			}
			tx_info ti;
			while (nic.poll_tx(ti)) {}
			while (std::size_t len = nic.poll_rx(buf)) {
				unsigned idx, front;
				std::memcpy(&idx, buf.data(), sizeof idx);
				REQUIRE(!in_flight.empty());
				std::memcpy(&front, in_flight.front().data(), sizeof front);
				INFO("frame " << idx << ", oldest in flight " << front);
				REQUIRE(idx >= front); // in order, never twice
				REQUIRE(idx - front < in_flight.size());
				skipped += idx - front;
				in_flight.erase(in_flight.begin(), in_flight.begin() + (idx - front));
				REQUIRE(len == mtu);
				REQUIRE(std::equal(buf.begin(), buf.end(), in_flight.front().begin()));
				in_flight.pop_front();
				++got;
			}
		}
		skipped += unsigned(in_flight.size()); // the last ones, if dropped
	});
	INFO(got << " frames back, " << skipped << " missing");
	CHECK(got + skipped == 1000);
	CHECK(skipped > 0);                               // the overrun happens...
	CHECK(skipped < 100);                             // ...at the 1.4% the rates differ
	CHECK(reg32(dev, rd::RX_DROPS) == skipped);       // and the NIC counted every frame it dropped
}

TEST_CASE("dma nic: TX stamps left unread past the FIFO are reported lost, naming the frame; RX stamps of skipped "
	  "frames are skipped")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {64, 64}, [](auto &nic) {
		std::mt19937_64 rng(2);
		std::vector<std::byte> buf(mtu);
		const unsigned n = unsigned(rd::STAMP_FIFO) + 40;
		unsigned got = 0;
		std::uint64_t c10 = 0;
		for (unsigned sent = 0; got < n;) {
			if (sent < n && sent - got < 32 && nic.send(random_frame(rng, 60)))
				++sent;
			if (nic.poll_rx(buf) != 0 && ++got == 11)
				c10 = nic.last_rx().mac_cycle; // then no last_rx(), never poll_tx()
		}
		// the RX stamp of the last frame is found behind the skipped ones,
		// every frame at least a cycle after the one before
		CHECK(nic.last_rx().mac_cycle >= c10 + (n - 11));
		tx_info ti;
		CHECK_THROWS_WITH(nic.poll_tx(ti),
				  Catch::Contains("TX stamp of frame 0") && Catch::Contains("not in its FIFO"));
	});
}

TEST_CASE(
	"dma nic: C2H writes a frame while its beats arrive: a 9600-byte frame's RX latency exceeds a 64-byte one's by "
	"less than its 150 beats take")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {8, 8}, [](auto &nic) {
		std::mt19937_64 rng(4);
		std::vector<std::byte> buf(mtu);
		const clock_map cm = nic.clock();
		std::int64_t rx[2];
		for (int i = 0; i < 2; ++i) {
			REQUIRE(nic.send(random_frame(rng, i ? 9600 : 64)));
			std::size_t n = 0;
			for (int k = 0; k < 100000 && !(n = nic.poll_rx(buf)); ++k) {}
			REQUIRE(n == (i ? 9600u : 64u));
			rx[i] = std::int64_t(nic.host_ns()) - cm.to_host_ns(nic.last_rx().mac_cycle);
		}
		// store-and-forward into C2H would add the whole frame's write
		// (about 0.75 us at the link's rate) after its last beat
		CHECK(rx[1] - rx[0] < 150 * 4);
		CHECK(rx[1] > rx[0]);
	});
}

TEST_CASE("dma nic: RX_STAMP_DROP and TX_STAMP_DROP drop the stamps before a sequence number, counted from the oldest")
{
	for (const auto dir : {nic_test::stamp_dir::rx, nic_test::stamp_dir::tx}) {
		auto dev = pioc::device::open("sim:nic_dma");
		nic_test::stamp_drop_steps(dev, dir);
	}
}

TEST_CASE("dma nic: reclaim_tx() reads no stamp; poll_tx() goes on after the reclaimed frames")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {8, 8}, [](auto &nic) { nic_test::reclaim_steps(nic, false); }); // slots back by the write-back
}

TEST_CASE("dma nic: poll_tx() after a reclaimed stream drops the stamps nobody asked for in one write, not a read each")
{
	// nicbench throughput takes its TX slots back with reclaim_tx(); the
	// next size's first poll_tx() would pop the stamps of the whole
	// stream, one uncached read each. With TX_STAMP_DROP it is one posted
	// write and one read.
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {64, 64}, [&](auto &nic) {
		std::mt19937_64 rng(3);
		std::vector<std::byte> buf(mtu);
		tx_info ti;
		REQUIRE(nic.send(random_frame(rng, 60)));
		while (nic.poll_rx(buf) == 0) {}
		std::uint64_t t = nic.host_ns();
		REQUIRE(nic.poll_tx(ti)); // frame 0: nothing to drop, one read
		const std::uint64_t read_ns = nic.host_ns() - t, c0 = ti.mac_cycle;
		const unsigned n = 600;
		for (unsigned sent = 0, got = 0; got < n;) {
			if (sent < n && sent - got < 32 && nic.send(random_frame(rng, 60)))
				++sent;
			if (nic.poll_rx(buf) != 0)
				++got;
		}
		CHECK(nic.reclaim_tx() == n);
		REQUIRE(nic.send(random_frame(rng, 60)));
		while (nic.poll_rx(buf) == 0) {}
		t = nic.host_ns();
		REQUIRE(nic.poll_tx(ti)); // frame n+1, behind the stamps of 1..n
		const std::uint64_t took = nic.host_ns() - t;
		INFO("one stamp read " << read_ns << " ns, poll_tx after " << n << " reclaimed frames " << took
				       << " ns SIMULATED");
		CHECK(ti.mac_cycle >= c0 + n);
		CHECK(took < 3 * read_ns);
		const auto user = dev.map(dma_nic_bar(dev), pioc::mem_type::uc);
		CHECK(user.read<std::uint64_t>(rd::TX_STAMP.offset) == rd::STAMP_EMPTY);
	});
}

TEST_CASE("dma nic: last_rx() after a stream drops the stamps nobody asked for in one write, not a read each")
{
	// nicbench throughput never asks for RX stamps; the next size's first
	// last_rx() popped the ~1000 left, one uncached read each (530 us
	// SIMULATED, a millisecond on hardware). With RX_STAMP_DROP it is one
	// posted write and one read.
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {64, 64}, [&](auto &nic) {
		std::mt19937_64 rng(3);
		std::vector<std::byte> buf(mtu);
		const unsigned n = 600;
		std::uint64_t c0 = 0, read_ns = 0;
		for (unsigned sent = 0, got = 0; got < n;) {
			if (sent < n && sent - got < 32 && nic.send(random_frame(rng, 60)))
				++sent;
			if (nic.poll_rx(buf) != 0 && ++got == 1) {
				const std::uint64_t t = nic.host_ns();
				c0 = nic.last_rx().mac_cycle; // frame 0: nothing to drop, one read
				read_ns = nic.host_ns() - t;
			}
		}
		const std::uint64_t t = nic.host_ns();
		const auto info = nic.last_rx(); // frame n-1, behind the stamps of 1..n-2
		const std::uint64_t took = nic.host_ns() - t;
		INFO("one stamp read " << read_ns << " ns, last_rx after " << n << " frames " << took << " ns SIMULATED");
		CHECK(info.mac_cycle >= c0 + (n - 1));
		CHECK(took < 3 * read_ns);
		// and nothing is left behind it
		const auto user = dev.map(dma_nic_bar(dev), pioc::mem_type::uc);
		CHECK(user.read<std::uint64_t>(rd::RX_STAMP.offset) == rd::STAMP_EMPTY);
	});
}

// poll_rx_spin() in the simulator spends the polls that cannot see a frame
// at once (sim_io::idle_polls: before the model's next event or posted
// write, and before the caller's horizon). Those must be exactly the polls
// a loop of poll_rx_spin() makes one by one (skipping off): every TLP at the
// same simulated time, each wait ended where polling one by one ends it. The
// first wait of each frame has a horizon, stepped across the frame's round
// trip: the loop stops at it, then waits on without one.
TEST_CASE("dma nic: poll_rx_spin spends its unchanged polls at once, with every TLP and every wait's end where polling "
	  "one by one puts them; a horizon ends the wait where it does")
{
	struct outcome {
		std::vector<std::uint64_t> ends; ///< host_ns() at the end of each wait
		std::vector<pioc::sim::tlp> tlps;
		std::uint64_t spent = 0;
		unsigned early = 0; ///< frames back before the horizon
	};
	auto run = [](bool skip) {
		auto dev = pioc::device::open("sim:nic_dma");
		pioc::sim::pcie_link &link = *dev.sim_link();
		link.set_poll_skipping(skip);
		outcome o;
		link.set_trace([&o](const pioc::sim::tlp &t) { o.tlps.push_back(t); });
		const std::uint64_t spent = link.stats().polls_spent;
		with_dma_nic(dev, {8, 8}, [&o](auto &nic) {
			std::mt19937_64 rng(9);
			std::vector<std::byte> buf(mtu);
			// Nothing to come once the engines have settled after the
			// open: a poll each, not polls up to the horizon's none
			// (UINT64_MAX taken as a time: the second, the first after no
			// MMIO access, would spin for ever).
			for (int k = 0; k < 1000; ++k)
				REQUIRE(nic.poll_rx(buf) == 0);
			for (int k = 0; k < 3; ++k) {
				const std::uint64_t t0 = nic.host_ns();
				REQUIRE(nic.poll_rx_spin(buf) == 0);
				CHECK(nic.host_ns() - t0 == 30);
			}
			for (unsigned i = 0; i < 24; ++i) {
				const auto f = random_frame(rng, 60 + (i * 397) % (mtu - 59));
				REQUIRE(nic.send(f));
				const std::uint64_t horizon = nic.host_ns() + 200 + 250 * i;
				std::size_t n = 0;
				while ((n = nic.poll_rx_spin(buf, horizon)) == 0 && nic.host_ns() < horizon) {}
				o.ends.push_back(nic.host_ns());
				o.early += n != 0;
				for (int k = 0; k < 1000000 && n == 0; ++k)
					n = nic.poll_rx_spin(buf);
				o.ends.push_back(nic.host_ns());
				REQUIRE(n == f.size());
				REQUIRE(std::memcmp(buf.data(), f.data(), n) == 0);
				REQUIRE(nic.reclaim_tx() == 1);
			}
		});
		o.spent = link.stats().polls_spent - spent;
		link.set_trace(nullptr);
		return o;
	};
	const outcome skipped = run(true), one_by_one = run(false);
	CHECK(one_by_one.spent == 0);
	CHECK(skipped.spent > 24 * 20); // most of a round trip's ~100 polls
	CHECK(skipped.early == one_by_one.early);
	CHECK(skipped.early > 0);  // the later horizons lie past the frame's return
	CHECK(skipped.early < 24); // the earlier ones before it
	CHECK(skipped.ends == one_by_one.ends);
	REQUIRE(skipped.tlps.size() == one_by_one.tlps.size());
	for (std::size_t k = 0; k < skipped.tlps.size(); ++k) {
		const auto &a = skipped.tlps[k], &b = one_by_one.tlps[k];
		CAPTURE(k);
		CHECK((a.type == b.type && a.bar == b.bar && a.offset == b.offset && a.length == b.length &&
		       a.time_ns == b.time_ns));
	}
}
