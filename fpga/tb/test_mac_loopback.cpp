// Testbench of the MAC stand-in: frames of random sizes (runts and oversize
// ones among them) with random TX gaps and random RX backpressure. Every good
// frame comes back once, in order, byte-exact; bad ones are counted, never
// delivered; the TX/RX stamps are the cycles of the last beats; without RX
// backpressure every frame's cycles equal the behavioural model's
// (lib/sim/nic/mac_model.cpp), which is how the model is calibrated.
#include "Vmac_loopback.h"
#include "common/sim.hpp"
#include "sim/nic/mac_model.hpp"

#include <catch2/catch.hpp>

using namespace pioc::tb;
using pioc::sim::nic::mac_model;
using pioc::sim::nic::mac_timing;

namespace {

struct frame {
	std::vector<std::uint8_t> bytes;
	std::uint64_t tx_stamp = 0;
	pioc::sim::nic::mac_result model;
};

std::size_t pick_len(std::mt19937_64 &rng, unsigned bad_percent)
{
	if (rng() % 100 < bad_percent)
		return rng() % 2 ? 1 + rng() % 59 : 9601 + rng() % 200;
	switch (rng() % 4) {
	case 0: return 60 + rng() % 8;
	case 1: return 9600 - rng() % 8;
	default: return 60 + rng() % (9600 - 60 + 1);
	}
}

struct result {
	std::uint64_t delivered = 0, bad = 0;
};

/** @p tx_gap / @p rx_stall: percent of cycles the source idles / sink stalls. */
result run(std::uint64_t seed, unsigned n, unsigned tx_gap, unsigned rx_stall, unsigned bad_percent)
{
	sim<Vmac_loopback> s(seed);
	auto &m = *s.m;
	std::mt19937_64 &rng = s.rng;
	std::vector<std::string> errors;
	hs_checker cs("s_axis", &errors), cm("m_axis", &errors);
	mac_model model;

	std::deque<frame> to_send, in_flight;
	result res;
	for (unsigned i = 0; i < n; ++i) {
		frame f;
		f.bytes.resize(pick_len(rng, bad_percent));
		for (auto &b : f.bytes)
			b = static_cast<std::uint8_t>(rng());
		to_send.push_back(std::move(f));
	}
	std::size_t beat = 0;     // next TX beat of to_send.front()
	std::size_t rx_off = 0;   // bytes of in_flight.front() already checked
	std::uint64_t expect_rx_stamp = 0;
	bool expect_rx_done = false, expect_tx_done = false;
	std::uint64_t expect_tx_ts = 0;
	std::size_t expect_tx_len = 0;
	bool expect_tx_err = false;

	s.reset();
	bool tx_fired = false; // the beat on s_* was taken at the last edge
	auto drive_tx = [&] {
		if (m.s_tvalid && !tx_fired)
			return; // hold until ready
		m.s_tvalid = 0;
		if (to_send.empty() || stall{&rng, tx_gap}())
			return;
		const auto &b = to_send.front().bytes;
		const std::size_t off = beat * 64, k = std::min<std::size_t>(64, b.size() - off);
		for (unsigned w = 0; w < 16; ++w) {
			std::uint32_t v = 0;
			for (unsigned j = 0; j < 4; ++j)
				if (w * 4 + j < k)
					v |= std::uint32_t(b[off + w * 4 + j]) << (8 * j);
			m.s_tdata[w] = v;
		}
		m.s_tkeep = k == 64 ? ~0ull : (1ull << k) - 1;
		m.s_tlast = off + k == b.size();
		m.s_tvalid = 1;
	};
	std::uint64_t idle = 0;
	while ((!to_send.empty() || !in_flight.empty()) && idle < 100000) {
		const std::uint64_t t = s.cycle;
		m.now = t;
		drive_tx();
		m.m_tready = !stall{&rng, rx_stall}();
		m.eval();
		// strobes of the previous edge
		REQUIRE(bool(m.tx_done_valid) == expect_tx_done);
		if (expect_tx_done) {
			REQUIRE(m.tx_done_ts == expect_tx_ts);
			REQUIRE(m.tx_done_len == (expect_tx_len > 0xffff ? expect_tx_len & 0xffff : expect_tx_len));
			REQUIRE(bool(m.tx_done_err) == expect_tx_err);
		}
		REQUIRE(bool(m.rx_done_valid) == expect_rx_done);
		if (expect_rx_done)
			REQUIRE(m.rx_done_ts == expect_rx_stamp);
		expect_tx_done = expect_rx_done = false;

		std::vector<std::uint64_t> sp{m.s_tdata[0], m.s_tkeep, m.s_tlast};
		cs.observe(m.s_tvalid, m.s_tready, sp, t);
		std::vector<std::uint64_t> mp{m.m_tdata[0], m.m_tdata[15], m.m_tkeep, m.m_tlast};
		cm.observe(m.m_tvalid, m.m_tready, mp, t);
		bool progress = false;
		tx_fired = m.s_tvalid && m.s_tready;
		if (tx_fired) {
			progress = true;
			if (m.s_tlast) {
				frame f = std::move(to_send.front());
				to_send.pop_front();
				beat = 0;
				f.tx_stamp = t;
				f.model = model.transmit(t, f.bytes.size());
				if (rx_stall == 0) // the model sees no stall where the RTL took the beat
					REQUIRE(f.model.tx_stamp == t);
				expect_tx_done = true;
				expect_tx_ts = t;
				expect_tx_len = f.bytes.size();
				expect_tx_err = !f.model.delivered;
				if (f.model.delivered)
					in_flight.push_back(std::move(f));
				else
					++res.bad;
			} else {
				++beat;
			}
		}
		if (m.m_tvalid && m.m_tready) {
			progress = true;
			REQUIRE(!in_flight.empty());
			auto &f = in_flight.front();
			if (rx_off == 0 && rx_stall == 0)
				REQUIRE(t == f.model.rx_first); // model and RTL agree on the line
			const std::size_t k = std::min<std::size_t>(64, f.bytes.size() - rx_off);
			REQUIRE(m.m_tkeep == (k == 64 ? ~0ull : (1ull << k) - 1));
			for (std::size_t i = 0; i < k; ++i) {
				const std::uint8_t got = std::uint8_t(m.m_tdata[i / 4] >> (8 * (i % 4)));
				if (got != f.bytes[rx_off + i])
					FAIL("frame " << res.delivered << " byte " << rx_off + i << " differs");
			}
			rx_off += k;
			REQUIRE(bool(m.m_tlast) == (rx_off == f.bytes.size()));
			if (m.m_tlast) {
				if (rx_stall == 0)
					REQUIRE(t == f.model.rx_stamp);
				expect_rx_done = true;
				expect_rx_stamp = t;
				in_flight.pop_front();
				rx_off = 0;
				++res.delivered;
			}
		}
		idle = progress ? 0 : idle + 1;
		s.step();
	}
	REQUIRE(errors.empty());
	REQUIRE(to_send.empty());
	REQUIRE(in_flight.empty());
	REQUIRE(m.runt_count + m.oversize_count == res.bad);
	REQUIRE(m.runt_count == model.runts());
	REQUIRE(m.oversize_count == model.oversized());
	return res;
}

/** Frames of @p lens offered back to back (s_tvalid and m_tready always
 *  high): the cycle the RTL took each frame's last beat; @p first_offer is
 *  the cycle the first beat was offered. */
std::vector<std::uint64_t> rtl_tx_taken(const std::vector<std::size_t> &lens, std::uint64_t &first_offer)
{
	sim<Vmac_loopback> s(21);
	auto &m = *s.m;
	s.reset();
	first_offer = s.cycle;
	std::vector<std::uint64_t> taken;
	std::size_t beat = 0;
	for (unsigned i = 0; i < 200000 && taken.size() < lens.size(); ++i) {
		const std::size_t len = lens[taken.size()], k = std::min<std::size_t>(64, len - beat * 64);
		m.now = s.cycle;
		for (unsigned w = 0; w < 16; ++w)
			m.s_tdata[w] = std::uint32_t(taken.size());
		m.s_tkeep = k == 64 ? ~0ull : (1ull << k) - 1;
		m.s_tlast = beat * 64 + k == len;
		m.s_tvalid = 1;
		m.m_tready = 1;
		m.eval();
		if (m.s_tready) {
			if (m.s_tlast) {
				taken.push_back(s.cycle);
				beat = 0;
			} else {
				++beat;
			}
		}
		s.step();
	}
	REQUIRE(taken.size() == lens.size());
	return taken;
}

/** The model fed the same burst: each frame offered right after the last. */
void check_tx_stall(const std::vector<std::size_t> &lens)
{
	std::uint64_t first = 0;
	const auto rtl = rtl_tx_taken(lens, first);
	mac_model model;
	std::uint64_t offer = first + mac_timing::beats(lens[0]) - 1, stalled = 0;
	for (std::size_t i = 0; i < lens.size(); ++i) {
		const auto r = model.transmit(offer, lens[i]);
		INFO("frame " << i << " of " << lens[i] << " bytes");
		REQUIRE(r.tx_stamp == rtl[i]);
		stalled += r.tx_stamp - offer;
		if (i + 1 < lens.size())
			offer = r.tx_stamp + mac_timing::beats(lens[i + 1]);
	}
	REQUIRE(stalled > 0); // the burst did fill the store
}

} // namespace

