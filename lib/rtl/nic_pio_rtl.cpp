// rtl:nic_pio: the Verilated PIO NIC image behind pioc::sim::target.
#include "nic_pio_rtl.hpp"

#include "Vnic_pio_top.h"
#include "rtl_clock.hpp"
#include "pioc/regs/nic_pio.hpp"

namespace pioc::rtl {

namespace {
namespace R = pioc::regs::nic_pio;

/** The image and the AXI4 master on its slave port, built before the BAR. */
struct nic_pio_image {
	nic_pio_image(unsigned stall, std::uint64_t seed)
		: c("rtl:nic_pio", seed, R::clock_mhz),
		  axi("nic_pio_rtl", PIOC_AXI4_PORT(c.s.m.get(), s_), &c.s.rng, &c.errors)
	{
		c.attach(axi, stall);
		c.start();
	}
	clocked<Vnic_pio_top> c;
	tb::axi4_master<std::uint32_t> axi;
};

class nic_pio_rtl final : private nic_pio_image, public axi_bar<Vnic_pio_top> {
public:
	nic_pio_rtl(unsigned stall, std::uint64_t seed)
		: nic_pio_image(stall, seed), axi_bar("rtl:nic_pio", R::bar_size, nic_pio_image::c, nic_pio_image::axi)
	{
	}
};

} // namespace

std::unique_ptr<pioc::sim::target> make_nic_pio_rtl(unsigned stall_percent, std::uint64_t seed)
{
	return std::make_unique<nic_pio_rtl>(stall_percent, seed);
}

} // namespace pioc::rtl
