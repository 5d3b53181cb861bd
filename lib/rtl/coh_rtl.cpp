// The Verilated coherent invocation engine behind coh_engine_rtl.
#include "coh_rtl.hpp"

#include "Vcoh_top.h"
#include "Vcoh_top___024root.h"
#include "common/sim.hpp"
#include "dc_ports.hpp"
#include "pioc/regs/coh_dev.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <stdexcept>

namespace pioc::rtl {

namespace {
namespace C = pioc::regs::coh_dev;
using detail::put;

/** The engine's quiet signals and the state a wait advances, public
 *  through lib/rtl/speed.vlt. A model built without it (fpga/tb's
 *  testbench of coh_top) has none of them: every edge is evaluated. */
template <class R>
concept skippable = requires(R &r) {
	r.coh_top__DOT__u_eng__DOT__quiet;
	r.coh_top__DOT__u_eng__DOT__quiet_for;
	r.coh_top__DOT__u_eng__DOT__hold;
	r.coh_top__DOT__u_eng__DOT__timer[0];
	r.coh_top__DOT__u_cnt__DOT__count;
};

/** Edges that may be left out after the one just evaluated: quiet_for - 1
 *  while the engine is quiet, so that the state left out of evaluation
 *  never reaches a TIMEOUT (Verilator computes the combinational answer to
 *  that only on an evaluated edge). */
template <class R> std::uint64_t quiet_edges(const R &r)
{
	if constexpr (skippable<R>) {
		const std::uint32_t q = r.coh_top__DOT__u_eng__DOT__quiet_for;
		return r.coh_top__DOT__u_eng__DOT__quiet && q ? q - 1 : 0;
	} else {
		return 0;
	}
}

/** @p n edges the engine waited through: the cycle counter and every held
 *  read's timer advance by @p n (coh_engine.sv: quiet). */
template <class R> void advance_waiting(R &r, std::uint64_t n)
{
	if constexpr (skippable<R>) {
		r.coh_top__DOT__u_cnt__DOT__count += n;
		detail::advance_held_timers(r.coh_top__DOT__u_eng__DOT__timer, r.coh_top__DOT__u_eng__DOT__hold, n);
	}
}
} // namespace

struct coh_engine_rtl::impl : tb::agent {
	struct dmsg { line data; std::size_t len; };

	explicit impl(options o)
		: s(o.seed), axil("ctrl", PIOC_AXIL_PORT(s.m.get(), s_), &s.rng, &errors), st{&s.rng, o.stall_percent},
		  skip_on(o.skip_idle)
	{
		axil.stall_valid.percent = o.stall_percent;
		axil.stall_ready.percent = o.stall_percent;
		s.add(&axil);
		s.add(this);
		s.reset();
	}

	tb::sim<Vcoh_top> s;
	std::vector<std::string> errors;
	tb::axil_master<std::uint16_t> axil;
	tb::stall st;
	detail::dc_ports<Vcoh_top> dc{&errors};
	std::deque<dmsg> q_msg;
	bool f_msg = false;
	// Idle-cycle skipping: edges the engine is known to only wait through
	// pass without evaluation (q); the ones passed so far are applied to its
	// state by settle() before anything else.
	bool skip_on;
	detail::quiet_stretch q;
	tb::hs_checker c_dmsg{"dmsg", &errors};

	/** No input offered or about to change: nothing queued, no valid held
	 *  out, no handshake to retire, no control access. */
	bool inputs_idle() const
	{
		const auto *m = s.m.get();
		return dc.idle(*m) && q_msg.empty() && !m->dmsg_valid && axil.idle();
	}

	/** One clock edge: evaluated, or left out while the engine only waits. */
	void step()
	{
		if (q.leave_out(inputs_idle(), s.cycle))
			return;
		settle();
		s.step();
		if (skip_on && inputs_idle())
			q.left = quiet_edges(*s.m->rootp);
	}

	/** The edges left out, applied: the cycle counter and every held
	 *  read's timer advance by their number (coh_engine.sv: quiet). */
	void settle()
	{
		const std::uint64_t n = q.settle();
		if (!n)
			return;
		advance_waiting(*s.m->rootp, n);
		axil.cycle += n;
		s.m->eval(); // outputs that follow the counter (no clock edge)
	}

