// rtl:xdma: the library's XDMA driver against the engine model in front of
// the Verilated VCU118 user side, and against the behavioral models, with the
// same test bodies. Data must be identical; modelled times are compared with
// the tolerance stated in Documentation/xdma.md: the model's card memory keeps
// up with the link, the RTL's card port (64-bit AXI at 250 MHz) takes 0.5 ns
// per byte in either direction, so the RTL's time is predicted as the model's
// plus the bytes times what the port needs beyond the link.
#include "rtl/rtl_devices.hpp"
#include "sim/xdma/xdma_dev.hpp"
#include "transport/sim_transport.hpp"

#include <pioc/pio_ops.hpp>
#include <pioc/device.hpp>
#include <pioc/pcie_model.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace R = pioc::regs::pio_dev;
using namespace pioc;

namespace {

/** The simulated XDMA behind @p x (its error injection and card memory). */
pioc::xdma::sim_control *model(pioc::xdma::dma &x)
{
	return pioc::sim::xdma_control(x.dev());
}

/** rtl:xdma, sim:xdma, sim:xdma_pio (the engine model whose card side is
 *  the PIO image model, the behavioral counterpart of rtl:xdma), or
 *  rtl:xdma_stall (rtl:xdma with 30% random idle/backpressure cycles on the
 *  RTL's AXI ports). */
device open_xdma(const std::string &spec)
{
	if (spec == "rtl:xdma_stall") {
		detail::sim_device_entry e{"xdma_stall", "rtl:xdma, random AXI stalls", 0x10ee, 0x903f,
					   [] { return rtl::make_xdma_rtl(30, 11); }, true};
		return device(detail::open_sim(e, "pc-gen3x16"));
	}
	if (spec == "sim:xdma_pio") {
		detail::sim_device_entry e{"xdma_pio", "XDMA model, card side = PIO image model", 0x10ee, 0x903f,
					   sim::make_xdma_pio_dev, false};
		return device(detail::open_sim(e, "pc-gen3x16"));
	}
	return device::open(spec);
}

/** What a test body saw: every byte that came back and every modelled time. */
struct trace {
	std::vector<std::uint8_t> data;
	struct timing {
		std::string what;
		bool c2h;              ///< direction of the bytes through the card port
		std::uint64_t bytes, ns;
		double slack_ns = 100; ///< count mode: + one poll round trip
		bool checked = true;   ///< false: printed, not compared (a known model difference)
		bool overlaps = false; ///< several runs: the card port's time may hide behind the next run's fetch
	};
	std::vector<timing> times;
};

void fill(void *p, std::size_t n, unsigned seed)
{
	std::mt19937 g(seed);
	auto *b = static_cast<std::uint8_t *>(p);
	for (std::size_t i = 0; i < n; ++i)
		b[i] = std::uint8_t(g());
}

/** Submits @p qs on @p ch and waits for all of them; returns the simulated ns. */
std::uint64_t timed(xdma::dma &x, xdma::channel &ch, std::initializer_list<xdma::request *> qs)
{
	std::uint64_t dt = 0;
	x.config().visit([&](const auto &io) {
		auto ops = ch.ops(io);
		const std::uint64_t t0 = io.now_ns();
		for (auto *q : qs)
			ops.submit(*q);
		for (auto *q : qs)
			ops.wait(*q);
		dt = io.now_ns() - t0;
	});
	return dt;
}

/** H2C then C2H round trips of the PIO image's BRAM at several sizes and
 *  alignments, in every completion mode, with descriptor chains (1 KiB
 *  segments) and several requests in flight. */
trace round_trips(const std::string &spec)
{
	trace tr;
	device dev = open_xdma(spec);
	xdma::options o;
	o.max_segment = 1024;  // larger transfers are descriptor chains
	xdma::dma x(dev, o);
	REQUIRE(model(x) != nullptr);
	auto &h2c = x.h2c(0);
	auto &c2h = x.c2h(0);
	auto src = dev.alloc_dma(40960), dst = dev.alloc_dma(40960);
	const std::uint64_t base = R::BRAM.offset;
	for (auto mode : {xdma::completion::writeback, xdma::completion::count, xdma::completion::interrupt}) {
		h2c.set_completion(mode);
		c2h.set_completion(mode);
		for (std::uint64_t size : {1ull, 8ull, 63ull, 64ull, 256ull, 1000ull, 4096ull, 8192ull, 32768ull}) {
			for (auto [hoff, coff] : {std::pair<std::uint64_t, std::uint64_t>{0, 0}, {1, 8}, {7, 3}, {4093, 4090}}) {
				if (mode != xdma::completion::writeback && hoff != 0)
					continue;
				INFO(spec << " " << xdma::to_string(mode) << " size " << size << " host offset " << hoff
					  << " card offset " << coff);
				fill(static_cast<char *>(src.cpu) + hoff, size, unsigned(size * 7 + hoff));
				std::memset(dst.cpu, 0, size + hoff + 2);
				h2c.release_all();
				c2h.release_all();
				auto &w = h2c.prepare(src, hoff, size, base + coff);
				auto &r = c2h.prepare(dst, hoff + 1, size, base + coff);
				const std::string what = fmt::format("{} {} B +{}/+{}", xdma::to_string(mode), size, hoff, coff);
				const double slack = mode == xdma::completion::count ? 600 : 100;
				tr.times.push_back({"H2C " + what, false, size, timed(x, h2c, {&w}), slack});
				tr.times.push_back({"C2H " + what, true, size, timed(x, c2h, {&r}), slack});
				// The card as the engines see it. On rtl:xdma this read takes the
				// RTL's cycles: let the CPU's clock pass them before the next transfer.
				std::vector<std::uint8_t> card(size);
				model(x)->card_read(base + coff, card.data(), size);
				REQUIRE(std::memcmp(card.data(), static_cast<char *>(src.cpu) + hoff, size) == 0);
				dev.sim_link()->cpu_spend(0.6 * double(size) + 1000); // 8 B per 4 ns cycle, + slack
				REQUIRE(std::memcmp(static_cast<char *>(dst.cpu) + hoff + 1, static_cast<char *>(src.cpu) + hoff,
						    size) == 0);
				CHECK(static_cast<char *>(dst.cpu)[hoff] == 0);
				CHECK(static_cast<char *>(dst.cpu)[hoff + size + 1] == 0);
				const auto *d = static_cast<const std::uint8_t *>(dst.cpu) + hoff + 1;
				tr.data.insert(tr.data.end(), d, d + size);
			}
		}
		// Eight 1 KiB requests in flight (chained into runs), read back in one C2H chain.
		h2c.release_all();
		c2h.release_all();
		fill(src.cpu, 8192, 99);
		std::vector<xdma::request *> ws;
		for (unsigned i = 0; i < 8; ++i)
			ws.push_back(&h2c.prepare(src, i * 1024, 1024, base + 0x10000 + i * 1024));
		auto &rd = c2h.prepare(dst, 0, 8192, base + 0x10000);
		const double slack = mode == xdma::completion::count ? 600 : 100;
		tr.times.push_back({fmt::format("H2C {} 8 x 1 KiB in flight", xdma::to_string(mode)), false, 8192,
				    timed(x, h2c, {ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7]}), slack, true, true});
		tr.times.push_back(
			{fmt::format("C2H {} 8 KiB chain", xdma::to_string(mode)), true, 8192, timed(x, c2h, {&rd}), slack});
		REQUIRE(std::memcmp(dst.cpu, src.cpu, 8192) == 0);
	}
	return tr;
}

