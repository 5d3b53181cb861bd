// pciebench crossover: PIO vs DMA latency over sizes. Each series is fitted
// to offset + slope (least squares, as the paper's Table 2) and the size at
// which DMA starts to win is printed. PIO: one write_read invocation of the
// PIO image (pioc/pio.hpp); DMA: the same request sent to the card (H2C) and
// the response fetched back (C2H) by the XDMA driver.
#include "commands.hpp"
#include "common/options.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/report.hpp>
#include <pioc/bench/sim_speed.hpp>
#include <pioc/device.hpp>
#include <pioc/pio.hpp>
#include <pioc/pio_call.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace pioc::tool {
namespace {

struct fit {
	double offset_ns = 0, slope_ns_per_byte = 0, r2 = 0;
};

fit least_squares(const std::vector<double> &x, const std::vector<double> &y)
{
	const double n = double(x.size());
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (std::size_t i = 0; i < x.size(); ++i)
		sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
	fit f;
	const double d = n * sxx - sx * sx;
	f.slope_ns_per_byte = d != 0 ? (n * sxy - sx * sy) / d : 0;
	f.offset_ns = (sy - f.slope_ns_per_byte * sx) / n;
	double ss_res = 0, ss_tot = 0;
	const double mean = sy / n;
	for (std::size_t i = 0; i < x.size(); ++i) {
		const double e = y[i] - (f.offset_ns + f.slope_ns_per_byte * x[i]);
		ss_res += e * e;
		ss_tot += (y[i] - mean) * (y[i] - mean);
	}
	f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
	return f;
}

struct crossover_opts {
	bench_options common;
	std::vector<std::uint64_t> sizes;
	xdma::completion mode = xdma::completion::writeback;
	std::string pio_device;
};

void add_crossover_options(CLI::App &c, crossover_opts &x)
{
	bench_options &o = x.common;
	o.device = "sim:xdma";
	o.iterations = 1000;
	o.warmup = 50;
	o.mem = mem_type::wc;
	add_bench_options(c, o, opt_all, "memory type of the PIO mapping (BAR0)");
	describe_option(c, "--device", "an XDMA device (its DMA engines; its BAR0 for PIO unless "
					      "--pio-device): sim:xdma, sim:xdma_pio, rtl:xdma or a PCI function");
	add_sizes(c, "--sizes,-s", x.sizes, "64,256,512,1K,2K,4K,8K",
		  fmt::format("request sizes in bytes, 1..{} (the PIO payload); at least two", pio::max_payload));
	add_parsed(c, "--completion", "DMA completion: writeback, count or interrupt",
		   [&x](std::string_view v) { x.mode = xdma::completion_from(v); }, "MODE",
		   std::string(xdma::to_string(x.mode)));
	add_text(c, "--pio-device", x.pio_device,
		 "device with the PIO image (found by its ID) (sim:xdma, sim:xdma_pio, rtl:xdma, PCI) [default: --device]", "SPEC");
	set_footer(c, "PIO op: write_read (request into REQ, doorbell, status read, response from RESP).\n"
		 "DMA op: H2C of the request to card memory, then C2H of a response of the same size.\n"
		 "On simulated devices every time is SIMULATED (link, PIO image and XDMA engine models).");
}

int run_crossover(const crossover_opts &opts)
{
	const bench_options &o = opts.common;
	const auto &sz = opts.sizes;
	for (auto s : sz)
		if (s == 0 || s > pio::max_payload)
			throw usage_error(fmt::format("--sizes: {} is outside 1..{} (PIO payload)", s, pio::max_payload));
	if (sz.size() < 2)
		throw usage_error("--sizes: a fit needs at least two sizes");
	const auto mode = opts.mode;
	device dev = open_device(o.device);
	device pdev = opts.pio_device.empty() ? dev : open_device(opts.pio_device, "--pio-device");

	bench::report rep;
	rep.tool = "pciebench crossover";
	rep.device = dev.spec();
	rep.transport = dev.info().transport;
	rep.memory_type = std::string(to_string(*o.mem));
	rep.simulated = dev.simulated() || pdev.simulated();
	rep.cpu = pin_timing_thread(dev.info(), o);
	rep.extra["completion"] = std::string(xdma::to_string(mode));
	rep.extra["pio_device"] = pdev.spec();

	// The simulators' speed (issue 13): the DMA device's clock and, when
	// the PIO image is another device, its clock too (the two series run
	// one after the other, so their simulated times add up).
	const bool two = !opts.pio_device.empty();
	const auto meter = bench::speed_meter::start(dev);
	const auto pmeter = two ? bench::speed_meter::start(pdev) : std::nullopt;

	region bar0 = pdev.map(xdma::pio_image_bar(pdev), *o.mem);
	pio::invoker inv(bar0);
	pio::invoke_state &st = inv.state();
	xdma::dma x(dev);
	// Card memory from 0; rtl:xdma: the BRAM window (its low addresses are registers).
	const auto *model = pioc::sim::xdma_control(dev);
	const std::uint64_t card = model ? model->card_data_base() : 0;
	auto &h2c = x.h2c(0);
	auto &c2h = x.c2h(0);
	h2c.set_completion(mode);
	c2h.set_completion(mode);
	auto buf = dev.alloc_dma(2 * pio::max_payload);

	std::vector<double> xs, pio_y, dma_y;
	for (std::uint64_t s : sz) {
		std::vector<std::uint8_t> req(s, 0x42), resp(pio::max_payload);
		bench::histogram hp, hd;
		bar0.visit([&](const auto &io) {
			pio::with_mem_type(*o.mem, [&](auto m) {
				const pio::call<decltype(m)::value, std::decay_t<decltype(io)>> invoke(io, st, pio::op::echo, s);
				for (std::uint64_t it = 0; it < o.warmup + o.iterations; ++it) {
					const std::uint64_t t0 = io.now_ns();
					invoke(req.data(), resp.data());
					const std::uint64_t t1 = io.now_ns();
					if (it >= o.warmup)
						hp.record(t1 - t0);
				}
			});
		});
		h2c.release_all();
		c2h.release_all();
		auto &rq = h2c.prepare(buf, 0, s, card);
		auto &rs = c2h.prepare(buf, pio::max_payload, s, card);
		x.config().visit([&](const auto &io) {
			auto a = h2c.ops(io);
			auto b = c2h.ops(io);
			for (std::uint64_t it = 0; it < o.warmup + o.iterations; ++it) {
				const std::uint64_t t0 = io.now_ns();
				a.submit(rq);
				a.wait(rq);
				b.submit(rs);
				b.wait(rs);
				const std::uint64_t t1 = io.now_ns();
				if (it >= o.warmup)
					hd.record(t1 - t0);
			}
		});
		if (std::memcmp(buf.cpu, static_cast<char *>(buf.cpu) + pio::max_payload, s) != 0)
			throw error(errc::device_error, fmt::format("{}: DMA round trip of {} bytes returned other data",
								    dev.spec(), s));
		rep.results.push_back(bench::result::from("pio_write_read", s, hp));
		rep.results.push_back(bench::result::from("dma_h2c_c2h", s, hd));
		xs.push_back(double(s));
		pio_y.push_back(double(hp.percentile(50)));
		dma_y.push_back(double(hd.percentile(50)));
	}
	if (meter) {
		rep.speed = meter->stop(dev);
		if (pmeter) {
			const auto ps = pmeter->stop(pdev);
			rep.speed->passed.sim_ns += ps.passed.sim_ns;
			rep.speed->passed.cycles += ps.passed.cycles;
			rep.speed->passed.evaluated_cycles += ps.passed.evaluated_cycles;
		}
	}
	const fit fp = least_squares(xs, pio_y), fd = least_squares(xs, dma_y);
	auto fj = [](const fit &f) {
		return nlohmann::json{{"offset_ns", f.offset_ns}, {"slope_ns_per_byte", f.slope_ns_per_byte}, {"r2", f.r2}};
	};
	rep.extra["fit_pio"] = fj(fp);
	rep.extra["fit_dma"] = fj(fd);
	std::optional<double> cross;
	if (fp.slope_ns_per_byte > fd.slope_ns_per_byte)
		cross = (fd.offset_ns - fp.offset_ns) / (fp.slope_ns_per_byte - fd.slope_ns_per_byte);
	rep.extra["crossover_bytes"] = cross ? nlohmann::json(std::max(0.0, *cross)) : nlohmann::json(nullptr);
	// First measured size where DMA's median is below PIO's.
	nlohmann::json first = nullptr;
	for (std::size_t i = 0; i < xs.size(); ++i)
		if (dma_y[i] < pio_y[i]) {
			first = std::uint64_t(xs[i]);
			break;
		}
	rep.extra["first_measured_dma_win"] = first;
	emit(rep, o.format);
	if (o.format == bench::format::table) {
		fmt::print("\nfits of the p50 latency (offset + slope x size, as the paper's Table 2){}:\n",
			   rep.simulated ? " [SIMULATED]" : "");
		fmt::print("  PIO write_read : {:10.1f} ns + {:7.3f} ns/B  (r2 {:.3f})\n", fp.offset_ns,
			   fp.slope_ns_per_byte, fp.r2);
		fmt::print("  DMA H2C+C2H    : {:10.1f} ns + {:7.3f} ns/B  (r2 {:.3f})\n", fd.offset_ns,
			   fd.slope_ns_per_byte, fd.r2);
		if (cross)
			fmt::print("  DMA starts to win at about {:.0f} bytes{}\n", std::max(0.0, *cross),
				   *cross > xs.back() ? " (extrapolated beyond the measured sizes)" : "");
		else
			fmt::print("  DMA never wins: its per-byte cost is not lower than PIO's\n");
	}
	return exit_ok;
}

} // namespace
} // namespace pioc::tool

pioc::tool::tool::body pciebench_crossover(CLI::App &cmd)
{
	auto o = std::make_shared<pioc::tool::crossover_opts>();
	pioc::tool::add_crossover_options(cmd, *o);
	return [o] { return pioc::tool::run_crossover(*o); };
}
