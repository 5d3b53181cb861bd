// Interrupt receive on the PIO NIC (RX_IRQ_ARM, MSI-X vector RX_IRQ_VECTOR):
// pio_nic::wait_rx on sim:nic_pio through the simulated transport's eventfd,
// the driver's arm / re-check / sleep order with a frame landing in each gap,
// and the one-shot rule (a driver that does not re-arm is not woken again).
#include "sim/nic/pio_nic_model.hpp"

#include <pioc/regs/xdma.hpp>
#include <pioc/xdma/xdma.hpp>
#include "unit/nic/irq_receive.hpp"
#include <pioc/nic/pio_nic.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <catch2/catch.hpp>

#include <deque>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

using namespace pioc::nic;
namespace r = pioc::regs::nic_pio;
using pioc::sim::nic::pio_nic_model;

namespace {

/** MSI-X from the landing to the woken waiter: the XDMA model in front of the
 *  NIC sends the user line's MSI-X (one way over the link, then the host's
 *  handler and wake-up), with the default link's one-way time. */
const std::uint64_t irq_path_ns =
	std::uint64_t(pioc::sim::xdma_config{}.one_way_ns + pioc::sim::xdma_config{}.irq_ns);

using nic_test::random_frame;
using nic_test::view_of;

pio_nic_model &model_of(pioc::device &dev) { return *pioc::sim::nic::pio_nic_model_of(dev.sim_link()->device()); }

/** Where the test puts a frame's landing: after the n-th load of RX_HEAD,
 *  the CPU idles until the model's next frame has landed. */
struct race {
	pio_nic_model *model = nullptr;
	unsigned after_load = 0; ///< 0: never
	unsigned loads = 0;
};

/** sim_io that lets a frame land right after a chosen RX_HEAD load, so the
 *  gap between two of the driver's accesses is hit every time. */
class racing_io : public pioc::sim_io {
public:
	racing_io() = default;
	racing_io(pioc::sim_io io, race *rc) : pioc::sim_io(io), race_(rc) {}
	template <class T> T load(std::uint64_t off) const
	{
		const T v = pioc::sim_io::load<T>(off);
		if (race_ && off == r::RX_HEAD.offset && ++race_->loads == race_->after_load) {
			const std::uint64_t land = race_->model->next_landing_ns();
			REQUIRE(land != UINT64_MAX); // the frame must still be on its way
			idle(land > now_ns() ? land - now_ns() + 1 : 1);
		}
		return v;
	}

private:
	race *race_ = nullptr;
};

std::uint32_t rx_irqs(pioc::device &dev) { return dev.map(pioc::nic::pio_nic_bar(dev)).read<std::uint32_t>(r::RX_IRQS.offset); }

} // namespace

TEST_CASE("pio nic irq: wait_rx gets every frame once, in order, byte-exact, woken by the interrupt")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {8, 8}, [&](auto &nic) {
		nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
		nic_test::receive_by_interrupt(nic, 40, 21);
		// The first frame of every burst was slept for: interrupts were raised.
		REQUIRE(rx_irqs(dev) > 0);
		REQUIRE(rx_irqs(dev) <= 40);
	});
}

TEST_CASE("pio nic irq: the wake-up costs the MSI write and the host's wake-up, SIMULATED")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {}, [&](auto &nic) {
		nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
		std::mt19937_64 rng(22);
		std::vector<std::byte> buf(mtu);
		// armed, asleep before the frame lands: woken irq_path_ns after
		// the landing, to the nanosecond (the model's event clock)
		nic.arm_rx_interrupt();
		auto f = random_frame(rng, mtu);
		REQUIRE(nic.send(f));
		REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + 1'000'000));
		const std::uint64_t woken = nic.host_ns();
		REQUIRE(nic.poll_rx(buf) == mtu);
		REQUIRE(rx_irqs(dev) == 1);
		const pio_nic_model::timing t;
		const std::uint64_t landed = pio_nic_model::ns_at(nic.last_rx().mac_cycle + t.rx_land_cycles);
		INFO("landed " << landed << " ns, woken " << woken << " ns");
		REQUIRE(woken >= landed + irq_path_ns);
		REQUIRE(woken <= landed + irq_path_ns + 4);
	});
}

