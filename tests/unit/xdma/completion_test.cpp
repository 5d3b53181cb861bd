// Completion and interrupt semantics as PG195 documents them, checked on the
// engine model at register level (so the model can disagree with the
// driver), then the driver against them: the completed count is the truth,
// a stale BUSY is tolerated, no completion is lost.
#include "sim/xdma/xdma_dev.hpp"
#include "transport/sim_transport.hpp"

#include <pioc/device.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <unistd.h>
#include <vector>

using namespace pioc;
using namespace pioc::xdma;
namespace r = pioc::regs::xdma;

namespace {

/** The simulated XDMA behind @p x (its error injection and card memory). */
pioc::xdma::sim_control *model(pioc::xdma::dma &x)
{
	return pioc::sim::xdma_control(x.dev());
}

/** sim:xdma with @p c's shape (alignment, stream engines ...). */
device open_model(sim::xdma_config c)
{
	pioc::detail::sim_device_entry e{"xdma_test", "XDMA model, test configuration", 0x10ee, 0x903f,
				   [c] { return std::make_unique<sim::xdma_dev>(c); }, false};
	return device(pioc::detail::open_sim(e, "pc-gen3x16"));
}

/** Runs the chain at @p h on channel 0 by hand: SGDMA registers, control =
 *  @p ctrl | run, then polls the completed count (each read advances the
 *  simulated clock). Returns the completed count reached. */
std::uint32_t run_raw(dma &x, bool c2h, const chain_head &h, std::uint32_t ctrl)
{
	const region &cfg = x.config();
	const std::uint64_t eng = r::engine_base(c2h, 0), sg = r::sgdma_base(c2h, 0);
	cfg.write<std::uint32_t>(eng + r::ENG_CTRL, 0);
	cfg.write<std::uint32_t>(sg + r::SG_DESC_LO, std::uint32_t(h.bus));
	cfg.write<std::uint32_t>(sg + r::SG_DESC_HI, std::uint32_t(h.bus >> 32));
	cfg.write<std::uint32_t>(sg + r::SG_DESC_ADJ, h.adj);
	cfg.write<std::uint32_t>(eng + r::ENG_CTRL, ctrl | r::CTRL_RUN);
	std::uint32_t n = 0;
	for (int i = 0; i < 200 && n < h.count; ++i)
		n = cfg.read<std::uint32_t>(eng + r::ENG_COMPLETED);
	return n;
}

/** Waits (simulated time) up to @p ns for channel @p ch's eventfd. */
bool irq_within(dma &x, channel &ch, std::uint64_t ns)
{
	bool got = false;
	x.config().visit([&](const auto &io) {
		got = io.wait_interrupt(ch.eventfd(), io.now_ns() + ns);
	});
	return got;
}

} // namespace

TEST_CASE("model: 0x44 clears on read, BUSY can outlive the interrupt, one MSI-X per edge")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(4096);
	auto &ch = x.h2c(0);
	ch.set_completion(completion::interrupt);
	auto &q = ch.prepare(buf, 0, 4096, 0);
	const region &cfg = x.config();
	const std::uint64_t eng = r::engine_base(false, 0);
	x.config().visit([&](const auto &io) { ch.ops(io).submit(q); });
	REQUIRE(irq_within(x, ch, 1'000'000));
	// The interrupt is here, the run is done, and BUSY still reads 1.
	CHECK(cfg.read<std::uint32_t>(eng + r::ENG_COMPLETED) == 1);
	const std::uint32_t st = cfg.read<std::uint32_t>(eng + r::ENG_STATUS_RC);
	CHECK((st & r::ST_DESC_STOPPED));
	CHECK((st & r::ST_BUSY));
	// Read-to-clear: the logged bits are gone (BUSY is live state, not logged).
	CHECK((cfg.read<std::uint32_t>(eng + r::ENG_STATUS_RC) & ~r::ST_BUSY) == 0);
	CHECK((cfg.read<std::uint32_t>(r::irq_base + r::IRQ_CHAN_REQ) & 1) == 0);
	// Edge-triggered: the source was cleared, nothing raises it again.
	CHECK_FALSE(irq_within(x, ch, 1'000'000));
	// The stale window ends.
	CHECK((cfg.read<std::uint32_t>(eng + r::ENG_STATUS) & r::ST_BUSY) == 0);
	x.config().visit([&](const auto &io) { ch.ops(io).drain(); });
}

