// Shared by the NICs' model-against-RTL tests (test_nic_*_vs_model.cpp): the
// frames, the tolerances, the runs (one frame in flight, a burst) and their
// comparison, written against the driver concept (pioc/nic/nic.hpp) so every
// path runs the same code.
#pragma once

#include <pioc/device.hpp>
#include <pioc/nic/nic.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace pioc::nic::vs_model {

using frame = std::vector<std::byte>;

/** @p n frames: 64, 1536, 9600 and 60 bytes first, then random sizes. */
inline std::vector<frame> frames_for(std::uint64_t seed, unsigned n)
{
	std::mt19937_64 rng(seed);
	std::vector<frame> v;
	const std::size_t fixed[] = {64, 1536, 9600, 60};
	for (unsigned i = 0; i < n; ++i) {
		frame f(i < 4 ? fixed[i] : min_frame + rng() % (mtu - min_frame + 1));
		for (auto &b : f)
			b = std::byte(rng());
		v.push_back(std::move(f));
	}
	return v;
}

/** Within one core cycle (4 ns): the rounding of ns to cycles. */
inline bool close(double model, double rtl) { return std::abs(model - rtl) <= 4; }
inline bool close_cycles(std::uint64_t model, std::uint64_t rtl)
{
	return (model > rtl ? model - rtl : rtl - model) <= 1;
}

/** Sends as many of @p frames as the TX ring takes, again as slots come
 *  back, and receives them all: back-to-back frames on the MAC stream. Each
 *  frame with its RX stamp relative to the first TX stamp. */
template <driver Nic> std::vector<std::pair<frame, std::uint64_t>> burst(Nic &nic, const std::vector<frame> &frames)
{
	std::vector<std::pair<frame, std::uint64_t>> out;
	frame buf(mtu);
	std::uint64_t first_tx = 0;
	bool have_first = false;
	std::size_t sent = 0;
	for (long k = 0; k < 10000000 && out.size() < frames.size(); ++k) {
		while (sent < frames.size() && nic.send(frames[sent]))
			++sent;
		tx_info ti;
		while (nic.poll_tx(ti))
			if (!have_first) {
				first_tx = ti.mac_cycle;
				have_first = true;
			}
		while (std::size_t n = nic.poll_rx(buf))
			out.emplace_back(frame(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)),
					 nic.last_rx().mac_cycle - first_tx);
	}
	return out;
}

/** One frame in flight, measured as nicbench rx/tx measure. */
struct sample {
	frame rx;		     ///< what came back
	double tx_ns = 0, rx_ns = 0; ///< latencies as nicbench defines them
	std::uint64_t tx_cycles = 0; ///< TX stamp - device cycle at send
	std::uint64_t rx_cycles = 0; ///< RX stamp - TX stamp
};

/** Which completion the host waits for first after the send. */
enum class first { tx, rx };

/** Sends @p f alone and waits for its TX completion and the frame back. */
template <driver Nic> sample one_frame(Nic &nic, const frame &f, const clock_map &clk, first w)
{
	sample s;
	frame buf(mtu);
	const std::uint64_t c0 = nic.now();
	const auto t0 = static_cast<std::int64_t>(nic.host_ns());
	REQUIRE(nic.send(f));
	tx_info ti;
	std::size_t n = 0;
	std::int64_t t1 = 0;
	const auto tx = [&] {
		for (long k = 0; k < 10000000 && !nic.poll_tx(ti); ++k) {}
	};
	const auto rx = [&] {
		for (long k = 0; k < 10000000 && (n = nic.poll_rx(buf)) == 0; ++k) {}
		t1 = static_cast<std::int64_t>(nic.host_ns());
	};
	if (w == first::tx)
		tx(), rx();
	else
		rx(), tx();
	REQUIRE(n == f.size());
	s.rx.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
	s.tx_ns = double(clk.to_host_ns(ti.mac_cycle) - t0);
	s.rx_ns = double(t1 - clk.to_host_ns(nic.last_rx().mac_cycle));
	s.tx_cycles = ti.mac_cycle - c0;
	s.rx_cycles = nic.last_rx().mac_cycle - ti.mac_cycle;
	return s;
}

/** Every frame of @p frames alone through the NIC @p open(dev, f) opens on
 *  @p spec, waiting for @p w first. */
template <class Open>
std::vector<sample> one_at_a_time(const char *spec, const std::vector<frame> &frames, Open open, first w)
{
	std::vector<sample> out;
	auto dev = pioc::device::open(spec);
	open(dev, [&](auto &nic) {
		const clock_map clk = nic.clock();
		for (const frame &f : frames)
			out.push_back(one_frame(nic, f, clk, w));
	});
	return out;
}

/** Model @p m and RTL @p r, one frame in flight: both byte-exact, TX and RX
 *  latency and the TX stamp within one cycle, the RX - TX stamp exact (the
 *  MAC's line timing). */
inline void check_one_at_a_time(const std::vector<sample> &m, const std::vector<sample> &r,
				const std::vector<frame> &frames)
{
	REQUIRE(m.size() == frames.size());
	REQUIRE(r.size() == frames.size());
	for (std::size_t i = 0; i < frames.size(); ++i) {
		INFO("frame " << i << ", " << frames[i].size() << " B: TX model " << m[i].tx_ns << " ns, RTL "
			      << r[i].tx_ns << " ns; RX model " << m[i].rx_ns << " ns, RTL " << r[i].rx_ns
			      << " ns; TX cycles " << m[i].tx_cycles << " / " << r[i].tx_cycles << ", RX cycles "
			      << m[i].rx_cycles << " / " << r[i].rx_cycles);
		REQUIRE(m[i].rx == frames[i]);
		REQUIRE(r[i].rx == frames[i]);
		CHECK(close(m[i].tx_ns, r[i].tx_ns));
		CHECK(close(m[i].rx_ns, r[i].rx_ns));
		CHECK(close_cycles(m[i].tx_cycles, r[i].tx_cycles));
		CHECK(m[i].rx_cycles == r[i].rx_cycles);
	}
}

/** burst() through the NIC @p open(dev, f) opens on @p spec. */
template <class Open>
std::vector<std::pair<frame, std::uint64_t>> burst_on(const char *spec, const std::vector<frame> &frames, Open open)
{
	std::vector<std::pair<frame, std::uint64_t>> out;
	auto dev = pioc::device::open(spec);
	open(dev, [&](auto &nic) { out = burst(nic, frames); });
	return out;
}

/** Model @p m and RTL @p r of burst(): both byte-exact, RX stamps within one cycle. */
inline void check_burst(const std::vector<std::pair<frame, std::uint64_t>> &m,
			const std::vector<std::pair<frame, std::uint64_t>> &r, const std::vector<frame> &frames)
{
	REQUIRE(m.size() == frames.size());
	REQUIRE(r.size() == frames.size());
	for (std::size_t i = 0; i < frames.size(); ++i) {
		INFO("frame " << i << ", " << frames[i].size() << " B: RX stamp - first TX stamp, model " << m[i].second
			      << ", RTL " << r[i].second << " cycles");
		REQUIRE(m[i].first == frames[i]);
		REQUIRE(r[i].first == frames[i]);
		CHECK(close_cycles(m[i].second, r[i].second));
	}
}

} // namespace pioc::nic::vs_model
