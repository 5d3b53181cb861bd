// Testbench of the VCU118 user logic behind XDMA (xdma_user_top): the control
// AXI4-Lite port, the DMA AXI4 port and the bypass (PIO) AXI4 port all reach
// one PIO device. Concurrent random traffic on all three with random
// backpressure and protocol checkers; the Bloom offload end to end through
// DMA (H2C into REQ, doorbell, C2H from RESP).
#include "Vxdma_user_top.h"
#include "common/sim.hpp"
#include "pioc/bloom_hash.hpp"
#include "pioc/regs/pio_dev.hpp"

#include <catch2/catch.hpp>

using namespace pioc::tb;
namespace R = pioc::regs::pio_dev;

namespace {

struct xdma_dut {
	explicit xdma_dut(std::uint64_t seed, unsigned pct)
		: s(seed), ctl("ctl", PIOC_AXIL_PORT(s.m.get(), ctl_), &s.rng, &errors),
		  dma("dma", PIOC_AXI4_PORT(s.m.get(), dma_), &s.rng, &errors),
		  byp("byp", PIOC_AXI4_PORT(s.m.get(), byp_), &s.rng, &errors)
	{
		for (auto *st : {&ctl.stall_valid, &ctl.stall_ready, &dma.stall_valid, &dma.stall_ready,
				 &byp.stall_valid, &byp.stall_ready})
			st->percent = pct;
		s.add(&ctl);
		s.add(&dma);
		s.add(&byp);
		s.reset();
	}
	void wait(axi4_master<std::uint32_t> &m, std::uint64_t tag)
	{
		REQUIRE(s.run_until([&] { return m.done(tag); }, 2000000));
	}
	std::uint32_t ctl_read(std::uint32_t off)
	{
		std::uint32_t v = 0;
		ctl.read(off, &v);
		REQUIRE(s.run_until([&] { return ctl.idle(); }, 2000000));
		return v;
	}
	void ctl_write(std::uint32_t off, std::uint32_t v)
	{
		ctl.write(off, v);
		REQUIRE(s.run_until([&] { return ctl.idle(); }, 2000000));
	}
	std::vector<std::string> errors;
	sim<Vxdma_user_top> s;
	axil_master<std::uint32_t> ctl;
	axi4_master<std::uint32_t> dma, byp;
};

} // namespace

TEST_CASE("xdma_user_top: three ports share one device under random traffic", "[xdma]")
{
	xdma_dut d(21, 30);
	std::mt19937_64 rng(3);
	std::vector<std::uint8_t> a(16384), b(16384), ra(16384), rb(16384);
	for (auto &x : a)
		x = std::uint8_t(rng());
	for (auto &x : b)
		x = std::uint8_t(rng());
	// DMA and bypass write different halves of BRAM while the control port works
	auto ta = d.dma.write(R::BRAM.offset, a.data(), a.size());
	auto tb = d.byp.write(R::BRAM.offset + 0x8000, b.data(), b.size());
	for (std::uint32_t i = 0; i < 20; ++i) {
		d.ctl.write(R::SCRATCH.offset, 0x1000 + i);
		std::uint32_t v = 0;
		d.ctl.read(R::SCRATCH.offset, &v);
		REQUIRE(d.s.run_until([&] { return d.ctl.idle(); }, 100000));
		CHECK(v == 0x1000 + i);
	}
	d.wait(d.dma, ta);
	d.wait(d.byp, tb);
	// read back crosswise
	auto ra_t = d.byp.read(R::BRAM.offset, ra.data(), ra.size());
	auto rb_t = d.dma.read(R::BRAM.offset + 0x8000, rb.data(), rb.size());
	d.wait(d.byp, ra_t);
	d.wait(d.dma, rb_t);
	CHECK(ra == a);
	CHECK(rb == b);
	CHECK(d.ctl_read(R::ID.offset) == R::id_value);
	REQUIRE(d.errors.empty());
}

TEST_CASE("xdma_user_top: Bloom offload through DMA", "[xdma][bloom]")
{
	xdma_dut d(22, 20);
	std::mt19937_64 rng(4);
	for (std::size_t len : {128u, 1024u, 8192u}) {
		std::vector<std::uint8_t> req(len);
		for (auto &x : req)
			x = std::uint8_t(rng());
		d.wait(d.dma, d.dma.write(R::REQ.offset, req.data(), len));     // H2C
		std::uint64_t db = R::OP_BLOOM << 32 | len;
		d.wait(d.dma, d.dma.write(R::DOORBELL.offset, &db, 8));        // a 64-bit doorbell
		// the control port's 32-bit read of INVOKE_STATUS is held until done
		std::uint32_t lo = d.ctl_read(R::INVOKE_STATUS.offset);
		std::uint32_t hi = d.ctl_read(R::INVOKE_STATUS.offset + 4);
		std::size_t rlen = pioc::bloom::result_len(len);
		CHECK(lo == rlen);
		CHECK((hi & 0x80000000u) != 0);
		std::vector<std::uint8_t> resp(rlen), ref(rlen);
		d.wait(d.dma, d.dma.read(R::RESP.offset, resp.data(), rlen));     // C2H
		pioc::bloom::hash_buffer(req.data(), len, ref.data());
		REQUIRE(resp == ref);
	}
	// a 32-bit control write cannot ring the doorbell (64-bit writes only)
	d.ctl_write(R::DOORBELL.offset + 4, std::uint32_t(R::OP_ECHO));
	CHECK(d.ctl_read(R::INVOKE_COUNT.offset) == 3);
	REQUIRE(d.errors.empty());
}

