// ecibench queue: CNI cachable queue round trips, between two cores of this
// machine (measured; the rings on the heap or in a module's ECI window) or
// with the modelled Enzian FPGA at the other end (sim:eci, SIMULATED).
#include "commands.hpp"
#include "threads.hpp"

#include <pioc/bench/sim_speed.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/port.hpp>
#include <pioc/coherent/queue.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <fmt/format.h>

#include <memory>

namespace ecibench {
namespace {

using namespace pioc;

struct queue_opts {
	bench_options common;
	device_options dev;
	std::string peer;
	std::uint64_t entries = 64, line = 0, size = 8;
};

/** Round trips with the modelled device as the other end (its CNI queue
 *  engine, started through the device's port): the library's cq_ring over
 *  eci_sim_lines. Adds the row and the simulator's speed to @p rep. */
void queue_device(device &dev, std::uint32_t entries, std::size_t n, const bench_options &common, bench::report &rep)
{
	progress prog("ecibench queue", common.iterations, common.quiet);
	auto &port = dev.coherent();
	const auto rings = port.start_queue(entries);
	auto &sys = port.system();
	const bench::speed_meter meter{bench::sim_sample{sys.now()}};
	using ring = coherent::cq_ring<coherent::eci_sim_lines>;
	coherent::eci_sim_lines lines(sys, 0);
	ring to(lines, rings.to_device, entries), from(lines, rings.from_device, entries);
	ring::sender tx(to);
	ring::receiver rx(from);
	std::vector<std::uint8_t> m(n, 0x5a), buf(sys.cfg().line_size);
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
	rep.speed = meter.stop(bench::sim_sample{sys.now()});
	prog.finish();
	auto r = bench::result::from("cq_roundtrip", n, h);
	add_link_counts(r, sys.stats() - c0, common.iterations);
	rep.results.push_back(r);
}

int run_on_model(const queue_opts &o, const device_choice &d, std::uint32_t line)
{
	auto dev = device::open(d.spec);
	if (line != dev.coherent().model().line_size)
		device_setting(fmt::format("--line {}", line), [&] { dev.coherent().set_line_size(line); });
	bench::report rep;
	rep.tool = "ecibench queue";
	rep.device = d.spec;
	rep.transport = "sim";
	rep.memory_type = "wb";
	rep.simulated = true;
	rep.cpu = pin_timing_thread(pin_info(d), o.common);
	rep.extra["line"] = line;
	rep.extra["peer"] = "device (modelled)";
	rep.extra["model"] = model_params(dev.coherent().model());
	queue_device(dev, static_cast<std::uint32_t>(o.entries), o.size, o.common, rep);
	emit(rep, o.common.format);
	return 0;
}

int run_on_cores(const queue_opts &o, const device_choice &d, std::uint32_t L)
{
	bench::report rep = two_core_report("ecibench queue", d, o.common, L);
	ring_memory mem(d, L);
	progress prog(rep.tool, 1, o.common.quiet, "runs");
	prog.update(0, "cq");
	const auto e = static_cast<std::uint32_t>(o.entries);
	auto [m1, m2] = mem.two(coherent::cq::bytes(e, L));
	bench::placed<coherent::cq> to(m1, e, L), from(m2, e, L);
	bench::placed<coherent::cq::sender> ts(*to), fs(*from);
	bench::placed<coherent::cq::receiver> tr(*to), fr(*from);
	std::string peer;
	auto h = queue_pingpong(*ts, *tr, *fs, *fr, o.size, L, o.common, peer);
	rep.results.push_back(bench::result::from("cq_roundtrip", o.size, h));
	rep.extra["peer"] = peer;
	prog.finish();
	emit(rep, o.common.format);
	return 0;
}

} // namespace

pioc::tool::tool::body ecibench_queue(CLI::App &cmd)
{
	auto op = std::make_shared<queue_opts>();
	queue_opts &o = *op;
	o.common.iterations = 100000;
	o.common.warmup = 1000;
	command_line c(cmd);
	pioc::tool::describe(cmd, "CNI cachable queue round trips: between two cores (measured) or with the "
				"modelled device (simulated).");
	o.dev.add(c,
		  "cores (default: the rings on the heap, an echo thread on another core; measured), sim:eci (the "
		  "modelled Enzian FPGA answers from its own memory; SIMULATED) or kmod:eciN (the rings in a "
		  "module's ECI window, an echo thread on another core; measured)", "cores",
		  false);
	c.add_bench_options(o.common);
	c.add_text("--peer", "WHO", "core: the same as --device cores; device: --device sim:eci", o.peer);
	c.add_count("--entries", "N", "ring entries per direction", o.entries, 2, 1u << 16);
	c.add_count("--line", "BYTES", "cache-line size [default: this machine's; 128 on sim:eci]", o.line, 16, 4096);
	c.add_count("--size", "BYTES", "message payload (up to line - 8)", o.size, 1, 4088);
	c.footer("example: ecibench queue --device sim:eci --json   # 4 line exchanges per round trip\n"
		 "         ecibench queue --device kmod:eci0         # both cores on the FPGA-homed window");
	return [op, &cmd] {
		queue_opts &o = *op;
		const command_line c(cmd);
		device_choice d = o.dev.resolve(c, "cores");
		if (c.given("--peer")) {
			if (o.peer != "core" && o.peer != "device")
				throw usage_error(fmt::format("--peer {}: expected core or device", o.peer));
			if (o.peer == "device" && d.kind == device_kind::window)
				throw usage_error("--window: the modelled device has its own memory; use it with --peer core");
			if (c.given("--device") && (o.peer == "device") != (d.kind == device_kind::model))
				throw usage_error(fmt::format("--peer {}: contradicts --device {}", o.peer, d.spec));
			if (o.peer == "device")
				d = classify("sim:eci");
		}
		if (d.kind == device_kind::rtl)
			throw usage_error("--device rtl:coh: the coherent engine's image has no CNI queue engine (sim:eci "
					  "has one)");
		const bool model = d.kind == device_kind::model;
		const auto L = static_cast<std::uint32_t>(o.line ? o.line : model ? 128 : coherent::host_line_size());
		if (o.size > L - 8)
			throw usage_error(fmt::format("--size {}: a {}-byte line carries at most {} bytes", o.size, L, L - 8));
		return model ? run_on_model(o, d, L) : run_on_cores(o, d, L);
	};
}

} // namespace ecibench
