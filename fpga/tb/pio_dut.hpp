// The Verilated PIO image (pio_top) with a checked AXI4 master: blocking
// helpers for the testbench.
#pragma once

#include "Vpio_top.h"
#include "common/sim.hpp"

#include <catch2/catch.hpp>

namespace pioc::tb {

struct pio_dut {
	explicit pio_dut(std::uint64_t seed = 1, unsigned stall_pct = 30)
		: s(seed), axi("pio", PIOC_AXI4_PORT(s.m.get(), s_), &s.rng, &errors)
	{
		axi.stall_valid.percent = stall_pct;
		axi.stall_ready.percent = stall_pct;
		s.add(&axi);
		s.reset();
	}

	void wait(std::uint64_t tag, std::uint64_t max = 2000000)
	{
		REQUIRE(s.run_until([&] { return axi.done(tag); }, max));
	}
	void write(std::uint64_t addr, const void *d, std::size_t n) { wait(axi.write(addr, d, n)); }
	void read(std::uint64_t addr, void *d, std::size_t n) { wait(axi.read(addr, d, n)); }
	void w64(std::uint64_t addr, std::uint64_t v) { write(addr, &v, 8); }
	void w32(std::uint64_t addr, std::uint32_t v) { write(addr, &v, 4); }
	std::uint64_t r64(std::uint64_t addr)
	{
		std::uint64_t v = 0;
		read(addr, &v, 8);
		return v;
	}
	std::uint32_t r32(std::uint64_t addr)
	{
		std::uint32_t v = 0;
		read(addr, &v, 4);
		return v;
	}
	/** Cycles from queueing a read until its data is back. */
	std::uint64_t timed_r64(std::uint64_t addr, std::uint64_t &v)
	{
		std::uint64_t t0 = s.cycle;
		read(addr, &v, 8);
		return s.cycle - t0;
	}

	std::vector<std::string> errors;
	sim<Vpio_top> s;
	axi4_master<std::uint32_t> axi;
};

} // namespace pioc::tb
