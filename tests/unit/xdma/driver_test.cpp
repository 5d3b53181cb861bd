// The XDMA driver against the engine model: every completion mode, sizes
// 1 B..4 MiB, alignments, queue depths, injected errors and recovery.
#include <pioc/device.hpp>
#include <pioc/sim/host_memory.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstring>
#include <random>
#include <vector>

using namespace pioc;
using namespace pioc::xdma;

namespace {

/** The simulated XDMA behind @p x (its error injection and card memory). */
pioc::xdma::sim_control *model(pioc::xdma::dma &x)
{
	return pioc::sim::xdma_control(x.dev());
}
void fill(void *p, std::size_t n, unsigned seed)
{
	std::mt19937 g(seed);
	auto *b = static_cast<std::uint8_t *>(p);
	for (std::size_t i = 0; i < n; ++i)
		b[i] = std::uint8_t(g());
}
/** Card addresses [addr, addr+len) equal @p p (copied out through sim_control). */
bool card_equals(dma &x, std::uint64_t addr, const void *p, std::size_t len)
{
	std::vector<std::uint8_t> v(len);
	model(x)->card_read(addr, v.data(), len);
	return std::memcmp(v.data(), p, len) == 0;
}
} // namespace

TEST_CASE("discovery: config BAR, engines, MPS/MRRS")
{
	device dev = device::open("sim:xdma");
	CHECK(find_config_bar(dev) == 1);
	dma x(dev);
	CHECK(x.config_bar() == 1);
	CHECK(x.h2c_count() == 2);
	CHECK(x.c2h_count() == 2);
	CHECK(x.mps() == 256);
	CHECK(x.mrrs() == 512);
	CHECK(model(x) != nullptr);
	CHECK(x.h2c(1).name() == "sim:xdma H2C1");
	CHECK_FALSE(x.c2h(0).info().stream);
	CHECK_THROWS_WITH(x.h2c(2), Catch::Contains("no H2C channel 2"));
	// A BAR that is not the config BAR is refused with a reason.
	options o;
	o.config_bar = 0;
	CHECK_THROWS_AS(dma(dev, o), pioc::error);
	// PIO device: no XDMA.
	device pio = device::open("sim:pio");
	CHECK_THROWS_WITH(dma(pio), Catch::Contains("no XDMA config BAR"));
}

TEST_CASE("simulated DMA buffers have bus addresses that are not CPU addresses")
{
	device dev = device::open("sim:xdma");
	auto b = dev.alloc_dma(8192);
	CHECK(b.bus != reinterpret_cast<std::uintptr_t>(b.cpu));
	CHECK(sim::host_memory::instance().translate(b.bus, 8192) == b.cpu);
	CHECK(sim::host_memory::instance().translate(b.bus + 8192, 64 * 1024) == nullptr);
	const std::uint64_t bus = b.bus;
	b = {};
	CHECK(sim::host_memory::instance().translate(bus, 1) == nullptr);
}

TEST_CASE("round trips in every completion mode, sizes 1 B .. 4 MiB")
{
	device dev = device::open("sim:xdma");
	options o;
	o.max_segment = 256 * 1024; // 4 MiB -> 16 descriptors
	dma x(dev, o);
	auto src = dev.alloc_dma(4 << 20 | 4096);
	auto dst = dev.alloc_dma(4 << 20 | 4096);
	for (completion mode : {completion::writeback, completion::count, completion::interrupt}) {
		x.h2c(0).set_completion(mode);
		x.c2h(0).set_completion(mode);
		for (std::uint64_t size : {1ull, 3ull, 64ull, 4095ull, 4096ull, 4097ull, 65536ull + 7, 1ull << 20,
					   4ull << 20}) {
			for (std::uint64_t off : {0ull, 1ull, 7ull, 4093ull}) {
				if (size >= (1u << 20) && off != 0 && off != 7)
					continue;
				INFO(to_string(mode) << " size " << size << " offset " << off);
				fill(static_cast<char *>(src.cpu) + off, size, unsigned(size + off));
				std::memset(dst.cpu, 0, size + off + 1);
				const std::uint64_t card = 0x100000 + off * 3;
				x.h2c(0).transfer(src, off, size, card);
				REQUIRE(card_equals(x, card, static_cast<char *>(src.cpu) + off, size));
				x.c2h(0).transfer(dst, off + 1, size, card);
				REQUIRE(std::memcmp(static_cast<char *>(dst.cpu) + off + 1,
						    static_cast<char *>(src.cpu) + off, size) == 0);
				CHECK(static_cast<char *>(dst.cpu)[off] == 0); // nothing before the window
			}
		}
		x.h2c(0).release_all();
		x.c2h(0).release_all();
	}
}

