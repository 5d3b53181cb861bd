// The Verilated coherent invocation engine behind coh_engine_rtl.
#include "coh_rtl.hpp"

#include "Vcoh_top.h"
#include "Vcoh_top___024root.h"
#include "common/sim.hpp"
#include "pioc/regs/coh_dev.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <stdexcept>

namespace pioc::rtl {

namespace {
namespace C = pioc::regs::coh_dev;

template <std::size_t W> void put(VlWide<W> &w, const std::uint8_t *b, std::size_t n)
{
	for (std::size_t i = 0; i < W; ++i)
		w[i] = 0;
	for (std::size_t i = 0; i < n; ++i)
		w[i / 4] |= std::uint32_t(b[i]) << (8 * (i % 4));
}
/** @p c observes a channel with a wide payload (@p w's words and @p extra
 *  narrow fields, on the stack: sample() runs every cycle). The payload is
 *  only compared while valid is up, so it is built only then. */
template <std::size_t W, std::size_t E>
void observe_wide(tb::hs_checker &c, bool valid, bool ready, const VlWide<W> &w,
		  const std::array<std::uint64_t, E> &extra, std::uint64_t cycle)
{
	if (!valid) {
		c.observe(false, ready, nullptr, 0, cycle);
		return;
	}
	std::array<std::uint64_t, W + E> r;
	std::copy(w.m_storage, w.m_storage + W, r.begin());
	std::copy(extra.begin(), extra.end(), r.begin() + W);
	c.observe(true, ready, r.data(), r.size(), cycle);
}
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
		const auto hold = r.coh_top__DOT__u_eng__DOT__hold;
		for (unsigned c = 0; c < C::CPU_CHANNELS + 1; ++c)
			if (hold >> c & 1)
				r.coh_top__DOT__u_eng__DOT__timer[c] += std::uint32_t(n);
	}
}
} // namespace

struct coh_engine_rtl::impl : tb::agent {
	struct rdreq { std::uint32_t id; std::uint64_t addr; bool excl; };
	struct wrreq { std::uint32_t id; std::uint64_t addr; line data; std::array<bool, 128> be; };
	struct lclrsp { std::uint64_t addr; bool inv; };
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
	std::deque<rdreq> q_rd;
	std::deque<wrreq> q_wr;
	std::deque<lclrsp> q_lcl;
	std::deque<dmsg> q_msg;
	std::deque<coh_event> out;
	bool f_rd = false, f_wr = false, f_lcl = false, f_msg = false;
	// Idle-cycle skipping: edges the engine is known to only wait through
	// (quiet_left) pass without evaluation; the ones passed so far
	// (deferred) are applied to its state by settle() before anything else.
	bool skip_on;
	std::uint64_t quiet_left = 0, deferred = 0, skipped = 0;
	tb::hs_checker c_rdreq{"rdreq", &errors}, c_rdrsp{"rdrsp", &errors}, c_wrreq{"wrreq", &errors},
		c_wrrsp{"wrrsp", &errors}, c_lclreq{"lclreq", &errors}, c_lclrsp{"lclrsp", &errors},
		c_ulreq{"ulreq", &errors}, c_dmsg{"dmsg", &errors};

	/** No input offered or about to change: nothing queued, no valid held
	 *  out, no handshake to retire, no control access. */
	bool inputs_idle() const
	{
		const auto *m = s.m.get();
		return q_rd.empty() && q_wr.empty() && q_lcl.empty() && q_msg.empty() && !m->rdreq_valid &&
		       !m->wrreq_valid && !m->lclrsp_valid && !m->dmsg_valid && axil.idle();
	}

	/** One clock edge: evaluated, or left out while the engine only waits. */
	void step()
	{
		if (quiet_left && inputs_idle()) {
			--quiet_left;
			++deferred;
			++skipped;
			++s.cycle;
			return;
		}
		settle();
		s.step();
		if (skip_on && inputs_idle())
			quiet_left = quiet_edges(*s.m->rootp);
	}

