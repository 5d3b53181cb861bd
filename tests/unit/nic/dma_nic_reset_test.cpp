// The DMA NIC across a function reset: pioc.ko resets the function at every
// last close, so each process that opens the NIC through the module finds it
// reset, and its driver expects frame 0's stamps first. Found in the QEMU
// guest (tests/cosim, sim:nic_dma served by pioc-devd): the second nicbench
// run failed on a TX stamp numbered 60, the model's FLR having reset the
// engines but not the NIC behind them.
#include "unit/nic/random_frame.hpp"
#include "unit/nic/round_trip.hpp"

#include <pioc/nic/dma_nic.hpp>
#include <pioc/regs/nic_dma.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

using namespace pioc::nic;

namespace {

/** Opens the NIC and moves @p frames frames, each checked, each stamped. */
void exchange(pioc::device &dev, unsigned frames)
{
	with_dma_nic(dev, {8, 8}, [&](auto &nic) {
		std::mt19937_64 rng(frames);
		for (unsigned i = 0; i < frames; ++i)
			nic_test::round_trip(nic, nic_test::random_frame(rng, 64 + 500 * i));
	});
}

} // namespace

TEST_CASE("dma nic: a function reset starts the NIC side again: a driver opened after it gets frame 0's stamps")
{
	auto dev = pioc::device::open("sim:nic_dma");
	exchange(dev, 5);
	dev.get_transport().function_reset();
	exchange(dev, 5); // without the NIC's reset: "the TX stamp of frame 0 ... is not in its FIFO"
	const auto drops = dev.map(pioc::nic::dma_nic_bar(dev), pioc::mem_type::uc).read<std::uint32_t>(pioc::regs::nic_dma::RX_DROPS.offset);
	CHECK(drops == 0);
}

TEST_CASE("dma nic: a function reset with a frame anywhere between H2C and the RX FIFO: nothing of it comes back "
	  "after")
{
	// The model keeps the frames the MAC delivered until their first RX
	// beat in a queue of its own (their events carry only the model): a
	// reset must empty it with the events, or the next driver's frames
	// would be answered with this one's bytes.
	auto dev = pioc::device::open("sim:nic_dma");
	std::mt19937_64 rng(7);
	const auto old = nic_test::random_frame(rng, mtu);
	unsigned came_back = 0;
	for (unsigned polls = 0; polls <= 200; polls += 4) {
		with_dma_nic(dev, {8, 8}, [&](auto &nic) {
			std::vector<std::byte> buf(mtu);
			REQUIRE(nic.send(old));
			// 30 simulated ns a poll: the reset comes at every stage of
			// the frame's way, the last ones after it came back.
			for (unsigned k = 0; k < polls; ++k)
				if (nic.poll_rx(buf) != 0) {
					++came_back;
					break;
				}
		});
		dev.get_transport().function_reset();
		exchange(dev, 5);
	}
	CHECK(came_back > 0);
	CHECK(came_back < 40);
}
