// Interrupt receive on the DMA NIC (sim:nic_dma): C2H0's descriptor-completed
// interrupt (PG195: COMPLETED in each descriptor, ie_descriptor_completed,
// the IRQ block's channel enable) through the XDMA model's MSI-X delivery to
// dma_nic::wait_rx; the re-arm / re-check / sleep order with a frame landing
// in each gap; one interrupt per re-arm.
#include "unit/nic/irq_receive.hpp"

#include <pioc/nic/dma_nic.hpp>
#include <pioc/regs/xdma.hpp>

#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <type_traits>
#include <vector>

using namespace pioc::nic;
namespace rx = pioc::regs::xdma;

namespace {

using nic_test::random_frame;
using nic_test::view_of;

/** Where the test lets a frame complete: during the first idle of the
 *  driver's empty poll before the re-arm (window A), or during the idle of
 *  its empty re-check after the re-arm (window B). */
struct race {
	enum class window { none, before_rearm, before_sleep } at = window::none;
	bool rearmed = false;
	unsigned idles_after_rearm = 0;
	bool done = false;
	std::uint64_t wait_ns = 20'000; ///< ample for a frame to come back (SIMULATED)
};

/** The config BAR's view, with the race put into the driver's idles. */
class racing_io : public pioc::sim_io {
public:
	racing_io() = default;
	racing_io(pioc::sim_io io, race *rc) : pioc::sim_io(io), race_(rc) {}
	racing_io sub(std::uint64_t off, std::uint64_t size) const { return {pioc::sim_io::sub(off, size), race_}; }
	template <class T> T load(std::uint64_t off) const
	{
		if (race_ && off == rx::engine_base(true, 0) + rx::ENG_STATUS_RC)
			race_->rearmed = true;
		return pioc::sim_io::load<T>(off);
	}
	void idle(std::uint64_t ns) const
	{
		if (race_ && !race_->done && hit(ns)) {
			race_->done = true;
			pioc::sim_io::idle(race_->wait_ns);
			return;
		}
		pioc::sim_io::idle(ns);
	}

private:
	bool hit(std::uint64_t ns) const
	{
		if (race_->at == race::window::before_rearm)
			return !race_->rearmed && ns > 0;
		// after the re-arm: its own idle(0), then the re-check's
		return race_->at == race::window::before_sleep && race_->rearmed && ns > 0;
	}
	race *race_ = nullptr;
};

} // namespace

TEST_CASE("dma nic irq: wait_rx gets every frame once, in order, byte-exact")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(
		dev, {8, 8}, [](auto &nic) { nic_test::receive_by_interrupt(nic, 40, 31); }, true);
}

TEST_CASE("dma nic irq: asleep before the frame, woken no earlier than the MSI-X path allows, SIMULATED")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(
		dev, {},
		[](auto &nic) {
			std::mt19937_64 rng(32);
			std::vector<std::byte> buf(mtu);
			nic.rearm_rx_interrupt();
			auto f = random_frame(rng, 64);
			REQUIRE(nic.send(f));
			REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + 1'000'000));
			const std::uint64_t woken = nic.host_ns();
			REQUIRE(nic.poll_rx(buf) == 64);
			const std::int64_t mac = nic.clock().to_host_ns(nic.last_rx().mac_cycle);
			// after the last RX beat: C2H0 writes the frame, then the MSI-X
			// write crosses the link (250 ns) and the host wakes the waiter
			// (1800 ns, xdma_config::irq_ns)
			INFO("last RX beat " << mac << " ns, woken " << woken << " ns");
			REQUIRE(std::int64_t(woken) - mac >= 250 + 1800);
			REQUIRE(std::int64_t(woken) - mac < 250 + 1800 + 1000);
		},
		true);
}

TEST_CASE("dma nic irq: no lost wake-up when a frame completes before the re-arm or before the sleep")
{
	for (auto at : {race::window::before_rearm, race::window::before_sleep}) {
		DYNAMIC_SECTION("window " << int(at))
		{
			auto dev = pioc::device::open("sim:nic_dma");
			pioc::xdma::options o;
			o.ring_descriptors = 64;
			pioc::xdma::dma x(dev, o);
			const auto user = dev.map(pioc::nic::dma_nic_bar(dev), pioc::mem_type::uc);
			race rc;
			dma_nic<racing_io> nic(x, racing_io(view_of<pioc::sim_io>(x.config()), &rc),
					       racing_io(view_of<pioc::sim_io>(user), nullptr), {}, "sim:nic_dma",
					       true);
			std::mt19937_64 rng(33);
			std::vector<std::byte> buf(mtu);
			// A frame taken by polling leaves C2H0's completed bit set and
			// its interrupt spent: only a re-arm lets the next one raise it.
			auto f0 = random_frame(rng, 100);
			REQUIRE(nic.send(f0));
			std::size_t n = 0;
			for (int i = 0; i < 10000 && n == 0; ++i)
				n = nic.poll_rx(buf);
			REQUIRE(n == 100);
			auto f1 = random_frame(rng, 200);
			REQUIRE(nic.send(f1));
			rc.at = at;
			const std::uint64_t start = nic.host_ns(), wait_ns = 1'000'000;
			REQUIRE(nic.wait_rx(buf, start + wait_ns) == f1.size());
			REQUIRE(std::equal(f1.begin(), f1.end(), buf.begin()));
			REQUIRE(rc.done); // the frame did complete inside the window
			REQUIRE(nic.host_ns() - start < wait_ns);
		}
	}
}

TEST_CASE("dma nic irq: one interrupt per re-arm; a driver that does not re-arm sleeps to its deadline")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(
		dev, {},
		[](auto &nic) {
			std::mt19937_64 rng(34);
			std::vector<std::byte> buf(mtu);
			const std::uint64_t wait_ns = 200'000;
			nic.rearm_rx_interrupt();
			auto f1 = random_frame(rng, 300);
			REQUIRE(nic.send(f1));
			REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + wait_ns));
			REQUIRE(nic.poll_rx(buf) == f1.size());
			// not re-armed: three more frames complete, none interrupts
			for (int i = 0; i < 3; ++i) {
				auto f = random_frame(rng, 300);
				REQUIRE(nic.send(f));
			}
			const std::uint64_t start = nic.host_ns();
			REQUIRE_FALSE(nic.wait_rx_interrupt(start + wait_ns));
			REQUIRE(nic.host_ns() >= start + wait_ns);
			for (int i = 0; i < 3; ++i)
				REQUIRE(nic.poll_rx(buf) == 300); // there, just unannounced
			// re-armed: the next one interrupts again
			nic.rearm_rx_interrupt();
			auto f5 = random_frame(rng, 300);
			REQUIRE(nic.send(f5));
			REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + wait_ns));
		},
		true);
}

TEST_CASE("dma nic irq: wait_rx on a NIC opened for polling is refused")
{
	auto dev = pioc::device::open("sim:nic_dma");
	with_dma_nic(dev, {}, [](auto &nic) {
		std::vector<std::byte> buf(mtu);
		REQUIRE_THROWS_WITH(nic.wait_rx(buf, nic.host_ns() + 1000), Catch::Contains("without rx_interrupt"));
	});
}
