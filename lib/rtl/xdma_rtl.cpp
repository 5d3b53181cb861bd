// rtl:xdma: the XDMA engine model (lib/sim/xdma) in front of the Verilated
// VCU118 user side (fpga/rtl/xdma/xdma_user_top.sv). The engines' AXI4
// master drives the RTL's dma_* port, BAR0 its byp_* (DMA bypass) port.
#include "rtl_devices.hpp"

#include "Vxdma_user_top.h"
#include "Vxdma_user_top___024root.h"
#include "arm_edge.hpp"
#include "rtl_clock.hpp"
#include "pioc/regs/pio_dev.hpp"
#include "sim/xdma/xdma_dev.hpp"

#include <cmath>
#include <string>

namespace pioc::rtl {

namespace {
namespace R = pioc::regs::pio_dev;

/** The one Verilated xdma_user_top both adapters below drive. The AXI-Lite
 *  control port (ctl_*) stays idle: its BAR is the XDMA IP's BAR0 on the
 *  board but takes only 32-bit accesses, which cannot ring the doorbell. */
struct user_side {
	user_side(unsigned stall, std::uint64_t seed, bool skip_idle, bool one_eval)
		: c("rtl:xdma", seed, R::clock_mhz),
		  dma("rtl:xdma dma", PIOC_AXI4_PORT(c.s.m.get(), dma_), &c.s.rng, &c.errors),
		  byp("rtl:xdma byp", PIOC_AXI4_PORT(c.s.m.get(), byp_), &c.s.rng, &c.errors)
	{
		auto &m = *c.s.m;
		m.ctl_awvalid = m.ctl_wvalid = m.ctl_arvalid = 0;
		m.ctl_bready = m.ctl_rready = 1;
		c.attach(dma, stall);
		c.attach(byp, stall);
		c.skip_idle(&m.rootp->xdma_user_top__DOT__u_core__DOT__u_cnt__DOT__count, skip_idle);
		// Every output the two AXI4 masters sample is a register's
		// (axi4_to_mem_rr); the control port is not driven.
		if (one_eval && can_arm_edge<Vxdma_user_top>)
			c.s.arm_edge = arm_edge<Vxdma_user_top>;
		c.start();
	}
	clocked<Vxdma_user_top> c;
	tb::axi4_master<std::uint32_t> dma, byp;
};

/** The card side the engines address: the dma_* port (the image's 256 KiB map). */
class dma_card final : public pioc::sim::card_port {
public:
	explicit dma_card(std::shared_ptr<user_side> u) : u_(std::move(u)) {}

	std::uint64_t size() const noexcept override { return R::bar_size; }
	std::uint64_t data_base() const noexcept override { return R::BRAM.offset; }

	double write(std::uint64_t addr, const void *data, std::size_t len, double t_ns) override
	{
		u_->c.run_to(std::uint64_t(std::ceil(t_ns)));
		u_->c.finish(u_->dma, u_->dma.write(addr, data, len));
		return std::max(t_ns, double(u_->c.now_ns()));
	}

	double read(std::uint64_t addr, void *data, std::size_t len, double t_ns) override
	{
		u_->c.run_to(std::uint64_t(std::ceil(t_ns)));
		u_->c.finish(u_->dma, u_->dma.read(addr, data, len));
		return std::max(t_ns, double(u_->c.now_ns()));
	}

private:
	std::shared_ptr<user_side> u_;
};

} // namespace

std::unique_ptr<pioc::sim::target> make_xdma_rtl(unsigned stall_percent, std::uint64_t seed, bool skip_idle,
						 bool one_eval)
{
	auto u = std::make_shared<user_side>(stall_percent, seed, skip_idle, one_eval);
	// BAR0: PIO through the bypass port, as rtl:pio drives pio_top; it keeps u alive.
	struct user_bar final : axi_bar<Vxdma_user_top> {
		explicit user_bar(std::shared_ptr<user_side> s)
			: axi_bar("rtl:xdma_user_top", R::bar_size, s->c, s->byp), keep(std::move(s))
		{
		}
		std::shared_ptr<user_side> keep;
	};
	pioc::sim::xdma_config cfg;
	cfg.name = cfg.label = "rtl:xdma";
	cfg.h2c_channels = cfg.c2h_channels = 1;   // fpga/vcu118/build.tcl: xdma_wnum_chnl / xdma_rnum_chnl 1
	cfg.card_memory = R::bar_size;
	return std::make_unique<pioc::sim::xdma_dev>(cfg, std::make_unique<user_bar>(u), std::make_unique<dma_card>(u));
}

} // namespace pioc::rtl
