// Testbench of the AXI4 block-RAM slave: random bursts (narrow, unaligned,
// up to 256 beats) against a shadow copy, random idle cycles and
// backpressure on every channel, protocol checkers on all five.
#include "Vaxi_ram.h"
#include "common/sim.hpp"

#include <catch2/catch.hpp>

using namespace pioc::tb;

TEST_CASE("axi_ram: random bursts against a shadow copy", "[axi_ram]")
{
	for (unsigned pct : {0u, 30u, 70u}) {
		std::vector<std::string> errors;
		sim<Vaxi_ram> s(pct + 1);
		axi4_master<std::uint16_t> m("ram", PIOC_AXI4_PORT(s.m.get(), s_), &s.rng, &errors);
		m.stall_valid.percent = pct;
		m.stall_ready.percent = pct;
		s.add(&m);
		s.reset();
		const std::size_t size = 1 << 16;
		std::vector<std::uint8_t> shadow(size, 0);
		auto t0 = m.write(0, shadow.data(), size);
		REQUIRE(s.run_until([&] { return m.done(t0); }));
		std::mt19937_64 rng(pct);
		for (int i = 0; i < 200; ++i) {
			std::size_t len = 1 + rng() % (i % 4 ? 16 : 3000);
			std::uint64_t off = rng() % (size - len);
			if (rng() % 2) {
				std::vector<std::uint8_t> v(len);
				for (auto &x : v)
					x = std::uint8_t(rng());
				auto t = m.write(off, v.data(), len);
				REQUIRE(s.run_until([&] { return m.done(t); }));
				std::copy(v.begin(), v.end(), shadow.begin() + off);
			} else {
				std::vector<std::uint8_t> v(len);
				auto t = m.read(off, v.data(), len);
				REQUIRE(s.run_until([&] { return m.done(t); }));
				REQUIRE(std::equal(v.begin(), v.end(), shadow.begin() + off));
			}
		}
		REQUIRE(errors.empty());
		CHECK(m.c_r.beats > 500);
	}
}

TEST_CASE("axi_ram: queued bursts back to back keep their order", "[axi_ram]")
{
	std::vector<std::string> errors;
	sim<Vaxi_ram> s(5);
	axi4_master<std::uint16_t> m("ram", PIOC_AXI4_PORT(s.m.get(), s_), &s.rng, &errors);
	s.add(&m);
	s.reset();
	std::vector<std::uint8_t> a(4096), b(4096);
	for (std::size_t i = 0; i < a.size(); ++i)
		a[i] = std::uint8_t(i * 7);
	m.write(0x1000, a.data(), a.size());
	auto t = m.read(0x1000, b.data(), b.size());
	std::uint64_t t0 = s.cycle;
	REQUIRE(s.run_until([&] { return m.done(t); }));
	CHECK(a == b);
	// 512 write beats + 512 read beats at about one per cycle
	CHECK(s.cycle - t0 < 1200);
	REQUIRE(errors.empty());
}
