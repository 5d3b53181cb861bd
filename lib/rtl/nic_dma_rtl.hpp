/** @file
 * rtl:nic_dma: the XDMA engine model with its AXI4-Stream engines
 * (lib/sim/xdma, 1 H2C + 1 C2H channel, BAR1 the config BAR) in front of the
 * Verilated DMA NIC user side (fpga/rtl/nic/nic_dma_top.sv: TX and RX paths,
 * MAC stand-in in near-end loopback, BAR0 = fpga/regmap/nic_dma.toml). As
 * rtl:xdma: the IP stays the C++ model, the user logic is the RTL.
 *
 * H2C0's data reaches the RTL's h2c_* stream beat by beat, each beat when
 * the engine model has it from the host; C2H0 takes the RTL's c2h_* stream
 * into the engine model, whose stream input holds
 * pioc::sim::nic::c2h_stream_packets packets (the IP's C2H buffer) ahead of
 * its descriptors: with them taken, c2h_tready is low and frames wait in the
 * NIC's RX FIFO. BAR0 is the AXI4 slave (the IP's DMA bypass port). Simulated
 * nanoseconds are cycles of the 250 MHz core clock; the NIC's CYCLES counter
 * is 0 at simulated time 0.
 */
#pragma once

#include <pioc/sim/target.hpp>

#include <cstdint>
#include <memory>

namespace pioc::rtl {

/** @p stall_percent adds random idle/backpressure cycles on the BAR's AXI
 *  port; @p skip_idle false evaluates every cycle (the reference the
 *  skipping is checked against). */
std::unique_ptr<pioc::sim::target> make_nic_dma_rtl(unsigned stall_percent = 0, std::uint64_t seed = 1,
							 bool skip_idle = true);

} // namespace pioc::rtl
