// pciebench offload: the paper's Bloom-filter offload (Sec. 6.5, Fig. 12).
// A batch of 128-byte elements goes to the FPGA's bloom_hash unit and the
// k = 8 hashes of every element (64 bytes) come back, over each path:
//   cpu  the same hashes computed on this core (measured: the baseline)
//   pio  PIO invocations of the PIO image, op BLOOM (chunks of 8 KiB)
//   dma  the XDMA engines move the batch into the image's REQ window, ring
//        DOORBELL, read INVOKE_STATUS and fetch the hashes from RESP: no
//        CPU load or store touches the device (chunks of 8 KiB)
//   eci  Fig. 5a invocations over ECI with the device computing the hashes
//        (messages of up to 16 KiB)
// Every answer is checked against pioc/bloom_hash.hpp after the timed runs.
#include "commands.hpp"
#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/run_defaults.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/report.hpp>
#include <pioc/bench/sim_speed.hpp>
#include <pioc/bloom_hash.hpp>
#include <pioc/clock.hpp>
#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/device.hpp>
#include <pioc/pio.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/eci_engine.hpp>
#include <pioc/sim/eci_lines.hpp>
#include <pioc/xdma/xdma.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

namespace pioc::tool {
namespace {

/** Runs @p f (request, hashes out) warmup + iterations times, timing each
 *  with @p now (ns). A template: no indirect call inside the timed region. */
template <class F, class Now>
bench::histogram time_runs(F f, const std::vector<std::uint8_t> &req, std::vector<std::uint8_t> &out,
			   const bench_options &o, Now now)
{
	for (std::uint64_t i = 0; i < o.warmup; ++i)
		f(req, out);
	bench::histogram h;
	for (std::uint64_t i = 0; i < o.iterations; ++i) {
		double t0 = now();
		f(req, out);
		h.record(static_cast<std::uint64_t>(now() - t0 + 0.5));
	}
	return h;
}

/** Offloads @p r in chunks of @p per bytes: @p one(src, n) sends one chunk
 *  and returns its hashes; they are gathered into @p o. */
template <class One>
void in_chunks(const std::vector<std::uint8_t> &r, std::vector<std::uint8_t> &o, std::size_t per, One &one)
{
	std::size_t got = 0;
	for (std::size_t off = 0; off < r.size(); off += per) {
		const std::span<const std::uint8_t> h = one(r.data() + off, std::min(per, r.size() - off));
		std::memcpy(o.data() + got, h.data(), std::min(h.size(), o.size() - got));
		got += h.size();
	}
	o.resize(got);
}

/** A batch and its hashes, computed once per size by the reference code
 *  on this core before any path runs, outside every speed meter. */
struct batch {
	std::vector<std::uint8_t> req, want;
};

void check_hashes(const std::string &path, const batch &b, const std::vector<std::uint8_t> &out)
{
	const std::vector<std::uint8_t> &req = b.req, &want = b.want;
	if (out.size() != want.size())
		throw error(errc::device_error, fmt::format("pciebench offload: the {} path returned {} bytes of hashes "
							    "for {} elements; expected {}",
							    path, out.size(), req.size() / bloom::element_bytes,
							    want.size()));
	auto bad = std::mismatch(out.begin(), out.end(), want.begin());
	if (bad.first != out.end()) {
		std::size_t at = static_cast<std::size_t>(bad.first - out.begin());
		throw error(errc::device_error,
			    fmt::format("pciebench offload: the {} path computed wrong hashes: element {}, hash {}",
					path, at / bloom::result_bytes, at % bloom::result_bytes / 8));
	}
}

/** The FPGA's Bloom pipeline (paper Sec. 6.5): 64 cycles for the first
 *  element, then one element every 2 cycles, at 300 MHz. */
double bloom_pipeline_ns(std::size_t elements)
{
	return (64.0 + 2.0 * double(elements ? elements - 1 : 0)) / 300e6 * 1e9;
}

struct paths {
	bench_options common;
	std::string pio_device = "sim:pio", dma_device = "sim:xdma_pio";
	bool pipelined = false;
	std::vector<std::string> which{"cpu", "pio", "dma", "eci"}; ///< the paths to run
	std::vector<std::uint64_t> sizes;
};

// ---------------------------------------------------------------- cpu

bench::result run_cpu(const batch &b, const paths &p)
{
	const std::vector<std::uint8_t> &req = b.req;
	std::vector<std::uint8_t> out(bloom::result_len(req.size()));
	auto f = [](const std::vector<std::uint8_t> &r, std::vector<std::uint8_t> &o) {
		bloom::hash_buffer(r.data(), r.size(), o.data());
		asm volatile("" ::"r"(o.data()) : "memory");
	};
	hw_clock clk;
	auto h = time_runs(f, req, out, p.common, [&] { return double(clk.now_ns()); });
	check_hashes("cpu", b, out);
	auto r = bench::result::from("cpu", req.size(), h);
	r.extra["time"] = "measured";
	return r;
}

// ---------------------------------------------------------------- pio

bench::result run_pio(const batch &b, const paths &p, device &dev)
{
	const std::vector<std::uint8_t> &req = b.req;
	const mem_type mt = p.common.mem.value_or(mem_type::wc);
	region bar0 = dev.map(xdma::pio_image_bar(dev), mt);
	pio::invoker inv(bar0);
	pio::invoke_state &st = inv.state();
	std::vector<std::uint8_t> out(bloom::result_len(req.size()));
	bench::histogram h;
	// The backend and memory type are chosen once, above the timed loop.
	bar0.visit([&](const auto &io) {
		pio::with_mem_type(mt, [&](auto m) {
			constexpr mem_type MT = decltype(m)::value;
			std::vector<std::uint8_t> chunk(pio::max_payload);
			auto one = [&](const std::uint8_t *src, std::size_t n) {
				return std::span<const std::uint8_t>(
					chunk.data(), pio::invoke<MT>(io, st, pio::op::bloom, src, n, chunk.data()));
			};
			auto f = [&](const std::vector<std::uint8_t> &r, std::vector<std::uint8_t> &o) {
				in_chunks(r, o, pio::max_payload, one);
			};
			h = time_runs(f, req, out, p.common, [&] { return double(io.now_ns()); });
		});
	});
	check_hashes("pio", b, out);
	auto r = bench::result::from("pio", req.size(), h);
	r.extra["time"] = dev.simulated() ? "simulated" : "measured";
	r.extra["device"] = dev.spec();
	return r;
}

// ---------------------------------------------------------------- eci

bench::result run_eci(const batch &b, const paths &p)
{
	const std::vector<std::uint8_t> &req = b.req;
	sim::eci::system sys;
	sim::eci::engine_config ec;
	ec.data_lines = p.pipelined ? 128 : 0;
	ec.handler = [](const std::uint8_t *q, std::size_t n, std::uint8_t *resp, std::size_t cap) {
		std::size_t len = bloom::result_len(n);
		if (len > cap)
			throw error(errc::out_of_range, "pciebench offload: hashes do not fit the response buffer");
		bloom::hash_buffer_best(q, n, resp); // the device's work, not the CPU baseline's
		return len;
	};
	sim::eci::proto_engine eng(sys, ec);
	sys.cpu_spend(5000);
	coherent::cpu_options co;
	co.pipelined = p.pipelined;
	coherent::invoker<coherent::eci_sim_lines> inv(coherent::eci_sim_lines(sys, eng.window_base()),
							eng.channel_layout(0), co);
	const std::size_t msg = p.pipelined ? std::min<std::size_t>(coherent::max_message, eng.channel_layout(0).max_pipelined())
					    : coherent::max_message;
	const std::size_t per = msg / bloom::element_bytes * bloom::element_bytes;
	std::vector<std::uint8_t> resp(coherent::max_message), out(bloom::result_len(req.size()));
	auto one = [&](const std::uint8_t *src, std::size_t n) {
		eng.set_compute_ns(bloom_pipeline_ns(n / bloom::element_bytes));
		return std::span<const std::uint8_t>(resp.data(), inv.call(src, n, resp.data(), resp.size()));
	};
	auto f = [&](const std::vector<std::uint8_t> &r, std::vector<std::uint8_t> &o) { in_chunks(r, o, per, one); };
	auto c0 = sys.stats();
	const bench::speed_meter meter{bench::sim_sample{sys.now()}};
	auto h = time_runs(f, req, out, p.common, [&] { return sys.now(); });
	const auto speed = meter.stop(bench::sim_sample{sys.now()});
	auto d = sys.stats() - c0;
	check_hashes("eci", b, out);
	auto r = bench::result::from("eci", req.size(), h);
	r.extra["time"] = "simulated";
	r.extra["device"] = "sim:eci";
	const double runs = double(p.common.iterations + p.common.warmup);
	r.extra["messages_per_op"] = double(d.link_messages()) / runs;
	r.extra["simulation"] = speed.to_json();
	return r;
}

// ---------------------------------------------------------------- dma

/** The dma path's engines, host buffer and prepared requests, set up once
 *  per run as a user would: the engines are opened once, not per batch
 *  size. Each size's simulation speed then meters its runs, not the
 *  driver allocating descriptor memory (about 0.15 ms of CPU, half the
 *  simulated time of a 50-run row of one element). */
class dma_path {
public:
	explicit dma_path(device &dev)
		: dev_(dev), x_(dev), buf_(dev.alloc_dma(hashes + pio::response_len(pio::op::bloom, chunk)))
	{
		plans_.reserve(max_plans);
	}