	void drive() override
	{
		auto *m = s.m.get();
		dc.drive_requests(*m, st);
		if (f_msg) { m->dmsg_valid = 0; q_msg.pop_front(); f_msg = false; }
		if (!m->dmsg_valid && !q_msg.empty() && !st()) {
			m->dmsg_valid = 1;
			put(m->dmsg_data, q_msg.front().data.data(), 120);
			m->dmsg_len = std::uint8_t(q_msg.front().len);
		}
		dc.drive_readies(*m, st);
	}

	void sample() override
	{
		auto *m = s.m.get();
		const std::uint64_t cyc = s.cycle;
		detail::observe_wide(c_dmsg, m->dmsg_valid, m->dmsg_ready, m->dmsg_data,
				     std::array<std::uint64_t, 1>{m->dmsg_len}, cyc);
		f_msg = m->dmsg_valid && m->dmsg_ready;
		dc.sample(*m, cyc);
	}
};

coh_engine_rtl::coh_engine_rtl(options o) : p_(std::make_unique<impl>(o)) {}
coh_engine_rtl::~coh_engine_rtl() = default;

void coh_engine_rtl::reset()
{
	impl &p = *p_;
	p.settle(); // what the reset leaves alone (timers, the line storage) as if every edge ran
	auto *m = p.s.m.get();
	// Device messages come from the application beside the engine, which
	// this reset does not reach (rst_n of coh_top only): the one the
	// engine took (f_msg) is gone, the others are offered again after it.
	// The behavioural model keeps its queued messages the same way.
	if (p.f_msg)
		p.q_msg.pop_front();
	p.f_msg = false;
	m->dmsg_valid = 0;
	p.dc.reset(*m);
	p.c_dmsg.reset();
	p.s.reset();
	p.dc.out.clear(); // what the engine offered as the reset began went nowhere
	p.dc.forget();
	p.c_dmsg.reset();
}

void coh_engine_rtl::read_request(std::uint32_t id, std::uint64_t addr, bool excl)
{
	p_->dc.read_request(id, addr, excl);
}

void coh_engine_rtl::write_back(std::uint32_t id, std::uint64_t addr, const line &data,
				const std::array<bool, 128> *be)
{
	p_->dc.write_back(id, addr, data, be);
}

void coh_engine_rtl::local_ack(std::uint64_t addr, bool inv) { p_->dc.local_ack(addr, inv); }

void coh_engine_rtl::push_message(const void *data, std::size_t len)
{
	if (len > C::PAYLOAD_MAX)
		throw std::invalid_argument("coh_engine_rtl: message longer than PAYLOAD_MAX");
	impl::dmsg d{{}, len};
	std::memcpy(d.data.data(), data, len);
	p_->q_msg.push_back(d);
}

std::optional<coh_event> coh_engine_rtl::next_event() { return p_->dc.next_event(); }

void coh_engine_rtl::step(std::uint64_t cycles)
{
	for (std::uint64_t i = 0; i < cycles; ++i)
		p_->step();
}

std::uint64_t coh_engine_rtl::cycle() const { return p_->s.cycle; }
std::uint64_t coh_engine_rtl::evaluated() const { return p_->s.cycle - p_->q.skipped; }

bool coh_engine_rtl::busy() const
{
	const auto *m = p_->s.m.get();
	const auto &dc = p_->dc;
	return m->busy || !dc.q_rd.empty() || !dc.q_wr.empty() || !dc.q_lcl.empty() || !p_->q_msg.empty() ||
	       !dc.out.empty() || !p_->axil.idle();
}
double coh_engine_rtl::clock_mhz() const { return C::clock_mhz; }

std::uint32_t coh_engine_rtl::ctrl_read(std::uint32_t off)
{
	std::uint32_t v = 0;
	p_->settle();
	p_->axil.read(off, &v);
	if (!p_->s.run_until([&] { return p_->axil.idle(); }, 100000))
		throw std::runtime_error("coh_engine_rtl: control read timed out");
	return v;
}

void coh_engine_rtl::ctrl_write(std::uint32_t off, std::uint32_t value)
{
	p_->settle();
	p_->axil.write(off, value);
	if (!p_->s.run_until([&] { return p_->axil.idle(); }, 100000))
		throw std::runtime_error("coh_engine_rtl: control write timed out");
}

const std::vector<std::string> &coh_engine_rtl::protocol_errors() const { return p_->errors; }

std::uint64_t coh_engine_rtl::line_addr(unsigned ch, unsigned k)
{
	return ch * C::CHANNEL_STRIDE + k * C::LINE1_OFF;
}

} // namespace pioc::rtl
