// pciebench pio: PIO latency (write, read, write-then-read) and PIO stream
// throughput against the pioc PIO image, on hardware or the simulated device.
//
// Every timed loop is a template over the I/O view and the memory type,
// entered once through region::visit() and pio::with_mem_type(): the loop
// body has no virtual call, lock or backend branch. Checks of the data run
// after the second timestamp of each iteration.
#include "commands.hpp"
#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/run_defaults.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/report.hpp>
#include <pioc/device.hpp>
#include <pioc/enum_names.hpp>
#include <pioc/error.hpp>
#include <pioc/pio.hpp>
#include <pioc/pio_call.hpp>
#include <pioc/xdma/xdma.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace pioc::tool {
namespace {

namespace regs = pioc::regs::pio_dev;

enum class bench_op { write, read, write_read, write_stream, read_stream };

constexpr enum_name<bench_op> bench_op_names[] = {
	{bench_op::write, "write"},
	{bench_op::read, "read"},
	{bench_op::write_read, "write_read"},
	{bench_op::write_stream, "write_stream"},
	{bench_op::read_stream, "read_stream"},
};

std::string_view name_of(bench_op o) { return pioc::name_of(bench_op_names, o); }

bool is_stream(bench_op o) { return o == bench_op::write_stream || o == bench_op::read_stream; }

struct pio_options {
	bench_options common;
	std::vector<std::uint64_t> sizes;
	std::vector<bench_op> ops;
	pio::op code = pio::op::echo;
	std::string timing;
	std::uint64_t retries = 3;
};

struct run_params {
	bench_op op;
	std::uint64_t size;
	std::uint64_t iterations, warmup;
	pio::op code;
	const std::string *device;
	// Progress inside one size (a slow device, e.g. rtl:pio, can spend minutes
	// on one): the latency loops report every progress_every iterations,
	// after the iteration's second timestamp. Iterations before this run: base.
	progress *prog;
	std::uint64_t base;
	const std::string *what;
};

constexpr std::uint64_t progress_every = 1024; // a power of two: the test is a mask

// Untimed: called after t1, so neither the call nor its branch is timed.
inline void report_progress(const run_params &p, std::uint64_t it)
{
	if ((it & (progress_every - 1)) == progress_every - 1) [[unlikely]]
		p.prog->update(p.base + it + 1, *p.what);
}

[[noreturn]] void mismatch(const run_params &p, std::uint64_t iter, std::size_t at, std::uint8_t got,
			   std::uint8_t want, std::string_view what)
{
	throw error(errc::device_error,
		    fmt::format("{}: {} of {} bytes{}, iteration {}: {} byte {} is {:#04x}, expected {:#04x}",
				*p.device, name_of(p.op), p.size,
				p.op == bench_op::write_read ? fmt::format(" (op {})", pio::to_string(p.code)) : "",
				iter, what, at, got, want));
}

void compare(const run_params &p, std::uint64_t iter, const std::uint8_t *got, const std::uint8_t *want,
	     std::size_t n, std::string_view what)
{
	if (std::memcmp(got, want, n) == 0) [[likely]]
		return;
	std::size_t i = 0;
	while (got[i] == want[i])
		++i;
	mismatch(p, iter, i, got[i], want[i], what);
}

// Puts the iteration number into the first bytes so every request differs.
inline void stamp(std::uint8_t *buf, std::size_t n, std::uint64_t iter)
{
	std::memcpy(buf, &iter, std::min<std::size_t>(n, sizeof iter));
}

struct outcome {
	bench::histogram hist;
	double elapsed_ns = 0; // streams: first byte issued .. last byte known at the device
};

// ---- the timed loops: one instantiation per (I/O view, memory type) ----------

template <mem_type MT, class IO> outcome loop_write_read(const IO &io, const run_params &p, pio::invoke_state &st)
{
	outcome out;
	const std::size_t rlen = pio::response_len(p.code, p.size);
	std::vector<std::uint8_t> req(p.size), resp(std::max(rlen, p.size)), want(rlen);
	for (std::size_t i = 0; i < p.size; ++i)
		req[i] = static_cast<std::uint8_t>(i * 131 + 7);
	const pio::call<MT, IO> invoke(io, st, p.code, p.size); // op, size and view checked once
	const std::uint64_t total = p.warmup + p.iterations;
	for (std::uint64_t it = 0; it < total; ++it) {
		stamp(req.data(), p.size, it);
		const std::uint64_t t0 = io.now_ns();
		const std::size_t len = invoke(req.data(), resp.data());
		const std::uint64_t t1 = io.now_ns();
		if (it >= p.warmup)
			out.hist.record(t1 - t0);
		if (len != rlen) [[unlikely]]
			throw error(errc::device_error,
				    fmt::format("{}: write_read of {} bytes, iteration {}: the device answered {} bytes, "
						"expected {}",
						*p.device, p.size, it, len, rlen));
		pio::apply(p.code, req.data(), p.size, want.data());
		compare(p, it, resp.data(), want.data(), rlen, "response");
		report_progress(p, it);
	}
	return out;
}

template <mem_type MT, class IO> outcome loop_write(const IO &io, const run_params &p)
{
	outcome out;
	std::vector<std::uint8_t> buf(p.size), back(p.size);
	for (std::size_t i = 0; i < p.size; ++i)
		buf[i] = static_cast<std::uint8_t>(i * 29 + 1);
	const std::uint64_t total = p.warmup + p.iterations;
	for (std::uint64_t it = 0; it < total; ++it) {
		stamp(buf.data(), p.size, it);
		const std::uint64_t t0 = io.now_ns();
		pio::write_stream<MT>(io, regs::BRAM.offset, buf.data(), p.size);
		const std::uint64_t t1 = io.now_ns();
		if (it >= p.warmup)
			out.hist.record(t1 - t0);
		// Untimed: a read the posted writes must precede drains the link, so
		// every iteration starts from an idle link.
		(void)io.template load<std::uint32_t>(regs::SCRATCH.offset);
		report_progress(p, it);
	}
	io.copy_from(regs::BRAM.offset, back.data(), p.size);
	compare(p, total - 1, back.data(), buf.data(), p.size, "read-back");
	return out;
}

template <mem_type MT, class IO> outcome loop_read(const IO &io, const run_params &p)
{
	outcome out;
	std::vector<std::uint8_t> pattern(p.size), buf(p.size);
	for (std::size_t i = 0; i < p.size; ++i)
		pattern[i] = static_cast<std::uint8_t>(i * 17 + 5);
	pio::write_stream<MT>(io, regs::BRAM.offset, pattern.data(), p.size);
	io.full();
	const std::uint64_t total = p.warmup + p.iterations;
	for (std::uint64_t it = 0; it < total; ++it) {
		const std::uint64_t t0 = io.now_ns();
		pio::read_stream<MT>(io, regs::BRAM.offset, buf.data(), p.size);
		const std::uint64_t t1 = io.now_ns();
		if (it >= p.warmup)
			out.hist.record(t1 - t0);
		compare(p, it, buf.data(), pattern.data(), p.size, "data");
		report_progress(p, it);
	}
	return out;
}

// Streams walk the BRAM window in chunks of `size`, wrapping around.
template <mem_type MT, class IO> outcome loop_stream(const IO &io, const run_params &p, bool write)
{
	outcome out;
	std::vector<std::uint8_t> buf(p.size);
	for (std::size_t i = 0; i < p.size; ++i)
		buf[i] = static_cast<std::uint8_t>(i * 13 + 3);
	const std::uint64_t chunks = std::max<std::uint64_t>(1, regs::BRAM.size / p.size);
	auto one = [&](std::uint64_t it) {
		const std::uint64_t off = regs::BRAM.offset + (it % chunks) * p.size;
		if (write)
			pio::write_stream<MT>(io, off, buf.data(), p.size);
		else
			pio::read_stream<MT>(io, off, buf.data(), p.size);
	};
	for (std::uint64_t it = 0; it < p.warmup; ++it)
		one(it);
	(void)io.template load<std::uint32_t>(regs::SCRATCH.offset); // start from an idle link
	const std::uint64_t start = io.now_ns();
	std::uint64_t t0 = start;
	for (std::uint64_t it = 0; it < p.iterations; ++it) {
		one(it);
		const std::uint64_t t1 = io.now_ns();
		out.hist.record(t1 - t0);
		t0 = t1;
	}
	if (write) // the bytes count once the device has them: a read cannot pass them
		(void)io.template load<std::uint32_t>(regs::SCRATCH.offset);
	out.elapsed_ns = double(io.now_ns() - start);
	return out;
}

template <mem_type MT, class IO> outcome run_one(const IO &io, const run_params &p, pio::invoke_state &st)
{
	switch (p.op) {
	case bench_op::write_read: return loop_write_read<MT>(io, p, st);
	case bench_op::write: return loop_write<MT>(io, p);
	case bench_op::read: return loop_read<MT>(io, p);
	case bench_op::write_stream: return loop_stream<MT>(io, p, true);
	case bench_op::read_stream: return loop_stream<MT>(io, p, false);
	}
	throw error(errc::invalid_argument, "pciebench pio: unknown operation");
}

// ---- command line -----------------------------------------------------------

constexpr const char *epilog_text =
	R"(operations (--ops):
  write         CPU time to issue `size` bytes of posted stores into the BRAM window
                (plus sfence on wc). Posted writes have no completion, so this is
                issue time, not arrival time; the link is drained (untimed) between
                iterations. The paper measures writes only as part of write_read.
  read          `size` bytes loaded from the BRAM window: one non-posted read per
                wide load (16 bytes: the read width of both paper platforms), each a
                full round trip. On wt, lines are flushed first (Tide-style); the
                simulator has no cache and reads lines only for line-wide loads.
  write_read    one invocation, the paper's main metric (Sec. 4, Fig. 2/3): request
                into REQ, doorbell, blocking read of INVOKE_STATUS, response from
                RESP. Every response is checked against the op (--op-code).
  write_stream  back-to-back writes of `size` chunks across the 128 KiB BRAM window;
  read_stream   ... reads likewise. Both report MB/s (10^6 bytes/s) over the whole run
                (write_stream up to a read that proves all bytes arrived).

times: on a simulated device (sim:...) every number is simulated time from the
link and device model and the output says SIMULATED; on hardware, wall-clock ns
from the calibrated cycle counter. Percentiles come from an HDR-style histogram
(upper bucket edge, < 1% above the exact value); min and max are exact.

examples:
  pciebench pio                                       # everything, simulated PC
  pciebench pio --ops write_read --mem-type uc --sizes 8,4K
  pciebench pio --device sim:pio@enzian-gen3x8 --json
  pciebench pio --timing enzian-gen3x8 --sizes 64..8K --iterations 100k --csv
  pciebench pio --device 0000:01:00.0 --cpu 2        # hardware, pinned to CPU 2)";

// The options into @p o; checks that need several options run in finish().
void add_options(CLI::App &cmd, pio_options &o)
{
	o.common.mem = mem_type::wc;
	o.ops = {bench_op::write, bench_op::read, bench_op::write_read, bench_op::write_stream, bench_op::read_stream};
	add_bench_options(cmd, o.common, opt_all, "memory type of the PIO image's BAR mapping");
	describe_option(cmd, "--device",
		"device with the PIO image (its BAR found by its ID: on a VCU118 the XDMA bypass BAR): sim:pio, "
		"sim:xdma, sim:xdma_pio, rtl:pio, rtl:xdma or a PCI function (every kind: 'pciebench --help')");
	add_sizes(cmd, "--sizes,-s", o.sizes, "8..8K",
		  fmt::format("payload bytes, 1..{} (the REQ/RESP windows of the PIO image)", pio::max_payload));
	add_name_list(cmd, "--ops", bench_op_names, o.ops, "operation", "operations, see below");
	add_name(cmd, "--op-code", pio::op_names, o.code, "op code", "function the device applies in write_read");
	add_text(cmd, "--timing", o.timing,
		 "link timing of a simulated device (sim:*, rtl:* only): pc-gen3x16 (Core i7 + VCU118) or "
		 "enzian-gen3x8 (ThunderX-1); same as --device sim:pio@PRESET [default: the device's]",
		 "PRESET");
	add_count(cmd, "--retries", o.retries, 0, 1000,
		  "NOT_READY answers tolerated per invocation before failing with a timeout");
	set_footer(cmd, epilog_text + backend_defaults_help("pciebench pio"));
}

void finish(pio_options &o)
{
	for (auto s : o.sizes)
		if (s == 0 || s > pio::max_payload)
			throw usage_error(fmt::format("--sizes: size {} is outside 1..{} bytes (the REQ/RESP windows "
						      "of the PIO image)", s, pio::max_payload));
	if (!o.timing.empty()) {
		if (o.common.device.rfind("sim:", 0) != 0 && o.common.device.rfind("rtl:", 0) != 0)
			throw usage_error(fmt::format("--timing {} applies to simulated devices only, not '{}'", o.timing,
						      o.common.device));
		if (o.common.device.find('@') != std::string::npos)
			throw usage_error(fmt::format("--timing {} conflicts with the preset in --device {}", o.timing,
						      o.common.device));
		o.common.device += "@" + o.timing;
	}
}

int run_pio(pio_options &o, const std::string &name)
{
	finish(o);
	device dev = open_device(o.common.device);
	const mem_type mt = *o.common.mem;
	region bar0 = dev.map(xdma::pio_image_bar(dev), mt); // BAR2 on a VCU118 (after the config BAR), BAR0 here
	pio::invoker inv(bar0); // checks the image (ID, version, invoke unit)
	pio::invoke_state &st = inv.state();
	st.not_ready_retries = static_cast<unsigned>(o.retries);
	const auto meter = bench::speed_meter::start(dev); // simulated devices: the simulator's speed

	bench::report rep;
	rep.tool = "pciebench pio";
	rep.device = dev.spec();
	rep.transport = dev.info().transport;
	rep.memory_type = std::string(to_string(mt));
	rep.simulated = dev.simulated();
	rep.cpu = pin_timing_thread(dev.info(), o.common);
	rep.extra["op_code"] = std::string(pio::to_string(o.code));
	rep.extra["warmup"] = o.common.warmup;
	sim::pcie_link *link = dev.sim_link();
	if (link) {
		rep.extra["timing"] = link->timing().preset;
		bar0.visit([&](const auto &io) {
			if constexpr (std::decay_t<decltype(io)>::simulated)
				rep.extra["wide_bytes"] = io.wide_bytes();
		});
	} else {
		rep.extra["clock"] = "calibrated cycle counter";
	}

	// Progress counts iterations (warm-up included), reported between sizes.
	const std::uint64_t per_run = o.common.iterations + o.common.warmup;
	progress prog(name, o.ops.size() * o.sizes.size() * per_run, o.common.quiet);
	std::uint64_t done = 0;
	for (bench_op bop : o.ops) {
		for (std::uint64_t size : o.sizes) {
			const std::string what = fmt::format("{} {} B", name_of(bop), size);
			prog.update(done, what);
			const run_params p{bop, size, o.common.iterations, o.common.warmup, o.code, &rep.device,
					   &prog, done, &what};
			done += per_run;
			if (link)
				link->reset_stats();
			// The backend and memory type are chosen here, once, above the loop.
			outcome out = bar0.visit([&](const auto &io) {
				return pio::with_mem_type(mt, [&](auto m) { return run_one<decltype(m)::value>(io, p, st); });
			});
			auto r = bench::result::from(std::string(name_of(bop)), size, out.hist);
			if (is_stream(bop) && out.elapsed_ns > 0)
				r.mbps = double(size) * double(o.common.iterations) / out.elapsed_ns * 1e3;
			if (link) {
				// TLPs per timed or untimed operation, from the link's counters.
				const auto &s = link->stats();
				const double n = double(o.common.iterations + o.common.warmup);
				r.extra["mwr_tlps_per_op"] = double(s.mwr_tlps) / n;
				r.extra["mrd_tlps_per_op"] = double(s.mrd_tlps) / n;
			}
			rep.results.push_back(std::move(r));
		}
	}
	prog.finish();
	if (meter)
		rep.speed = meter->stop(dev);
	emit(rep, o.common.format);
	return exit_ok;
}

} // namespace
} // namespace pioc::tool

pioc::tool::tool::body pciebench_pio(CLI::App &cmd)
{
	auto o = std::make_shared<pioc::tool::pio_options>();
	pioc::tool::add_options(cmd, *o);
	return [o, &cmd] {
		pioc::tool::apply_backend_defaults(o->common, "pciebench pio", o->common.device, cmd);
		return pioc::tool::run_pio(*o, pioc::tool::full_name(cmd));
	};
}
