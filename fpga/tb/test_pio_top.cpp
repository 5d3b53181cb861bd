// Testbench of the PIO image (pio_top): register map, block-RAM window,
// invoke unit (all ops against the C++ reference, including the Bloom hashes
// of include/pioc/bloom_hash.hpp), the held INVOKE_STATUS read and its
// NOT_READY timeout. Random idle cycles and backpressure on every AXI channel;
// every channel is checked by a protocol checker.
#include "pio_dut.hpp"
#include "pioc/pio_ops.hpp"
#include "pioc/regs/pio_dev.hpp"

#include <algorithm>

using namespace pioc::tb;
namespace R = pioc::regs::pio_dev;

namespace {


} // namespace

TEST_CASE("handshake checker fires on injected violations", "[checker]")
{
	std::vector<std::string> errs;
	hs_checker c("X", &errs);
	c.observe(true, false, {1}, 0);
	c.observe(true, true, {1}, 1);   // fine: held until ready
	REQUIRE(errs.empty());
	c.observe(true, false, {2}, 2);
	c.observe(false, false, {2}, 3); // valid dropped
	REQUIRE(errs.size() == 1);
	c.observe(true, false, {3}, 4);
	c.observe(true, false, {4}, 5);  // payload changed
	REQUIRE(errs.size() == 2);
}

TEST_CASE("pio_top: identification and plain registers", "[pio]")
{
	pio_dut d(11);
	std::uint64_t w0 = d.r64(R::ID.offset);
	CHECK(std::uint32_t(w0) == R::id_value);
	CHECK((w0 >> 32) == ((std::uint64_t(R::version_major) << 16) | R::version_minor));
	CHECK(d.r32(R::ID.offset) == R::id_value);
	CHECK(d.r32(R::VERSION.offset) == R::VERSION.reset);
	CHECK(d.r32(R::CAPS.offset) == (R::CAP_INVOKE | R::CAP_BRAM | R::CAP_BLOOM));
	CHECK(d.r32(R::CLOCK_MHZ.offset) == R::clock_mhz);
	CHECK(d.r32(R::INVOKE_TIMEOUT.offset) == R::INVOKE_TIMEOUT.reset);
	CHECK(d.r32(R::INVOKE_DELAY.offset) == R::INVOKE_DELAY.reset);
	CHECK(d.r32(R::SCRATCH.offset) == 0);
	d.w32(R::SCRATCH.offset, 0xdeadbeef);
	CHECK(d.r32(R::SCRATCH.offset) == 0xdeadbeef);
	std::uint16_t half = 0x1234;
	d.write(R::SCRATCH.offset + 2, &half, 2);
	CHECK(d.r32(R::SCRATCH.offset) == 0x1234beef);
	// ro registers ignore writes
	d.w32(R::ID.offset, 0);
	CHECK(d.r32(R::ID.offset) == R::id_value);
	// unmapped space reads 0
	CHECK(d.r64(0x0800) == 0);
	CHECK(d.r64(0x10000) == 0);
	REQUIRE(d.errors.empty());
}

TEST_CASE("pio_top: cycle counter and its 32-bit latch", "[pio]")
{
	pio_dut d(12);
	std::uint64_t a = d.r64(R::CYCLES.offset);
	std::uint64_t b = d.r64(R::CYCLES.offset);
	CHECK(b > a);
	CHECK(b - a < 200);
	// A 32-bit read of the low half latches the high half.
	d.s.m->eval();
	std::uint32_t lo = d.r32(R::CYCLES.offset);
	std::uint32_t hi = d.r32(R::CYCLES.offset + 4);
	CHECK(hi == std::uint32_t(d.s.m->cycles >> 32));
	CHECK(lo > std::uint32_t(b));
	REQUIRE(d.errors.empty());
}

TEST_CASE("pio_top: block-RAM window against a shadow copy", "[pio][bram]")
{
	pio_dut d(13, 40);
	const std::uint64_t base = R::BRAM.offset, size = R::BRAM.size;
	std::vector<std::uint8_t> shadow(size, 0);
	d.write(base, shadow.data(), size);   // defined contents
	std::mt19937_64 rng(99);
	for (int i = 0; i < 150; ++i) {
		std::size_t len = 1 + rng() % (i % 3 ? 64 : 4096);
		std::uint64_t off = rng() % (size - len);
		if (rng() % 2) {
			std::vector<std::uint8_t> v(len);
			for (auto &x : v)
				x = std::uint8_t(rng());
			d.write(base + off, v.data(), len);
			std::copy(v.begin(), v.end(), shadow.begin() + off);
		} else {
			std::vector<std::uint8_t> v(len, 0xee);
			d.read(base + off, v.data(), len);
			REQUIRE(std::equal(v.begin(), v.end(), shadow.begin() + off));
		}
	}
	REQUIRE(d.errors.empty());
	CHECK(d.axi.c_r.beats > 1000);
}