	/** The edges left out, applied: the cycle counter and every held
	 *  read's timer advance by their number (coh_engine.sv: quiet). */
	void settle()
	{
		quiet_left = 0;
		if (!deferred)
			return;
		advance_waiting(*s.m->rootp, deferred);
		axil.cycle += deferred;
		deferred = 0;
		s.m->eval(); // outputs that follow the counter (no clock edge)
	}

	void drive() override
	{
		auto *m = s.m.get();
		if (f_rd) { m->rdreq_valid = 0; q_rd.pop_front(); f_rd = false; }
		if (f_wr) { m->wrreq_valid = 0; q_wr.pop_front(); f_wr = false; }
		if (f_lcl) { m->lclrsp_valid = 0; q_lcl.pop_front(); f_lcl = false; }
		if (f_msg) { m->dmsg_valid = 0; q_msg.pop_front(); f_msg = false; }
		if (!m->rdreq_valid && !q_rd.empty() && !st()) {
			m->rdreq_valid = 1;
			m->rdreq_id = std::uint8_t(q_rd.front().id);
			m->rdreq_addr = std::uint32_t(q_rd.front().addr);
			m->rdreq_excl = q_rd.front().excl;
		}
		if (!m->wrreq_valid && !q_wr.empty() && !st()) {
			const auto &w = q_wr.front();
			m->wrreq_valid = 1;
			m->wrreq_id = std::uint8_t(w.id);
			m->wrreq_addr = std::uint32_t(w.addr);
			put(m->wrreq_data, w.data.data(), 128);
			std::uint8_t be[16] = {};
			for (int i = 0; i < 128; ++i)
				be[i / 8] |= std::uint8_t(w.be[i] << (i % 8));
			put(m->wrreq_be, be, 16);
		}
		if (!m->lclrsp_valid && !q_lcl.empty() && !st()) {
			m->lclrsp_valid = 1;
			m->lclrsp_addr = std::uint32_t(q_lcl.front().addr);
			m->lclrsp_inv = q_lcl.front().inv;
		}
		if (!m->dmsg_valid && !q_msg.empty() && !st()) {
			m->dmsg_valid = 1;
			put(m->dmsg_data, q_msg.front().data.data(), 120);
			m->dmsg_len = std::uint8_t(q_msg.front().len);
		}
		m->rdrsp_ready = !st();
		m->wrrsp_ready = !st();
		m->lclreq_ready = !st();
		m->ulreq_ready = !st();
	}

	void sample() override
	{
		auto *m = s.m.get();
		const std::uint64_t cyc = s.cycle;
		c_rdreq.observe(m->rdreq_valid, m->rdreq_ready, {m->rdreq_id, m->rdreq_addr, m->rdreq_excl}, cyc);
		observe_wide(c_rdrsp, m->rdrsp_valid, m->rdrsp_ready, m->rdrsp_data,
			     std::array<std::uint64_t, 2>{m->rdrsp_id, m->rdrsp_excl}, cyc);
		observe_wide(c_wrreq, m->wrreq_valid, m->wrreq_ready, m->wrreq_data,
			     std::array<std::uint64_t, 2>{m->wrreq_id, m->wrreq_addr}, cyc);
		c_wrrsp.observe(m->wrrsp_valid, m->wrrsp_ready, {m->wrrsp_id}, cyc);
		c_lclreq.observe(m->lclreq_valid, m->lclreq_ready, {m->lclreq_addr, m->lclreq_inv}, cyc);
		c_lclrsp.observe(m->lclrsp_valid, m->lclrsp_ready, {m->lclrsp_addr, m->lclrsp_inv}, cyc);
		c_ulreq.observe(m->ulreq_valid, m->ulreq_ready, {m->ulreq_addr}, cyc);
		observe_wide(c_dmsg, m->dmsg_valid, m->dmsg_ready, m->dmsg_data, std::array<std::uint64_t, 1>{m->dmsg_len},
			     cyc);

		f_rd = m->rdreq_valid && m->rdreq_ready;
		f_wr = m->wrreq_valid && m->wrreq_ready;
		f_lcl = m->lclrsp_valid && m->lclrsp_ready;
		f_msg = m->dmsg_valid && m->dmsg_ready;
		if (m->rdrsp_valid && m->rdrsp_ready) {
			coh_event e{coh_event::kind::read_data, m->rdrsp_id, 0, bool(m->rdrsp_excl), {}, cyc};
			for (int i = 0; i < 128; ++i)
				e.data[i] = std::uint8_t(m->rdrsp_data[i / 4] >> (8 * (i % 4)));
			out.push_back(e);
		}
		if (m->wrrsp_valid && m->wrrsp_ready)
			out.push_back({coh_event::kind::write_ack, m->wrrsp_id, 0, false, {}, cyc});
		if (m->lclreq_valid && m->lclreq_ready)
			out.push_back({coh_event::kind::local_op, 0, m->lclreq_addr, bool(m->lclreq_inv), {}, cyc});
		if (m->ulreq_valid && m->ulreq_ready)
			out.push_back({coh_event::kind::unlock, 0, m->ulreq_addr, false, {}, cyc});
	}
};

