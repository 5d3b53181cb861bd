// xdma::prepared_run against the engine model: every run moves its bytes;
// the channel is held (submit, a second prepared run and a mode change are
// refused) and free again afterwards; an engine error, a hung engine and a
// vanished function come out as channel_ops' errors, and the next run works.
#include <pioc/device.hpp>
#include <pioc/sim/xdma_control.hpp>
#include <pioc/xdma/prepared_run.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

using namespace pioc;
using namespace pioc::xdma;

namespace {

struct held {
	device dev = device::open("sim:xdma");
	dma x;
	dma_buffer buf = dev.alloc_dma(1 << 16);
	explicit held(options o = {}) : x(dev, o) {}
	sim_control &model() { return *sim::xdma_control(dev); }
	bool card_holds(std::uint64_t card, std::uint64_t off, std::size_t len)
	{
		std::vector<std::uint8_t> v(len);
		model().card_read(card, v.data(), len);
		return std::memcmp(v.data(), static_cast<std::uint8_t *>(buf.cpu) + off, len) == 0;
	}
	void fill(unsigned seed)
	{
		std::mt19937 g(seed);
		for (std::size_t i = 0; i < buf.size; ++i)
			static_cast<std::uint8_t *>(buf.cpu)[i] = std::uint8_t(g());
	}
	/** @p f(run, io) with a prepared run of @p q on @p ch. */
	template <class F> void with_run(channel &ch, request &q, F &&f)
	{
		x.config().visit([&](const auto &io) {
			prepared_run<std::decay_t<decltype(io)>> run(ch, io, q);
			f(run, io);
		});
	}
};

} // namespace

TEST_CASE("prepared_run: every run moves its bytes, H2C and C2H, one and several descriptors")
{
	options o;
	o.max_segment = 4096; // 12 KiB: three descriptors
	held h(o);
	for (bool c2h : {false, true}) {
		auto &ch = c2h ? h.x.c2h(0) : h.x.h2c(0);
		for (std::uint64_t len : {64ull, 4096ull, 12288ull}) {
			INFO((c2h ? "C2H " : "H2C ") << len);
			auto &q = ch.prepare(h.buf, 256, len, 0x10000);
			h.with_run(ch, q, [&](auto &run, auto &) {
				for (unsigned i = 0; i < 5; ++i) {
					h.fill(i * 7 + len);
					if (c2h) // the card holds the pattern, the run brings it back
						h.model().card_write(0x10000, static_cast<std::uint8_t *>(h.buf.cpu) + 256, len);
					std::vector<std::uint8_t> want(static_cast<std::uint8_t *>(h.buf.cpu) + 256,
								       static_cast<std::uint8_t *>(h.buf.cpu) + 256 + len);
					if (c2h)
						std::memset(static_cast<std::uint8_t *>(h.buf.cpu) + 256, 0, len);
					run.start();
					run.wait();
					CHECK(std::memcmp(static_cast<std::uint8_t *>(h.buf.cpu) + 256, want.data(), len) == 0);
					CHECK(h.card_holds(0x10000, 256, len));
				}
			});
		}
	}
}

TEST_CASE("prepared_run: the channel is held while it lives, free afterwards")
{
	held h;
	auto &ch = h.x.h2c(0);
	auto &q = ch.prepare(h.buf, 0, 4096, 0);
	auto &other = ch.prepare(h.buf, 4096, 64, 0x8000);
	h.with_run(ch, q, [&](auto &run, const auto &io) {
		using IO = std::decay_t<decltype(io)>;
		CHECK_THROWS_WITH(ch.ops(io).submit(other), Catch::Contains("held by a prepared_run"));
		CHECK_THROWS_WITH(prepared_run<IO>(ch, io, other), Catch::Contains("already held"));
		CHECK_THROWS_WITH(ch.set_completion(completion::count), Catch::Contains("completion mode"));
		run.start();
		run.wait();
	});
	ch.transfer(h.buf, 4096, 64, 0x8000); // free again
	CHECK(h.card_holds(0x8000, 4096, 64));
	// Refused up front: another completion mode, phase timing.
	ch.set_completion(completion::count);
	h.x.config().visit([&](const auto &io) {
		using IO = std::decay_t<decltype(io)>;
		CHECK_THROWS_WITH(prepared_run<IO>(ch, io, q), Catch::Contains("needs write-back completion"));
		ch.set_completion(completion::writeback);
		ch.time_phases(true);
		CHECK_THROWS_WITH(prepared_run<IO>(ch, io, q), Catch::Contains("times phases"));
		ch.time_phases(false);
	});
}

TEST_CASE("prepared_run: errors, a hung engine and a vanished function are channel_ops' errors; then it runs on")
{
	options o;
	o.timeout_ns = 200'000; // simulated
	held h(o);
	struct fault_case {
		fault f;
		errc code;
		const char *says;
	};
	const fault_case cases[] = {{fault::read_error, errc::device_error, "read_error"},
				    {fault::desc_error, errc::device_error, "desc_error"},
				    {fault::bad_magic, errc::device_error, "magic_stopped"},
				    {fault::stuck, errc::timeout, "hung engine"},
				    {fault::removed, errc::device_gone, "the device is gone"}};
	auto &ch = h.x.h2c(1);
	auto &q = ch.prepare(h.buf, 0, 4096, 0x4000);
	h.with_run(ch, q, [&](auto &run, auto &) {
		for (const auto &fc : cases) {
			INFO(to_string(fc.f));
			h.model().inject(false, 1, fc.f);
			run.start();
			try {
				run.wait();
				FAIL("the run completed");
			} catch (const pioc::error &e) {
				CHECK(e.code() == fc.code);
				CHECK_THAT(std::string(e.what()), Catch::Contains(fc.says));
				CHECK_THAT(std::string(e.what()), Catch::Contains("sim:xdma H2C1"));
			}
			if (fc.f == fault::removed)
				h.x.function_reset(); // a new function: the held request stays the target
			h.fill(unsigned(fc.f));
			run.start();
			run.wait();
			CHECK(h.card_holds(0x4000, 0, 4096));
		}
	});
}