TEST_CASE("several requests in flight are chained into runs")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(64 * 4096);
	fill(buf.cpu, 64 * 4096, 7);
	for (completion mode : {completion::writeback, completion::count, completion::interrupt}) {
		auto &ch = x.h2c(1);
		ch.set_completion(mode);
		ch.release_all();
		std::vector<request *> reqs;
		for (unsigned i = 0; i < 16; ++i)
			reqs.push_back(&ch.prepare(buf, i * 4096, 4096, 0x200000 + i * 8192));
		const auto runs0 = ch.runs();
		x.config().visit([&](const auto &io) {
			auto ops = ch.ops(io);
			for (int round = 0; round < 3; ++round) {
				for (auto *q : reqs)
					ops.submit(*q);
				std::size_t done = 0;
				while (done < reqs.size())
					done += ops.poll();
				for (auto *q : reqs)
					REQUIRE(q->done());
			}
		});
		INFO(to_string(mode));
		// First request alone, the other 15 chained: 2 runs per round.
		CHECK(ch.runs() - runs0 == 6);
		for (unsigned i = 0; i < 16; ++i)
			CHECK(card_equals(x, 0x200000 + i * 8192, static_cast<char *>(buf.cpu) + i * 4096, 4096));
	}
}

TEST_CASE("prepare refuses bad transfers with clear messages")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(4096);
	auto &ch = x.h2c(0);
	CHECK_THROWS_WITH(ch.prepare(buf, 4000, 200, 0),
			  Catch::Contains("sim:xdma H2C0") && Catch::Contains("200 bytes") &&
				  Catch::Contains("0xfa0") && Catch::Contains("past the end"));
	CHECK_THROWS_WITH(ch.prepare(buf, 0, 0, 0), Catch::Contains("0 bytes"));
	options o;
	o.ring_descriptors = 4;
	o.max_segment = 1024;
	dma small(dev, o);
	small.c2h(0).prepare(buf, 0, 3072, 0); // 3 of 4 slots
	CHECK_THROWS_WITH(small.c2h(0).prepare(buf, 0, 1025, 0), Catch::Contains("needs 2 descriptors"));
}

namespace {
struct fault_case {
	fault f;
	const char *expect;
};
} // namespace

TEST_CASE("every injected error gives its message and a recovered engine")
{
	device dev = device::open("sim:xdma");
	options o;
	o.timeout_ns = 200'000; // simulated
	dma x(dev, o);
	auto buf = dev.alloc_dma(1 << 16);
	fill(buf.cpu, 1 << 16, 3);
	const fault_case cases[] = {
		{fault::bad_magic, "magic_stopped"},  {fault::misalign, "align_mismatch"},
		{fault::read_error, "read_error"},    {fault::write_error, "write_error"},
		{fault::desc_error, "desc_error"},    {fault::stuck, "hung engine"},
	};
	for (completion mode : {completion::writeback, completion::count, completion::interrupt}) {
		for (bool c2h : {false, true}) {
			auto &ch = c2h ? x.c2h(1) : x.h2c(1);
			ch.set_completion(mode);
			for (const auto &fc : cases) {
				if (c2h && fc.f == fault::write_error)
					continue; // C2H has no write_error (completion_test)
				INFO(to_string(mode) << (c2h ? " C2H " : " H2C ") << to_string(fc.f));
				model(x)->inject(c2h, 1, fc.f);
				try {
					ch.transfer(buf, 512, 4096, 0x4000);
					FAIL("no error");
				} catch (const pioc::error &e) {
					const std::string m = e.what();
					CHECK_THAT(m, Catch::Contains(fc.expect));
					CHECK_THAT(m, Catch::Contains(c2h ? "sim:xdma C2H1" : "sim:xdma H2C1"));
					CHECK_THAT(m, Catch::Contains("4096 bytes"));
					CHECK_THAT(m, Catch::Contains("ready for the next transfer"));
					CHECK(e.code() == (fc.f == fault::stuck ? errc::timeout : errc::device_error));
				}
				// Recovered: the same request works at once.
				ch.transfer(buf, 512, 4096, 0x4000);
				CHECK(card_equals(x, 0x4000, static_cast<char *>(buf.cpu) + 512, 4096));
			}
		}
	}
	CHECK(x.h2c(1).recoveries() == 18);
	CHECK(x.c2h(1).recoveries() == 15);
}

