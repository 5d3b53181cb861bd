// rtl:nic_pio: the Verilated PIO NIC image behind pioc::sim::target.
#include "nic_pio_rtl.hpp"

#include "Vnic_pio_top.h"
#include "Vnic_pio_top___024root.h"
#include "rtl_clock.hpp"
#include "pioc/regs/nic_pio.hpp"
#include "sim/xdma/xdma_dev.hpp"

#include <functional>

namespace pioc::rtl {

namespace {
namespace R = pioc::regs::nic_pio;

/** The image's rx_irq pulse: the XDMA IP's user interrupt line RX_IRQ_LINE
 *  (as vcu118_nic_top holds it as usr_irq_req), raised on the XDMA model in
 *  front of the image (make_nic_pio_rtl) in the pulse's cycle; that model
 *  sends the MSI-X. */
class irq_wire final : public tb::agent {
public:
	irq_wire(const Vnic_pio_top *m, const clocked<Vnic_pio_top> *c) : m_(m), c_(c) {}
	void drive() override {}
	void sample() override
	{
		if (m_->rx_irq && raise)
			raise(R::RX_IRQ_LINE, double(c_->now_ns()));
	}
	std::function<void(unsigned, double)> raise;

private:
	const Vnic_pio_top *m_;
	const clocked<Vnic_pio_top> *c_;
};

/** The image and the AXI4 master on its slave port, built before the BAR. */
struct nic_pio_image {
	nic_pio_image(unsigned stall, std::uint64_t seed, bool skip_idle)
		: c("rtl:nic_pio", seed, R::clock_mhz),
		  axi("nic_pio_rtl", PIOC_AXI4_PORT(c.s.m.get(), s_), &c.s.rng, &c.errors), irq(c.s.m.get(), &c)
	{
		c.attach(axi, stall);
		c.skip_idle(&c.s.m->rootp->nic_pio_top__DOT__u_nic__DOT__u_cnt__DOT__count, skip_idle);
		c.s.add(&irq);
		c.start();
	}
	clocked<Vnic_pio_top> c;
	tb::axi4_master<std::uint32_t> axi;
	irq_wire irq;
};

class nic_pio_rtl final : private nic_pio_image, public axi_bar<Vnic_pio_top>, public pioc::sim::user_irq_source {
public:
	nic_pio_rtl(unsigned stall, std::uint64_t seed, bool skip_idle)
		: nic_pio_image(stall, seed, skip_idle), axi_bar("rtl:nic_pio", R::bar_size, nic_pio_image::c, nic_pio_image::axi)
	{
	}

	void connect_user_irq(std::function<void(unsigned, double)> raise) override { irq.raise = std::move(raise); }
};

} // namespace

std::unique_ptr<pioc::sim::target> make_nic_pio_rtl(unsigned stall_percent, std::uint64_t seed, bool skip_idle)
{
	// As sim:nic_pio: the image on BAR1 of an XDMA function (config BAR0).
	pioc::sim::xdma_config cfg;
	cfg.name = cfg.label = "rtl:nic_pio";
	cfg.h2c_channels = cfg.c2h_channels = 1;
	cfg.config_bar = 0;
	cfg.user_bar = 1;
	return std::make_unique<pioc::sim::xdma_dev>(cfg, std::make_unique<nic_pio_rtl>(stall_percent, seed, skip_idle),
						     pioc::sim::make_card_memory(4096, cfg.card_mem_ns));
}

} // namespace pioc::rtl
