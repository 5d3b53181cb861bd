// The Verilated ECI NIC image behind nic_eci_ports (see nic_eci_rtl.hpp).
#include "nic_eci_rtl.hpp"

#include "Vnic_eci_top.h"
#include "Vnic_eci_top___024root.h"
#include "common/sim.hpp"
#include "pioc/regs/nic_eci.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace pioc::rtl {

namespace {
namespace N = pioc::regs::nic_eci;

template <std::size_t W> void put(VlWide<W> &w, const std::uint8_t *b, std::size_t n)
{
	for (std::size_t i = 0; i < W; ++i)
		w[i] = 0;
	for (std::size_t i = 0; i < n; ++i)
		w[i / 4] |= std::uint32_t(b[i]) << (8 * (i % 4));
}
/** A channel's payload as words for the handshake checker (only while valid). */
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
/** The cycle counter, writable where the model is built with speed.vlt
 *  (the library's; fpga/tb's testbench is not). */
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
} // namespace

struct nic_eci_ports::impl : tb::agent {
	struct rdreq { std::uint32_t id; std::uint64_t addr; bool excl; };
	struct wrreq { std::uint32_t id; std::uint64_t addr; line data; std::array<bool, 128> be; };
	struct lclrsp { std::uint64_t addr; bool inv; };

	explicit impl(options o) : s(o.seed), st{&s.rng, o.stall_percent}
	{
		s.add(this);
		s.reset();
	}

	tb::sim<Vnic_eci_top> s;
	std::vector<std::string> errors;
	tb::stall st;
	std::deque<rdreq> q_rd;
	std::deque<wrreq> q_wr;
	std::deque<lclrsp> q_lcl;
	std::deque<coh_event> out;
	bool f_rd = false, f_wr = false, f_lcl = false;
	tb::hs_checker c_rdreq{"rdreq", &errors}, c_rdrsp{"rdrsp", &errors}, c_wrreq{"wrreq", &errors},
		c_wrrsp{"wrrsp", &errors}, c_lclreq{"lclreq", &errors}, c_lclrsp{"lclrsp", &errors},
		c_ulreq{"ulreq", &errors};

	void drive() override
	{
		auto *m = s.m.get();
		if (f_rd) { m->rdreq_valid = 0; q_rd.pop_front(); f_rd = false; }
		if (f_wr) { m->wrreq_valid = 0; q_wr.pop_front(); f_wr = false; }
		if (f_lcl) { m->lclrsp_valid = 0; q_lcl.pop_front(); f_lcl = false; }
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

		f_rd = m->rdreq_valid && m->rdreq_ready;
		f_wr = m->wrreq_valid && m->wrreq_ready;
		f_lcl = m->lclrsp_valid && m->lclrsp_ready;
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

nic_eci_ports::nic_eci_ports(options o) : p_(std::make_unique<impl>(o)) {}
nic_eci_ports::~nic_eci_ports() = default;

void nic_eci_ports::read_request(std::uint32_t id, std::uint64_t addr, bool excl)
{
	p_->q_rd.push_back({id, addr, excl});
}

void nic_eci_ports::write_back(std::uint32_t id, std::uint64_t addr, const line &data,
			       const std::array<bool, 128> *be)
{
	impl::wrreq w{id, addr, data, {}};
	if (be)
		w.be = *be;
	else
		w.be.fill(true);
	p_->q_wr.push_back(w);
}

void nic_eci_ports::local_ack(std::uint64_t addr, bool inv) { p_->q_lcl.push_back({addr, inv}); }

std::optional<coh_event> nic_eci_ports::next_event()
{
	if (p_->out.empty())
		return std::nullopt;
	coh_event e = p_->out.front();
	p_->out.pop_front();
	return e;
}

void nic_eci_ports::step(std::uint64_t cycles)
{
	for (std::uint64_t i = 0; i < cycles; ++i)
		p_->s.step();
}

void nic_eci_ports::idle(std::uint64_t cycles)
{
	// Inputs queued now arrive at the end of the idle stretch; the image
	// itself must have nothing in flight.
	const auto *m = p_->s.m.get();
	if (m->busy || m->rdreq_valid || m->wrreq_valid || m->lclrsp_valid || !p_->out.empty())
		throw std::logic_error("nic_eci_ports::idle() while the image is busy");
	if (advance_counter(*p_->s.m->rootp, cycles)) {
		p_->s.cycle += cycles;
		p_->s.m->eval(); // outputs that follow the counter
	} else {
		step(cycles);
	}
}

std::uint64_t nic_eci_ports::cycle() const { return p_->s.cycle; }

bool nic_eci_ports::busy() const
{
	const auto *m = p_->s.m.get();
	return m->busy || !p_->q_rd.empty() || !p_->q_wr.empty() || !p_->q_lcl.empty() || !p_->out.empty() ||
	       m->rdreq_valid || m->wrreq_valid || m->lclrsp_valid;
}
double nic_eci_ports::clock_mhz() const { return N::clock_mhz; }
std::uint32_t nic_eci_ports::runt_count() const { return p_->s.m->runt_count; }
std::uint32_t nic_eci_ports::oversize_count() const { return p_->s.m->oversize_count; }
std::uint64_t nic_eci_ports::counter() const { return p_->s.m->cycles; }
const std::vector<std::string> &nic_eci_ports::protocol_errors() const { return p_->errors; }

std::uint64_t nic_eci_ports::line_addr(unsigned ch, unsigned k)
{
	return ch * N::CHANNEL_STRIDE + k * N::LINE_BYTES;
}

} // namespace pioc::rtl