TEST_CASE("a function that goes away mid-run is device_gone in every mode, never a completed run")
{
	// Hot-unplug, or the vfio-user server dying under a guest: registers
	// read all-ones from then on. All-ones is a completed count beyond any
	// run, every error bit and BUSY: read as the engine's answer it either
	// "completes" the run with no data moved (count mode) or reports engine
	// errors and a stuck engine that needs a reset.
	device dev = device::open("sim:xdma");
	options o;
	o.timeout_ns = 200'000; // simulated
	dma x(dev, o);
	auto buf = dev.alloc_dma(8192);
	fill(buf.cpu, 8192, 5);
	for (completion mode : {completion::writeback, completion::count, completion::interrupt}) {
		for (bool c2h : {false, true}) {
			INFO(to_string(mode) << (c2h ? " C2H" : " H2C"));
			auto &ch = c2h ? x.c2h(0) : x.h2c(0);
			ch.set_completion(mode);
			model(x)->inject(c2h, 0, fault::removed);
			try {
				ch.transfer(buf, 0, 4096, 0x8000);
				FAIL("a transfer to a removed function completed");
			} catch (const pioc::error &e) {
				const std::string m = e.what();
				CHECK(e.code() == errc::device_gone);
				CHECK_THAT(m, Catch::Contains(c2h ? "sim:xdma C2H0" : "sim:xdma H2C0"));
				CHECK_THAT(m, Catch::Contains("all-ones"));
				CHECK_THAT(m, Catch::Contains("the device is gone"));
				CHECK_THAT(m, !Catch::Contains("function reset"));
			}
			// A new function (FLR, or a new server) works again.
			x.function_reset();
			ch.transfer(buf, 0, 4096, 0x8000);
		}
	}
}

TEST_CASE("an engine that ignores stop needs a function reset, then works")
{
	device dev = device::open("sim:xdma");
	options o;
	o.timeout_ns = 100'000;
	dma x(dev, o);
	auto buf = dev.alloc_dma(4096);
	model(x)->inject(false, 0, fault::stuck_hard);
	CHECK_THROWS_WITH(x.h2c(0).transfer(buf, 0, 64, 0), Catch::Contains("function reset"));
	x.function_reset();
	x.h2c(0).transfer(buf, 0, 64, 0);
	CHECK(card_equals(x, 0, buf.cpu, 64));
}

TEST_CASE("a bad bus address is an error, not a crash")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	dma_buffer fake;
	std::vector<char> mem(4096);
	fake.cpu = mem.data();
	fake.bus = 0xdead'0000; // no such DMA buffer
	fake.size = mem.size();
	CHECK_THROWS_WITH(x.h2c(0).transfer(fake, 0, 128, 0),
			  Catch::Contains("read_error") && Catch::Contains("unsupported request"));
	// C2H writes to the host are posted: the host drops them and the engine,
	// which has no write_error, completes the descriptor.
	CHECK_NOTHROW(x.c2h(0).transfer(fake, 0, 128, 0));
	// Card memory out of range: refused by prepare() with device, address, size and limit ...
	auto buf = dev.alloc_dma(4096);
	const std::uint64_t lim = model(x)->card_memory_size();
	CHECK_THROWS_WITH(x.h2c(0).transfer(buf, 0, 128, lim - 64),
			  Catch::Contains("sim:xdma H2C0") && Catch::Contains("128 bytes") &&
				  Catch::Contains(fmt::format("{:#x}", lim - 64)) &&
				  Catch::Contains(fmt::format("{}-byte", lim)));
	CHECK_THROWS_AS(model(x)->card_read(lim - 8, buf.cpu, 16), pioc::error);
	x.h2c(0).transfer(buf, 0, 128, 0);
}

