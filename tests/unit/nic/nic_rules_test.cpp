// Rules every NIC driver applies: frame sizes, ring sizes, the clock map.
#include <pioc/nic/nic.hpp>

#include <catch2/catch.hpp>

using namespace pioc::nic;

TEST_CASE("nic: runt and oversize frames are refused naming size and rule")
{
	REQUIRE_NOTHROW(check_frame(60, "sim:nic_pio send"));
	REQUIRE_NOTHROW(check_frame(9600, "sim:nic_pio send"));
	try {
		check_frame(40, "sim:nic_pio send");
		FAIL("40-byte frame accepted");
	} catch (const pioc::error &e) {
		REQUIRE(e.code() == pioc::errc::invalid_argument);
		REQUIRE_THAT(e.what(), Catch::Contains("40-byte") && Catch::Contains("60-byte minimum") &&
					       Catch::Contains("sim:nic_pio send"));
	}
	try {
		check_frame(9601, "x");
		FAIL("9601-byte frame accepted");
	} catch (const pioc::error &e) {
		REQUIRE_THAT(e.what(), Catch::Contains("9601-byte") && Catch::Contains("9600-byte MTU"));
	}
}

TEST_CASE("nic: ring sizes are powers of two within the device's limit")
{
	REQUIRE_NOTHROW(check_ring_size(256, 1024, "rx ring"));
	REQUIRE_THROWS_AS(check_ring_size(100, 1024, "rx ring"), pioc::error);
	REQUIRE_THROWS_AS(check_ring_size(2048, 1024, "rx ring"), pioc::error);
	REQUIRE_THROWS_AS(check_ring_size(1, 1024, "rx ring"), pioc::error);
}

TEST_CASE("nic: the clock map turns device cycles into host ns")
{
	// 250 MHz: 1000 cycles later the host clock moved 4000 ns
	auto m = clock_map::from_samples(5000, 1'000'000, 6000, 1'004'000);
	REQUIRE(m.ns_per_cycle == Approx(4.0));
	REQUIRE(m.to_host_ns(5500) == 1'002'000);
	REQUIRE(m.to_host_ns(4000) == 996'000); // before the first sample too
	REQUIRE_THROWS_AS(clock_map::from_samples(1, 0, 1, 5), pioc::error);
}