	bench::result run(const batch &b, const paths &p);

private:
	static constexpr std::size_t chunk = pio::max_payload;
	// One plan per chunk length, a multiple of the element up to a chunk.
	static constexpr std::size_t max_plans = chunk / bloom::element_bytes;
	// Host buffer: request | a (doorbell word, status word) pair per plan | hashes.
	static constexpr std::size_t ctl = chunk, hashes = ctl + 16 * max_plans;
	struct plan {
		std::size_t n, rlen;
		xdma::request *wreq, *wdb, *rst, *rresp;
		std::size_t st_off;
	};
	/** The requests for a chunk of @p n bytes: descriptors are written
	 *  once, before the timed runs. */
	plan &plan_for(std::size_t n)
	{
		namespace R = regs::pio_dev;
		for (auto &pl : plans_)
			if (pl.n == n)
				return pl;
		auto &h2c = x_.h2c(0);
		auto &c2h = x_.c2h(0);
		auto *host = static_cast<std::uint8_t *>(buf_.cpu);
		const std::size_t db = ctl + 16 * plans_.size();
		const std::uint64_t word = std::uint64_t(R::OP_BLOOM) << 32 | n;
		std::memcpy(host + db, &word, 8);
		const std::size_t rlen = pio::response_len(pio::op::bloom, n);
		plans_.push_back({n, rlen, &h2c.prepare(buf_, 0, n, R::REQ.offset),
				  &h2c.prepare(buf_, db, 8, R::DOORBELL.offset),
				  &c2h.prepare(buf_, db + 8, 8, R::INVOKE_STATUS.offset),
				  &c2h.prepare(buf_, hashes, rlen, R::RESP.offset), db + 8});
		return plans_.back();
	}

