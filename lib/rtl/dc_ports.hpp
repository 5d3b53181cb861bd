/** @file
 * The directory controller's side of an image with coh_top's port names
 * (coh_top, nic_eci_top): its read requests, write-backs and LCI
 * acknowledgements queued and driven with random stalls, the image's
 * answers, write acknowledgements, LCI and UL requests collected as
 * coh_events, every channel under a handshake checker. Shared by the port
 * wrappers coh_rtl.cpp and nic_eci_rtl.cpp (M = the Verilated model).
 */
#pragma once

#include "coh_rtl.hpp"
#include "common/sim.hpp"
#include "pioc/regs/coh_dev.hpp"

#include <verilated.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace pioc::rtl::detail {

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

/** @p n edges a coh_engine only waited through (its quiet): every held
 *  read's timer (@p timer, one 32-bit word per channel; @p hold, a bit per
 *  channel) advances by @p n, as those edges would have advanced it. */
template <class T> void advance_held_timers(T &timer, unsigned hold, std::uint64_t n)
{
	for (unsigned c = 0; c < pioc::regs::coh_dev::CPU_CHANNELS + 1; ++c)
		if (hold >> c & 1)
			timer[c] += std::uint32_t(n);
}

/** The edges a coh_engine image is left out of while it only waits: up to
 *  `left` more may pass without evaluation (while no input comes), the
 *  ones passed so far are `deferred` until the image is settled. */
struct quiet_stretch {
	std::uint64_t left = 0, deferred = 0, skipped = 0;

	/** This edge left out (counted in @p cycle)? Only inside a quiet stretch
	 *  and while no input is offered. */
	bool leave_out(bool inputs_idle, std::uint64_t &cycle)
	{
		if (!left || !inputs_idle)
			return false;
		--left;
		++deferred;
		++skipped;
		++cycle;
		return true;
	}
	/** Ends the stretch: the edges left out, to be applied (0: none). */
	std::uint64_t settle()
	{
		left = 0;
		const std::uint64_t d = deferred;
		deferred = 0;
		return d;
	}
};