/** Invocations driven by DMA only: H2C of the request into REQ, an 8-byte
 *  H2C to DOORBELL, C2H of INVOKE_STATUS (held until done), C2H of RESP. */
trace invocations(const std::string &spec)
{
	trace tr;
	device dev = open_xdma(spec);
	xdma::dma x(dev);
	auto &h2c = x.h2c(0);
	auto &c2h = x.c2h(0);
	auto buf = dev.alloc_dma(3 * 8192);
	auto *req = static_cast<std::uint8_t *>(buf.cpu);
	auto *db = req + 8192;
	auto *resp = req + 8192 + 64;
	for (std::uint64_t op : {R::OP_ECHO, R::OP_NOT, R::OP_ADD1, R::OP_BLOOM})
		for (std::size_t len : {8u, 100u, 128u, 1000u, 4096u, 8192u}) {
			INFO(spec << " op " << op << " length " << len);
			fill(req, len, unsigned(op * 1000 + len));
			const std::uint64_t doorbell = op << 32 | len;
			std::memcpy(db, &doorbell, 8);
			const auto want = pio::apply(op, req, len);
			h2c.release_all();
			c2h.release_all();
			auto &wreq = h2c.prepare(buf, 0, len, R::REQ.offset);
			auto &wdb = h2c.prepare(buf, 8192, 8, R::DOORBELL.offset);
			auto &rst = c2h.prepare(buf, 8192 + 8, 8, R::INVOKE_STATUS.offset);
			auto &rresp = c2h.prepare(buf, 8192 + 64, want.size(), R::RESP.offset);
			std::memset(resp, 0, want.size());
			const std::uint64_t t = timed(x, h2c, {&wreq, &wdb}) + timed(x, c2h, {&rst});
			std::uint64_t st;
			std::memcpy(&st, db + 8, 8);
			CHECK((st & R::STATUS_DONE) != 0);
			CHECK((st & 0xffffffff) == want.size());
			const std::uint64_t t2 = timed(x, c2h, {&rresp});
			REQUIRE(std::memcmp(resp, want.data(), want.size()) == 0);
			tr.times.push_back({fmt::format("op {} {} B: request + doorbell + status", op, len), false, len, t,
					    100, true});
			tr.times.push_back({fmt::format("op {} {} B: response", op, len), true, want.size(), t2});
			tr.data.insert(tr.data.end(), resp, resp + want.size());
			tr.data.push_back(std::uint8_t(st >> 56)); // the status bits, not the sequence number
		}
	return tr;
}

