// RX_STAMP_DROP and TX_STAMP_DROP (fpga/regmap/nic_dma.toml, maps 1.1 and
// 1.2) on a DMA NIC device, through its BAR: the same steps as the RTL
// testbench's case (fpga/tb/test_nic_dma_top.cpp), for the model (unit) and
// for the model and the Verilated image side by side (rtl).
#pragma once

#include "unit/nic/reclaim.hpp"

#include <pioc/device.hpp>
#include <pioc/nic/dma_nic.hpp>
#include <pioc/regs/nic_dma.hpp>

#include <catch2/catch.hpp>

#include <random>

namespace nic_test {

/** Which stamp FIFO a drop test works on. */
enum class stamp_dir { rx, tx };

/** Moves frames through the driver (never asking for a stamp), then drops
 *  and pops the stamps of @p dir through the BAR, checking each sequence;
 *  the other FIFO keeps every stamp. */
inline void stamp_drop_steps(pioc::device &dev, stamp_dir dir)
{
	namespace R = pioc::regs::nic_dma;
	const bool rx = dir == stamp_dir::rx;
	const std::uint64_t stamp = rx ? R::RX_STAMP.offset : R::TX_STAMP.offset;
	const std::uint64_t reg = rx ? R::RX_STAMP_DROP.offset : R::TX_STAMP_DROP.offset;
	const std::uint64_t other = rx ? R::TX_STAMP.offset : R::RX_STAMP.offset;
	pioc::nic::with_dma_nic(dev, {16, 16}, [&](auto &nic) {
		const auto bar = dev.map(pioc::nic::dma_nic_bar(dev), pioc::mem_type::uc);
		const auto seq = [&] { return bar.template read<std::uint64_t>(stamp) >> R::STAMP_SEQ_SHIFT; };
		const auto drop = [&](std::uint32_t s) { bar.write(reg, s); };
		std::mt19937_64 rng(7);
		send_back(nic, rng, 10);
		drop(4); // 0..3 go
		drop(2); // behind the oldest: nothing
		drop(4); // the oldest itself: nothing
		CHECK(seq() == 4);
		bar.write(reg, std::uint8_t(9)); // without both low bytes: ignored
		CHECK(seq() == 5);
		bar.write(reg, std::uint64_t(8 | (0xffffull << 16))); // the low 16 bits count
		CHECK(seq() == 8);
		CHECK(bar.template read<std::uint64_t>(reg) == ~0ull); // write-only
		drop(100); // ahead of every stamp: all go
		CHECK(bar.template read<std::uint64_t>(stamp) == R::STAMP_EMPTY);
		send_back(nic, rng, 3);
		drop(11);
		CHECK(seq() == 11);
		CHECK(seq() == 12);
		CHECK(bar.template read<std::uint64_t>(stamp) == R::STAMP_EMPTY);
		for (std::uint64_t i = 0; i < 13; ++i)
			CHECK(bar.template read<std::uint64_t>(other) >> R::STAMP_SEQ_SHIFT == i);
		CHECK(bar.template read<std::uint64_t>(other) == R::STAMP_EMPTY);
	});
}

} // namespace nic_test
