// The PIO NIC's behavioural model (sim:nic_pio, lib/sim/nic/pio_nic_model)
// and its Verilated RTL (rtl:nic_pio, fpga/rtl/nic) run the same frames
// through the same driver (pioc::nic::pio_nic) over the same simulated PCIe
// link. Every frame must come back byte-exact on both, and the RTL's times
// are what the model must reproduce: per frame the TX and RX latency as
// nicbench measures them (MAC stamps mapped to the host clock) and the MAC
// stamps themselves relative to the send.
//
// Tolerance: 4 ns (one core cycle) on each latency, one cycle on each stamp.
// The model's constants are the RTL's cycle counts (BAR port, TX start,
// completion and landing; Documentation/nic.md); the cycle allows for the
// rounding of ns to cycles. With these constants the two agree exactly on
// every frame here; with the model's port read time set to 0 (as before the
// calibration) a 64-byte RX is 32 ns off and the test fails.
#include <pioc/device.hpp>
#include <pioc/nic/pio_nic.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace pioc::nic;

namespace {

using frame = std::vector<std::byte>;

struct sample {
	frame rx;                       ///< what came back
	double tx_ns = 0, rx_ns = 0;    ///< latencies as nicbench defines them
	std::uint64_t tx_cycles = 0;    ///< TX stamp - device cycle at send
	std::uint64_t rx_cycles = 0;    ///< RX stamp - TX stamp
};

std::vector<frame> frames_for(std::uint64_t seed, unsigned n)
{
	std::mt19937_64 rng(seed);
	std::vector<frame> v;
	const std::size_t fixed[] = {64, 1536, 9600, 60};
	for (unsigned i = 0; i < n; ++i) {
		frame f(i < 4 ? fixed[i] : 60 + rng() % (mtu - 59));
		for (auto &b : f)
			b = std::byte(rng());
		v.push_back(std::move(f));
	}
	return v;
}

/** One frame in flight at a time, as nicbench rx/tx measure. */
std::vector<sample> one_at_a_time(const char *spec, const std::vector<frame> &frames)
{
	std::vector<sample> out;
	auto dev = pioc::device::open(spec);
	with_pio_nic(dev, {8, 8}, [&](auto &nic) {
		frame buf(mtu);
		const clock_map clk = nic.clock();
		for (const frame &f : frames) {
			sample s;
			const std::uint64_t c0 = nic.now();
			const auto t0 = static_cast<std::int64_t>(nic.host_ns());
			REQUIRE(nic.send(f));
			tx_info ti;
			while (!nic.poll_tx(ti)) {
			}
			std::size_t n = 0;
			while ((n = nic.poll_rx(buf)) == 0) {
			}
			const auto t1 = static_cast<std::int64_t>(nic.host_ns());
			s.rx.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
			s.tx_ns = double(clk.to_host_ns(ti.mac_cycle) - t0);
			s.rx_ns = double(t1 - clk.to_host_ns(nic.last_rx().mac_cycle));
			s.tx_cycles = ti.mac_cycle - c0;
			s.rx_cycles = nic.last_rx().mac_cycle - ti.mac_cycle;
			out.push_back(std::move(s));
		}
	});
	return out;
}

/** A whole TX ring at once, then everything received: back-to-back frames
 *  on the MAC stream; RX stamps relative to the first TX stamp. */
std::vector<std::pair<frame, std::uint64_t>> burst(const char *spec, const std::vector<frame> &frames)
{
	std::vector<std::pair<frame, std::uint64_t>> out;
	auto dev = pioc::device::open(spec);
	with_pio_nic(dev, {16, 8}, [&](auto &nic) {
		frame buf(mtu);
		std::uint64_t first_tx = 0;
		std::size_t sent = 0;
		while (out.size() < frames.size()) {
			while (sent < frames.size() && nic.send(frames[sent]))
				++sent;
			tx_info ti;
			while (nic.poll_tx(ti))
				if (first_tx == 0)
					first_tx = ti.mac_cycle;
			while (std::size_t n = nic.poll_rx(buf))
				out.emplace_back(frame(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)),
						 nic.last_rx().mac_cycle - first_tx);
		}
	});
	return out;
}

bool close(double model, double rtl) { return std::abs(model - rtl) <= 4; }
bool close_cycles(std::uint64_t model, std::uint64_t rtl) { return (model > rtl ? model - rtl : rtl - model) <= 1; }

} // namespace

TEST_CASE("rtl:nic_pio and sim:nic_pio: same frames, latencies within one cycle", "[rtl][nic]")
{
	const auto frames = frames_for(5, 12);
	const auto m = one_at_a_time("sim:nic_pio", frames);
	const auto r = one_at_a_time("rtl:nic_pio", frames);
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
		CHECK(m[i].rx_cycles == r[i].rx_cycles); // MAC line timing: cycle-exact
	}
}

TEST_CASE("rtl:nic_pio and sim:nic_pio: a burst of back-to-back frames, same bytes and RX stamps", "[rtl][nic]")
{
	const auto frames = frames_for(6, 24);
	const auto m = burst("sim:nic_pio", frames);
	const auto r = burst("rtl:nic_pio", frames);
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

namespace {

/** Ten frames into a 4-slot RX ring before the host reads any: the frames
 *  that find the ring full are dropped; which ones must be the same. */
std::vector<frame> overrun(const char *spec, const std::vector<frame> &frames)
{
	std::vector<frame> out;
	auto dev = pioc::device::open(spec);
	with_pio_nic(dev, {4, 16}, [&](auto &nic) {
		for (const frame &f : frames)
			REQUIRE(nic.send(f));
		tx_info ti;
		for (std::size_t done = 0; done < frames.size();)
			done += nic.poll_tx(ti) ? 1 : 0;
		const std::uint64_t until = nic.now() + 10000; // the last frame lands
		while (nic.now() < until) {
		}
		frame buf(mtu);
		while (std::size_t n = nic.poll_rx(buf))
			out.emplace_back(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
	});
	return out;
}

} // namespace

TEST_CASE("rtl:nic_pio and sim:nic_pio: a full RX ring keeps and drops the same frames", "[rtl][nic]")
{
	const auto frames = frames_for(7, 10);
	const auto m = overrun("sim:nic_pio", frames);
	const auto r = overrun("rtl:nic_pio", frames);
	REQUIRE(r.size() == 4);
	REQUIRE(m.size() == r.size());
	for (std::size_t i = 0; i < r.size(); ++i) {
		CHECK(r[i] == frames[i]);
		CHECK(m[i] == r[i]);
	}
}
