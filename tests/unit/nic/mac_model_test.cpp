// The MAC stand-in's behavioural model: line timing at 100 Gb/s, runts and
// oversize frames counted and dropped. (Its cycle-exact agreement with the
// RTL is checked in fpga/tb/test_mac_loopback.cpp.)
#include "sim/nic/mac_model.hpp"

#include <catch2/catch.hpp>

using pioc::sim::nic::mac_model;

TEST_CASE("mac model: one frame is stored, sent on the line, streamed back")
{
	mac_model m;
	// 1536 bytes: 1560 wire bytes from byte-time 101*50 -> ends at 6610,
	// off the line in cycle 133 (ceil(6610/50)), 24 beats of 64 bytes.
	auto r = m.transmit(100, 1536);
	REQUIRE(r.delivered);
	REQUIRE(r.tx_stamp == 100);
	REQUIRE(r.rx_first == 133);
	REQUIRE(r.rx_stamp == 133 + 24 - 1);
}

TEST_CASE("mac model: back-to-back minimum frames are limited by the line")
{
	mac_model m;
	std::uint64_t first = 0, last = 0;
	for (unsigned i = 0; i < 1000; ++i) {
		auto r = m.transmit(i, 60); // one 60-byte frame per cycle offered
		if (i == 0)
			first = r.rx_stamp;
		last = r.rx_stamp;
	}
	// 84 byte-times per frame at 50 per cycle: 1.68 cycles per frame,
	// i.e. 148.8 Mframes/s, the 100G line rate for 60-byte frames.
	const double per_frame = double(last - first) / 999.0;
	REQUIRE(per_frame == Approx(84.0 / 50.0).epsilon(0.01));
}

TEST_CASE("mac model: runts and oversize frames are counted, not delivered")
{
	mac_model m;
	REQUIRE_FALSE(m.transmit(10, 59).delivered);
	REQUIRE_FALSE(m.transmit(11, 9601).delivered);
	REQUIRE(m.transmit(12, 60).delivered);
	REQUIRE(m.transmit(13, 9600).delivered);
	REQUIRE(m.runts() == 1);
	REQUIRE(m.oversized() == 1);
}
