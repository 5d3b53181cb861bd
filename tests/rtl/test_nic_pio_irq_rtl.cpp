// The PIO NIC's RX interrupt on its Verilated RTL (rtl:nic_pio): the
// image's rx_irq pulse, turned into the MSI-X vector's eventfd by the
// harness (lib/rtl/nic_pio_rtl.cpp), wakes the same driver code
// (pio_nic::wait_rx) as the behavioural model's interrupt does, at the time
// the model gives: the landing + the XDMA model's one_way_ns + irq_ns, within the 100 ns a
// simulated wait steps on a device without an event clock.
#include "sim/nic/pio_nic_model.hpp"

#include <pioc/device.hpp>
#include <pioc/nic/pio_nic.hpp>

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using namespace pioc::nic;
namespace r = pioc::regs::nic_pio;

namespace {

std::vector<std::byte> random_bytes(std::mt19937_64 &rng, std::size_t len)
{
	std::vector<std::byte> f(len);
	for (auto &b : f)
		b = std::byte(rng());
	return f;
}

/** Simulated ns from a frame's landing to the sleeping driver being woken. */
std::uint64_t wake_after_landing(const char *spec)
{
	auto dev = pioc::device::open(spec);
	std::uint64_t delay = 0;
	with_pio_nic(dev, {4, 4}, [&](auto &nic) {
		nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
		std::mt19937_64 rng(41);
		std::vector<std::byte> buf(mtu);
		// a few frames by wait_rx: once, in order, byte-exact
		for (std::size_t len : {64u, 1500u, 9600u, 200u}) {
			const auto f = random_bytes(rng, len);
			REQUIRE(nic.send(f));
			REQUIRE(nic.wait_rx(buf, nic.host_ns() + 1'000'000) == len);
			REQUIRE(std::equal(f.begin(), f.end(), buf.begin()));
			tx_info ti;
			while (nic.poll_tx(ti)) {}
		}
		// asleep before an MTU frame lands
		nic.arm_rx_interrupt();
		REQUIRE(nic.send(random_bytes(rng, mtu)));
		REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + 1'000'000));
		const std::uint64_t woken = nic.host_ns();
		REQUIRE(nic.poll_rx(buf) == mtu);
		const pioc::sim::nic::pio_nic_model::timing t;
		const std::uint64_t landed =
			pioc::sim::nic::pio_nic_model::ns_at(nic.last_rx().mac_cycle + t.rx_land_cycles);
		REQUIRE(woken >= landed);
		delay = woken - landed;
		REQUIRE(dev.map(pioc::nic::pio_nic_bar(dev)).read<std::uint32_t>(r::RX_IRQS.offset) >= 1);
	});
	return delay;
}

/** MSI-X from the landing to the woken waiter: the XDMA model in front of the
 *  NIC sends the user line's MSI-X (one way over the link, then the host's
 *  handler and wake-up), with the default link's one-way time. */
const std::uint64_t irq_path_ns =
	std::uint64_t(pioc::sim::xdma_config{}.one_way_ns + pioc::sim::xdma_config{}.irq_ns);

} // namespace

TEST_CASE("rtl:nic_pio: the RX interrupt wakes wait_rx as the model's does")
{
	const std::uint64_t model = wake_after_landing("sim:nic_pio");
	const std::uint64_t rtl = wake_after_landing("rtl:nic_pio");
	const pioc::sim::nic::pio_nic_model::timing t;
	INFO("woken after the landing: model " << model << " ns, RTL " << rtl << " ns");
	REQUIRE(model >= irq_path_ns);
	REQUIRE(model <= irq_path_ns + 4);
	REQUIRE(rtl >= irq_path_ns);
	REQUIRE(rtl <= irq_path_ns + 104); // the RTL has no event clock: 100 ns wait steps
}