TEST_CASE("mac_loopback: a full store stalls TX: MTU burst, model cycle for cycle")
{
	check_tx_stall(std::vector<std::size_t>(40, 9600));
}

TEST_CASE("mac_loopback: 16 frames fill the store: short-frame burst, model cycle for cycle")
{
	std::vector<std::size_t> lens;
	for (unsigned i = 0; i < 300; ++i)
		lens.push_back(i % 3 == 0 ? 60 : 64 + i % 130);
	check_tx_stall(lens);
}

TEST_CASE("mac_loopback: back-to-back frames match the model cycle for cycle")
{
	auto r = run(1, 200, 0, 0, 0);
	REQUIRE(r.delivered == 200);
}

TEST_CASE("mac_loopback: random TX gaps, runts and oversize, model timing")
{
	for (std::uint64_t seed = 2; seed < 6; ++seed) {
		auto r = run(seed, 150, 30, 0, 15);
		REQUIRE(r.bad > 0);
		REQUIRE(r.delivered + r.bad == 150);
	}
}

TEST_CASE("mac_loopback: random RX backpressure: once, in order, byte-exact")
{
	for (std::uint64_t seed = 10; seed < 14; ++seed) {
		auto r = run(seed, 150, 20, 60, 10);
		REQUIRE(r.delivered + r.bad == 150);
	}
}

