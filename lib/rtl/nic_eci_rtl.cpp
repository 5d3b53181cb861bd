// The Verilated ECI NIC image behind nic_eci_ports (see nic_eci_rtl.hpp).
#include "nic_eci_rtl.hpp"

#include "Vnic_eci_top.h"
#include "Vnic_eci_top___024root.h"
#include "arm_edge.hpp"
#include "common/sim.hpp"
#include "dc_ports.hpp"
#include "pioc/coherent/proto.hpp"
#include "pioc/regs/nic_eci.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace pioc::rtl {

namespace {
namespace N = pioc::regs::nic_eci;

/** The cycle counter, writable where the model is built with speed.vlt
 *  (the library's, and fpga/tb's nic_eci_top testbench). */
template <class R>
concept counter_writable = requires(R &r) { r.nic_eci_top__DOT__u_cnt__DOT__count; };
/** Adds @p n to the counter; false where it is not writable. */
template <class R> bool advance_counter(R &r, std::uint64_t n)
{
	if constexpr (counter_writable<R>) {
		r.nic_eci_top__DOT__u_cnt__DOT__count += n;
		return true;
	} else {
		return false;
	}
}

/** What a quiet stretch advances besides the counter: the engine's held
 *  reads' timers (speed.vlt makes them public). */
template <class R>
concept timers_writable = counter_writable<R> && requires(R &r) {
	r.nic_eci_top__DOT__u_eng__DOT__hold;
	r.nic_eci_top__DOT__u_eng__DOT__timer[0];
};
/** @p n edges the image waited through (nic_eci_top.sv: quiet): the counter
 *  and every held read's timer advance by @p n; false where they cannot. */
template <class R> bool advance_waiting(R &r, std::uint64_t n)
{
	if constexpr (timers_writable<R>) {
		r.nic_eci_top__DOT__u_cnt__DOT__count += n;
		detail::advance_held_timers(r.nic_eci_top__DOT__u_eng__DOT__timer, r.nic_eci_top__DOT__u_eng__DOT__hold, n);
		return true;
	} else {
		return false;
	}
}
} // namespace

struct nic_eci_ports::impl : tb::agent {
	explicit impl(options o) : s(o.seed), st{&s.rng, o.stall_percent}, skip_on(o.skip_quiet)
	{
		if (skip_on && !timers_writable<Vnic_eci_top___024root>)
			throw std::logic_error("nic_eci_ports: skip_quiet needs the model built with lib/rtl/speed.vlt");
		s.m->rx_banks = o.rx_banks; // mode pins: set before the reset, held
		s.m->tx_banks = o.tx_banks;
		s.add(this);
		// Every output the ports sample is a register's (nic_eci_top.sv:
		// rdreq_ready included): no evaluation before the edge is needed.
		if (o.one_eval && can_arm_edge<Vnic_eci_top>)
			s.arm_edge = arm_edge<Vnic_eci_top>;
		s.reset();
	}

	tb::sim<Vnic_eci_top> s;
	std::vector<std::string> errors;
	tb::stall st;
	detail::dc_ports<Vnic_eci_top> dc{&errors};
	// Quiet edges: known to change only the counter and the held reads'
	// timers, they pass without evaluation (q); the ones passed so far are
	// applied by settle() before anything else sees the image.
	bool skip_on;
	detail::quiet_stretch q;

	/** One clock edge: evaluated, or left out while the image only waits. */
	void step()
	{
		if (q.leave_out(dc.idle(*s.m), s.cycle))
			return;
		settle();
		s.step();
		// quiet_for - 1: the edge that reaches a held read's timeout is
		// evaluated (its not-ready answer is computed only then)
		if (skip_on && s.m->quiet && dc.idle(*s.m) && dc.out.empty())
			q.left = s.m->quiet_for ? s.m->quiet_for - 1 : 0;
	}

	/** The edges left out, applied (nic_eci_top.sv: quiet). */
	void settle()
	{
		if (const std::uint64_t n = q.settle()) {
			advance_waiting(*s.m->rootp, n);
			s.m->eval(); // outputs that follow the counter (no clock edge)
		}
	}

	void drive() override
	{
		dc.drive_requests(*s.m, st);
		dc.drive_readies(*s.m, st);
	}
	void sample() override { dc.sample(*s.m, s.cycle); }
};

nic_eci_ports::nic_eci_ports(options o) : p_(std::make_unique<impl>(o)) {}
nic_eci_ports::~nic_eci_ports() = default;

void nic_eci_ports::read_request(std::uint32_t id, std::uint64_t addr, bool excl)
{
	p_->settle();
	p_->dc.read_request(id, addr, excl);
}

void nic_eci_ports::write_back(std::uint32_t id, std::uint64_t addr, const line &data,
			       const std::array<bool, 128> *be)
{
	p_->settle();
	p_->dc.write_back(id, addr, data, be);
}

void nic_eci_ports::local_ack(std::uint64_t addr, bool inv)
{
	p_->settle();
	p_->dc.local_ack(addr, inv);
}

std::optional<coh_event> nic_eci_ports::next_event() { return p_->dc.next_event(); }

void nic_eci_ports::step(std::uint64_t cycles)
{
	for (std::uint64_t i = 0; i < cycles; ++i)
		p_->step();
}

void nic_eci_ports::idle(std::uint64_t cycles)
{
	// Inputs queued now arrive at the end of the idle stretch; the image
	// itself must have nothing in flight.
	p_->settle();
	const auto *m = p_->s.m.get();
	if (m->busy || m->rdreq_valid || m->wrreq_valid || m->lclrsp_valid || !p_->dc.out.empty())
		throw std::logic_error("nic_eci_ports::idle() while the image is busy");
	if (advance_counter(*p_->s.m->rootp, cycles)) {
		p_->s.cycle += cycles;
		p_->s.m->eval(); // outputs that follow the counter
	} else {
		step(cycles);
	}
}

std::uint64_t nic_eci_ports::cycle() const { return p_->s.cycle; }
std::uint64_t nic_eci_ports::skipped() const { return p_->q.skipped; }

bool nic_eci_ports::busy() const
{
	const auto *m = p_->s.m.get();
	return m->busy || !p_->dc.idle(*m) || !p_->dc.out.empty();
}
double nic_eci_ports::clock_mhz() const { return N::clock_mhz; }
std::uint32_t nic_eci_ports::runt_count() const { return p_->s.m->runt_count; }
std::uint32_t nic_eci_ports::oversize_count() const { return p_->s.m->oversize_count; }
std::uint64_t nic_eci_ports::counter() const { return p_->s.m->cycles + p_->q.deferred; }
const std::vector<std::string> &nic_eci_ports::protocol_errors() const { return p_->errors; }

std::uint64_t nic_eci_ports::line_addr(unsigned ch, unsigned k)
{
	return ch * N::CHANNEL_STRIDE + k * N::LINE_BYTES;
}

std::uint64_t nic_eci_ports::data_line_addr(unsigned ch, unsigned bank, std::uint32_t i)
{
	const coherent::layout lay{ch * N::CHANNEL_STRIDE, N::LINE_BYTES, N::BANK_LINES};
	return lay.data_off(bank, i);
}

} // namespace pioc::rtl