TEST_CASE("model: status is logged only where the ie_* bits allow; write-back needs ie_desc_completed")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(4096);
	auto &q = x.h2c(0).prepare(buf, 0, 4096, 0);
	const region &cfg = x.config();
	const std::uint64_t eng = r::engine_base(false, 0);
	REQUIRE(run_raw(x, false, q.head(), r::IE_DESC_STOPPED | r::IE_DESC_COMPLETED) == 1);
	CHECK((cfg.read<std::uint32_t>(eng + r::ENG_STATUS) & (r::ST_DESC_STOPPED | r::ST_DESC_COMPLETED)) ==
	      (r::ST_DESC_STOPPED | r::ST_DESC_COMPLETED));
	REQUIRE(run_raw(x, false, q.head(), 0) == 1);
	CHECK((cfg.read<std::uint32_t>(eng + r::ENG_STATUS) & ~r::ST_BUSY) == 0);
	// An error with its ie_* bit clear stops the engine but logs nothing.
	model(x)->inject(false, 0, fault::bad_magic);
	CHECK(run_raw(x, false, q.head(), r::IE_DESC_STOPPED) == 0);
	CHECK((cfg.read<std::uint32_t>(eng + r::ENG_STATUS) & r::ST_MAGIC_STOPPED) == 0);
	model(x)->inject(false, 0, fault::bad_magic);
	CHECK(run_raw(x, false, q.head(), r::IE_MAGIC_STOPPED) == 0);
	CHECK((cfg.read<std::uint32_t>(eng + r::ENG_STATUS) & r::ST_MAGIC_STOPPED));
	cfg.write<std::uint32_t>(eng + r::ENG_CTRL, 0);
}

TEST_CASE("model: C2H has no write_error bits; the config block's MSI/MSI-X state is read-only")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	const region &cfg = x.config();
	for (bool c2h : {false, true}) {
		const std::uint64_t eng = r::engine_base(c2h, 1);
		cfg.write<std::uint32_t>(eng + r::ENG_CTRL, ~r::CTRL_RUN);
		cfg.write<std::uint32_t>(eng + r::ENG_IRQ_MASK, ~0u);
		INFO((c2h ? "C2H" : "H2C"));
		CHECK(((cfg.read<std::uint32_t>(eng + r::ENG_CTRL) & r::IE_WRITE_ERROR) != 0) == !c2h);
		CHECK(((cfg.read<std::uint32_t>(eng + r::ENG_IRQ_MASK) & r::IE_WRITE_ERROR) != 0) == !c2h);
		cfg.write<std::uint32_t>(eng + r::ENG_CTRL, 0);
	}
	// The driver's own control value has none either.
	x.c2h(0).set_completion(completion::count);
	CHECK((cfg.read<std::uint32_t>(r::engine_base(true, 0) + r::ENG_CTRL) & r::IE_WRITE_ERROR) == 0);
	CHECK(cfg.read<std::uint32_t>(r::config_base + r::CFG_MSI_EN) == r::CFG_MSIX_ENABLED);
	cfg.write<std::uint32_t>(r::config_base + r::CFG_MSI_EN, 0);
	CHECK(cfg.read<std::uint32_t>(r::config_base + r::CFG_MSI_EN) == r::CFG_MSIX_ENABLED);
	CHECK_THROWS_WITH(model(x)->inject(true, 0, fault::write_error), Catch::Contains("no write_error"));
}

