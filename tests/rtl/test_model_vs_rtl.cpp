// The behavioral model of the PIO image (lib/sim/pio_dev) and its Verilated
// RTL (lib/rtl, rtl:pio) run the same transaction script through
// pioc::sim::target and must give the same answers. Timing is compared too:
// the RTL's answer times are what the model should reproduce.
#include "rtl/rtl_devices.hpp"
#include "sim/pio_dev.hpp"

#include <pioc/bloom_hash.hpp>
#include <pioc/device.hpp>
#include <pioc/pio.hpp>
#include <pioc/regs/pio_dev.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace R = pioc::regs::pio_dev;
using pioc::sim::target;

namespace {

struct script {
	explicit script(target &tt) : t(tt) {}
	target &t;
	std::uint64_t now = 1000;
	std::vector<std::uint64_t> log;   // every value read, in order
	std::vector<std::uint64_t> waits; // completion - issue of every status read
	std::uint64_t retries = 0;

	void write(std::uint64_t off, const void *d, std::size_t n)
	{
		const auto *b = static_cast<const std::uint8_t *>(d);
		while (n) {
			std::size_t k = std::min<std::size_t>(n, 4096 - (off & 4095));
			t.posted_write(0, off, b, k, now);
			now += 10;
			off += k;
			b += k;
			n -= k;
		}
	}
	void w64(std::uint64_t off, std::uint64_t v) { write(off, &v, 8); }
	void w32(std::uint64_t off, std::uint32_t v) { write(off, &v, 4); }
	std::uint64_t r(std::uint64_t off, std::size_t n)
	{
		std::uint64_t v = 0;
		std::uint64_t done = t.read(0, off, &v, n, now);
		REQUIRE(done >= now);
		if (off == R::INVOKE_STATUS.offset)
			waits.push_back(done - now);
		now = done + 10;
		log.push_back(v);
		return v;
	}
	void rbuf(std::uint64_t off, std::size_t n)
	{
		std::vector<std::uint8_t> b(n);
		for (std::size_t i = 0; i < n; i += 64) {
			std::size_t k = std::min<std::size_t>(64, n - i);
			now = t.read(0, off + i, b.data() + i, k, now) + 10;
		}
		for (std::size_t i = 0; i < n; i += 8) {
			std::uint64_t v = 0;
			std::memcpy(&v, b.data() + i, std::min<std::size_t>(8, n - i));
			log.push_back(v);
		}
	}

	void run()
	{
		for (auto off : {R::ID.offset, R::VERSION.offset, R::CAPS.offset, R::CLOCK_MHZ.offset,
				 R::INVOKE_TIMEOUT.offset, R::INVOKE_DELAY.offset})
			r(off, 4);
		w32(R::SCRATCH.offset, 0xc0ffee);
		r(R::SCRATCH.offset, 4);
		r(R::INVOKE_STATUS.offset, 8);           // nothing started: NOT_READY at once
		std::mt19937_64 rng(42);
		std::vector<std::uint8_t> buf(8192);
		for (auto &b : buf)
			b = std::uint8_t(rng());
		write(R::BRAM.offset + 8, buf.data(), 3000);
		rbuf(R::BRAM.offset, 3016);
		for (unsigned op : {0u, 1u, 2u, 3u})
			for (std::size_t len : {1, 64, 100, 128, 1000, 4096}) {
				write(R::REQ.offset, buf.data() + op, len);
				w64(R::DOORBELL.offset, std::uint64_t(op) << 32 | len);
				std::uint64_t st = r(R::INVOKE_STATUS.offset, 8);
				rbuf(R::RESP.offset, st & 0xffffffff);
				r(R::INVOKE_STATUS.offset, 8);   // repeated at once
			}
		w64(R::DOORBELL.offset, 0);                // dropped
		w64(R::DOORBELL.offset, 7ULL << 32 | 8);   // dropped
		r(R::INVOKE_STATUS.offset, 8);
		w32(R::INVOKE_TIMEOUT.offset, 200);
		w32(R::INVOKE_DELAY.offset, 1000);
		w64(R::DOORBELL.offset, R::OP_NOT << 32 | 256);
		// How many NOT_READY answers come before the result depends on timing,
		// which the model approximates: log the values, not the count.
		std::uint64_t st;
		while ((st = r(R::INVOKE_STATUS.offset, 8)) == R::NOT_READY) {
			log.pop_back();
			++retries;
		}
		REQUIRE(retries >= 3);
		r(R::INVOKE_COUNT.offset, 4);
		std::uint64_t nr = r(R::NOT_READY_COUNT.offset, 4);
		log.back() = nr - retries;
		r(R::REQ.offset, 8);                       // write-only window reads 0
	}
};

} // namespace