coh_engine_rtl::coh_engine_rtl(options o) : p_(std::make_unique<impl>(o)) {}
coh_engine_rtl::~coh_engine_rtl() = default;

void coh_engine_rtl::reset()
{
	impl &p = *p_;
	p.settle(); // what the reset leaves alone (timers, the line storage) as if every edge ran
	auto *m = p.s.m.get();
	p.q_rd.clear();
	p.q_wr.clear();
	p.q_lcl.clear();
	// Device messages come from the application beside the engine, which
	// this reset does not reach (rst_n of coh_top only): the one the
	// engine took (f_msg) is gone, the others are offered again after it.
	// The behavioural model keeps its queued messages the same way.
	if (p.f_msg)
		p.q_msg.pop_front();
	p.f_rd = p.f_wr = p.f_lcl = p.f_msg = false;
	m->rdreq_valid = m->wrreq_valid = m->lclrsp_valid = m->dmsg_valid = 0;
	auto forget = [&p] {
		for (auto *c : {&p.c_rdreq, &p.c_rdrsp, &p.c_wrreq, &p.c_wrrsp, &p.c_lclreq, &p.c_lclrsp, &p.c_ulreq,
				&p.c_dmsg})
			c->reset();
	};
	forget();
	p.s.reset();
	p.out.clear(); // what the engine offered as the reset began went nowhere
	forget();
}

void coh_engine_rtl::read_request(std::uint32_t id, std::uint64_t addr, bool excl)
{
	p_->q_rd.push_back({id, addr, excl});
}

void coh_engine_rtl::write_back(std::uint32_t id, std::uint64_t addr, const line &data,
				const std::array<bool, 128> *be)
{
	impl::wrreq w{id, addr, data, {}};
	if (be)
		w.be = *be;
	else
		w.be.fill(true);
	p_->q_wr.push_back(w);
}

void coh_engine_rtl::local_ack(std::uint64_t addr, bool inv) { p_->q_lcl.push_back({addr, inv}); }

void coh_engine_rtl::push_message(const void *data, std::size_t len)
{
	if (len > C::PAYLOAD_MAX)
		throw std::invalid_argument("coh_engine_rtl: message longer than PAYLOAD_MAX");
	impl::dmsg d{{}, len};
	std::memcpy(d.data.data(), data, len);
	p_->q_msg.push_back(d);
}

std::optional<coh_event> coh_engine_rtl::next_event()
{
	if (p_->out.empty())
		return std::nullopt;
	coh_event e = p_->out.front();
	p_->out.pop_front();
	return e;
}

void coh_engine_rtl::step(std::uint64_t cycles)
{
	for (std::uint64_t i = 0; i < cycles; ++i)
		p_->step();
}

std::uint64_t coh_engine_rtl::cycle() const { return p_->s.cycle; }
std::uint64_t coh_engine_rtl::evaluated() const { return p_->s.cycle - p_->skipped; }

bool coh_engine_rtl::busy() const
{
	const auto *m = p_->s.m.get();
	return m->busy || !p_->q_rd.empty() || !p_->q_wr.empty() || !p_->q_lcl.empty() || !p_->q_msg.empty() ||
	       !p_->out.empty() || !p_->axil.idle();
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
