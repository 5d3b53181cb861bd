// ecibench: coherence-message protocols (paper Fig. 5), CNI cachable queues
// and the FastForward / raw cache-line floor between two cores.
//
//   ecibench invoke    Fig. 5 invocations on the modelled Enzian (default) or
//                      on a module's ECI window (--window /dev/pioc/eci0)
//   ecibench queue     CNI cachable queue round trips between two real cores
//   ecibench pingpong  raw cache-line ping-pong (the floor) and FastForward
#include "common/cli.hpp"
#include "common/run_defaults.hpp"
#include "common/subcommands.hpp"

#include "kmod/kmod_transport.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/report.hpp>
#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/queue.hpp>
#include <pioc/place.hpp>
#include <pioc/sim/eci_cq.hpp>
#include <pioc/sim/eci_engine.hpp>

#include <fmt/format.h>

#ifdef PIOC_HAVE_RTL
#include "rtl/coh_rtl_engine.hpp"
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace pioc;
using namespace pioc::tool;

namespace {

device_info eci_info(const std::string &spec, bool sim)
{
	device_info d;
	d.spec = spec;
	d.transport = sim ? "sim" : "kmod";
	d.simulated = sim;
	d.description = sim ? "modelled Enzian ECI (ThunderX-1 L2 + FPGA directory)" : "ECI window";
	return d;
}

// ---------------------------------------------------------------- ECI window

/** An ECI window of the pioc module ("eci0", "kmod:eci0" or "/dev/pioc/eci0")
 *  mapped write-back: the module grants the mapping (cacheable for a
 *  coherent window) and revokes it if the module goes away. */
struct window {
	pioc::device dev;
	region map;
	void *base;
	std::uint64_t size;
};

window open_window(const std::string &spec, std::uint64_t want, std::uint32_t line)
{
	std::string name = spec;
	if (name.rfind("kmod:", 0) == 0)
		name = name.substr(5);
	if (auto slash = name.rfind('/'); slash != std::string::npos)
		name = name.substr(slash + 1);
	auto dev = pioc::device(pioc::open_kmod(name));
	region win = dev.map(0, mem_type::wb);
	std::uint64_t size = win.size();
	if (want) {
		if (want > size)
			throw error(errc::out_of_range, fmt::format("ecibench: --window-size {} is larger than window {} ({} bytes)",
								    want, spec, size));
		size = want;
	}
	void *p = std::get<mmio_io>(win.io()).base();
	if (reinterpret_cast<std::uintptr_t>(p) % line)
		throw error(errc::misaligned, fmt::format("ecibench: window {} is not {}-byte aligned", spec, line));
	return window{std::move(dev), std::move(win), p, size};
}

/** The model's constants a simulated report carries, from the config the
 *  run used (FITTED / ASSUMED: see sim::eci::config). */
nlohmann::json model_params(const sim::eci::config &c)
{
	return {{"link_ns", c.link_ns},
		{"dir_msg_ns", c.dir_msg_ns},
		{"dir_occupancy_ns", c.dir_occupancy_ns},
		{"dir_slices", c.dir_slices},
		{"line", c.line_size}};
}

/** The columns every simulated ecibench result carries: link messages and
 *  round trips per timed operation. */
void add_link_counts(bench::result &r, const sim::eci::counters &d, std::uint64_t ops)
{
	r.extra["messages_per_op"] = double(d.link_messages()) / double(ops);
	r.extra["round_trips_per_op"] = double(d.round_trips) / double(ops);
}

// ---------------------------------------------------------------- invoke

struct invoke_opts {
	bench_options common;
	std::string variant = "5a", sizes = "8..16K", window, engine = "model";
	bool shared = false, pipelined = false;
	std::uint64_t line = 128, window_size = 0, channel = 0;
};

/** Refuses, before anything is opened, every option the window path
 *  (our Enzian image behind /dev/pioc/eci*) cannot apply, naming the option
 *  and the reason: the tool must not record a setting it never made. What
 *  the image offers comes from its register map (fpga/regmap/coh_dev.toml,
 *  pioc/regs/coh_dev.hpp), the one source of truth. */
void check_window_options(const invoke_opts &o, coherent::variant v)
{
	namespace cd = regs::coh_dev;
	if (!coherent::cpu_initiated(v))
		throw usage_error(fmt::format("--variant {}: on a window only CPU-initiated variants are timed (the "
					      "receiver needs the device to post messages, which the tool cannot ask for)",
					      coherent::to_string(v)));
	if (!coherent::device_homed(v))
		throw usage_error(fmt::format("--variant {}: the window is homed on the device (the FPGA); Fig. 5c "
					      "needs lines homed on the CPU, which only the simulated device offers",
					      coherent::to_string(v)));
	if (o.shared)
		throw usage_error("--shared: on the Enzian image Shared or Exclusive is the engine's CONFIG register "
				  "(CFG_EXCLUSIVE, reset 1), in its control block, which ecibench does not map");
	if (o.pipelined)
		throw usage_error("--pipelined: the Enzian image's coherent engine has no data banks (line-by-line "
				  "only); pipelined mode runs on the simulated device");
	if (o.line != cd::LINE_BYTES)
		throw usage_error(fmt::format("--line {}: the Enzian image's lines are {} bytes", o.line, cd::LINE_BYTES));
	if (o.channel >= cd::CPU_CHANNELS)
		throw usage_error(fmt::format("--channel {}: the Enzian image has {} CPU-initiated channels (0..{}); "
					      "a read of another channel's line is never answered",
					      o.channel, cd::CPU_CHANNELS, cd::CPU_CHANNELS - 1));
	if (o.engine != "model")
		throw usage_error(fmt::format("--engine {}: chooses the simulated device; with --window the device is "
					      "the hardware",
					      o.engine));
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

// --engine: model or rtl, and what the RTL engine can run (a simulated 5a or
// 5b on 128-byte lines, not pipelined; 5b messages of one line).
void check_engine_options(const invoke_opts &o, coherent::variant v, bool sim)
{
	const bool use_rtl = o.engine == "rtl";
	if (o.engine != "model" && !use_rtl)
		throw usage_error(fmt::format("--engine {}: expected model or rtl", o.engine));
	if (use_rtl) {
#ifndef PIOC_HAVE_RTL
		throw error(errc::not_supported, "ecibench invoke --engine rtl: this build has no RTL (configure with "
						 "-DPIOC_RTL=ON; needs Verilator)");
#endif
		if (!sim || o.pipelined || o.line != 128 || v != coherent::variant::cpu_dev)
			throw usage_error("--engine rtl: the RTL engine is simulated (no --window), 5a, 128-byte lines, "
					  "not pipelined (its Fig. 5b side does not follow the library's receiver yet: "
					  "ACK words and session numbers, Documentation/protocols.md)");
	}
}

// The report's header: which device and engine, which variant and answer.
bench::report describe_invoke_run(const invoke_opts &o, coherent::variant v, bool sim, bool use_rtl)
{
	bench::report rep;
	rep.tool = "ecibench invoke";
	rep.device = sim ? "sim:eci" : o.window;
	rep.transport = use_rtl ? "rtl" : sim ? "sim" : "kmod";
	if (use_rtl)
		rep.device = "rtl:coh";
	rep.memory_type = "wb";
	rep.simulated = sim;
	rep.cpu = pin_timing_thread(eci_info(rep.device, sim), o.common);
	rep.extra["variant"] = std::string(coherent::to_string(v));
	rep.extra["answer"] = o.shared ? "shared" : "exclusive";
	rep.extra["pipelined"] = o.pipelined;
	if (sim)
		rep.extra["engine"] = o.engine;
	return rep;
}

// Invocations through an ECI window (the Enzian image): measured time.
void run_on_window(const invoke_opts &o, const std::vector<std::uint64_t> &sizes, std::uint32_t data_lines,
		   bench::report &rep)
{
	rep.extra["answer"] = "exclusive (the image's CONFIG reset value; not read)";
	window w = open_window(o.window, o.window_size, static_cast<std::uint32_t>(o.line));
	void *p = w.base;
	std::uint64_t size = w.size;
	std::uint32_t line = static_cast<std::uint32_t>(o.line);
	auto lay = coherent::layout::for_channel(size, line, static_cast<std::uint32_t>(o.channel),
						 regs::coh_dev::CHANNEL_STRIDE, data_lines);
	coherent::cpu_options co;
	co.pipelined = o.pipelined;
	// The constructor opens a session (SYNC): no answer of an earlier run counts.
	coherent::invoker<coherent::mem_lines> inv(coherent::mem_lines(p, line), lay, co);
	inv.resync();
	hw_clock clk;
	for (auto s : sizes) {
		auto h = time_calls(inv, s, o.common.iterations, o.common.warmup,
				    [&] { return double(clk.now_ns()); });
		rep.results.push_back(bench::result::from("invoke", s, h));
	}
}

int cmd_invoke(int argc, char **argv)
{
	invoke_opts o;
	o.common.iterations = 1000;
	o.common.warmup = 10;
	cli c("ecibench invoke", "synchronous invocations over two cache lines (paper Fig. 5)");
	add_bench_options(c, o.common, opt_format | opt_cpu | opt_iterations | opt_quiet);
	c.value("variant", "V", "5a (CPU-initiated, device-homed), 5b, 5c, 5d", o.variant);
	c.value("sizes", "LIST", "payload sizes, 8 B .. 16 KiB (8,64,4K or 8..16K)", o.sizes, 's');
	c.flag("shared", "the device answers Shared as asked (no Exclusive optimisation)", o.shared);
	c.flag("pipelined", "all lines of a message in flight at once (data banks)", o.pipelined);
	c.value("line", "BYTES", "cache-line size of the modelled CPU", o.line, 16, 4096);
	c.value("window", "PATH", "an ECI window to mmap write-back (e.g. /dev/pioc/eci0); default: simulated",
		o.window);
	c.value("window-size", "BYTES", "bytes to map from --window (default: its size)", o.window_size);
	c.value("channel", "N", "channel (one per core, 64 KiB apart)", o.channel, 0, 1023);
	c.value("engine", "E", "simulated device engine: model (default) or rtl (the Verilated coherent engine: 5a only (its "
		"5b side predates sessions), up to 16 KiB in 120-byte chunks; needs a -DPIOC_RTL=ON build)", o.engine);
	c.epilog("Simulated runs report modelled time and add messages_per_op and round_trips_per_op.\n"
		 "example: ecibench invoke --sizes 64 --shared --json\n" +
		 backend_defaults_help("ecibench invoke"));
	if (!c.parse(argc, argv))
		return 0;
	apply_backend_defaults(o.common, "ecibench invoke", o.engine, c);
	auto v = coherent::parse_variant(o.variant);
	if (!v)
		throw usage_error("--variant: " + unknown_name(coherent::variant_names, o.variant, "variant"));
	auto sizes = parse_size_list(o.sizes);
	for (auto s : sizes)
		if (s == 0 || s > coherent::max_message)
			throw usage_error(fmt::format("--sizes: {} is outside 1 B .. 16 KiB", s));
	const bool sim = o.window.empty();
	if (!sim)
		check_window_options(o, *v);
	else if (c.given("window-size"))
		throw usage_error("--window-size: needs --window (the simulated device has no window to map)");
	const bool use_rtl = o.engine == "rtl";
	check_engine_options(o, *v, sim);
	bench::report rep = describe_invoke_run(o, *v, sim, use_rtl);
	const std::uint32_t data_lines = o.pipelined ? 128 : 0;

	if (!sim) {
		run_on_window(o, sizes, data_lines, rep);
		emit(rep, o.common.format);
		return 0;
	}

	{
		sim::eci::config sc;
		sc.line_size = static_cast<std::uint32_t>(o.line);
		rep.extra["model"] = model_params(sc);
	}
	// Progress counts iterations (warm-up included), reported between sizes.
	const std::uint64_t per_size = o.common.iterations + o.common.warmup;
	progress prog("ecibench invoke", sizes.size() * per_size, o.common.quiet);
	std::uint64_t done = 0;
	bench::sim_sample passed; // simulated time and engine cycles over all sizes (one system each)
	const bench::speed_meter meter(passed);
	for (auto s : sizes) {
		prog.update(done, fmt::format("{} {} B", o.variant, s));
		done += per_size;
		sim::eci::config sc;
		sc.line_size = static_cast<std::uint32_t>(o.line);
		sim::eci::system sys(sc);
		sim::eci::engine_config ec;
		ec.v = *v;
		ec.answer_exclusive = !o.shared;
		ec.data_lines = data_lines;
		ec.channels = static_cast<std::uint32_t>(o.channel + 1);
		std::unique_ptr<sim::eci::proto_engine> model;
		coherent::layout lay;
		std::function<void(std::vector<std::uint8_t>)> post;
		std::function<std::uint64_t()> cycles = [] { return std::uint64_t(0); };
#ifdef PIOC_HAVE_RTL
		std::unique_ptr<rtl::coh_rtl_engine> hw;
		if (use_rtl) {
			rtl::coh_rtl_engine::options ro;
			ro.exclusive = !o.shared;
			hw = std::make_unique<rtl::coh_rtl_engine>(sys, ro);
			lay = coherent::cpu_initiated(*v) ? hw->channel_layout(static_cast<std::uint32_t>(o.channel))
							  : hw->message_layout();
			post = [&](std::vector<std::uint8_t> m) { hw->post(std::move(m)); };
			cycles = [&] { return hw->cycles(); };
		}
#endif
		if (!use_rtl) {
			model = std::make_unique<sim::eci::proto_engine>(sys, ec);
			lay = model->channel_layout(static_cast<std::uint32_t>(o.channel));
			post = [&](std::vector<std::uint8_t> m) { model->post(static_cast<std::uint32_t>(o.channel), std::move(m)); };
		}
		sys.cpu_spend(5000);
		coherent::eci_sim_lines L(sys, 0);
		coherent::cpu_options co;
		co.pipelined = o.pipelined;
		bench::histogram h;
		sim::eci::counters c0;
		std::uint64_t cyc0 = 0;
		if (coherent::cpu_initiated(*v)) {
			coherent::invoker<coherent::eci_sim_lines> inv(L, lay, co);
			std::vector<std::uint8_t> req(s, 0x5a), resp(coherent::max_message);
			for (std::uint64_t i = 0; i < o.common.warmup; ++i)
				inv.call(req.data(), s, resp.data(), resp.size());
			c0 = sys.stats();
			cyc0 = cycles();
			h = time_calls(inv, s, o.common.iterations, 0, [&] { return sys.now(); });
		} else {
			coherent::receiver<coherent::eci_sim_lines> rx(L, lay, co);
			std::vector<std::uint8_t> buf(coherent::max_message);
			auto one = [&] {
				post(std::vector<std::uint8_t>(s, 0x5a));
				return rx.receive(buf.data(), buf.size(), 1u << 20);
			};
			for (std::uint64_t i = 0; i < o.common.warmup; ++i)
				one();
			c0 = sys.stats();
			cyc0 = cycles();
			for (std::uint64_t i = 0; i < o.common.iterations; ++i) {
				double t0 = sys.now();
				one();
				h.record(static_cast<std::uint64_t>(sys.now() - t0 + 0.5));
			}
		}
		auto d = sys.stats() - c0;
		auto r = bench::result::from(coherent::cpu_initiated(*v) ? "invoke" : "receive", s, h);
		add_link_counts(r, d, o.common.iterations);
		if (use_rtl)
			r.extra["cycles_per_op"] = double(cycles() - cyc0) / double(o.common.iterations);
		rep.results.push_back(std::move(r));
		passed.sim_ns += sys.now();
#ifdef PIOC_HAVE_RTL
		if (hw) {
			passed.cycles += hw->cycles();   // the engine is clocked only while busy
			passed.evaluated_cycles += hw->cycles();
			passed.clock_mhz = 1000.0 / hw->cycle_ns();
		}
#endif
	}
	prog.finish();
	rep.speed = meter.stop(passed);
	emit(rep, o.common.format);
	return 0;
}

// ---------------------------------------------------------------- real threads

struct aligned_buf {
	void *p;
	aligned_buf(std::size_t n, std::size_t a) : p(std::aligned_alloc(a, (n + a - 1) / a * a))
	{
		if (!p)
			throw error(errc::os_error, "ecibench: out of memory");
		std::memset(p, 0, (n + a - 1) / a * a);
	}
	~aligned_buf() { std::free(p); }
};

/** Starts the echo thread on another core than the timing thread. */
std::string pin_peer(std::thread &t)
{
	auto cores = all_cores();
	if (cores.size() < 2)
		return "not pinned (one core)";
	unsigned me = static_cast<unsigned>(sched_getcpu());
	for (auto &c : cores)
		if (c.os_index != me) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(c.os_index, &set);
			if (pthread_setaffinity_np(t.native_handle(), sizeof set, &set) == 0)
				return fmt::format("core {}", c.os_index);
		}
	return "not pinned";
}

template <class Echo, class Ping>
bench::histogram pingpong(std::uint64_t iters, std::uint64_t warmup, Echo echo, Ping ping, std::string &peer)
{
	std::thread t([&] { echo(iters + warmup); });
	peer = pin_peer(t);
	hw_clock clk;
	bench::histogram h;
	for (std::uint64_t i = 0; i < iters + warmup; ++i) {
		auto t0 = read_ticks();
		ping(i);
		auto t1 = read_ticks();
		if (i >= warmup)
			h.record(hw_clock::ticks_to_ns(t1 - t0));
	}
	t.join();
	(void)clk;
	return h;
}

/** CNI cachable queue round trips with the modelled device as the other end
 *  (sim::eci::cq_engine): the library's cq_ring over eci_sim_lines. */
bench::result queue_device(std::uint32_t line, std::uint32_t entries, std::size_t n, const bench_options &common)
{
	progress prog("ecibench queue", common.iterations, common.quiet);
	sim::eci::config sc;
	sc.line_size = line;
	sim::eci::system sys(sc);
	sim::eci::cq_config qc;
	qc.entries = entries;
	sim::eci::cq_engine eng(sys, qc);
	using ring = coherent::cq_ring<coherent::eci_sim_lines>;
	coherent::eci_sim_lines lines(sys, 0);
	ring to(lines, eng.to_device_base(), entries), from(lines, eng.from_device_base(), entries);
	ring::sender tx(to);
	ring::receiver rx(from);
	std::vector<std::uint8_t> m(n, 0x5a), buf(line);
	auto one = [&] {
		tx.send(m.data(), n);
		if (rx.receive_for(buf.data(), buf.size(), 1e9) != static_cast<long>(n))
			throw error(errc::device_error, "ecibench queue: the modelled device did not echo the message");
	};
	for (std::uint64_t i = 0; i < common.warmup; ++i)
		one();
	auto c0 = sys.stats();
	bench::histogram h;
	// Batches of timed round trips; progress is reported between them, outside
	// the timed section.
	constexpr std::uint64_t batch = 4096;
	for (std::uint64_t b = 0; b < common.iterations; b += batch) {
		prog.update(b, fmt::format("cq_roundtrip {} B", n));
		const std::uint64_t end = std::min(common.iterations, b + batch);
		for (std::uint64_t i = b; i < end; ++i) {
			double t0 = sys.now();
			one();
			h.record(static_cast<std::uint64_t>(sys.now() - t0 + 0.5));
		}
	}
	prog.finish();
	auto d = sys.stats() - c0;
	auto r = bench::result::from("cq_roundtrip", n, h);
	add_link_counts(r, d, common.iterations);
	return r;
}

/** Line-aligned, zeroed memory for the rings: the heap, or an ECI window. */
class ring_memory {
public:
	ring_memory(const std::string &window, std::uint32_t line) : line_(line)
	{
		if (!window.empty())
			win_.emplace(open_window(window, 0, line));
	}
	/** Two areas of @p bytes each (rounded up to lines). */
	std::pair<void *, void *> two(std::size_t bytes)
	{
		std::size_t r = (bytes + line_ - 1) / line_ * line_;
		if (!win_) {
			heap_.clear();
			heap_.push_back(std::make_unique<aligned_buf>(r, line_));
			heap_.push_back(std::make_unique<aligned_buf>(r, line_));
			return {heap_[0]->p, heap_[1]->p};
		}
		if (2 * r > win_->size)
			throw error(errc::out_of_range, fmt::format("ecibench: two rings of {} bytes do not fit the "
								    "{}-byte window",
								    r, win_->size));
		auto *b = static_cast<std::uint8_t *>(win_->base);
		std::memset(b, 0, 2 * r);
		return {b, b + r};
	}

private:
	std::uint32_t line_;
	std::optional<window> win_;
	std::vector<std::unique_ptr<aligned_buf>> heap_;
};

int cmd_threads(int argc, char **argv, bool queue)
{
	bench_options common;
	common.iterations = 100000;
	common.warmup = 1000;
	std::string what = queue ? "cq" : "floor,ff", peer_s = "core", win;
	std::uint64_t entries = 64, line = 0, size = 8;
	cli c(queue ? "ecibench queue" : "ecibench pingpong",
	      queue ? "CNI cachable queue round trips: between two cores (measured) or with the modelled device "
		      "(simulated)"
		    : "cache-line ping-pong between two cores: the floor, and FastForward (measured)");
	add_bench_options(c, common, opt_format | opt_cpu | opt_iterations | opt_quiet);
	if (!queue)
		c.value("ops", "LIST", "floor (one line bounced), ff (FastForward queues)", what);
	else
		c.value("peer", "WHO",
			"core: an echo thread on another core (measured); device: the modelled Enzian FPGA "
			"answers from its own memory (simulated)",
			peer_s);
	c.value("entries", "N", "ring entries per direction", entries, 2, 1u << 16);
	c.value("line", "BYTES", "cache-line size (default: this machine's; 128 for --peer device)", line, 16, 4096);
	c.value("size", "BYTES", "message payload (up to line - 8)", size, 1, 4088);
	c.value("window", "PATH", "put the rings in a pioc ECI window mapped write-back (eci0, /dev/pioc/eci0) "
				  "instead of the heap",
		win);
	c.epilog(queue ? "example: ecibench queue --peer device --json   # 4 line exchanges per round trip\n"
			 "         ecibench queue --window eci0          # both cores on the FPGA-homed window"
		       : "example: ecibench pingpong --ops floor,ff --cpu 1");
	if (!c.parse(argc, argv))
		return 0;
	const bool device = peer_s == "device";
	if (!device && peer_s != "core")
		throw usage_error(fmt::format("--peer {}: expected core or device", peer_s));
	if (device && !win.empty())
		throw usage_error("--window: the modelled device has its own memory; use it with --peer core");
	if (!line)
		line = device ? 128 : coherent::host_line_size();
	auto L = static_cast<std::uint32_t>(line);
	if (size > L - 8)
		throw usage_error(fmt::format("--size {}: a {}-byte line carries at most {} bytes", size, L, L - 8));
	bench::report rep;
	rep.tool = queue ? "ecibench queue" : "ecibench pingpong";
	rep.device = device ? "sim:eci" : win.empty() ? "cores" : win;
	rep.transport = device ? "sim" : win.empty() ? "shared memory" : "kmod";
	rep.memory_type = "wb";
	rep.simulated = device;
	rep.cpu = pin_timing_thread(eci_info(rep.device, device), common);
	rep.extra["line"] = L;
	if (device) {
		rep.extra["peer"] = "device (modelled)";
		sim::eci::config sc;
		sc.line_size = L;
		rep.extra["model"] = model_params(sc);
		rep.results.push_back(queue_device(L, static_cast<std::uint32_t>(entries), size, common));
		emit(rep, common.format);
		return 0;
	}
	ring_memory mem(win, L);
	std::string peer;
	auto ops = queue ? std::vector<std::string>{"cq"} : split_list(what, "--ops");
	progress prog(rep.tool, ops.size(), common.quiet, "runs");
	std::uint64_t done = 0;
	for (auto &op : ops) {
		prog.update(done++, op);
		bench::histogram h;
		std::size_t n = size;
		if (op == "floor") {
			auto *w = static_cast<std::uint64_t *>(mem.two(L).first);
			auto ld = [w] { return std::atomic_ref<std::uint64_t>(*w).load(std::memory_order_acquire); };
			auto st = [w](std::uint64_t v) { std::atomic_ref<std::uint64_t>(*w).store(v, std::memory_order_release); };
			h = pingpong(
				common.iterations, common.warmup,
				[&](std::uint64_t k) {
					for (std::uint64_t i = 0; i < k; ++i) {
						for (coherent::backoff bo; ld() != 2 * i + 1;)
							bo();
						st(2 * i + 2);
					}
				},
				[&](std::uint64_t i) {
					st(2 * i + 1);
					for (coherent::backoff bo; ld() != 2 * i + 2;)
						bo();
				},
				peer);
			n = 8;
		} else if (op == "ff" || op == "cq") {
			std::uint32_t e = static_cast<std::uint32_t>(entries);
			std::size_t bytes = op == "ff" ? coherent::ff_queue::bytes(e, L) : coherent::cq::bytes(e, L);
			auto [m1, m2] = mem.two(bytes);
			std::vector<std::uint8_t> m(n, 1);
			if (op == "ff") {
				coherent::ff_queue to(m1, e, L), from(m2, e, L);
				h = pingpong(
					common.iterations, common.warmup,
					[&](std::uint64_t k) {
						std::vector<std::uint8_t> buf(L);
						for (std::uint64_t i = 0; i < k; ++i)
							from.send(buf.data(), to.receive(buf.data(), buf.size()));
					},
					[&](std::uint64_t) {
						to.send(m.data(), n);
						std::uint8_t buf[4096];
						from.receive(buf, sizeof buf);
					},
					peer);
			} else {
				coherent::cq to(m1, e, L), from(m2, e, L);
				coherent::cq::sender ts(to), fs(from);
				coherent::cq::receiver tr(to), fr(from);
				h = pingpong(
					common.iterations, common.warmup,
					[&](std::uint64_t k) {
						std::vector<std::uint8_t> buf(L);
						for (std::uint64_t i = 0; i < k; ++i)
							fs.send(buf.data(), tr.receive(buf.data(), buf.size()));
					},
					[&](std::uint64_t) {
						ts.send(m.data(), n);
						std::uint8_t buf[4096];
						fr.receive(buf, sizeof buf);
					},
					peer);
			}
		} else {
			throw usage_error(fmt::format("--ops: unknown '{}' (floor, ff)", op));
		}
		auto r = bench::result::from(op == "floor" ? "pingpong_floor" : op == "ff" ? "ff_roundtrip" : "cq_roundtrip", n, h);
		rep.results.push_back(std::move(r));
	}
	rep.extra["peer"] = peer;
	prog.finish();
	emit(rep, common.format);
	return 0;
}

int run_invoke(int argc, char **argv)
{
	return run(argv[0], [&] { return cmd_invoke(argc, argv); });
}

int run_queue(int argc, char **argv)
{
	return run(argv[0], [&] { return cmd_threads(argc, argv, true); });
}

int run_pingpong(int argc, char **argv)
{
	return run(argv[0], [&] { return cmd_threads(argc, argv, false); });
}

constexpr subcommand commands[] = {
	{"invoke", run_invoke, "Fig. 5 invocations (variant, payload, Exclusive/Shared, pipelining)"},
	{"queue", run_queue, "CNI cachable queue round trips (two cores, or core and modelled device)"},
	{"pingpong", run_pingpong, "raw cache-line ping-pong (the floor) and FastForward"},
};

void usage(std::FILE *to)
{
	fmt::print(to, "usage: ecibench COMMAND [options]\n\n"
		       "Coherent-interconnect messaging. 'invoke' runs the paper's Fig. 5 protocols on the\n"
		       "modelled Enzian by default (SIMULATED time: link and directory model) or on an\n"
		       "ECI window with --window; 'queue' and 'pingpong' run for real between two cores\n"
		       "of this machine (measured time), on the heap or in an ECI window (--window);\n"
		       "'queue --peer device' puts the modelled FPGA at the other end (SIMULATED time).\n\n"
		       "commands:\n");
	print_subcommands(to, commands);
	fmt::print(to, "\n'ecibench COMMAND --help' explains a command's options.\n\n"
		       "examples:\n"
		       "  ecibench invoke --sizes 64                 # Fig. 6: ~900 ns simulated\n"
		       "  ecibench invoke --sizes 64 --shared        # Fig. 6: the Shared answer\n"
		       "  ecibench invoke --sizes 8..16K --json      # Fig. 7 shape\n"
		       "  ecibench queue --peer device --json        # CNI queue with the FPGA: ~1.5 us\n"
		       "  ecibench pingpong --cpu 1\n");
}

} // namespace

int main(int argc, char **argv)
{
	return dispatch("ecibench", commands, usage, argc, argv);
}