TEST_CASE("mac_loopback: short frames back to back keep 100 Gb/s line timing")
{
	// 60-byte frames occupy 84 byte-times: the line, not the 64 B/cycle
	// stream, limits them to 50/84 frames per cycle.
	sim<Vmac_loopback> s(7);
	auto &m = *s.m;
	s.reset();
	const unsigned n = 84;
	unsigned sent = 0, got = 0;
	std::uint64_t first = 0, last = 0;
	for (unsigned i = 0; i < 2000 && got < n; ++i) {
		m.now = s.cycle;
		m.s_tvalid = sent < n;
		for (unsigned w = 0; w < 16; ++w)
			m.s_tdata[w] = sent;
		m.s_tkeep = (1ull << 60) - 1;
		m.s_tlast = 1;
		m.m_tready = 1;
		m.eval();
		if (m.s_tvalid && m.s_tready)
			++sent;
		if (m.m_tvalid && m.m_tready) {
			if (got == 0)
				first = s.cycle;
			last = s.cycle;
			++got;
		}
		s.step();
	}
	REQUIRE(got == n);
	// 84 frames x 84 byte-times = 7056 byte-times = 141.12 cycles
	REQUIRE(last - first + 1 >= 140);
	REQUIRE(last - first + 1 <= 143);
}