TEST_CASE("model: IRQ block request = source AND enable, pending = source; enabling a raised source interrupts")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(4096);
	auto &ch = x.h2c(0);
	ch.set_completion(completion::interrupt);
	const region &cfg = x.config();
	// Channel enable off: the run's stop is pending, not requested, no MSI-X.
	cfg.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_EN_W1C, 1);
	auto &q = ch.prepare(buf, 0, 4096, 0);
	REQUIRE(run_raw(x, false, q.head(), r::IE_DESC_STOPPED | r::IE_DESC_COMPLETED) == 1);
	CHECK_FALSE(irq_within(x, ch, 100'000));
	CHECK((cfg.read<std::uint32_t>(r::irq_base + r::IRQ_CHAN_PENDING) & 1) == 1);
	CHECK((cfg.read<std::uint32_t>(r::irq_base + r::IRQ_CHAN_REQ) & 1) == 0);
	// Setting the enable while the source is up sends the interrupt.
	cfg.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_EN_W1S, 1);
	CHECK((cfg.read<std::uint32_t>(r::irq_base + r::IRQ_CHAN_REQ) & 1) == 1);
	CHECK(irq_within(x, ch, 100'000));
	(void)cfg.read<std::uint32_t>(r::engine_base(false, 0) + r::ENG_STATUS_RC);
	CHECK((cfg.read<std::uint32_t>(r::irq_base + r::IRQ_CHAN_PENDING) & 1) == 0);
	cfg.write<std::uint32_t>(r::engine_base(false, 0) + r::ENG_CTRL, 0);
}

TEST_CASE("driver: interrupt completion takes the completed count, tolerates stale BUSY, loses nothing")
{
	device dev = device::open("sim:xdma");
	dma x(dev); // 100 ms timeout: a lost interrupt would cost that and show in lost_signals()
	auto buf = dev.alloc_dma(1 << 16);
	for (bool c2h : {false, true}) {
		auto &ch = c2h ? x.c2h(0) : x.h2c(0);
		ch.set_completion(completion::interrupt);
		ch.time_phases(true);
		for (std::uint64_t size : {64ull, 4096ull, 65536ull}) {
			INFO((c2h ? "C2H " : "H2C ") << size);
			ch.transfer(buf, 0, size, 0x1000);
			CHECK(ch.last_phases().complete_ns < 50'000); // SIMULATED: the interrupt, not the timeout
		}
		// Queue depth > 1: requests chained into runs, each run's interrupt handled once.
		std::vector<request *> reqs;
		for (unsigned i = 0; i < 8; ++i)
			reqs.push_back(&ch.prepare(buf, i * 4096, 4096, 0x20000 + i * 4096));
		x.config().visit([&](const auto &io) {
			auto ops = ch.ops(io);
			for (int round = 0; round < 4; ++round) {
				for (auto *q : reqs)
					ops.submit(*q);
				ops.drain();
			}
		});
		for (auto *q : reqs)
			CHECK(q->done());
		CHECK(ch.lost_signals() == 0);
		CHECK(ch.recoveries() == 0);
	}
}

TEST_CASE("driver: an interrupt that is not the run's stop leaves the run waiting for its own")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(1 << 20);
	auto &ch = x.c2h(1);
	ch.set_completion(completion::interrupt);
	ch.time_phases(true);
	auto &q = ch.prepare(buf, 0, 1 << 20, 0);
	x.config().visit([&](const auto &io) {
		auto ops = ch.ops(io);
		ops.submit(q);
		// A wake-up before the run is done (as a stale or shared vector
		// gives): nothing logged, the count short, keep waiting.
		const std::uint64_t one = 1;
		REQUIRE(::write(ch.eventfd(), &one, sizeof one) == sizeof one);
		CHECK(ops.poll() == 0);
		CHECK(q.status() == request::state::running);
		ops.wait(q);
	});
	CHECK(q.done());
	CHECK(ch.lost_signals() == 0);
	CHECK(ch.last_phases().complete_ns < 1'000'000); // SIMULATED: its own interrupt, not the 100 ms timeout
}

TEST_CASE("driver: an error before any descriptor completes is found without a write-back")
{
	device dev = device::open("sim:xdma");
	dma x(dev); // 100 ms timeout
	auto buf = dev.alloc_dma(4096);
	auto &ch = x.h2c(0);
	ch.set_completion(completion::writeback);
	model(x)->inject(false, 0, fault::bad_magic);
	CHECK_THROWS_WITH(ch.transfer(buf, 0, 4096, 0),
			  Catch::Contains("magic_stopped") && Catch::Contains("status register") &&
				  !Catch::Contains("hung engine"));
	ch.transfer(buf, 0, 4096, 0);
	CHECK(ch.lost_signals() == 0);
}

TEST_CASE("driver: a completion whose signal is lost is finished from the count at the timeout")
{
	device dev = device::open("sim:xdma");
	options o;
	o.timeout_ns = 200'000;
	dma x(dev, o);
	auto buf = dev.alloc_dma(4096);
	auto &ch = x.h2c(0);
	ch.set_completion(completion::interrupt);
	// The vector points nowhere: the run completes, no interrupt arrives.
	x.config().write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_VEC, 31);
	ch.transfer(buf, 0, 4096, 0);
	CHECK(ch.lost_signals() == 1);
	CHECK(ch.recoveries() == 0);
}

TEST_CASE("error fields decoded per direction (PG195 H2C/C2H Channel Status)")
{
	const auto h2c_wr = decode_status(r::ERR_DECODE << r::ST_WRITE_ERROR_SHIFT, false);
	CHECK_THAT(h2c_wr, Catch::Contains("write_error") && Catch::Contains("decode error") && Catch::Contains("card"));
	const auto h2c_rd = decode_status(r::ERR_CA << r::ST_READ_ERROR_SHIFT, false);
	CHECK_THAT(h2c_rd, Catch::Contains("completer abort") && Catch::Contains("host memory"));
	const auto c2h_rd = decode_status(r::ERR_SLAVE << r::ST_READ_ERROR_SHIFT, true);
	CHECK_THAT(c2h_rd, Catch::Contains("slave error") && Catch::Contains("card") && !Catch::Contains("completer"));
	const auto c2h_wr = decode_status(1u << r::ST_WRITE_ERROR_SHIFT, true);
	CHECK_THAT(c2h_wr, Catch::Contains("does not have"));
	CHECK_THAT(decode_status(r::ERR_UR << r::ST_DESC_ERROR_SHIFT, true),
		   Catch::Contains("desc_error") && Catch::Contains("unsupported request"));
}

TEST_CASE("alignment is relative: host and card at the same offset modulo the engine's alignment")
{
	sim::xdma_config c;
	c.addr_align = 64;
	device dev = open_model(c);
	dma x(dev);
	CHECK(x.h2c(0).info().addr_align == 64);
	auto buf = dev.alloc_dma(8192);
	for (std::size_t i = 0; i < 8192; ++i)
		static_cast<std::uint8_t *>(buf.cpu)[i] = std::uint8_t(i * 13 + 5);
	// Neither address is 64-byte aligned, but both are 3 past it: fine.
	x.h2c(0).transfer(buf, 3, 1000, 0x1003);
	std::vector<std::uint8_t> back(1000);
	model(x)->card_read(0x1003, back.data(), back.size());
	CHECK(std::memcmp(back.data(), static_cast<std::uint8_t *>(buf.cpu) + 3, 1000) == 0);
	CHECK_THROWS_WITH(x.h2c(0).prepare(buf, 3, 1000, 0x1000),
			  Catch::Contains("H2C0") && Catch::Contains("aligned to each other") && Catch::Contains("64"));
	// The engine's own rule, on descriptors written by hand.
	auto mem = dev.alloc_dma(64);
	auto *d = static_cast<descriptor *>(mem.cpu);
	const segment same{buf.bus + 3, 0x2003, 1000}, other{buf.bus + 3, 0x2000, 1000};
	const std::uint64_t eng = r::engine_base(false, 0);
	CHECK(run_raw(x, false, build_chain(d, mem.bus, 1, std::span(&same, 1)), r::IE_ALIGN_MISMATCH) == 1);
	CHECK(run_raw(x, false, build_chain(d, mem.bus, 1, std::span(&other, 1)), r::IE_ALIGN_MISMATCH) == 0);
	CHECK((x.config().read<std::uint32_t>(eng + r::ENG_STATUS) & r::ST_ALIGN_MISMATCH));
	x.config().write<std::uint32_t>(eng + r::ENG_CTRL, 0);
}

TEST_CASE("AXI4-Stream engines are refused by prepare(), naming device, engine and the stream ring")
{
	sim::xdma_config c;
	c.stream = true;
	device dev = open_model(c);
	dma x(dev);
	CHECK(x.h2c(0).info().stream);
	auto buf = dev.alloc_dma(4096);
	CHECK_THROWS_WITH(x.h2c(0).prepare(buf, 0, 4096, 0),
			  Catch::Contains("H2C0") && Catch::Contains("AXI4-Stream") && Catch::Contains("EOP") &&
				  Catch::Contains("stream_ring"));
	CHECK_THROWS_AS(x.c2h(1).transfer(buf, 0, 64, 0), pioc::error);
}

// transfer() keeps the requests it prepared, by bus address (the
// descriptors'). On hardware an IOMMU gives a freed IOVA to the next buffer,
// which may be smaller: the request cached for the old one must not be
// reused, or its descriptors DMA past the new buffer's end without the
// bounds check prepare() makes. The same bus address with a smaller size
// stands in for that here (the simulator never reuses a bus address).
TEST_CASE("transfer() does not reuse a request cached for a larger buffer at the same bus address")
{
	device dev = open_model({});
	dma x(dev);
	auto big = dev.alloc_dma(8192);
	x.h2c(0).transfer(big, 0, 8192, 0);
	const dma_buffer smaller{big.cpu, big.bus, 4096, big.owner};
	CHECK_THROWS_WITH(x.h2c(0).transfer(smaller, 0, 8192, 0),
			  Catch::Contains("H2C0") && Catch::Contains("8192") && Catch::Contains("4096"));
	x.h2c(0).transfer(smaller, 0, 4096, 0); // within it: fine
}