TEST_CASE("pio_top: invocations of every op match the C++ reference", "[pio][invoke]")
{
	pio_dut d(14, 25);
	std::mt19937_64 rng(7);
	std::uint32_t seq = 0;
	const std::size_t lens[] = {1, 7, 8, 9, 64, 127, 128, 129, 1000, 4096, 8192};
	for (unsigned op : {unsigned(R::OP_ECHO), unsigned(R::OP_NOT), unsigned(R::OP_ADD1), unsigned(R::OP_BLOOM)}) {
		for (std::size_t len : lens) {
			if (len > 1000 && rng() % 2)
				continue;   // keep the run short; all sizes are covered across ops
			std::vector<std::uint8_t> req(len);
			for (auto &x : req)
				x = std::uint8_t(rng());
			d.write(R::REQ.offset, req.data(), len);
			d.w64(R::DOORBELL.offset, std::uint64_t(op) << 32 | len);
			std::uint64_t st = d.r64(R::INVOKE_STATUS.offset);
			auto ref = pioc::pio::apply(op, req.data(), req.size());
			++seq;
			INFO("op " << op << " len " << len);
			REQUIRE(st == (R::STATUS_DONE | std::uint64_t(seq) << 32 | ref.size()));
			std::vector<std::uint8_t> resp(ref.size());
			d.read(R::RESP.offset, resp.data(), resp.size());
			REQUIRE(resp == ref);
		}
	}
	CHECK(d.r32(R::INVOKE_COUNT.offset) == seq);
	CHECK(d.r32(R::NOT_READY_COUNT.offset) == 0);
	// the upper half of the last answer, without side effect
	CHECK(d.r32(R::INVOKE_STATUS.offset + 4) == (0x80000000u | seq));
	REQUIRE(d.errors.empty());
}

TEST_CASE("pio_top: the held status read, NOT_READY and odd doorbells", "[pio][invoke]")
{
	pio_dut d(15, 20);
	std::vector<std::uint8_t> req(256, 0x5a);
	d.write(R::REQ.offset, req.data(), req.size());

	SECTION("the status read is held until the result is ready")
	{
		d.w32(R::INVOKE_DELAY.offset, 3000);
		d.w64(R::DOORBELL.offset, R::OP_ECHO << 32 | 256);
		std::uint64_t st = 0;
		std::uint64_t cyc = d.timed_r64(R::INVOKE_STATUS.offset, st);
		CHECK(st == (R::STATUS_DONE | 1ULL << 32 | 256));
		CHECK(cyc > 3000);
		CHECK(cyc < 3200);
	}
	SECTION("NOT_READY after INVOKE_TIMEOUT cycles, then the result")
	{
		d.w32(R::INVOKE_TIMEOUT.offset, 500);
		d.w32(R::INVOKE_DELAY.offset, 2000);
		d.w64(R::DOORBELL.offset, R::OP_NOT << 32 | 256);
		std::uint64_t st = 0;
		std::uint64_t cyc = d.timed_r64(R::INVOKE_STATUS.offset, st);
		CHECK(st == R::NOT_READY);
		CHECK(cyc >= 500);
		CHECK(cyc < 600);
		CHECK(d.r32(R::NOT_READY_COUNT.offset) == 1);
		CHECK(d.r32(R::INVOKE_STATUS.offset + 4) == std::uint32_t(R::NOT_READY >> 32));
		st = 0;
		unsigned nr = 1;
		while ((st = d.r64(R::INVOKE_STATUS.offset)) == R::NOT_READY)
			++nr;
		CHECK(nr >= 4);
		CHECK(st == (R::STATUS_DONE | 1ULL << 32 | 256));
		// with nothing in flight the last status is answered again, at once
		CHECK(d.timed_r64(R::INVOKE_STATUS.offset, st) < 40);
		CHECK(st == (R::STATUS_DONE | 1ULL << 32 | 256));
		CHECK(d.r32(R::INVOKE_COUNT.offset) == 1);
		CHECK(d.r32(R::NOT_READY_COUNT.offset) == nr);
	}
	SECTION("only a 64-bit doorbell write fires; nothing started answers NOT_READY at once")
	{
		std::uint64_t st = 0;
		CHECK(d.timed_r64(R::INVOKE_STATUS.offset, st) < 40);
		CHECK(st == R::NOT_READY);
		d.w32(R::DOORBELL.offset, 100);
		d.w32(R::DOORBELL.offset + 4, std::uint32_t(R::OP_NOT));
		CHECK(d.r64(R::INVOKE_STATUS.offset) == R::NOT_READY);
		CHECK(d.r32(R::NOT_READY_COUNT.offset) == 2);
		d.w64(R::DOORBELL.offset, R::OP_NOT << 32 | 100);
		CHECK(d.r64(R::INVOKE_STATUS.offset) == (R::STATUS_DONE | 1ULL << 32 | 100));
		std::vector<std::uint8_t> resp(100);
		d.read(R::RESP.offset, resp.data(), 100);
		CHECK(resp == std::vector<std::uint8_t>(100, 0xa5));
	}
	SECTION("invalid doorbells (length 0 or too long, unknown op) are dropped")
	{
		d.w64(R::DOORBELL.offset, R::OP_ECHO << 32 | 64);
		CHECK(d.r64(R::INVOKE_STATUS.offset) == (R::STATUS_DONE | 1ULL << 32 | 64));
		d.w64(R::DOORBELL.offset, R::OP_ECHO << 32 | (R::MAX_PAYLOAD + 1));
		d.w64(R::DOORBELL.offset, 9ULL << 32 | 16);
		d.w64(R::DOORBELL.offset, R::OP_ECHO << 32 | 0);
		CHECK(d.r64(R::INVOKE_STATUS.offset) == (R::STATUS_DONE | 1ULL << 32 | 64));
		CHECK(d.r32(R::INVOKE_COUNT.offset) == 1);
	}
	SECTION("REQ is write-only, RESP read-only")
	{
		CHECK(d.r64(R::REQ.offset) == 0);
		d.w64(R::DOORBELL.offset, R::OP_ECHO << 32 | 8);
		CHECK((d.r64(R::INVOKE_STATUS.offset) & R::STATUS_DONE) != 0);
		d.w64(R::RESP.offset, 0);
		CHECK(d.r64(R::RESP.offset) == 0x5a5a5a5a5a5a5a5aULL);
	}
	REQUIRE(d.errors.empty());
}
