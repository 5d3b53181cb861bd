// nicbench's interrupt-driven ping (tools/nicbench/measure.hpp) on sim:nic_dma
// when the wait runs out: with the model's MSI-X vectors unbound the frame
// still comes back but no interrupt wakes the wait, and the error must say
// so (a lost interrupt), name the frame and the limit it waited (the
// --rx-timeout value), and not blame the frame. With the vectors bound the
// same ping passes within the same limit. All times SIMULATED.
#include "nicbench/measure.hpp"
#include "nicbench/paths.hpp"

#include <pioc/error.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <span>
#include <string>

namespace {

/** One ping<irq> of @p frames 64-byte frames with a @p limit_ns wait, after
 *  unbinding every MSI-X vector of the model when @p lose_interrupts. */
void ping_dma_nic(bool lose_interrupts, std::uint64_t frames, std::uint64_t limit_ns)
{
	auto dev = pioc::device::open("sim:nic_dma");
	nicbench::with_path("dma", dev, {64, 64}, true, [&](auto &nic) {
		if (lose_interrupts)
			for (unsigned v = 0; v < 32; ++v)
				pioc::sim::xdma_control(dev)->bind_vector(v, -1);
		nicbench::frame_source src;
		const auto l = nicbench::ping_irq(nic, 64, frames, src, limit_ns);
		CHECK(l.rx.count() == frames);
	});
}

} // namespace

TEST_CASE("an interrupt-driven ping passes within its limit when the interrupt comes")
{
	REQUIRE_NOTHROW(ping_dma_nic(false, 20, 2'000'000));
}

TEST_CASE("a frame back without its interrupt is reported as a lost interrupt, with the limit waited")
{
	try {
		ping_dma_nic(true, 20, 2'000'000);
		FAIL("the ping passed without any interrupt");
	} catch (const pioc::error &e) {
		const std::string what = e.what();
		INFO(what);
		CHECK(e.code() == pioc::errc::timeout);
		CHECK(what.find("frame 0 came back, but no RX interrupt woke the wait within 2 ms") != std::string::npos);
		CHECK(what.find("did not come back") == std::string::npos);
	}
}
