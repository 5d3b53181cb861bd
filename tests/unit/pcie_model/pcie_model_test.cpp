// The PCIe bandwidth model against the worked example of pcie-model.md and
// hand-derived further cases.
#include <pioc/error.hpp>
#include <pioc/pcie_model.hpp>

#include <catch2/catch.hpp>

#include <cmath>

using namespace pioc::pcie_model;

namespace {
// "to the digit": the value printed with two decimals equals the reference.
bool two_decimals(double v, double ref) { return std::fabs(std::round(v * 100) / 100 - ref) < 1e-9; }
params worked() { return params{}; } // gen3 x8, MPS 256, MRRS 512, RCB 64, 64-bit, no ECRC
} // namespace

TEST_CASE("worked example: link and TLP bandwidth")
{
	model m(worked());
	CHECK(m.ack_limit() == 203);
	CHECK(m.fc_update() == 203);
	CHECK(two_decimals(m.raw_gbps(), 63.02));
	CHECK(two_decimals(m.tlp_gbps(), 57.88));
	CHECK(m.mwr_overhead() == 24);
	CHECK(m.mrd_overhead() == 24);
	CHECK(m.cpl_overhead() == 20);
}

TEST_CASE("worked example: table rows")
{
	model m(worked());
	struct { std::uint64_t s; double w, r, rw; } ref[] = {
		{64, 42.10, 44.10, 33.08}, {256, 52.92, 53.69, 48.75}, {1500, 52.81, 53.60, 50.60}};
	for (auto &x : ref) {
		INFO("size " << x.s);
		row r = m.evaluate(x.s);
		CHECK(r.size == x.s);
		CHECK(two_decimals(r.write_gbps, x.w));
		CHECK(two_decimals(r.read_gbps, x.r));
		CHECK(two_decimals(r.rdwr_rx_gbps, x.rw));
		CHECK(two_decimals(r.rdwr_tx_gbps, x.rw));
	}
}

TEST_CASE("worked example: completions cut at RCB, and MPS 128")
{
	params p = worked();
	p.rcb_chunks = true;
	model rcb(p);
	CHECK(two_decimals(rcb.read_gbps(256), 44.10));
	CHECK(two_decimals(rcb.read_gbps(1500), 43.85));
	// Writes do not depend on RCB.
	CHECK(rcb.write_gbps(1500) == model(worked()).write_gbps(1500));

	p = worked();
	p.mps = 128;
	model m128(p);
	CHECK(m128.ack_limit() == 163);
	CHECK(two_decimals(m128.tlp_gbps(), 56.67));
	CHECK(two_decimals(m128.write_gbps(256), 47.72));
	CHECK(two_decimals(m128.read_gbps(256), 49.01));
	CHECK(two_decimals(m128.write_gbps(1500), 47.54));
	CHECK(two_decimals(m128.read_gbps(1500), 48.85));
}

TEST_CASE("header sizes: 32-bit addresses and ECRC")
{
	params p = worked();
	p.addr_bits = 32;
	model m32(p);
	CHECK(m32.mwr_overhead() == 20);
	CHECK(m32.cpl_overhead() == 20);
	// 64 B write: 20 + 64 = 84 bytes on the wire.
	CHECK(m32.write_gbps(64) == Approx(m32.tlp_gbps() * 64 / 84));
	p.ecrc = true;
	model e(p);
	CHECK(e.mwr_overhead() == 24);
	CHECK(e.cpl_overhead() == 24);
	p.addr_bits = 64;
	model e64(p);
	CHECK(e64.mwr_overhead() == 28);
}

TEST_CASE("other generations and lane counts")
{
	params p;
	p.gen = 1;
	p.lanes = 1;
	p.mps = 128;
	model g1(p);
	CHECK(g1.raw_gbps() == Approx(2.0));
	CHECK(g1.ack_limit() == 237);
	CHECK(g1.tlp_gbps() == Approx(2.0 * (1 - 16.0 / 237 - 4.0 / 1538)));
	p.gen = 2;
	p.lanes = 32;
	p.mps = 4096;
	model g2(p);
	CHECK(g2.ack_limit() == 237); // the reference's tables: ACK 237, FC 327
	CHECK(g2.fc_update() == 327);
	p.gen = 1;
	p.mps = 2048;
	model g1x32(p);
	CHECK(g1x32.ack_limit() == 148);
	CHECK(g1x32.fc_update() == 248);
	p = worked();
	p.gen = 4;
	p.lanes = 16;
	model g4(p);
	CHECK(g4.raw_gbps() == Approx(16 * 16 * 128.0 / 130));
	CHECK(g4.ack_limit() == 168);
	p.gen = 6;
	model g6(p);
	CHECK(g6.raw_gbps() == Approx(64 * 16 * 242.0 / 256));
	CHECK(g6.ack_limit() == 168); // gen5's tables
}

TEST_CASE("read limited by requests on TX for tiny reads")
{
	model m(worked());
	// 1 byte: completion 21 B on RX, request 24 B on TX -> TX limits.
	CHECK(m.read_gbps(1) == Approx(m.tlp_gbps() / 24));
	// Read + write of 4096 B: TX = 16x24 + 4096 + 8x24 = 4672, RX = 16x20 + 4096 = 4416.
	row r = m.evaluate(4096);
	CHECK(r.rdwr_tx_gbps == Approx(m.tlp_gbps() * 4096 / 4672));
	CHECK(m.evaluate(0).write_gbps == 0);
}

TEST_CASE("parameter validation names the parameter")
{
	params p;
	p.lanes = 3;
	CHECK_THROWS_WITH(model(p), Catch::Contains("3 lanes"));
	p = params{};
	p.mps = 100;
	CHECK_THROWS_WITH(model(p), Catch::Contains("MPS 100"));
	p = params{};
	p.rcb = 32;
	CHECK_THROWS_WITH(model(p), Catch::Contains("RCB 32"));
	p = params{};
	p.gen = 8;
	CHECK_THROWS_AS(model(p), pioc::error);
}

TEST_CASE("size lists")
{
	CHECK(parse_sizes("64,256,1500") == std::vector<std::uint64_t>{64, 256, 1500});
	CHECK(parse_sizes("64-512") == std::vector<std::uint64_t>{64, 128, 256, 512});
	CHECK(parse_sizes("64-256:+64") == std::vector<std::uint64_t>{64, 128, 192, 256});
	CHECK(parse_sizes("4K,1M") == std::vector<std::uint64_t>{4096, 1048576});
	CHECK_THROWS_AS(parse_sizes("64,x"), pioc::error);
	CHECK_THROWS_AS(parse_sizes(""), pioc::error);
}
