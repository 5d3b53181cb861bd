// pciebench dma: the pcie-bench DMA suite on an XDMA engine, driven by the
// pioc user-space XDMA driver (hardware or the simulated sim:xdma).
//
//  LAT_RD    one device read of host memory (H2C) at a time: doorbell -> completion seen
//  LAT_WRRD  a device write to host memory (C2H) then a read of it back (H2C)
//  BW_RD     H2C transfers with --queue-depth in flight, bytes / elapsed
//  BW_WR     C2H likewise
//  BW_RDWR   H2C and C2H at once on two channels
//
// Timed loops are templates over the I/O view, entered once via visit().
#include "commands.hpp"
#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/run_defaults.hpp"
#include "pciebench/dma_check.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/report.hpp>
#include <pioc/device.hpp>
#include <pioc/enum_names.hpp>
#include <pioc/pcie_model.hpp>
#include <pioc/place.hpp>
#include <pioc/sim/pcie_link.hpp>
#include <pioc/clock.hpp>
#include <pioc/xdma/chardev.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>

namespace pioc::tool {
namespace {

enum class test { lat_rd, lat_wrrd, bw_rd, bw_wr, bw_rdwr };
constexpr enum_name<test> test_names[] = {
	{test::lat_rd, "LAT_RD"}, {test::lat_wrrd, "LAT_WRRD"}, {test::bw_rd, "BW_RD"},
	{test::bw_wr, "BW_WR"},   {test::bw_rdwr, "BW_RDWR"},
};
std::string name_of(test t) { return std::string(pioc::name_of(test_names, t)); }
bool is_bw(test t) { return t == test::bw_rd || t == test::bw_wr || t == test::bw_rdwr; }

enum class cache_mode { warm, thrash, host_warm };
constexpr enum_name<cache_mode> cache_mode_names[] = {
	{cache_mode::warm, "warm"}, {cache_mode::thrash, "thrash"}, {cache_mode::host_warm, "host-warm"}};

struct dma_opts {
	bench_options common;
	std::vector<test> tests;
	std::vector<std::uint64_t> sizes;
	std::uint64_t window = 8192, offset = 0, qd = 8, channel = 0, card = 0;
	bool card_given = false;
	xdma::completion mode = xdma::completion::writeback;
	cache_mode cache = cache_mode::warm;
	std::optional<int> numa;
	std::optional<int> bar;
};

/** Evicts [p, p+n) from the CPU caches (thrash), as pcie-bench's cold-cache runs. */
void flush_lines(void *p, std::size_t n)
{
	auto *b = static_cast<std::uint8_t *>(p);
	for (std::size_t i = 0; i < n; i += 64) {
#if defined(__x86_64__)
		asm volatile("clflush %0" : "+m"(*(volatile char *)(b + i)));
#elif defined(__aarch64__)
		asm volatile("dc civac, %0" ::"r"(b + i) : "memory");
#endif
	}
	barrier::full();
}

void prepare_cache(cache_mode c, void *p, std::size_t n)
{
	if (c == cache_mode::thrash)
		flush_lines(p, n);
	else if (c == cache_mode::host_warm)
		std::memset(p, 0x5a, n); // the CPU wrote the lines last: dirty in its cache
	else {
		volatile std::uint8_t sink = 0;
		for (std::size_t i = 0; i < n; i += 64)
			sink = sink + static_cast<volatile std::uint8_t *>(p)[i];
	}
}

struct outcome {
	bench::histogram lat, build, doorbell, complete;
	double elapsed_ns = 0;
	std::uint64_t bytes = 0;
};

struct slots {
	std::vector<xdma::request *> h2c, c2h;
};

template <class IO>
outcome run_latency(const IO &io, test t, xdma::channel &h2c, xdma::channel &c2h, slots &s, std::uint64_t warm,
		    std::uint64_t iters)
{
	outcome out;
	h2c.time_phases(true); // the phase breakdown below (off by default: it reads the clock)
	auto rd = h2c.ops(io);
	auto wr = c2h.ops(io);
	const std::size_t n = s.h2c.size();
	for (std::uint64_t it = 0; it < warm + iters; ++it) {
		xdma::request &r = *s.h2c[it % n];
		const std::uint64_t t0 = io.now_ns();
		if (t == test::lat_wrrd) {
			xdma::request &w = *s.c2h[it % n];
			wr.submit(w);
			wr.wait(w);
		}
		rd.submit(r);
		rd.wait(r);
		const std::uint64_t t1 = io.now_ns();
		if (it >= warm) {
			out.lat.record(t1 - t0);
			const auto &ph = h2c.last_phases();
			out.build.record(ph.build_ns);
			out.doorbell.record(ph.doorbell_ns);
			out.complete.record(ph.complete_ns);
		}
	}
	return out;
}

template <class IO>
outcome run_bandwidth(const IO &io, test t, xdma::channel &h2c, xdma::channel &c2h, slots &s, std::uint64_t qd,
		      std::uint64_t total, std::uint64_t size)
{
	outcome out;
	auto rd = h2c.ops(io);
	auto wr = c2h.ops(io);
	const bool use_rd = t != test::bw_wr, use_wr = t != test::bw_rd;
	std::deque<xdma::request *> rq, wq;
	std::size_t next_r = 0, next_w = 0;
	std::uint64_t issued = 0, done = 0;
	auto issue = [&] {
		// BW_RDWR alternates reads and writes, as pcie-bench does.
		const bool read = use_rd && (!use_wr || issued % 2 == 0);
		if (read) {
			xdma::request *q = s.h2c[next_r++ % s.h2c.size()];
			rq.push_back(q);
			rd.submit(*q);
		} else {
			xdma::request *q = s.c2h[next_w++ % s.c2h.size()];
			wq.push_back(q);
			wr.submit(*q);
		}
		++issued;
	};
	const std::uint64_t t0 = io.now_ns();
	std::uint64_t last = t0;
	while (issued < total && issued < qd)
		issue();
	while (done < total) {
		if (use_rd)
			rd.poll();
		if (use_wr)
			wr.poll();
		for (auto *dq : {&rq, &wq})
			while (!dq->empty() && dq->front()->done()) {
				dq->pop_front();
				++done;
				const std::uint64_t now = io.now_ns();
				out.lat.record(now - last); // interval between completions
				last = now;
				if (issued < total)
					issue();
			}
	}
	out.elapsed_ns = double(io.now_ns() - t0);
	out.bytes = total * size;
	return out;
}

/** The stock Xilinx driver's char devices ("xilinx:/dev/xdma0" or
 *  "xilinx:/dev/xdma0:CHANNEL"): measured wall-clock time, kernel DMA path. */
int run_xilinx(const dma_opts &o, const std::string &spec)
{
	std::string prefix = spec.substr(7);
	unsigned ch = unsigned(o.channel);
	if (auto colon = prefix.rfind(':'); colon != std::string::npos) {
		ch = unsigned(parse_count(prefix.substr(colon + 1)));
		prefix = prefix.substr(0, colon);
	}
	xdma::chardev::paths p{fmt::format("{}_h2c_{}", prefix, ch), fmt::format("{}_c2h_{}", prefix, ch),
			       prefix + "_user"};
	xdma::chardev cd(p, unsigned(o.qd));
	bench::report rep;
	rep.tool = "pciebench dma";
	rep.device = spec;
	rep.transport = "xilinx-chardev";
	rep.memory_type = "dma";
	rep.simulated = false;
	rep.cpu = describe_current_cpu();
	rep.extra["queue_depth"] = o.qd;
	rep.extra["note"] = "stock Xilinx driver: pins pages per call, kernel completion; no phase breakdown";
	const hw_clock clk;
	std::uint64_t checked = 0;
	for (std::uint64_t size : o.sizes) {
		std::vector<std::uint8_t> buf(size * std::max<std::uint64_t>(o.qd, 1) + o.offset);
		for (test t : o.tests) {
			bench::histogram h;
			double elapsed = 0;
			if (!is_bw(t)) {
				for (std::uint64_t it = 0; it < o.common.warmup + o.common.iterations; ++it) {
					const std::uint64_t t0 = clk.now_ns();
					if (t == test::lat_wrrd)
						cd.read(o.card, buf.data() + o.offset, size);
					cd.write(o.card, buf.data() + o.offset, size);
					const std::uint64_t t1 = clk.now_ns();
					if (it >= o.common.warmup)
						h.record(t1 - t0);
				}
			} else {
				std::uint64_t issued = 0, done = 0, last = clk.now_ns();
				const std::uint64_t t0 = last;
				auto issue = [&] {
					const std::uint64_t slot = issued % o.qd;
					const bool read = t == test::bw_rd || (t == test::bw_rdwr && issued % 2 == 0);
					// Device-initiated naming: BW_RD = device reads host (H2C write()).
					if (read)
						cd.submit_write(o.card + slot * size, buf.data() + slot * size, size, issued);
					else
						cd.submit_read(o.card + slot * size, buf.data() + slot * size, size, issued);
					++issued;
				};
				while (issued < o.common.iterations && issued < o.qd)
					issue();
				while (done < o.common.iterations) {
					for (auto tag : cd.reap(1)) {
						(void)tag;
						++done;
						const std::uint64_t now = clk.now_ns();
						h.record(now - last);
						last = now;
						if (issued < o.common.iterations)
							issue();
					}
				}
				elapsed = double(clk.now_ns() - t0);
			}
			auto r = bench::result::from(std::string(name_of(t)), size, h);
			if (elapsed > 0) {
				r.mbps = double(size * o.common.iterations) / elapsed * 1e3;
				r.extra["gbps"] = double(size * o.common.iterations) * 8 / elapsed;
			}
			rep.results.push_back(std::move(r));
		}
		// Every byte of this size checked, untimed, as on the other paths:
		// a pattern per slot, every slot in flight, out and back.
		const dma_check_layout check{size, std::max<std::uint64_t>(size + o.offset, 64), o.offset, o.card,
					     std::min<std::uint64_t>(o.qd, 256)};
		run_chardev_check(cd, spec, check, size);
		checked += 2 * check.slots * size;
	}
	rep.extra["checked_bytes"] = checked;
	emit(rep, o.common.format);
	return exit_ok;
}

// The options into @p o (its values are the defaults --help shows).
void add_dma_options(CLI::App &c, dma_opts &o)
{
	o.common.device = "sim:xdma";
	o.common.iterations = 2000;
	o.common.warmup = 100;
	o.tests = {test::lat_rd, test::lat_wrrd, test::bw_rd, test::bw_wr, test::bw_rdwr};
	add_bench_options(c, o.common, opt_device | opt_format | opt_cpu | opt_iterations | opt_quiet);
	describe_option(c, "--device", "an XDMA device: sim:xdma, sim:xdma_pio, rtl:xdma, a PCI function or "
					      "xilinx:/dev/xdma0[:CH] (every kind: 'pciebench --help')");
	add_name_list(c, "--tests,-t", test_names, o.tests, "test", "tests (see the top of this help)");
	add_sizes(c, "--sizes,-s", o.sizes, "64,256,1K,4K,16K,64K", "transfer sizes in bytes");
	add_count(c, "--window", o.window, 1, 1ull << 30,
		  "bytes of host buffer the transfers walk through (pcie-bench window size; 64k = 64000)", "BYTES");
	add_count(c, "--offset", o.offset, 0, 4095,
		  "bytes from the start of each slot to the transfer (alignment studies)", "BYTES");
	add_name(c, "--cache", cache_mode_names, o.cache, "cache mode",
		 "host cache state before each run (hardware only; no effect on sim:xdma): thrash flushes the lines, "
		 "host-warm has the CPU write them last");
	add_parsed(c, "--numa", "NUMA node of the buffers (hardware only: the pioc module allocates on the device's node)",
		   [&o](std::string_view v) { o.numa = int(parse_count(v)); }, "NODE", "the device's");
	add_parsed(c, "--completion",
		   "how a run's end is seen: writeback (poll host memory), count (poll the register) or interrupt "
		   "(MSI-X -> eventfd)",
		   [&o](std::string_view v) { o.mode = xdma::completion_from(v); }, "MODE",
		   std::string(xdma::to_string(o.mode)));
	add_count(c, "--queue-depth,-Q", o.qd, 1, 1024, "transfers in flight for BW_* (chained into runs)");
	add_count(c, "--channel", o.channel, 0, 3,
		  "H2C/C2H channel pair to use (BW_RDWR and LAT_WRRD use both directions)");
	add_parsed(c, "--card-addr",
		   "card (AXI) address of the device-side buffer (on a simulated device the first address for "
		   "plain data: rtl:xdma's BRAM window)",
		   [&o](std::string_view v) {
			   o.card = parse_count(v);
			   o.card_given = true;
		   },
		   "ADDR", "0; simulated: the device's data base");
	add_parsed(c, "--bar", "XDMA config BAR", [&o](std::string_view v) { o.bar = int(parse_count(v)); }, "N",
		   "found by its identifier registers");
	set_footer(c, "tests:\n"
		 "  LAT_RD    one device read of host memory (H2C) at a time: doorbell -> completion seen\n"
		 "  LAT_WRRD  a device write to host memory (C2H) then a read of it back (H2C)\n"
		 "  BW_RD     H2C transfers with --queue-depth in flight, bytes / elapsed\n"
		 "  BW_WR     C2H likewise\n"
		 "  BW_RDWR   H2C and C2H at once on two channels\n"
		 "\n"
		 "latency rows: p50 etc. of doorbell -> completion seen (LAT_WRRD: both transfers); phase columns\n"
		 "(bandwidth rows: percentiles are of the interval between completions)\n"
		 "build/doorbell/complete_p50_ns split the H2C run. Bandwidth rows: gbps (10^9 bit/s) measured\n"
		 "beside model_gbps from the pcie-bench model with the device's MPS/MRRS and link.\n"
		 "On sim:xdma every time is SIMULATED (engine + link model), and cache/NUMA have no effect.\n"
		 "--device xilinx:/dev/xdma0[:CH] runs through the stock Xilinx driver's char devices\n"
		 "(pread/pwrite only, one I/O thread per transfer in flight for --queue-depth: the stock\n"
		 "driver ignores the file offset of io_uring/aio requests; measured wall-clock time).\n" +
		 backend_defaults_help("pciebench dma"));
}

// The whole card window of every size must fit the card's address space: say
// so before anything runs.
void check_card_window(const device &dev, const xdma::dma &x, const dma_opts &o)
{
	const std::uint64_t card_limit = x.card_size();
	for (std::uint64_t size : o.sizes) {
		const std::uint64_t stride = std::max<std::uint64_t>(size + o.offset, 64);
		const std::uint64_t span = std::clamp<std::uint64_t>(o.window / stride, 1, 256) * stride;
		if (card_limit && (o.card > card_limit || span > card_limit - o.card))
			throw error(errc::out_of_range,
				    fmt::format("{}: {}-byte transfers need card addresses {:#x}..{:#x} ({} bytes); the "
						"card's address space is {} bytes (0..{:#x}): lower --window, --sizes or "
						"--card-addr",
						dev.spec(), size, o.card, o.card + span - 1, span, card_limit,
						card_limit - 1));
	}
}

// The pcie-bench model of this device's link, for the bandwidth rows' model_gbps.
pcie_model::model link_model(const device &dev, const xdma::dma &x)
{
	const auto &li = dev.info().link;
	pcie_model::params mp;
	mp.gen = li.gen ? li.gen : 3;
	mp.lanes = li.width ? li.width : 8;
	mp.mps = x.mps();
	mp.mrrs = x.mrrs();
	return pcie_model::model(mp);
}

// The report's header: what ran, where, and with which settings.
bench::report describe_dma_run(device &dev, const xdma::dma &x, const dma_opts &o, const std::string &cache,
			       const pcie_model::model &model)
{
	bench::report rep;
	rep.tool = "pciebench dma";
	rep.device = dev.spec();
	rep.transport = dev.info().transport;
	rep.memory_type = "dma";
	rep.simulated = dev.simulated();
	rep.cpu = pin_timing_thread(dev.info(), o.common);
	rep.extra["completion"] = std::string(xdma::to_string(o.mode));
	rep.extra["cache"] = cache;
	rep.extra["window"] = o.window;
	rep.extra["offset"] = o.offset;
	rep.extra["queue_depth"] = o.qd;
	rep.extra["numa_node"] = o.numa ? *o.numa : dev.info().numa_node;
	rep.extra["mps"] = x.mps();
	rep.extra["mrrs"] = x.mrrs();
	rep.extra["config_bar"] = x.config_bar();
	rep.extra["card_addr"] = o.card;
	rep.extra["warmup"] = o.common.warmup;
	rep.extra["link"] = fmt::format("gen{} x{}", model.parameters().gen, model.parameters().lanes);
	if (auto *l = dev.sim_link())
		rep.extra["timing"] = l->timing().preset;
	else
		rep.extra["clock"] = "calibrated cycle counter";
	return rep;
}

// One row: latency percentiles and phases, or bandwidth beside the model's.
bench::result result_of(test t, std::uint64_t size, const outcome &out, const pcie_model::model &model,
			std::uint64_t iterations)
{
	bench::result r = bench::result::from(name_of(t), size, out.lat);
	if (is_bw(t)) {
		r.mbps = double(out.bytes) / out.elapsed_ns * 1e3;
		r.extra["gbps"] = double(out.bytes) * 8 / out.elapsed_ns;
		const auto mr = model.evaluate(size);
		// Device-initiated: H2C reads host memory (read), C2H writes it (write).
		r.extra["model_gbps"] = t == test::bw_rd ? mr.read_gbps
				       : t == test::bw_wr ? mr.write_gbps
							  : mr.rdwr_rx_gbps + mr.rdwr_tx_gbps;
		r.extra["ns_per_transfer"] = out.elapsed_ns / double(iterations);
	} else {
		r.extra["build_p50_ns"] = out.build.percentile(50);
		r.extra["doorbell_p50_ns"] = out.doorbell.percentile(50);
		r.extra["complete_p50_ns"] = out.complete.percentile(50);
	}
	return r;
}

int run_dma(dma_opts &o, const std::string &name)
{
	const std::string cache(pioc::name_of(cache_mode_names, o.cache));
	if (o.common.device.rfind("xilinx:", 0) == 0)
		return run_xilinx(o, o.common.device);
	device dev = open_device(o.common.device);
	if (o.numa && !dev.simulated() && dev.info().numa_node >= 0 && *o.numa != dev.info().numa_node)
		throw error(errc::not_supported,
			    fmt::format("{}: --numa {}: DMA buffers come from the pioc module on the device's node {}",
					dev.spec(), *o.numa, dev.info().numa_node));
	xdma::options xo;
	if (o.bar)
		xo.config_bar = *o.bar;
	xo.ring_descriptors = 8192;
	xdma::dma x(dev, xo);
	if (auto *sc = pioc::sim::xdma_control(dev); sc && !o.card_given)
		o.card = sc->card_data_base();
	check_card_window(dev, x, o);
	auto &h2c = x.h2c(unsigned(o.channel));
	auto &c2h = x.c2h(unsigned(o.channel));
	h2c.set_completion(o.mode);
	c2h.set_completion(o.mode);

	const pcie_model::model model = link_model(dev, x);
	bench::report rep = describe_dma_run(dev, x, o, cache, model);
	const auto meter = bench::speed_meter::start(dev); // simulated devices: the simulator's speed

	// Progress counts timed iterations, reported between tests.
	progress prog(name, o.tests.size() * o.sizes.size() * o.common.iterations, o.common.quiet);
	std::uint64_t done = 0, checked = 0;
	for (std::uint64_t size : o.sizes) {
		const std::uint64_t stride = std::max<std::uint64_t>(size + o.offset, 64);
		const std::uint64_t nslots = std::clamp<std::uint64_t>(o.window / stride, 1, 256);
		const std::uint64_t span = nslots * stride;
		auto buf = dev.alloc_dma(span + 4096);
		std::memset(buf.cpu, 0x11, span);
		h2c.release_all();
		c2h.release_all();
		slots s;
		const std::uint64_t per = std::max<std::uint64_t>(nslots, o.qd);
		for (std::uint64_t i = 0; i < per; ++i) {
			const std::uint64_t off = (i % nslots) * stride + o.offset;
			s.h2c.push_back(&h2c.prepare(buf, off, size, o.card + (i % nslots) * stride));
			s.c2h.push_back(&c2h.prepare(buf, off, size, o.card + (i % nslots) * stride));
		}
		for (test t : o.tests) {
			prog.update(done, fmt::format("{} {} B", name_of(t), size));
			done += o.common.iterations;
			prepare_cache(o.cache, buf.cpu, span);
			outcome out = x.config().visit([&](const auto &io) {
				if (is_bw(t)) {
					(void)run_bandwidth(io, t, h2c, c2h, s, o.qd, std::min<std::uint64_t>(o.common.warmup, 64),
							    size); // warm-up
					return run_bandwidth(io, t, h2c, c2h, s, o.qd, o.common.iterations, size);
				}
				return run_latency(io, t, h2c, c2h, s, o.common.warmup, o.common.iterations);
			});
			rep.results.push_back(result_of(t, size, out, model, o.common.iterations));
		}
		// Every byte of this size checked, not timed: the timed runs moved a
		// constant fill; here a pattern goes to the card and back with the
		// same completion mode, queue depth, card window and host offset.
		const dma_check_layout check{size, stride, o.offset, o.card, std::min(nslots, o.qd)};
		run_dma_check(dev, x, unsigned(o.channel), check, size);
		checked += 2 * check.slots * size;
	}
	prog.finish();
	rep.extra["checked_bytes"] = checked;
	// Runs finished from the completed count because their write-back or
	// interrupt never came (0 on a healthy device and driver).
	rep.extra["lost_signals"] = h2c.lost_signals() + c2h.lost_signals();
	rep.extra["recoveries"] = h2c.recoveries() + c2h.recoveries();
	if (meter)
		rep.speed = meter->stop(dev);
	emit(rep, o.common.format);
	return exit_ok;
}

} // namespace
} // namespace pioc::tool

pioc::tool::tool::body pciebench_dma(CLI::App &cmd)
{
	auto o = std::make_shared<pioc::tool::dma_opts>();
	pioc::tool::add_dma_options(cmd, *o);
	return [o, &cmd] {
		pioc::tool::apply_backend_defaults(o->common, "pciebench dma", o->common.device, cmd);
		return pioc::tool::run_dma(*o, pioc::tool::full_name(cmd));
	};
}
