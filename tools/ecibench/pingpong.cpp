// ecibench pingpong: the floor (one cache line bounced between two cores)
// and FastForward queues, measured between two cores of this machine, on the
// heap or in a module's ECI window.
#include "commands.hpp"
#include "threads.hpp"

#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/queue.hpp>

#include <fmt/format.h>

#include <memory>

#include <atomic>

namespace ecibench {
namespace {

using namespace pioc;

struct pingpong_opts {
	bench_options common;
	device_options dev;
	std::string ops = "floor,ff";
	std::uint64_t entries = 64, line = 0, size = 8;
};

/** One line, two values in turn: the cost of the line's transfers alone. */
bench::histogram floor_run(ring_memory &mem, std::uint32_t L, const bench_options &c, std::string &peer)
{
	auto *w = static_cast<std::uint64_t *>(mem.two(L).first);
	auto ld = [w] { return std::atomic_ref<std::uint64_t>(*w).load(std::memory_order_acquire); };
	auto st = [w](std::uint64_t v) { std::atomic_ref<std::uint64_t>(*w).store(v, std::memory_order_release); };
	return pingpong(
		c.iterations, c.warmup,
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
}

/** FastForward queues, one each way. */
bench::histogram ff_run(ring_memory &mem, std::uint32_t L, const pingpong_opts &o, std::string &peer)
{
	const auto e = static_cast<std::uint32_t>(o.entries);
	auto [m1, m2] = mem.two(coherent::ff_queue::bytes(e, L));
	bench::placed<coherent::ff_queue> to(m1, e, L), from(m2, e, L);
	return queue_pingpong(*to, *to, *from, *from, o.size, L, o.common, peer);
}

} // namespace

pioc::tool::tool::body ecibench_pingpong(CLI::App &cmd)
{
	auto op = std::make_shared<pingpong_opts>();
	pingpong_opts &o = *op;
	o.common.iterations = 100000;
	o.common.warmup = 1000;
	command_line c(cmd);
	pioc::tool::describe(cmd, "Cache-line ping-pong between two cores: the floor, and FastForward (measured).");
	o.dev.add(c,
		  "cores (default: the lines on the heap) or kmod:eciN (in a module's ECI window); an echo "
		  "thread on another core either way (measured)",
		  "cores", false);
	c.add_bench_options(o.common);
	c.add_text("--ops", "LIST", "floor (one line bounced), ff (FastForward queues)", o.ops);
	c.add_count("--entries", "N", "FastForward ring entries per direction (ff)", o.entries, 2, 1u << 16);
	c.add_count("--line", "BYTES", "cache-line size [default: this machine's]", o.line, 16, 4096);
	c.add_count("--size", "BYTES", "ff message payload (up to line - 8; floor moves 8)", o.size, 1, 4088);
	c.footer("example: ecibench pingpong --ops floor,ff --cpu 1");
	return [op, &cmd] {
		pingpong_opts &o = *op;
		const command_line c(cmd);
		const device_choice d = o.dev.resolve(c, "cores");
		if (d.simulated())
			throw usage_error(fmt::format("--device {}: pingpong runs between two cores of this machine; the "
						      "modelled device answers in 'ecibench queue --device sim:eci'",
						      d.spec));
		const auto ops = split_list(o.ops, "--ops");
		for (const auto &op : ops)
			if (op != "floor" && op != "ff")
				throw usage_error(fmt::format("--ops: unknown '{}' (floor, ff)", op));
		const bool ff = std::find(ops.begin(), ops.end(), "ff") != ops.end();
		for (const char *opt : {"--entries", "--size"})
			if (!ff && c.given(opt))
				throw usage_error(fmt::format("{}: applies to ff only; --ops {} does not run it", opt, o.ops));
		const auto L = static_cast<std::uint32_t>(o.line ? o.line : coherent::host_line_size());
		if (o.size > L - 8)
			throw usage_error(fmt::format("--size {}: a {}-byte line carries at most {} bytes", o.size, L, L - 8));
		bench::report rep = two_core_report("ecibench pingpong", d, o.common, L);
		ring_memory mem(d, L);
		std::string peer;
		progress prog(rep.tool, ops.size(), o.common.quiet, "runs");
		std::uint64_t done = 0;
		for (const auto &op : ops) {
			prog.update(done++, op);
			if (op == "floor")
				rep.results.push_back(bench::result::from("pingpong_floor", 8, floor_run(mem, L, o.common, peer)));
			else
				rep.results.push_back(bench::result::from("ff_roundtrip", o.size, ff_run(mem, L, o, peer)));
		}
		rep.extra["peer"] = peer;
		prog.finish();
		emit(rep, o.common.format);
		return 0;
	};
}

} // namespace ecibench
