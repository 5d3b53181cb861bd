// ecibench invoke: the paper's Fig. 5 invocations over two cache lines, on
// the modelled Enzian (sim:eci, default), its Verilated coherent engine
// (rtl:coh) or a module's ECI window (kmod:eci0: the Enzian image, measured).
// The device comes from device::open; its port (device::coherent()) runs the
// device side, so this file builds no simulator.
#include "commands.hpp"
#include "common/run_defaults.hpp"
#include "devices.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/sim_speed.hpp>
#include <pioc/coherent/engine_control.hpp>
#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/port.hpp>
#include <pioc/enum_names.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <fmt/format.h>

#include <memory>

#include <vector>

namespace ecibench {
namespace {

using namespace pioc;
namespace cd = regs::coh_dev;

struct invoke_opts {
	bench_options common;
	device_options dev;
	std::vector<std::uint64_t> sizes;
	std::string variant = "5a";
	bool shared = false, pipelined = false;
	std::uint64_t line = 128, window_size = 0, channel = 0;
	std::string control; ///< the image's I/O window (kmod:eciN), where its control block is
};

/** Refuses, before anything is opened, every option the window path (our
 *  Enzian image behind /dev/pioc/eci*) cannot apply, naming the option and
 *  the reason: the tool must not record a setting it never made. What the
 *  image offers comes from its register map (fpga/regmap/coh_dev.toml). */
void check_window_options(const invoke_opts &o, coherent::variant v)
{
	if (!coherent::cpu_initiated(v))
		throw usage_error(fmt::format("--variant {}: on a window only CPU-initiated variants are timed (the "
					      "receiver needs the device to post messages, which the tool cannot ask for)",
					      coherent::to_string(v)));
	if (!coherent::device_homed(v))
		throw usage_error(fmt::format("--variant {}: the window is homed on the device (the FPGA); Fig. 5c "
					      "needs lines homed on the CPU, which only the simulated device offers",
					      coherent::to_string(v)));
	if (o.shared && o.control.empty())
		throw usage_error("--shared: on the Enzian image Shared or Exclusive is the engine's CONFIG register "
				  "(CFG_EXCLUSIVE, reset 1), in its control block: give the image's I/O window with "
				  "--control kmod:eciN so that ecibench can set it");
	if (o.pipelined)
		throw usage_error("--pipelined: the Enzian image's coherent engine has no data banks (line-by-line "
				  "only); pipelined mode runs on the simulated device");
	if (o.line != cd::LINE_BYTES)
		throw usage_error(fmt::format("--line {}: the Enzian image's lines are {} bytes", o.line, cd::LINE_BYTES));
	// With --control the count is the image's CHANNELS register, read once
	// the window is open (check_channel); without it, the register map's.
	if (o.control.empty() && o.channel >= cd::CPU_CHANNELS)
		throw usage_error(fmt::format("--channel {}: the Enzian image has {} CPU-initiated channels (0..{}, "
					      "the register map's constant; --control kmod:eciN reads the image's "
					      "CHANNELS register instead); a read of another channel's line is never "
					      "answered",
					      o.channel, cd::CPU_CHANNELS, cd::CPU_CHANNELS - 1));
}

/** --control's window as kmod:eciN; refused unless the run is on a window
 *  too (the simulated engines are set up through their ports). */
std::string control_window(const std::string &spec, const device_choice &d)
{
	const auto refuse = [&](std::string_view why) {
		return usage_error(fmt::format("--control {}: {}", spec, why));
	};
	if (d.kind != device_kind::window)
		throw refuse(fmt::format("the control block is read on a window run (--device kmod:eciN) only; {} "
					 "is set up through its own port",
					 d.spec));
	device_choice c;
	try {
		c = classify(spec);
	} catch (const usage_error &) {
		c.kind = device_kind::model;
	}
	if (c.kind != device_kind::window)
		throw refuse("not a module's ECI window (kmod:eciN, eciN or /dev/pioc/eciN naming the image's I/O "
			     "window)");
	if (c.spec == d.spec)
		throw refuse("the same window as --device; the control block is in the image's I/O window, another "
			     "one");
	return c.spec;
}

/** --channel against the image's own CHANNELS register. */
void check_channel(const invoke_opts &o, const coherent::engine_control &ctl)
{
	const std::uint32_t n = ctl.channels();
	if (o.channel >= n)
		throw usage_error(fmt::format("--channel {}: the engine behind {} reports {} CPU-initiated channels "
					      "in its CHANNELS register (offset {:#x}); a read of another channel's "
					      "line is never answered",
					      o.channel, ctl.name(), n, cd::CHANNELS.offset));
}

/** The timed loop, once per line-access policy (no backend branch inside). */
template <class Inv, class Now>
bench::histogram time_calls(Inv &inv, std::size_t n, std::uint64_t iters, std::uint64_t warmup, Now now)
{
	std::vector<std::uint8_t> req(n ? n : 1), resp(coherent::max_message);
	for (std::size_t i = 0; i < n; ++i)
		req[i] = static_cast<std::uint8_t>(i);
	bench::histogram h;
	for (std::uint64_t i = 0; i < warmup; ++i)
		inv.call(req.data(), n, resp.data(), resp.size());
	for (std::uint64_t i = 0; i < iters; ++i) {
		double t0 = now();
		inv.call(req.data(), n, resp.data(), resp.size());
		h.record(static_cast<std::uint64_t>(now() - t0 + 0.5));
	}
	return h;
}

// The report's header: which device and engine, which variant and answer.
bench::report describe_run(const invoke_opts &o, const device_choice &d, coherent::variant v)
{
	bench::report rep;
	rep.tool = "ecibench invoke";
	rep.device = d.spec;
	rep.transport = d.kind == device_kind::rtl ? "rtl" : d.simulated() ? "sim" : "kmod";
	rep.memory_type = "wb";
	rep.simulated = d.simulated();
	rep.cpu = pin_timing_thread(pin_info(d), o.common);
	rep.extra["variant"] = std::string(coherent::to_string(v));
	rep.extra["answer"] = o.shared ? "shared" : "exclusive";
	rep.extra["pipelined"] = o.pipelined;
	if (d.simulated())
		rep.extra["engine"] = d.kind == device_kind::rtl ? "rtl" : "model";
	return rep;
}

// Invocations through an ECI window (the Enzian image): measured time.
void run_on_window(const invoke_opts &o, const device_choice &d, bench::report &rep)
{
	rep.extra["answer"] = "exclusive (the image's CONFIG reset value; not read)";
	rep.extra["channels"] = {{"count", cd::CPU_CHANNELS}, {"from", "register map constant"}};
	if (!o.control.empty()) {
		// The image's control block: what it offers, and --shared applied.
		const coherent::engine_control ctl(device::open(o.control).map(0, mem_type::uc));
		check_channel(o, ctl);
		ctl.set_exclusive(!o.shared);
		rep.extra["answer"] = ctl.exclusive() ? "exclusive" : "shared";
		rep.extra["channels"] = {{"count", ctl.channels()},
					 {"from", fmt::format("CHANNELS register of {}", ctl.name())}};
		rep.extra["engine_version"] = fmt::format("{}.{}", ctl.version() >> 16, ctl.version() & 0xffff);
	}
	auto dev = device::open(d.spec);
	const auto line = static_cast<std::uint32_t>(o.line);
	const coherent::window w = dev.coherent().map_window(o.window_size);
	if (reinterpret_cast<std::uintptr_t>(w.base) % line)
		throw error(errc::misaligned, fmt::format("ecibench: window {} is not {}-byte aligned", d.spec, line));
	auto lay = coherent::layout::for_channel(w.size, line, static_cast<std::uint32_t>(o.channel),
						 cd::CHANNEL_STRIDE, o.pipelined ? 128 : 0);
	coherent::cpu_options co;
	co.pipelined = o.pipelined;
	// The constructor opens a session (SYNC): no answer of an earlier run counts.
	coherent::invoker<coherent::mem_lines> inv(coherent::mem_lines(w.base, line), lay, co);
	inv.resync();
	hw_clock clk;
	for (auto s : o.sizes) {
		auto h = time_calls(inv, s, o.common.iterations, o.common.warmup, [&] { return double(clk.now_ns()); });
		rep.results.push_back(bench::result::from("invoke", s, h));
	}
}

/** --line on a simulated device (the device says which sizes it takes). */
void set_line(coherent::port &port, std::uint64_t line)
{
	if (line != port.model().line_size)
		device_setting(fmt::format("--line {}", line),
			       [&] { port.set_line_size(static_cast<std::uint32_t>(line)); });
}

/** One size on a freshly opened simulated device: its engine set up as the
 *  options say, every message counted. Adds the simulated time (and the RTL
 *  engine's cycles) that passed on that device to @p passed. */
bench::result run_simulated_size(const invoke_opts &o, const device_choice &d, coherent::variant v, std::size_t s,
				 bench::sim_sample &passed)
{
	auto dev = device::open(d.spec);
	auto &port = dev.coherent();
	set_line(port, o.line);
	coherent::engine_setup es;
	es.v = v;
	es.exclusive = !o.shared;
	es.data_lines = o.pipelined ? 128 : 0;
	es.channels = static_cast<std::uint32_t>(o.channel + 1);
	auto &eng = device_setting("--device " + d.spec, [&]() -> auto & { return port.start_invocations(es); });
	auto &sys = port.system();
	const double sim0 = sys.now();
	const std::uint64_t eng_cyc0 = eng.cycles().value_or(0);
	const auto lay = eng.channel_layout(static_cast<std::uint32_t>(o.channel));
	sys.cpu_spend(5000); // the device's reset: it takes its lines (CPU-homed variants)
	coherent::eci_sim_lines L(sys, eng.window_base());
	coherent::cpu_options co;
	co.pipelined = o.pipelined;
	bench::histogram h;
	sim::eci::counters c0;
	std::uint64_t cyc0 = 0;
	if (coherent::cpu_initiated(v)) {
		coherent::invoker<coherent::eci_sim_lines> inv(L, lay, co);
		std::vector<std::uint8_t> req(s, 0x5a), resp(coherent::max_message);
		for (std::uint64_t i = 0; i < o.common.warmup; ++i)
			inv.call(req.data(), s, resp.data(), resp.size());
		c0 = sys.stats();
		cyc0 = eng.cycles().value_or(0);
		h = time_calls(inv, s, o.common.iterations, 0, [&] { return sys.now(); });
	} else {
		coherent::receiver<coherent::eci_sim_lines> rx(L, lay, co);
		std::vector<std::uint8_t> buf(coherent::max_message);
		const auto ch = static_cast<std::uint32_t>(o.channel);
		// The device posts at the current simulated time, before the first
		// timestamp: posting takes no simulated time, and the timed region
		// then holds only the receive.
		auto post = [&] { eng.post(ch, std::vector<std::uint8_t>(s, 0x5a)); };
		for (std::uint64_t i = 0; i < o.common.warmup; ++i) {
			post();
			rx.receive(buf.data(), buf.size(), 1u << 20);
		}
		c0 = sys.stats();
		cyc0 = eng.cycles().value_or(0);
		for (std::uint64_t i = 0; i < o.common.iterations; ++i) {
			post();
			double t0 = sys.now();
			rx.receive(buf.data(), buf.size(), 1u << 20);
			h.record(static_cast<std::uint64_t>(sys.now() - t0 + 0.5));
		}
	}
	auto r = bench::result::from(coherent::cpu_initiated(v) ? "invoke" : "receive", s, h);
	add_link_counts(r, sys.stats() - c0, o.common.iterations);
	if (auto cyc = eng.cycles())
		r.extra["cycles_per_op"] = double(*cyc - cyc0) / double(o.common.iterations);
	passed.sim_ns += sys.now() - sim0;
	if (auto cyc = eng.cycles()) {
		// The RTL engine is clocked only while busy and every such cycle is
		// evaluated (lib/rtl/coh_rtl_engine.hpp): evaluated = simulated.
		passed.cycles += *cyc - eng_cyc0;
		passed.evaluated_cycles += *cyc - eng_cyc0;
		passed.clock_mhz = double(cd::clock_mhz);
	}
	return r;
}

void run_simulated(const invoke_opts &o, const device_choice &d, coherent::variant v, bench::report &rep)
{
	{
		// The parameters of the model the runs use, read from it.
		auto dev = device::open(d.spec);
		set_line(dev.coherent(), o.line);
		rep.extra["model"] = model_params(dev.coherent().model());
	}
	// Progress counts iterations (warm-up included), reported between sizes.
	const std::uint64_t per_size = o.common.iterations + o.common.warmup;
	progress prog("ecibench invoke", o.sizes.size() * per_size, o.common.quiet);
	std::uint64_t done = 0;
	// Each size runs on its own device from simulated time 0: the simulator's
	// speed sums their simulated time (and cycles) against the whole loop's
	// wall and CPU time, the devices' opening included.
	bench::sim_sample passed;
	const bench::speed_meter meter{bench::sim_sample{}};
	for (auto s : o.sizes) {
		prog.update(done, fmt::format("{} {} B", o.variant, s));
		done += per_size;
		rep.results.push_back(run_simulated_size(o, d, v, s, passed));
	}
	rep.speed = meter.stop(passed);
	prog.finish();
}

} // namespace

pioc::tool::tool::body ecibench_invoke(CLI::App &cmd)
{
	auto op = std::make_shared<invoke_opts>();
	invoke_opts &o = *op;
	o.common.iterations = 1000;
	o.common.warmup = 10;
	command_line c(cmd);
	pioc::tool::describe(cmd, "Synchronous invocations over two cache lines (paper Fig. 5).");
	o.dev.add(c,
		  "sim:eci (default: the modelled Enzian, SIMULATED), rtl:coh (its Verilated coherent engine, 5a "
		  "and 5b, 128-byte lines; -DPIOC_RTL=ON builds) or kmod:eciN (a module's ECI window: the "
		  "Enzian image, measured)", "sim:eci",
		  true);
	c.add_bench_options(o.common);
	c.add_text("--variant", "V", "5a (CPU-initiated, device-homed), 5b, 5c, 5d", o.variant);
	c.add_sizes("--sizes,-s", "payload sizes, 8 B .. 16 KiB (8,64,4K or 8..16K)", o.sizes, "8..16K");
	c.add_flag("--shared", "the device answers Shared as asked (no Exclusive optimisation)", o.shared);
	c.add_flag("--pipelined", "all lines of a message in flight at once (data banks)", o.pipelined);
	c.add_count("--line", "BYTES", "cache-line size of the modelled CPU", o.line, 16, 4096);
	c.add_count("--window-size", "BYTES", "bytes to map of a window (default: all of it)", o.window_size, 0,
		    ~0ull);
	c.add_count("--channel", "N", "channel (one per core, 64 KiB apart)", o.channel, 0, 1023);
	c.add_text("--control", "SPEC",
		   "with kmod:eciN: the image's I/O window (kmod:eciM), whose control block gives the channel "
		   "count (CHANNELS) and takes --shared (CONFIG)",
		   o.control);
	c.footer("Simulated runs report modelled time and add messages_per_op and round_trips_per_op\n"
		 "(rtl:coh also cycles_per_op). Old spellings: --window eci0 is --device kmod:eci0,\n"
		 "--engine rtl is --device rtl:coh.\n"
		 "example: ecibench invoke --sizes 64 --shared --json\n" +
		 pioc::tool::backend_defaults_help("ecibench invoke"));
	return [op, &cmd] {
		invoke_opts &o = *op;
		const command_line c(cmd);
		auto v = coherent::parse_variant(o.variant);
		if (!v)
			throw usage_error("--variant: " + unknown_name(coherent::variant_names, o.variant, "variant"));
		for (auto s : o.sizes)
			if (s == 0 || s > coherent::max_message)
				throw usage_error(fmt::format("--sizes: {} is outside 1 B .. 16 KiB", s));
		const device_choice d = o.dev.resolve(c, "sim:eci");
		// The RTL engine simulates about a million cycles a second: its own
		// defaults keep the default run under a minute (common/run_defaults).
		pioc::tool::apply_backend_defaults(o.common, "ecibench invoke", d.spec, cmd);
		if (d.kind == device_kind::cores)
			throw usage_error("--device cores: invoke needs a device (sim:eci, rtl:coh, kmod:eciN)");
		if (!o.control.empty())
			o.control = control_window(o.control, d);
		if (d.kind == device_kind::window)
			check_window_options(o, *v);
		else if (c.given("--window-size"))
			throw usage_error(fmt::format("--window-size: needs a window (--device kmod:eciN); {} has no "
						      "window to map",
						      d.spec));
		bench::report rep = describe_run(o, d, *v);
		if (d.kind == device_kind::window)
			run_on_window(o, d, rep);
		else
			run_simulated(o, d, *v, rep);
		emit(rep, o.common.format);
		return 0;
	};
}

} // namespace ecibench
