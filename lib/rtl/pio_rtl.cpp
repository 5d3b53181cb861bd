// The Verilated PIO image behind pioc::sim::target.
#include "rtl_devices.hpp"

#include "Vpio_top.h"
#include "Vpio_top___024root.h"
#include "rtl_clock.hpp"
#include "pioc/regs/pio_dev.hpp"
#include "sim/xdma/xdma_dev.hpp"

#include <string>

namespace pioc::rtl {

namespace {
namespace R = pioc::regs::pio_dev;

/** The image and the AXI4 master on its slave port (s_*), built before the BAR. */
struct pio_image {
	pio_image(unsigned stall, std::uint64_t seed, bool skip_idle)
		: c("rtl:pio_dev", seed, R::clock_mhz),
		  axi("pio_rtl", PIOC_AXI4_PORT(c.s.m.get(), s_), &c.s.rng, &c.errors)
	{
		c.attach(axi, stall);
		c.skip_idle(&c.s.m->rootp->pio_top__DOT__u_core__DOT__u_cnt__DOT__count, skip_idle);
		c.start();
	}
	clocked<Vpio_top> c;
	tb::axi4_master<std::uint32_t> axi;
};

class pio_rtl final : private pio_image, public axi_bar<Vpio_top> {
public:
	pio_rtl(unsigned stall, std::uint64_t seed, bool skip_idle)
		: pio_image(stall, seed, skip_idle), axi_bar("rtl:pio_dev", R::bar_size, pio_image::c, pio_image::axi)
	{
	}
};

} // namespace

std::unique_ptr<pioc::sim::target> make_pio_rtl(unsigned stall_percent, std::uint64_t seed, bool skip_idle)
{
	return std::make_unique<pio_rtl>(stall_percent, seed, skip_idle);
}

rtl_stats stats_of(const pioc::sim::target &t)
{
	const pioc::sim::target *p = &t;
	if (auto *x = dynamic_cast<const pioc::sim::user_bar_host *>(p))
		p = &x->user();   // rtl:xdma: the user side's clock
	if (auto *r = dynamic_cast<const rtl_target *>(p))
		return r->stats();
	return {0, 0.0, 0};
}

} // namespace pioc::rtl
