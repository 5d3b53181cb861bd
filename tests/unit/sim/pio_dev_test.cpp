// Semantics of the simulated PIO image, seen through a simulated UC mapping.
#include "sim/pio_dev.hpp"

#include <pioc/device.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <catch2/catch.hpp>

#include <cstring>

using namespace pioc;
namespace r = pioc::regs::pio_dev;

namespace {
struct fixture {
	device dev = device::open("sim:pio");
	region bar = dev.map(0, mem_type::uc);
	sim::pcie_link &link = *dev.sim_link();
	sim::pio_dev &model = dynamic_cast<sim::pio_dev &>(link.device());

	void ring(std::uint32_t len, std::uint64_t op = r::OP_ECHO)
	{
		bar.write<std::uint64_t>(r::DOORBELL.offset, (op << 32) | len);
	}
};
} // namespace

TEST_CASE("control block: identification, scratch, counter", "[sim][pio_dev]")
{
	fixture f;
	CHECK(f.bar.read<std::uint32_t>(r::ID.offset) == r::id_value);
	CHECK(f.bar.read<std::uint32_t>(r::VERSION.offset) == (r::version_major << 16 | r::version_minor));
	CHECK(f.bar.read<std::uint32_t>(r::CLOCK_MHZ.offset) == r::clock_mhz);
	CHECK((f.bar.read<std::uint32_t>(r::CAPS.offset) & r::CAP_INVOKE));

	for (std::uint32_t v : {0u, 1u, 0xdeadbeefu, 0xffffffffu}) {
		f.bar.write<std::uint32_t>(r::SCRATCH.offset, v);
		CHECK(f.bar.read<std::uint32_t>(r::SCRATCH.offset) == v);
	}

	// Free-running: strictly increasing across reads (each read takes ~0.5 us).
	std::uint64_t last = f.bar.read<std::uint64_t>(r::CYCLES.offset);
	for (int i = 0; i < 100; ++i) {
		const auto now = f.bar.read<std::uint64_t>(r::CYCLES.offset);
		CHECK(now > last);
		last = now;
	}
	// It counts device cycles at clock_mhz: simulated time / 4 ns at 250 MHz.
	const auto t0 = f.link.now_ns();
	const auto c0 = f.bar.read<std::uint64_t>(r::CYCLES.offset);
	f.link.cpu_spend(1e6); // 1 ms
	const auto c1 = f.bar.read<std::uint64_t>(r::CYCLES.offset);
	const double mhz = double(c1 - c0) / double(f.link.now_ns() - t0) * 1000.0;
	CHECK(mhz == Approx(r::clock_mhz).epsilon(0.01));
	// 32-bit reads: low half, then the latched high half.
	const auto lo = f.bar.read<std::uint32_t>(r::CYCLES.offset);
	const auto hi = f.bar.read<std::uint32_t>(r::CYCLES.offset + 4);
	CHECK(((std::uint64_t(hi) << 32) | lo) <= f.bar.read<std::uint64_t>(r::CYCLES.offset));
}

TEST_CASE("posted writes cost the CPU only their issue time", "[sim][pio_dev]")
{
	fixture f;
	std::uint64_t arrival = 0;
	f.link.set_trace([&](const sim::tlp &t) { arrival = t.time_ns; });
	const auto t0 = f.link.now_ns();
	f.bar.write<std::uint32_t>(r::SCRATCH.offset, 7);
	const auto t1 = f.link.now_ns();
	CHECK(t1 - t0 <= std::uint64_t(f.link.timing().uc_store_ns) + 1);
	CHECK(arrival >= t0 + std::uint64_t(f.link.timing().one_way_ns)); // still on the wire when the CPU goes on
	CHECK(f.link.stats().mwr_tlps == 1);
	CHECK(f.link.stats().mrd_tlps == 0);
}

TEST_CASE("INVOKE_STATUS blocks until the result is ready", "[sim][pio_dev]")
{
	fixture f;
	const std::uint64_t word = 0x1122334455667788ull;
	f.bar.write<std::uint64_t>(r::REQ.offset, word);
	f.ring(8, r::OP_NOT);
	auto t0 = f.link.now_ns();
	auto s = f.bar.read<std::uint64_t>(r::INVOKE_STATUS.offset);
	const auto fast = f.link.now_ns() - t0;
	CHECK((s & r::STATUS_DONE));
	CHECK((s & r::STATUS_LEN_MASK) == 8);
	CHECK(((s >> r::STATUS_SEQ_SHIFT) & r::STATUS_SEQ_MASK) == 1);
	CHECK(f.bar.read<std::uint64_t>(r::RESP.offset) == ~word);

	// 10000 extra cycles = 40 us at 250 MHz: the same read now stalls that long.
	f.bar.write<std::uint32_t>(r::INVOKE_DELAY.offset, 10000);
	f.ring(8);
	t0 = f.link.now_ns();
	s = f.bar.read<std::uint64_t>(r::INVOKE_STATUS.offset);
	const auto slow = f.link.now_ns() - t0;
	CHECK((s & r::STATUS_DONE));
	CHECK(((s >> r::STATUS_SEQ_SHIFT) & r::STATUS_SEQ_MASK) == 2);
	CHECK(slow >= fast + 39000);
	CHECK(slow <= fast + 41000);
	CHECK(f.bar.read<std::uint32_t>(r::INVOKE_COUNT.offset) == 2);
}

