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
#include "rtl/nic_vs_model.hpp"

#include <pioc/device.hpp>
#include <pioc/nic/pio_nic.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace pioc::nic;
using namespace pioc::nic::vs_model;

namespace {

/** The NIC with 8/8-slot rings (one frame in flight) and 16/8-slot ones (a burst). */
const auto one_nic = [](pioc::device &dev, auto &&f) { with_pio_nic(dev, {8, 8}, f); };
const auto burst_nic = [](pioc::device &dev, auto &&f) { with_pio_nic(dev, {16, 8}, f); };

} // namespace

TEST_CASE("rtl:nic_pio and sim:nic_pio: same frames, latencies within one cycle", "[rtl][nic]")
{
	const auto frames = frames_for(5, 12);
	const auto m = one_at_a_time("sim:nic_pio", frames, one_nic, first::tx);
	const auto r = one_at_a_time("rtl:nic_pio", frames, one_nic, first::tx);
	check_one_at_a_time(m, r, frames);
}

TEST_CASE("rtl:nic_pio and sim:nic_pio: a burst of back-to-back frames, same bytes and RX stamps", "[rtl][nic]")
{
	const auto frames = frames_for(6, 24);
	const auto m = burst_on("sim:nic_pio", frames, burst_nic);
	const auto r = burst_on("rtl:nic_pio", frames, burst_nic);
	check_burst(m, r, frames);
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
