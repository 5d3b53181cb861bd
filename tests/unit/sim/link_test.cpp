// The link timing model: write combining, read splitting, ordering, credits.
#include "sim/pio_dev.hpp"

#include <pioc/error.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace pioc;
using sim::tlp;
namespace r = pioc::regs::pio_dev;

namespace {
struct traced {
	sim::pcie_link link;
	std::vector<tlp> tlps;
	explicit traced(sim::link_timing t = {}) : link(sim::make_pio_dev(), std::move(t))
	{
		link.set_trace([this](const tlp &x) { tlps.push_back(x); });
	}
	std::size_t count(tlp::kind k) const
	{
		std::size_t n = 0;
		for (const auto &x : tlps)
			n += x.type == k;
		return n;
	}
};
constexpr std::uint64_t B = r::BRAM.offset;
} // namespace

TEST_CASE("WC stores combine into one 64-byte TLP per full line", "[sim][link]")
{
	traced t;
	std::uint8_t buf[256] = {};
	for (unsigned i = 0; i < 256; i += 16)
		t.link.cpu_store(0, B + i, buf + i, 16, mem_type::wc);
	REQUIRE(t.tlps.size() == 4); // full lines leave at once
	for (unsigned i = 0; i < 4; ++i) {
		CHECK(t.tlps[i].type == tlp::kind::mwr);
		CHECK(t.tlps[i].length == 64);
		CHECK(t.tlps[i].offset == B + 64 * i);
	}
}

TEST_CASE("partial WC lines wait for a flush and leave per contiguous run", "[sim][link]")
{
	traced t;
	std::uint8_t buf[64] = {};
	t.link.cpu_store(0, B, buf, 16, mem_type::wc);
	t.link.cpu_store(0, B + 16, buf, 8, mem_type::wc);
	t.link.cpu_store(0, B + 40, buf, 8, mem_type::wc); // a hole at 24..39
	CHECK(t.tlps.empty());
	t.link.cpu_barrier(barrier::kind::wc_flush);
	REQUIRE(t.tlps.size() == 2);
	CHECK(t.tlps[0].offset == B);
	CHECK(t.tlps[0].length == 24);
	CHECK(t.tlps[1].offset == B + 40);
	CHECK(t.tlps[1].length == 8);
	CHECK(t.link.stats().wc_flushes == 1);
}

TEST_CASE("UC stores leave one TLP each, of their size", "[sim][link]")
{
	traced t;
	std::uint8_t buf[64] = {};
	for (unsigned i = 0; i < 64; i += 16)
		t.link.cpu_store(0, B + i, buf + i, 16, mem_type::uc);
	REQUIRE(t.tlps.size() == 4);
	for (const auto &x : t.tlps)
		CHECK(x.length == 16);
}

TEST_CASE("loads split at max_read_bytes, one request outstanding", "[sim][link]")
{
	traced t;
	std::uint8_t buf[64];
	const auto t0 = t.link.now_ns();
	t.link.cpu_load(0, B, buf, 64, mem_type::uc);
	const auto four = t.link.now_ns() - t0;
	REQUIRE(t.tlps.size() == 4);
	for (const auto &x : t.tlps) {
		CHECK(x.type == tlp::kind::mrd);
		CHECK(x.length == 16);
	}
	// Each request waits for the previous completion: 4 round trips.
	for (std::size_t i = 1; i < 4; ++i)
		CHECK(t.tlps[i].time_ns >= t.tlps[i - 1].time_ns + 2 * std::uint64_t(t.link.timing().one_way_ns));
	const double rtt = 2 * t.link.timing().one_way_ns;
	CHECK(double(four) >= 4 * rtt);

	sim::link_timing wide;
	wide.max_read_bytes = 64;
	traced w(wide);
	const auto w0 = w.link.now_ns();
	w.link.cpu_load(0, B, buf, 64, mem_type::uc);
	CHECK(w.tlps.size() == 1);
	CHECK(w.tlps[0].length == 64);
	CHECK(double(w.link.now_ns() - w0) < double(four) / 3);

	traced wt; // write-through: line-sized reads
	wt.link.cpu_load(0, B, buf, 64, mem_type::wt);
	CHECK(wt.tlps.size() == 1);
}

TEST_CASE("a read never passes earlier posted writes", "[sim][link]")
{
	traced t;
	std::uint8_t buf[64] = {};
	for (int i = 0; i < 16; ++i)
		t.link.cpu_store(0, B + 64 * i, buf, 64, mem_type::uc);
	std::uint32_t v;
	t.link.cpu_load(0, r::SCRATCH.offset, &v, 4, mem_type::uc);
	REQUIRE(t.tlps.back().type == tlp::kind::mrd);
	for (std::size_t i = 0; i + 1 < t.tlps.size(); ++i)
		CHECK(t.tlps.back().time_ns >= t.tlps[i].time_ns);
}

TEST_CASE("a read of a line in a WC buffer flushes it first", "[sim][link]")
{
	traced t;
	std::uint64_t v = 0x1234;
	t.link.cpu_store(0, B + 8, &v, 8, mem_type::wc);
	std::uint64_t back = 0;
	t.link.cpu_load(0, B + 8, &back, 8, mem_type::wc);
	REQUIRE(t.tlps.size() == 2);
	CHECK(t.tlps[0].type == tlp::kind::mwr);
	CHECK(t.tlps[1].type == tlp::kind::mrd);
	CHECK(back == 0x1234);
}

TEST_CASE("posted writes stall the CPU when credits run out", "[sim][link]")
{
	sim::link_timing tm;
	tm.posted_credits = 4;
	traced t(tm);
	std::uint8_t buf[64] = {};
	for (int i = 0; i < 64; ++i)
		t.link.cpu_store(0, B + 64 * (i % 32), buf, 64, mem_type::uc);
	CHECK(t.link.stats().credit_stalls > 0);
	CHECK(t.link.now_ns() > 60 * 64 / t.link.timing().bytes_per_ns()); // bandwidth-bound
}

TEST_CASE("timing presets and bad parameters", "[sim][link]")
{
	const auto pc = sim::link_timing::preset_named("pc-gen3x16");
	const auto enz = sim::link_timing::preset_named("enzian-gen3x8");
	CHECK(pc.bytes_per_ns() == Approx(2 * enz.bytes_per_ns()));
	CHECK(enz.one_way_ns > pc.one_way_ns);
	CHECK(pc.bytes_per_ns() == Approx(8.0 * 128 / 130 * 16 / 8));
	CHECK(pc.generation() == 3);
	CHECK(enz.generation() == 3);
	for (auto [gts, gen] : {std::pair{2.5, 1u}, {5.0, 2u}, {8.0, 3u}, {16.0, 4u}, {32.0, 5u}}) {
		sim::link_timing t;
		t.gts_per_lane = gts;
		CHECK(t.generation() == gen);
	}
	CHECK_THROWS_AS(sim::link_timing::preset_named("gen9"), error);
	sim::link_timing bad;
	bad.wc_line = 48;
	CHECK_THROWS_AS(sim::pcie_link(sim::make_pio_dev(), bad), error);
}