TEST_CASE(
	"pio nic irq: no lost wake-up when a frame lands between the check and the arm, or the re-check and the sleep")
{
	auto dev = pioc::device::open("sim:nic_pio");
	// The driver's two views as with_pio_nic makes them: registers, rings and
	// RX_BUF uncached, TX_BUF write-combined (its view starts at TX_BUF).
	const auto uc = dev.map(pioc::nic::pio_nic_bar(dev), 0, r::TX_BUF.offset, pioc::mem_type::uc);
	const auto wc = dev.map(pioc::nic::pio_nic_bar(dev), r::TX_BUF.offset, r::TX_BUF.size, pioc::mem_type::wc);
	race rc{&model_of(dev)};
	pio_nic<racing_io> nic(racing_io(view_of<pioc::sim_io>(uc), &rc), racing_io(view_of<pioc::sim_io>(wc), nullptr),
			       {}, "sim:nic_pio");
	nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
	std::mt19937_64 rng(23);
	std::vector<std::byte> buf(mtu);
	const std::uint64_t wait_ns = 1'000'000;

	// Load 1 of RX_HEAD is wait_rx's first check; the frame lands before the
	// arm, so it raises nothing: only the re-check after arming finds it.
	auto f1 = random_frame(rng, mtu); // MTU: still on its way at the first checks
	REQUIRE(nic.send(f1));
	rc.loads = 0;
	rc.after_load = 1;
	std::uint64_t start = nic.host_ns();
	REQUIRE(nic.wait_rx(buf, start + wait_ns) == f1.size());
	REQUIRE(std::equal(f1.begin(), f1.end(), buf.begin()));
	REQUIRE(rc.loads == 2);
	REQUIRE(rx_irqs(dev) == 0);
	REQUIRE(nic.host_ns() - start < wait_ns);

	// Load 2 is the re-check; the frame lands after the arm took effect,
	// so the interrupt wakes the sleep that follows.
	auto f2 = random_frame(rng, mtu);
	REQUIRE(nic.send(f2));
	rc.loads = 0;
	rc.after_load = 2;
	start = nic.host_ns();
	REQUIRE(nic.wait_rx(buf, start + wait_ns) == f2.size());
	REQUIRE(std::equal(f2.begin(), f2.end(), buf.begin()));
	REQUIRE(rx_irqs(dev) == 1);
	REQUIRE(nic.host_ns() - start < wait_ns);
}

TEST_CASE("pio nic irq: one-shot; a driver that does not re-arm sleeps to its deadline")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {}, [&](auto &nic) {
		nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
		std::mt19937_64 rng(24);
		std::vector<std::byte> buf(mtu);
		const std::uint64_t wait_ns = 200'000;
		// armed once: the first frame wakes the sleeper
		nic.arm_rx_interrupt();
		auto f1 = random_frame(rng, 100);
		REQUIRE(nic.send(f1));
		REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + wait_ns));
		REQUIRE(nic.poll_rx(buf) == f1.size());
		// not re-armed: three more frames land, none raises an interrupt
		for (int i = 0; i < 3; ++i) {
			auto f = random_frame(rng, 100);
			REQUIRE(nic.send(f));
		}
		const std::uint64_t start = nic.host_ns();
		REQUIRE_FALSE(nic.wait_rx_interrupt(start + wait_ns));
		REQUIRE(nic.host_ns() >= start + wait_ns);
		REQUIRE(rx_irqs(dev) == 1);
		for (int i = 0; i < 3; ++i)
			REQUIRE(nic.poll_rx(buf) == 100); // the frames are there, just unannounced
		// re-armed: the next landing wakes it again, once
		nic.arm_rx_interrupt();
		auto f5 = random_frame(rng, 100);
		REQUIRE(nic.send(f5));
		REQUIRE(nic.wait_rx_interrupt(nic.host_ns() + wait_ns));
		REQUIRE(rx_irqs(dev) == 2);
	});
}