/** Modelled times agree if @p rtl is within 10% + slack of the prediction
 *  from @p model: the model's time, plus (@p card_port) the bytes times what
 *  the RTL's card port needs per byte beyond the link (gen3 x16, MPS 256,
 *  MRRS 512: the engine model's data rate). Requests in flight over several
 *  runs: between the two. */
void compare(const trace &model, const trace &rtl, const char *label, bool card_port)
{
	pcie_model::params mp;
	mp.gen = 3;
	mp.lanes = 16;
	mp.mps = 256;
	mp.mrrs = 512;
	const pcie_model::model link(mp);
	const double h2c_link = 8 / link.read_gbps(1 << 20), c2h_link = 8 / link.write_gbps(1 << 20); // ns per byte
	constexpr double h2c_port = 0.5, c2h_port = 0.5; // ns per byte: 8 B per cycle at 250 MHz
	REQUIRE(model.data.size() == rtl.data.size());
	CHECK(model.data == rtl.data);
	REQUIRE(model.times.size() == rtl.times.size());
	std::string table;
	for (std::size_t i = 0; i < model.times.size(); ++i) {
		const auto &m = model.times[i], &r = rtl.times[i];
		INFO(m.what << ": model " << m.ns << " ns, RTL " << r.ns << " ns");
		const double extra = !card_port ? 0
				     : m.c2h    ? std::max(0.0, c2h_port - c2h_link)
						: std::max(0.0, h2c_port - h2c_link);
		const double want = double(m.ns) + double(m.bytes) * extra;
		if (m.checked) {
			CHECK(double(r.ns) >= 0.9 * (m.overlaps ? double(m.ns) : want) - m.slack_ns);
			CHECK(double(r.ns) <= 1.1 * want + m.slack_ns);
		}
		table += fmt::format("\n  {:<44} {:>8} {:>8} {:>8.0f}{}", m.what, m.ns, r.ns, want,
				     m.checked ? "" : " (not compared)");
	}
	WARN(label << " (ns: model, rtl, predicted rtl):" << table);
}

} // namespace