TEST_CASE("rtl:pio and the behavioral model give the same answers", "[rtl]")
{
	auto model = pioc::sim::make_pio_dev();
	auto rtl = pioc::rtl::make_pio_rtl();
	CHECK(rtl->bar_size(0) == model->bar_size(0));
	CHECK(rtl->bar_size(1) == model->bar_size(1));
	script a{*model}, b{*rtl};
	a.run();
	b.run();
	REQUIRE(a.log.size() == b.log.size());
	for (std::size_t i = 0; i < a.log.size(); ++i) {
		INFO("value " << i);
		CHECK(a.log[i] == b.log[i]);
	}
	auto s = pioc::rtl::stats_of(*rtl);
	CHECK(s.cycles > 0);
	CHECK(s.clock_mhz == R::clock_mhz);
	// Timing: print where model and RTL differ, for calibrating the model.
	std::string diffs;
	for (std::size_t i = 0; i < std::min(a.waits.size(), b.waits.size()); ++i)
		diffs += std::to_string(a.waits[i]) + "/" + std::to_string(b.waits[i]) + " ";
	WARN("INVOKE_STATUS waits in ns (model/rtl): " << diffs);
	WARN("NOT_READY retries with TIMEOUT 200, DELAY 1000 (model/rtl): " << a.retries << "/" << b.retries);
	WARN("RTL: " << s.cycles << " cycles at " << s.clock_mhz << " MHz = " << s.sim_ns << " ns simulated");
}

TEST_CASE("rtl:pio under random AXI backpressure gives the same answers", "[rtl]")
{
	auto model = pioc::sim::make_pio_dev();
	auto rtl = pioc::rtl::make_pio_rtl(40, 7);
	script a{*model}, b{*rtl};
	a.run();
	b.run();
	REQUIRE(a.log == b.log);
}

namespace {
/** Simulated time of one invocation through the PCIe link model (after a
 *  warm-up call), on @p spec. */
double invoke_ns(const char *spec, pioc::pio::op o, std::size_t n)
{
	using namespace pioc;
	device dev = device::open(spec);
	region bar = dev.map(0, mem_type::wc);
	pio::invoker inv(bar);
	std::vector<std::uint8_t> req(n), resp(std::max(n, pio::response_len(o, n)));
	for (std::size_t i = 0; i < n; ++i)
		req[i] = static_cast<std::uint8_t>(i * 7 + 1);
	inv.invoke(o, req, resp);
	double t = 0;
	bar.visit([&](const auto &io) {
		const auto t0 = io.now_ns();
		inv.invoke(o, req, resp);
		t = double(io.now_ns() - t0);
	});
	return t;
}
} // namespace

TEST_CASE("invocations through the link take the model's time on the RTL: every op, 8 B .. 8 KiB", "[rtl]")
{
	using pioc::pio::op;
	for (op o : {op::echo, op::bit_not, op::add1, op::bloom})
		for (std::size_t n : {8, 128, 1000, 4096, 8192}) {
			const double m = invoke_ns("sim:pio", o, n), r = invoke_ns("rtl:pio", o, n);
			INFO(pioc::pio::to_string(o) << " " << n << " B: model " << m << " ns, RTL " << r << " ns");
			CHECK(std::abs(m - r) <= 0.05 * r + 50);
		}
}
