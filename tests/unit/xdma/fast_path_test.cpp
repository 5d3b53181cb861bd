// The timed path of channel_ops (submit, wait) takes an inline path for the
// common case (idle engine, one request whose chain ends in STOP, write-back
// mode, no phase times) and hands every other case out of line. These cases
// are the ones the inline path must not get wrong: a request an earlier run
// chained past, a wait on a request queued behind a run, phase times, and a
// request submitted twice. (bench.xdma_instructions runs the inline path on
// the hardware I/O view.)
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/sim/pcie_link.hpp>
#include <pioc/xdma/xdma.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

using namespace pioc;
using namespace pioc::xdma;

namespace {
constexpr std::uint64_t card0 = 0x40000, block = 4096;

void fill(void *p, std::size_t n, std::uint8_t seed)
{
	auto *b = static_cast<std::uint8_t *>(p);
	for (std::size_t i = 0; i < n; ++i)
		b[i] = static_cast<std::uint8_t>(seed + i * 13);
}

/** Card bytes [card, card + n) read back through C2H channel 0. */
std::vector<std::uint8_t> card_bytes(device &dev, dma &x, std::uint64_t card, std::size_t n)
{
	auto back = dev.alloc_dma(n);
	x.c2h(0).transfer(back, 0, n, card);
	const auto *p = static_cast<const std::uint8_t *>(back.cpu);
	return {p, p + n};
}
bool card_holds(device &dev, dma &x, std::uint64_t card, const void *want, std::size_t n)
{
	return std::memcmp(card_bytes(dev, x, card, n).data(), want, n) == 0;
}

/** sim:xdma with H2C0 in write-back mode and one block of DMA buffer. */
struct one_channel {
	device dev = device::open("sim:xdma");
	dma x{dev};
	dma_buffer buf = dev.alloc_dma(block);
	channel &ch = x.h2c(0);
	one_channel() { ch.set_completion(completion::writeback); }
};
} // namespace

TEST_CASE("a request an earlier run chained past runs alone later, ending at its own STOP")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(3 * block);
	fill(buf.cpu, 3 * block, 1);
	auto &ch = x.h2c(0);
	ch.set_completion(completion::writeback);
	std::vector<request *> q;
	for (unsigned i = 0; i < 3; ++i)
		q.push_back(&ch.prepare(buf, i * block, block, card0 + i * block));
	x.config().visit([&](const auto &io) {
		auto ops = ch.ops(io);
		for (auto *r : q)
			ops.submit(*r); // q[1] and q[2] queue behind q[0] and run chained
		ops.wait(*q[2]);
		for (auto *r : q)
			REQUIRE(r->done());
		// New bytes for q[1] and q[2]; only q[1] runs. Were its STOP not
		// restored, the engine would follow its next pointer into q[2].
		fill(static_cast<std::uint8_t *>(buf.cpu) + block, 2 * block, 99);
		const auto runs = ch.runs();
		ops.submit(*q[1]);
		ops.wait(*q[1]);
		CHECK(q[1]->done());
		CHECK(ch.runs() == runs + 1);
	});
	auto *b = static_cast<const std::uint8_t *>(buf.cpu);
	CHECK(card_holds(dev, x, card0 + block, b + block, block));
	// q[2]'s card bytes are still those of the first round.
	std::vector<std::uint8_t> first(3 * block);
	fill(first.data(), 3 * block, 1);
	CHECK(card_holds(dev, x, card0 + 2 * block, first.data() + 2 * block, block));
	CHECK(ch.recoveries() == 0);
}

TEST_CASE("wait on a request queued behind a run waits for both runs")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(2 * block);
	fill(buf.cpu, 2 * block, 5);
	for (completion mode : {completion::writeback, completion::count}) {
		INFO(to_string(mode));
		auto &ch = x.h2c(1);
		ch.set_completion(mode);
		ch.release_all();
		auto &a = ch.prepare(buf, 0, block, card0);
		auto &b = ch.prepare(buf, block, block, card0 + block);
		x.config().visit([&](const auto &io) {
			auto ops = ch.ops(io);
			ops.submit(a);
			ops.submit(b);
			CHECK(b.status() == request::state::queued);
			ops.wait(b);
			CHECK(a.done());
			CHECK(b.done());
		});
		CHECK(card_holds(dev, x, card0, buf.cpu, 2 * block));
	}
}

