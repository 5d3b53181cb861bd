/** @file
 * rtl:nic_pio: the Verilated PCIe PIO NIC image (fpga/rtl/nic/nic_pio_top.sv,
 * NIC core + MAC stand-in in near-end loopback) behind pioc::sim::target,
 * BAR0 = fpga/regmap/nic_pio.toml. Driven like rtl:pio: every TLP becomes an
 * AXI4 transfer on the image's slave port at its arrival time, simulated
 * nanoseconds are cycles of the 250 MHz core clock, and the NIC's CYCLES
 * counter (the MAC stamps) is 0 at simulated time 0. Cycles in which the
 * image is idle (nic_pio_top's idle: no frame in the NIC or the MAC, no read
 * or interrupt pending) and the port is quiet are skipped (rtl_clock.hpp).
 */
#pragma once

#include <pioc/sim/target.hpp>

#include <cstdint>
#include <memory>

namespace pioc::rtl {

/** @p stall_percent adds random idle/backpressure cycles on the AXI port.
 *  @p skip_idle false evaluates every cycle (the reference the tests
 *  compare against). */
std::unique_ptr<pioc::sim::target> make_nic_pio_rtl(unsigned stall_percent = 0, std::uint64_t seed = 1,
						    bool skip_idle = true);

} // namespace pioc::rtl