TEST_CASE("pio nic irq: wait_rx without an interrupt, and vectors the NIC lacks, are refused")
{
	auto dev = pioc::device::open("sim:nic_pio");
	with_pio_nic(dev, {}, [&](auto &nic) {
		std::vector<std::byte> buf(mtu);
		REQUIRE_THROWS_WITH(nic.wait_rx(buf, nic.host_ns() + 1000),
				    Catch::Contains("without use_rx_interrupt"));
		REQUIRE_THROWS_WITH(nic.use_rx_interrupt({}), Catch::Contains("delivers no MSI-X vector 0"));
		REQUIRE_THROWS_WITH(dev.get_transport().interrupt(32), Catch::Contains("MSI-X vector 32 is not 0..31"));
	});
}

TEST_CASE("pio nic irq: the XDMA IP sends the NIC's interrupt only once its user line is enabled, as PG195 says")
{
	// sim:nic_pio is the board's image: the NIC on the bypass BAR of an XDMA
	// function whose IRQ block's User Interrupt Enable Mask resets to 0.
	auto dev = pioc::device::open("sim:nic_pio");
	REQUIRE(pioc::nic::pio_nic_bar(dev) == 1);
	REQUIRE(pioc::xdma::find_config_bar(dev) == 0);
	namespace x = pioc::regs::xdma;
	const auto cfg = dev.map(0, pioc::mem_type::uc);
	with_pio_nic(dev, {}, [&](auto &nic) {
		std::mt19937_64 rng(25);
		std::vector<std::byte> buf(mtu);
		const std::uint64_t wait_ns = 200'000;
		// The vector alone (the line left disabled): the frame lands, the
		// NIC raises its line, the IP holds it pending and sends nothing.
		nic.use_rx_interrupt(dev.get_transport().interrupt(r::RX_IRQ_VECTOR));
		auto f1 = random_frame(rng, 200);
		REQUIRE(nic.send(f1));
		nic.arm_rx_interrupt();
		std::uint64_t start = nic.host_ns();
		REQUIRE_FALSE(nic.wait_rx_interrupt(start + wait_ns));
		REQUIRE(nic.host_ns() - start >= wait_ns);
		REQUIRE(rx_irqs(dev) == 1);
		REQUIRE(cfg.read<std::uint32_t>(x::irq_base + x::IRQ_USER_PENDING) == 1u << r::RX_IRQ_LINE);
		// Enabling the line sends the pending request (the IP acknowledges
		// usr_irq_req only then): the sleeper wakes.
		cfg.write<std::uint32_t>(x::irq_base + x::IRQ_USER_EN_W1S, 1u << r::RX_IRQ_LINE);
		start = nic.host_ns();
		REQUIRE(nic.wait_rx_interrupt(start + wait_ns));
		REQUIRE(cfg.read<std::uint32_t>(x::irq_base + x::IRQ_USER_PENDING) == 0);
		REQUIRE(nic.poll_rx(buf) == f1.size());
		// pio_nic_rx_interrupt() is what enables it: with it, wait_rx wakes
		// on the next frame without a hand-written enable.
		cfg.write<std::uint32_t>(x::irq_base + x::IRQ_USER_EN_W1C, 1u << r::RX_IRQ_LINE);
		nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
		REQUIRE(cfg.read<std::uint32_t>(x::irq_base + x::IRQ_USER_EN) == 1u << r::RX_IRQ_LINE);
		auto f2 = random_frame(rng, 300);
		REQUIRE(nic.send(f2));
		start = nic.host_ns();
		REQUIRE(nic.wait_rx(buf, start + wait_ns) == f2.size());
		REQUIRE(std::equal(f2.begin(), f2.end(), buf.begin()));
	});
}
