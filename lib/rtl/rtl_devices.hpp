/** @file
 * Verilated RTL of the pioc FPGA images behind the same transaction interface
 * as the behavioral models (pioc::sim::target), so libpioc, its tests,
 * pciebench and ecibench run against the real RTL. Built only with the CMake
 * option PIOC_RTL (needs Verilator); PIOC_HAVE_RTL is defined then.
 */
#pragma once

#include <pioc/sim/target.hpp>

#include <cstdint>
#include <memory>

namespace pioc::sim::eci {
class device_engine;
}

namespace pioc::rtl {

/** The PIO image (fpga/rtl/pio/pio_top.sv), BAR0 = pio_dev.toml. Simulated
 *  time is converted to cycles of the image's clock (pio_dev clock_mhz):
 *  every transaction waits until its arrival time, is driven onto the AXI4
 *  slave port (one burst per TLP, up to 256 beats of 64 bits), and a read
 *  completes when the RTL answers, including a held INVOKE_STATUS read.
 *  @p stall_percent adds random idle/backpressure cycles on the AXI port.
 *  @p skip_idle: cycles in which the image is idle and no transfer is in
 *  flight are counted without being evaluated (rtl_clock.hpp); false
 *  evaluates every cycle (the reference the tests compare against). */
std::unique_ptr<pioc::sim::target> make_pio_rtl(unsigned stall_percent = 0, std::uint64_t seed = 1,
						bool skip_idle = true);

/** rtl:xdma: the XDMA engine model (lib/sim/xdma, 1 H2C + 1 C2H channel as
 *  fpga/vcu118/build.tcl configures the IP) in front of the VCU118 user side
 *  (fpga/rtl/xdma/xdma_user_top.sv). The engines' AXI4 master is the RTL's
 *  dma_* port: card addresses are the PIO image's 256 KiB map (DMA fills
 *  REQ / BRAM and drains RESP / BRAM). BAR0 is the bypass port (byp_*),
 *  driven as make_pio_rtl() drives pio_top; BAR1 the XDMA config BAR.
 *  @p one_eval: the image is evaluated once per clock cycle (its AXI4
 *  ports' outputs are all registers); false evaluates it twice, clock low
 *  then high, as the testbenches do (the reference the tests compare
 *  against). */
std::unique_ptr<pioc::sim::target> make_xdma_rtl(unsigned stall_percent = 0, std::uint64_t seed = 1,
						 bool skip_idle = true, bool one_eval = true);

/** Statistics of an RTL target made here (for result labels). */
struct rtl_stats {
	std::uint64_t cycles;      ///< clock cycles simulated
	double clock_mhz;          ///< the image's clock
	std::uint64_t sim_ns;      ///< simulated time reached (cycles / clock)
	std::uint64_t evaluated_cycles = 0; ///< of cycles, those evaluated (the rest skipped while idle)
};
/** Statistics of @p t if it is an RTL target, else cycles = 0. */
rtl_stats stats_of(const pioc::sim::target &t);
/** The same of a Verilated engine behind the ECI model's directory
 *  (rtl:nic_eci, rtl:coh), else cycles = 0. */
rtl_stats stats_of(const pioc::sim::eci::device_engine &e);

} // namespace pioc::rtl