TEST_CASE("rtl:xdma: round trips of BRAM agree with sim:xdma and sim:xdma_pio", "[rtl][xdma]")
{
	const trace a = round_trips("sim:xdma");
	const trace b = round_trips("sim:xdma_pio");
	const trace c = round_trips("rtl:xdma");
	compare(a, c, "round trips, sim:xdma vs rtl:xdma", true);
	// The engine's timing does not depend on which model is the card side; the
	// descriptor rings' bus addresses differ between devices, which can cost a
	// count-mode poll more.
	compare(a, b, "round trips, sim:xdma vs sim:xdma_pio", false);
}

TEST_CASE("rtl:xdma: invocations driven by DMA agree with the model and bloom_hash.hpp", "[rtl][xdma]")
{
	const trace m = invocations("sim:xdma_pio");
	const trace r = invocations("rtl:xdma");
	compare(m, r, "DMA-driven invocations, sim:xdma_pio vs rtl:xdma", true);
}

TEST_CASE("rtl:xdma under random AXI backpressure moves the same bytes", "[rtl][xdma]")
{
	const trace a = round_trips("sim:xdma");
	const trace b = round_trips("rtl:xdma_stall");
	CHECK(a.data == b.data);
	const trace m = invocations("sim:xdma_pio");
	const trace r = invocations("rtl:xdma_stall");
	CHECK(m.data == r.data);
	// Stalls only cost time.
	for (std::size_t i = 0; i < std::min(a.times.size(), b.times.size()); ++i)
		CHECK(b.times[i].ns + 100 >= a.times[i].ns);
}

TEST_CASE("rtl:xdma: a transfer that does not fit the 256 KiB map is a clear error", "[rtl][xdma]")
{
	device dev = device::open("rtl:xdma");
	xdma::dma x(dev);
	CHECK(x.h2c_count() == 1);
	CHECK(x.c2h_count() == 1);
	REQUIRE(model(x)->card_memory_size() == R::bar_size);
	CHECK(model(x)->card_data_base() == R::BRAM.offset);
	auto buf = dev.alloc_dma(8192);
	const std::uint64_t at = R::bar_size - 64;
	CHECK_THROWS_WITH(x.h2c(0).prepare(buf, 0, 4096, at),
			  Catch::Contains("rtl:xdma H2C0") && Catch::Contains("4096 bytes") &&
				  Catch::Contains("0x3ffc0") && Catch::Contains("262144-byte"));
	CHECK_THROWS_WITH(x.c2h(0).prepare(buf, 0, 128, R::bar_size), Catch::Contains("rtl:xdma C2H0") &&
									      Catch::Contains("0x40000"));
	std::vector<std::uint8_t> v(128);
	CHECK_THROWS_WITH(model(x)->card_read(at, v.data(), v.size()),
			  Catch::Contains("rtl:xdma") && Catch::Contains("262144-byte"));
	// Fits exactly: the last 64 bytes of BRAM.
	fill(buf.cpu, 64, 5);
	x.h2c(0).transfer(buf, 0, 64, at);
	model(x)->card_read(at, v.data(), 64);
	CHECK(std::memcmp(v.data(), buf.cpu, 64) == 0);
	// BAR0 is the bypass port: the PIO image's ID register reads through it.
	std::uint32_t id = 0;
	dev.map(0).visit([&](const auto &io) { id = io.template load<std::uint32_t>(R::ID.offset); });
	CHECK(id == R::id_value);
}