	device &dev_;
	xdma::dma x_;
	dma_buffer buf_;
	std::vector<plan> plans_;
};

bench::result dma_path::run(const batch &b, const paths &p)
{
	const std::vector<std::uint8_t> &req = b.req;
	namespace R = regs::pio_dev;
	for (std::size_t off = 0; off < req.size(); off += chunk)
		plan_for(std::min(chunk, req.size() - off));
	auto *host = static_cast<std::uint8_t *>(buf_.cpu);
	std::vector<std::uint8_t> out(bloom::result_len(req.size()));
	bench::histogram h;
	// The backend is chosen once, above the timed loop.
	x_.config().visit([&](const auto &io) {
		auto in = x_.h2c(0).ops(io);
		auto back = x_.c2h(0).ops(io);
		auto one = [&](const std::uint8_t *src, std::size_t n) {
			plan &pl = plan_for(n);
			std::memcpy(host, src, pl.n);
			in.submit(*pl.wreq);
			in.submit(*pl.wdb);
			in.wait(*pl.wreq);
			in.wait(*pl.wdb);
			back.submit(*pl.rst); // held by the image until the hashes are ready
			back.wait(*pl.rst);
			std::uint64_t st;
			std::memcpy(&st, host + pl.st_off, 8);
			if (!(st & R::STATUS_DONE) || (st & R::STATUS_LEN_MASK) != pl.rlen)
				throw error(errc::device_error,
					    fmt::format("pciebench offload: {}: INVOKE_STATUS {:#x} after a DMA-driven "
							"BLOOM of {} bytes (expected done, {} bytes)",
							dev_.spec(), st, pl.n, pl.rlen));
			back.submit(*pl.rresp);
			back.wait(*pl.rresp);
			return std::span<const std::uint8_t>(host + hashes, pl.rlen);
		};
		auto f = [&](const std::vector<std::uint8_t> &r, std::vector<std::uint8_t> &o) {
			in_chunks(r, o, chunk, one);
		};
		h = time_runs(f, req, out, p.common, [&] { return double(io.now_ns()); });
	});
	check_hashes("dma", b, out);
	auto r = bench::result::from("dma", req.size(), h);
	r.extra["time"] = dev_.simulated() ? "simulated" : "measured";
	r.extra["device"] = dev_.spec();
	return r;
}

void add_offload_options(CLI::App &c, paths &p)
{
	p.common.iterations = 50;
	p.common.warmup = 3;
	p.common.mem = mem_type::wc;
	add_bench_options(c, p.common, opt_format | opt_cpu | opt_iterations | opt_quiet | opt_mem_type,
			  "memory type of the PIO mapping");
	add_parsed(c, "--paths",
		   "cpu (this core, measured), pio (--pio-device), dma (--dma-device), eci (the simulated coherent "
		   "device)",
		   [&p](std::string_view v) {
			   p.which = split_list(v, "path");
			   for (auto &w : p.which)
				   if (w != "cpu" && w != "pio" && w != "dma" && w != "eci")
					   throw usage_error(fmt::format("unknown path '{}' (cpu, pio, dma, eci)", w));
		   },
		   "LIST", "cpu,pio,dma,eci");
	add_sizes(c, "--sizes,-s", p.sizes, "128,512,1K,2K,4K,8K,16K,32K",
		  "batch sizes in bytes, whole 128-byte elements (128 .. 1M)");
	add_text(c, "--pio-device", p.pio_device, "device for the pio path (sim:pio, rtl:pio, PCI)", "SPEC");
	add_text(c, "--dma-device", p.dma_device,
		 "XDMA device whose engines reach the PIO image (sim:xdma_pio, rtl:xdma, or the VCU118's PCI address)",
		 "SPEC");
	add_flag(c, "--pipelined", p.pipelined, "eci path: all lines of a message in flight at once");
	set_footer(c, "Each run sends a batch of 128-byte elements and gets the k = 8 hashes (64 bytes) of every\n"
		 "element back; the answers are checked against pioc/bloom_hash.hpp. The cpu path is\n"
		 "measured on this core; the others are SIMULATED on the built-in devices (column 'time').\n"
		 "example: pciebench offload --sizes 128..16K --json\n" +
		 backend_defaults_help("pciebench offload"));
}

int run_offload(paths &p, const std::string &name)
{
	const auto &sz = p.sizes;
	for (auto s : sz)
		if (s == 0 || s % bloom::element_bytes || s > (1u << 20))
			throw usage_error(fmt::format("--sizes: {} is not a whole number of 128-byte elements in 128 .. 1M",
						      s));
	const auto &list = p.which;
	auto has = [&](const char *w) { return std::find(list.begin(), list.end(), w) != list.end(); };
	std::optional<device> pdev, ddev;
	std::optional<dma_path> dma;
	if (has("pio"))
		pdev.emplace(open_device(p.pio_device, "--pio-device"));
	if (has("dma"))
		dma.emplace(ddev.emplace(open_device(p.dma_device, "--dma-device")));

	bench::report rep;
	rep.tool = "pciebench offload";
	rep.device = fmt::format("pio={} dma={} eci=sim:eci", p.pio_device, p.dma_device);
	rep.transport = "mixed";
	rep.memory_type = std::string(to_string(p.common.mem.value_or(mem_type::wc)));
	rep.simulated = (has("pio") && pdev->simulated()) || (has("dma") && ddev->simulated()) || has("eci");
	rep.cpu = pin_timing_thread(pdev ? pdev->info() : device_info{}, p.common);
	rep.extra["function"] = "bloom: k = 8 hashes per 128-byte element";
	// Each size's batch and its reference hashes, once for every path.
	std::vector<batch> batches;
	for (auto s : sz) {
		batch &b = batches.emplace_back(
			batch{std::vector<std::uint8_t>(s), std::vector<std::uint8_t>(bloom::result_len(s))});
		for (std::size_t i = 0; i < s; ++i)
			b.req[i] = static_cast<std::uint8_t>(i * 131 + (i >> 7) * 7 + 1);
		bloom::hash_buffer(b.req.data(), s, b.want.data());
	}
	progress prog(name, list.size() * sz.size(), p.common.quiet, "runs");
	std::uint64_t done = 0;
	for (auto &w : list)
		for (const batch &b : batches) {
			const std::size_t s = b.req.size();
			prog.update(done++, fmt::format("{} {} B", w, s));
			// A simulated PCIe path's speed (issue 13): its device's
			// clock over this size's runs (run_eci meters its own model).
			device *sim_dev = w == "pio" ? &*pdev : w == "dma" ? &*ddev : nullptr;
			const auto meter = sim_dev ? bench::speed_meter::start(*sim_dev) : std::nullopt;
			bench::result r = w == "cpu"   ? run_cpu(b, p)
					  : w == "pio" ? run_pio(b, p, *pdev)
					  : w == "dma" ? dma->run(b, p)
						       : run_eci(b, p);
			if (meter)
				r.extra["simulation"] = meter->stop(*sim_dev).to_json();
			r.extra["elements"] = s / bloom::element_bytes;
			r.extra["ns_per_element"] = r.p50_ns / double(s / bloom::element_bytes);
			rep.results.push_back(std::move(r));
		}
	prog.finish();
	emit(rep, p.common.format);
	return exit_ok;
}

} // namespace
} // namespace pioc::tool

pioc::tool::tool::body pciebench_offload(CLI::App &cmd)
{
	auto p = std::make_shared<pioc::tool::paths>();
	pioc::tool::add_offload_options(cmd, *p);
	return [p, &cmd] {
		pioc::tool::apply_backend_defaults(p->common, "pciebench offload",
						   p->pio_device.starts_with("rtl:") ? p->pio_device : p->dma_device, cmd);
		return pioc::tool::run_offload(*p, pioc::tool::full_name(cmd));
	};
}