template <class M> struct dc_ports {
	struct rdreq { std::uint32_t id; std::uint64_t addr; bool excl; };
	struct wrreq { std::uint32_t id; std::uint64_t addr; line data; std::array<bool, 128> be; };
	struct lclrsp { std::uint64_t addr; bool inv; };

	explicit dc_ports(std::vector<std::string> *errors)
		: c_rdreq{"rdreq", errors}, c_rdrsp{"rdrsp", errors}, c_wrreq{"wrreq", errors}, c_wrrsp{"wrrsp", errors},
		  c_lclreq{"lclreq", errors}, c_lclrsp{"lclrsp", errors}, c_ulreq{"ulreq", errors}
	{
	}

	std::deque<rdreq> q_rd;
	std::deque<wrreq> q_wr;
	std::deque<lclrsp> q_lcl;
	std::deque<coh_event> out;
	bool f_rd = false, f_wr = false, f_lcl = false;
	tb::hs_checker c_rdreq, c_rdrsp, c_wrreq, c_wrrsp, c_lclreq, c_lclrsp, c_ulreq;

	/** Nothing queued or offered on the request channels. */
	bool idle(const M &m) const
	{
		return q_rd.empty() && q_wr.empty() && q_lcl.empty() && !m.rdreq_valid && !m.wrreq_valid &&
		       !m.lclrsp_valid;
	}

	/** The requests: retire what was taken, offer the next (one stall draw each). */
	void drive_requests(M &m, tb::stall &st)
	{
		if (f_rd) { m.rdreq_valid = 0; q_rd.pop_front(); f_rd = false; }
		if (f_wr) { m.wrreq_valid = 0; q_wr.pop_front(); f_wr = false; }
		if (f_lcl) { m.lclrsp_valid = 0; q_lcl.pop_front(); f_lcl = false; }
		if (!m.rdreq_valid && !q_rd.empty() && !st()) {
			m.rdreq_valid = 1;
			m.rdreq_id = std::uint8_t(q_rd.front().id);
			m.rdreq_addr = std::uint32_t(q_rd.front().addr);
			m.rdreq_excl = q_rd.front().excl;
		}
		if (!m.wrreq_valid && !q_wr.empty() && !st()) {
			const auto &w = q_wr.front();
			m.wrreq_valid = 1;
			m.wrreq_id = std::uint8_t(w.id);
			m.wrreq_addr = std::uint32_t(w.addr);
			put(m.wrreq_data, w.data.data(), 128);
			std::uint8_t be[16] = {};
			for (int i = 0; i < 128; ++i)
				be[i / 8] |= std::uint8_t(w.be[i] << (i % 8));
			put(m.wrreq_be, be, 16);
		}
		if (!m.lclrsp_valid && !q_lcl.empty() && !st()) {
			m.lclrsp_valid = 1;
			m.lclrsp_addr = std::uint32_t(q_lcl.front().addr);
			m.lclrsp_inv = q_lcl.front().inv;
		}
	}

	/** Ready on the image's channels, each stalled at random. */
	void drive_readies(M &m, tb::stall &st)
	{
		m.rdrsp_ready = !st();
		m.wrrsp_ready = !st();
		m.lclreq_ready = !st();
		m.ulreq_ready = !st();
	}

	/** Handshakes of the settled cycle @p cyc: checked, events collected. */
	void sample(const M &m, std::uint64_t cyc)
	{
		c_rdreq.observe(m.rdreq_valid, m.rdreq_ready, {m.rdreq_id, m.rdreq_addr, m.rdreq_excl}, cyc);
		observe_wide(c_rdrsp, m.rdrsp_valid, m.rdrsp_ready, m.rdrsp_data,
			     std::array<std::uint64_t, 2>{m.rdrsp_id, m.rdrsp_excl}, cyc);
		observe_wide(c_wrreq, m.wrreq_valid, m.wrreq_ready, m.wrreq_data,
			     std::array<std::uint64_t, 2>{m.wrreq_id, m.wrreq_addr}, cyc);
		c_wrrsp.observe(m.wrrsp_valid, m.wrrsp_ready, {m.wrrsp_id}, cyc);
		c_lclreq.observe(m.lclreq_valid, m.lclreq_ready, {m.lclreq_addr, m.lclreq_inv}, cyc);
		c_lclrsp.observe(m.lclrsp_valid, m.lclrsp_ready, {m.lclrsp_addr, m.lclrsp_inv}, cyc);
		c_ulreq.observe(m.ulreq_valid, m.ulreq_ready, {m.ulreq_addr}, cyc);

		f_rd = m.rdreq_valid && m.rdreq_ready;
		f_wr = m.wrreq_valid && m.wrreq_ready;
		f_lcl = m.lclrsp_valid && m.lclrsp_ready;
		if (m.rdrsp_valid && m.rdrsp_ready) {
			coh_event e{coh_event::kind::read_data, m.rdrsp_id, 0, bool(m.rdrsp_excl), {}, cyc};
			for (int i = 0; i < 128; ++i)
				e.data[i] = std::uint8_t(m.rdrsp_data[i / 4] >> (8 * (i % 4)));
			out.push_back(e);
		}
		if (m.wrrsp_valid && m.wrrsp_ready)
			out.push_back({coh_event::kind::write_ack, m.wrrsp_id, 0, false, {}, cyc});
		if (m.lclreq_valid && m.lclreq_ready)
			out.push_back({coh_event::kind::local_op, 0, m.lclreq_addr, bool(m.lclreq_inv), {}, cyc});
		if (m.ulreq_valid && m.ulreq_ready)
			out.push_back({coh_event::kind::unlock, 0, m.ulreq_addr, false, {}, cyc});
	}

	/** The image's reset: queued requests and undelivered events dropped. */
	void reset(M &m)
	{
		q_rd.clear();
		q_wr.clear();
		q_lcl.clear();
		f_rd = f_wr = f_lcl = false;
		m.rdreq_valid = m.wrreq_valid = m.lclrsp_valid = 0;
		forget();
	}
	/** The checkers forget a transfer in progress (the ports were reset). */
	void forget()
	{
		for (auto *c : {&c_rdreq, &c_rdrsp, &c_wrreq, &c_wrrsp, &c_lclreq, &c_lclrsp, &c_ulreq})
			c->reset();
	}

	void read_request(std::uint32_t id, std::uint64_t addr, bool excl) { q_rd.push_back({id, addr, excl}); }
	void write_back(std::uint32_t id, std::uint64_t addr, const line &data, const std::array<bool, 128> *be)
	{
		wrreq w{id, addr, data, {}};
		if (be)
			w.be = *be;
		else
			w.be.fill(true);
		q_wr.push_back(w);
	}
	void local_ack(std::uint64_t addr, bool inv) { q_lcl.push_back({addr, inv}); }
	std::optional<coh_event> next_event()
	{
		if (out.empty())
			return std::nullopt;
		coh_event e = out.front();
		out.pop_front();
		return e;
	}
};

} // namespace pioc::rtl::detail
