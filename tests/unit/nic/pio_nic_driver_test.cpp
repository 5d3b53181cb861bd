// The PIO NIC driver on sim:nic_pio, through device::open and the simulated
// PCIe link: the same driver code a real BAR would run.
#include <pioc/nic/pio_nic.hpp>
#include "unit/nic/random_frame.hpp"
#include "unit/nic/reclaim.hpp"

#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <vector>

using namespace pioc::nic;

namespace {

using nic_test::random_frame;

static_assert(driver<pio_nic<pioc::sim_io>>);
static_assert(driver<pio_nic<pioc::mmio_io>>);

} // namespace

TEST_CASE("pio nic driver: every frame once, in order, byte-exact; ring wrap and full TX ring")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {8, 4}, [](auto &nic) {
		REQUIRE(nic.rings().rx == 8);
		std::mt19937_64 rng(11);
		std::deque<std::vector<std::byte>> in_flight;
		std::vector<std::byte> buf(mtu);
		unsigned sent = 0, got = 0, full = 0;
		std::uint64_t last_stamp = 0;
		while (got < 60) {
			// bursts of up to 5 into a 4-slot TX ring: slots come back
			// only through poll_tx, so a burst finds the ring full
			for (int b = 0; b < 5 && sent < 60; ++b) {
				auto f = random_frame(rng, 60 + rng() % (mtu - 59));
				if (!nic.send(f)) {
					++full;
					break;
				}
				in_flight.push_back(std::move(f));
				++sent;
			}
			tx_info ti;
			while (nic.poll_tx(ti))
				REQUIRE(ti.len >= min_frame);
			// drain RX: at most 4 + 4 frames are out, the RX ring holds 8
			while (std::size_t n = nic.poll_rx(buf)) {
				REQUIRE(!in_flight.empty());
				REQUIRE(n == in_flight.front().size());
				REQUIRE(std::equal(buf.begin(), buf.begin() + n, in_flight.front().begin()));
				REQUIRE(nic.last_rx().mac_cycle > last_stamp);
				last_stamp = nic.last_rx().mac_cycle;
				in_flight.pop_front();
				++got;
			}
		}
		REQUIRE(full > 0); // the TX ring did fill up
		std::size_t leftover = nic.poll_rx(buf);
		REQUIRE(leftover == 0);
		// 250 MHz: 4 ns per cycle on the model's clock
		REQUIRE(nic.clock().ns_per_cycle == Approx(4.0).epsilon(0.01));
	});
}

TEST_CASE("pio nic driver: reclaim_tx() takes the TX slots back with one TX_TAIL read; poll_tx() goes on after them")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {8, 4}, [](auto &nic) {
		nic_test::reclaim_steps(nic, true); // slots come back only by poll_tx or reclaim_tx
	});
}

TEST_CASE("pio nic driver: runts, oversize frames and small RX buffers are refused by name")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {}, [](auto &nic) {
		std::mt19937_64 rng(12);
		auto runt = random_frame(rng, 59);
		REQUIRE_THROWS_WITH(nic.send(runt), Catch::Contains("59-byte frame is below the 60-byte minimum"));
		auto big = random_frame(rng, 9601);
		REQUIRE_THROWS_WITH(nic.send(big), Catch::Contains("9601-byte frame is above the 9600-byte MTU"));
		auto f = random_frame(rng, 1000);
		REQUIRE(nic.send(f));
		std::vector<std::byte> small(500), buf(mtu);
		std::size_t n = 0;
		for (int i = 0; i < 1000 && n == 0; ++i) {
			try {
				n = nic.poll_rx(small);
			} catch (const pioc::error &e) {
				REQUIRE_THAT(e.what(), Catch::Contains("1000-byte frame does not fit the 500-byte buffer"));
				n = nic.poll_rx(buf); // still queued
				REQUIRE(n == 1000);
			}
		}
		REQUIRE(n == 1000);
		REQUIRE(std::equal(buf.begin(), buf.begin() + 1000, f.begin()));
	});
	REQUIRE_THROWS_AS(with_pio_nic(dev, {12, 4}, [](auto &) {}), pioc::error);
}

TEST_CASE("pio nic driver: device cycles map onto the host clock without drift")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {}, [](auto &nic) {
		std::mt19937_64 rng(13);
		std::vector<std::byte> buf(mtu);
		// about 100 ms of simulated time: 9600-byte frames read back with UC loads
		for (int i = 0; i < 300; ++i) {
			auto f = random_frame(rng, mtu);
			REQUIRE(nic.send(f));
			while (nic.poll_rx(buf) == 0) {
			}
			tx_info ti;
			while (!nic.poll_tx(ti)) {
			}
		}
		const std::int64_t mapped = nic.clock().to_host_ns(nic.now());
		const std::int64_t host = std::int64_t(nic.host_ns());
		REQUIRE(host > 50'000'000);
		// a CYCLES read takes one round trip: the counter is sampled
		// inside it, so the mapped time is a little before "host"
		REQUIRE(mapped <= host);
		REQUIRE(host - mapped < 2000);
	});
}
