// RX_STAMP_DROP (fpga/regmap/nic_dma.toml, map 1.1) on a DMA NIC device,
// through its BAR: the same steps as the RTL testbench's case
// (fpga/tb/test_nic_dma_top.cpp), for the model (unit) and for the model and
// the Verilated image side by side (rtl).
#pragma once

#include "unit/nic/random_frame.hpp"
#include "unit/nic/round_trip.hpp"

#include <pioc/device.hpp>
#include <pioc/nic/dma_nic.hpp>
#include <pioc/regs/nic_dma.hpp>

#include <catch2/catch.hpp>

#include <random>

namespace nic_test {

/** Moves frames through the driver (never asking for an RX stamp), then
 *  drops and pops RX stamps through the BAR, checking each sequence. */
inline void stamp_drop_steps(pioc::device &dev)
{
	namespace R = pioc::regs::nic_dma;
	pioc::nic::with_dma_nic(dev, {16, 16}, [&](auto &nic) {
		const auto bar = dev.map(pioc::nic::dma_nic_bar(dev), pioc::mem_type::uc);
		const auto seq = [&] { return bar.template read<std::uint64_t>(R::RX_STAMP.offset) >> R::STAMP_SEQ_SHIFT; };
		const auto drop = [&](std::uint32_t s) { bar.write(R::RX_STAMP_DROP.offset, s); };
		std::mt19937_64 rng(7);
		for (unsigned i = 0; i < 10; ++i)
			round_trip(nic, random_frame(rng, 60 + 97 * i));
		drop(4); // 0..3 go
		drop(2); // behind the oldest: nothing
		drop(4); // the oldest itself: nothing
		CHECK(seq() == 4);
		bar.write(R::RX_STAMP_DROP.offset, std::uint8_t(9)); // without both low bytes: ignored
		CHECK(seq() == 5);
		bar.write(R::RX_STAMP_DROP.offset, std::uint64_t(8 | (0xffffull << 16))); // the low 16 bits count
		CHECK(seq() == 8);
		CHECK(bar.template read<std::uint64_t>(R::RX_STAMP_DROP.offset) == ~0ull); // write-only
		drop(100); // ahead of every stamp: all go
		CHECK(bar.template read<std::uint64_t>(R::RX_STAMP.offset) == R::STAMP_EMPTY);
		for (unsigned i = 0; i < 3; ++i)
			round_trip(nic, random_frame(rng, 64));
		drop(11);
		CHECK(seq() == 11);
		CHECK(seq() == 12);
		CHECK(bar.template read<std::uint64_t>(R::RX_STAMP.offset) == R::STAMP_EMPTY);
	});
}

} // namespace nic_test