namespace {

/** What a master samples of one AXI4 port (tb::axi4_master::sample). */
std::vector<std::uint64_t> sampled(const axi4_port<std::uint32_t> &p)
{
	return {*p.awready, *p.wready, *p.bvalid, *p.bid, *p.bresp, *p.arready,
		*p.rvalid, *p.rid, *p.rdata, *p.rresp, *p.rlast};
}

/** Every input of the port a master drives, as they are. */
struct inputs {
	std::uint8_t awvalid, awid, awlen, awsize, awburst, wvalid, wstrb, wlast, bready;
	std::uint8_t arvalid, arid, arlen, arsize, arburst, rready;
	std::uint32_t awaddr, araddr;
	std::uint64_t wdata;
};
inputs save(const axi4_port<std::uint32_t> &p)
{
	return {*p.awvalid, *p.awid, *p.awlen, *p.awsize, *p.awburst, *p.wvalid, *p.wstrb, *p.wlast, *p.bready,
		*p.arvalid, *p.arid, *p.arlen, *p.arsize, *p.arburst, *p.rready, *p.awaddr, *p.araddr, *p.wdata};
}
void restore(const axi4_port<std::uint32_t> &p, const inputs &v)
{
	*p.awvalid = v.awvalid; *p.awid = v.awid; *p.awlen = v.awlen; *p.awsize = v.awsize; *p.awburst = v.awburst;
	*p.wvalid = v.wvalid; *p.wstrb = v.wstrb; *p.wlast = v.wlast; *p.bready = v.bready; *p.arvalid = v.arvalid;
	*p.arid = v.arid; *p.arlen = v.arlen; *p.arsize = v.arsize; *p.arburst = v.arburst; *p.rready = v.rready;
	*p.awaddr = v.awaddr; *p.araddr = v.araddr; *p.wdata = v.wdata;
}

/** Every input of the port a master drives, set to random values. */
void scramble(const axi4_port<std::uint32_t> &p, std::mt19937_64 &g)
{
	*p.awvalid = g() & 1; *p.awid = g() & 15; *p.awaddr = g() & 0x3ffff; *p.awlen = std::uint8_t(g());
	*p.awsize = g() & 7; *p.awburst = g() & 3; *p.wvalid = g() & 1; *p.wdata = g();
	*p.wstrb = std::uint8_t(g()); *p.wlast = g() & 1; *p.bready = g() & 1; *p.arvalid = g() & 1;
	*p.arid = g() & 15; *p.araddr = g() & 0x3ffff; *p.arlen = std::uint8_t(g()); *p.arsize = g() & 7;
	*p.arburst = g() & 3; *p.rready = g() & 1;
}

} // namespace

TEST_CASE("xdma_user_top: the AXI4 ports' outputs do not follow their inputs within a cycle", "[xdma]")
{
	// lib/rtl (rtl:xdma) evaluates the image once per cycle: its masters
	// sample what the last clock edge left, which is right only if nothing
	// a master samples depends on what the masters drive in the same cycle
	// (axi4_to_mem_rr). In every cycle of random traffic on both ports,
	// with random stalls: after the masters drive, every input of both
	// ports is scrambled and the outputs must stay as they were.
	xdma_dut d(23, 30);
	Vxdma_user_top &m = *d.s.m;
	const axi4_port<std::uint32_t> ports[2] = {PIOC_AXI4_PORT(&m, dma_), PIOC_AXI4_PORT(&m, byp_)};
	std::mt19937_64 g(5);
	std::vector<std::uint8_t> a(3000), b(3000), ra(3000), rb(3000);
	for (auto &x : a)
		x = std::uint8_t(g());
	for (auto &x : b)
		x = std::uint8_t(g());
	d.dma.write(R::BRAM.offset + 3, a.data(), a.size());
	d.byp.write(R::BRAM.offset + 0x4000, b.data(), b.size());
	const auto ta = d.dma.read(R::BRAM.offset + 0x4000, rb.data(), rb.size());
	const auto tb = d.byp.read(R::BRAM.offset + 3, ra.data(), ra.size());
	std::size_t changed = 0, cycles = 0;
	while (!(d.dma.done(ta) && d.byp.done(tb)) && cycles < 200000) {
		for (auto *ag : d.s.agents)
			ag->drive();
		m.clk = 0;
		m.eval();
		for (const auto &p : ports) {
			const auto before = sampled(p);
			const inputs driven = save(p);
			scramble(p, g);
			m.eval();
			changed += sampled(p) != before;
			scramble(p, g);   // and once more: a second set of values
			m.eval();
			changed += sampled(p) != before;
			restore(p, driven);
			m.eval();
		}
		for (auto *ag : d.s.agents)
			ag->sample();
		m.clk = 1;
		m.eval();
		++d.s.cycle;
		++cycles;
	}
	CHECK(changed == 0);
	REQUIRE(d.dma.done(ta));
	REQUIRE(d.byp.done(tb));
	CHECK(ra == a);
	CHECK(rb == b);
	REQUIRE(d.errors.empty());
}