TEST_CASE("INVOKE_STATUS answers NOT_READY after the timeout", "[sim][pio_dev]")
{
	fixture f;
	// Nothing ever started: NOT_READY at once.
	CHECK(f.bar.read<std::uint64_t>(r::INVOKE_STATUS.offset) == r::NOT_READY);
	CHECK(f.bar.read<std::uint32_t>(r::NOT_READY_COUNT.offset) == 1);

	f.bar.write<std::uint32_t>(r::INVOKE_TIMEOUT.offset, 250);   // 1 us
	f.bar.write<std::uint32_t>(r::INVOKE_DELAY.offset, 2500);    // 10 us
	f.bar.write<std::uint64_t>(r::REQ.offset, 42);
	f.ring(8);
	auto t0 = f.link.now_ns();
	CHECK(f.bar.read<std::uint64_t>(r::INVOKE_STATUS.offset) == r::NOT_READY);
	const auto waited = f.link.now_ns() - t0;
	CHECK(waited >= 1000); // held for the timeout, then answered
	CHECK(waited < 3000);
	CHECK(f.bar.read<std::uint32_t>(r::NOT_READY_COUNT.offset) == 2);
	// Later the result is there.
	f.link.cpu_spend(20000);
	const auto s = f.bar.read<std::uint64_t>(r::INVOKE_STATUS.offset);
	CHECK((s & r::STATUS_DONE));
	CHECK(f.bar.read<std::uint64_t>(r::RESP.offset) == 42);
}

TEST_CASE("malformed doorbells and writes to read-only registers are dropped", "[sim][pio_dev]")
{
	fixture f;
	const auto before = f.model.ignored_writes();
	f.ring(0);                           // length 0
	f.ring(r::MAX_PAYLOAD + 1);          // too long
	f.ring(8, 9);                        // unknown op
	f.bar.write<std::uint32_t>(r::ID.offset, 0); // read-only
	f.bar.write<std::uint32_t>(r::DOORBELL.offset, 8); // doorbell takes 64-bit writes only
	CHECK(f.bar.read<std::uint32_t>(r::ID.offset) == r::id_value);
	CHECK(f.model.ignored_writes() == before + 5);
	CHECK(f.bar.read<std::uint32_t>(r::INVOKE_COUNT.offset) == 0);
}

TEST_CASE("BRAM window keeps what was written", "[sim][pio_dev]")
{
	fixture f;
	std::vector<std::uint8_t> in(4096), out(4096);
	for (std::size_t i = 0; i < in.size(); ++i)
		in[i] = static_cast<std::uint8_t>(i ^ 0x5a);
	f.bar.copy_to(r::BRAM.offset + r::BRAM.size - 4096, in.data(), in.size());
	f.bar.copy_from(r::BRAM.offset + r::BRAM.size - 4096, out.data(), out.size());
	CHECK(in == out);
}

TEST_CASE("a doorbell while the invoke unit computes is dropped, as in the RTL", "[pio_dev]")
{
	namespace r = pioc::regs::pio_dev;
	pioc::sim::pio_dev dev;
	const std::uint64_t req = 0x1122334455667788ull;
	dev.posted_write(0, r::REQ.offset, &req, 8, 1000);
	const std::uint32_t delay = 1000; // cycles: keeps the unit busy for 4 us
	dev.posted_write(0, r::INVOKE_DELAY.offset, &delay, 4, 1000);
	const std::uint64_t first = 8, second = 16 | (std::uint64_t(r::OP_NOT) << 32);
	dev.posted_write(0, r::DOORBELL.offset, &first, 8, 2000);
	dev.posted_write(0, r::DOORBELL.offset, &second, 8, 2004); // unit still busy
	CHECK(dev.ignored_writes() == 1);
	std::uint64_t status = 0;
	const std::uint64_t t = dev.read(0, r::INVOKE_STATUS.offset, &status, 8, 2008);
	CHECK(t > 2008);
	CHECK((status & r::STATUS_DONE));
	CHECK((status & r::STATUS_LEN_MASK) == 8); // the first invocation, not the second
	std::uint64_t resp = 0;
	dev.read(0, r::RESP.offset, &resp, 8, t);
	CHECK(resp == req); // echo, not NOT
	// Once done, the next doorbell is taken.
	dev.posted_write(0, r::DOORBELL.offset, &second, 8, t + 10);
	CHECK(dev.ignored_writes() == 1);
}

TEST_CASE("CAPS reports invoke, BRAM and Bloom as the register map declares", "[pio_dev]")
{
	namespace r = pioc::regs::pio_dev;
	pioc::sim::pio_dev dev;
	std::uint32_t caps = 0;
	dev.read(0, r::CAPS.offset, &caps, 4, 0);
	CHECK(caps == (r::CAP_INVOKE | r::CAP_BRAM | r::CAP_BLOOM));
	CHECK(caps == r::CAPS.reset);
}