TEST_CASE("phase times are taken only when asked for")
{
	one_channel t;
	auto &ch = t.ch;
	ch.transfer(t.buf, 0, block, card0);
	CHECK(ch.last_phases().complete_ns == 0);
	CHECK(ch.last_phases().doorbell_ns == 0);
	ch.time_phases(true);
	ch.transfer(t.buf, 0, block, card0);
	CHECK(ch.last_phases().complete_ns > 0); // SIMULATED ns
	CHECK(ch.last_phases().doorbell_ns > 0);
}

TEST_CASE("a request in flight cannot be submitted again")
{
	one_channel t;
	auto &q = t.ch.prepare(t.buf, 0, block, card0);
	t.x.config().visit([&](const auto &io) {
		auto ops = t.ch.ops(io);
		ops.submit(q);
		errc code = errc::ok;
		try {
			ops.submit(q);
		} catch (const error &e) {
			code = e.code();
		}
		CHECK(code == errc::invalid_argument);
		ops.wait(q);
		CHECK(q.done());
	});
}

// In simulation, wait() spends at once the polls that can see nothing new
// (sim_io::idle_polls: before the model's next event and before the
// channel's next status look or timeout). They must be exactly the polls
// the same wait makes one by one: every TLP at the same simulated time,
// the status-register looks every 20 us of a long run included. The sizes
// step the write-back's landing across the fourth look's round trip: a
// landing during the look is in host memory before the next poll, which
// then must not skip.
TEST_CASE("a wait spends its unchanged polls at once, with every TLP where polling one by one puts it")
{
	struct outcome {
		std::uint64_t end_ns = 0, spent = 0;
		std::vector<sim::tlp> tlps;
	};
	auto run = [](std::size_t size, bool skip) {
		device dev = device::open("sim:xdma");
		dma x(dev);
		auto buf = dev.alloc_dma(size);
		auto &ch = x.h2c(0);
		ch.set_completion(completion::writeback);
		request &r = ch.prepare(buf, 0, size, card0);
		sim::pcie_link &link = *dev.sim_link();
		link.set_poll_skipping(skip);
		outcome o;
		link.set_trace([&o](const sim::tlp &t) { o.tlps.push_back(t); });
		const std::uint64_t spent = link.stats().polls_spent;
		x.config().visit([&](const auto &io) {
			auto ops = ch.ops(io);
			ops.submit(r);
			ops.wait(r);
			o.end_ns = io.now_ns();
		});
		o.spent = link.stats().polls_spent - spent;
		link.set_trace(nullptr);
		return o;
	};
	auto same = [](const sim::tlp &a, const sim::tlp &b) {
		return a.type == b.type && a.bar == b.bar && a.offset == b.offset && a.length == b.length && a.time_ns == b.time_ns;
	};
	// 1 MiB takes about 81 us at Gen3 x16 (looks at 20, 40, 60, 80 us);
	// 2 KiB steps move the landing by about 160 ns, a look takes ~500.
	for (std::size_t size = (1u << 20) - (48u << 10); size <= (1u << 20) + (16u << 10); size += 2048) {
		const outcome skipped = run(size, true), one_by_one = run(size, false);
		CAPTURE(size, skipped.end_ns, one_by_one.end_ns, skipped.tlps.size(), one_by_one.tlps.size());
		CHECK(one_by_one.spent == 0);
		CHECK(skipped.spent > 1000);
		CHECK(skipped.end_ns == one_by_one.end_ns);
		REQUIRE(skipped.tlps.size() == one_by_one.tlps.size());
		CHECK(std::equal(skipped.tlps.begin(), skipped.tlps.end(), one_by_one.tlps.begin(), same));
		CHECK(skipped.tlps.size() >= 5); // doorbell, status looks
	}
}