TEST_CASE("unchecked by the driver, a card address out of range is an engine error")
{
	device dev = device::open("sim:xdma");
	options o;
	o.card_size = ~0ull;
	dma y(dev, o);
	auto buf = dev.alloc_dma(4096);
	const std::uint64_t lim = model(y)->card_memory_size();
	// Both are the AXI side: C2H reads the card, H2C writes it (DECERR).
	CHECK_THROWS_WITH(y.c2h(0).transfer(buf, 0, 128, lim - 64),
			  Catch::Contains("read_error") && Catch::Contains("decode error"));
	CHECK_THROWS_WITH(y.h2c(0).transfer(buf, 0, 128, lim - 64),
			  Catch::Contains("write_error") && Catch::Contains("decode error"));
	y.h2c(0).transfer(buf, 0, 128, 0);
}

TEST_CASE("interrupts of several channels through io_uring", "[native]")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	auto buf = dev.alloc_dma(8192);
	auto &a = x.h2c(0), &b = x.c2h(1);
	a.set_completion(completion::interrupt);
	b.set_completion(completion::interrupt);
	auto &ra = a.prepare(buf, 0, 4096, 0);
	auto &rb = b.prepare(buf, 4096, 4096, 0x10000);
	irq_group g(x, {&a, &b});
	x.config().visit([&](const auto &io) {
		auto oa = a.ops(io);
		auto ob = b.ops(io);
		oa.submit(ra);
		ob.submit(rb);
	});
	std::vector<channel *> fired;
	for (int i = 0; i < 4 && fired.size() < 2; ++i)
		for (auto *c : g.wait(10'000'000))
			fired.push_back(c);
	CHECK(fired.size() == 2);
	CHECK(g.wait(50'000).empty()); // nothing more: times out
}

TEST_CASE("alignment rules from the engine are enforced before submission")
{
	device dev = device::open("sim:xdma");
	dma x(dev);
	// The default model allows any alignment; rules come from the alignment register.
	CHECK(x.h2c(0).info().addr_align == 1);
	CHECK(x.h2c(0).info().len_granularity == 1);
	CHECK(x.h2c(0).info().addr_bits == 64);
}

TEST_CASE("a link preset applies to the engines' DMA: 64 KiB take twice as long on Enzian's gen3 x8")
{
	// Simulated ns of one H2C transfer of 64 KiB from host memory, as the CPU sees it.
	auto h2c_ns = [](const char *spec) {
		device dev = device::open(spec);
		dma x(dev);
		auto src = dev.alloc_dma(64 << 10);
		region bar = dev.map(x.config_bar(), mem_type::uc);
		double ns = 0;
		bar.visit([&](const auto &io) {
			const double t0 = double(io.now_ns());
			x.h2c(0).transfer(src, 0, 64 << 10, 0x100000);
			ns = double(io.now_ns()) - t0;
		});
		return ns;
	};
	const double pc = h2c_ns("sim:xdma"), enzian = h2c_ns("sim:xdma@enzian-gen3x8");
	INFO("pc-gen3x16 " << pc << " ns, enzian-gen3x8 " << enzian << " ns");
	// Half the lanes: the data's 64 KiB take twice the wire time (about 5 us
	// more at gen3), and every round trip 2 x 230 ns more. Without the
	// preset the engines kept gen3 x16 and the two differed by the CPU's
	// MMIO alone (a few hundred ns).
	CHECK(enzian > 1.7 * pc);
	CHECK(enzian - pc > 4000);
}
