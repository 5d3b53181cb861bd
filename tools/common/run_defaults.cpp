// Default iteration counts per backend (run_defaults.hpp).
#include "common/run_defaults.hpp"

#include <fmt/format.h>

namespace pioc::tool {

namespace {

/** Counts on the Verilated images, each sized so the command's default run
 *  (all its default sizes and operations) takes well under a minute at the
 *  measured speed (Documentation/benchmarking.md, "RTL simulation speed"). */
struct rtl_row {
	std::string_view command;
	run_counts counts;
};
constexpr rtl_row rtl_rows[] = {
	{"pciebench pio", {100, 10}},
	{"pciebench dma", {50, 5}},
	{"pciebench offload", {10, 1}},
	{"ecibench invoke", {20, 2}},
};

bool is_rtl(std::string_view backend) { return backend == "rtl" || backend.starts_with("rtl:"); }

} // namespace

std::optional<run_counts> backend_defaults(std::string_view command, std::string_view backend)
{
	if (!is_rtl(backend))
		return std::nullopt;
	for (const auto &r : rtl_rows)
		if (r.command == command)
			return r.counts;
	return std::nullopt;
}

void apply_backend_defaults(bench_options &o, std::string_view command, std::string_view backend,
			    const CLI::App &cmd)
{
	const auto d = backend_defaults(command, backend);
	if (!d)
		return;
	if (!given(cmd, "--iterations"))
		o.iterations = d->iterations;
	if (!given(cmd, "--warmup"))
		o.warmup = d->warmup;
}

std::string backend_defaults_help(std::string_view command)
{
	const auto d = backend_defaults(command, "rtl:");
	if (!d)
		return {};
	return fmt::format("On the Verilated RTL (rtl:*) the defaults are --iterations {} --warmup {}, so that a "
			   "default run ends within a minute (Documentation/benchmarking.md, RTL simulation speed).\n",
			   d->iterations, d->warmup);
}

} // namespace pioc::tool
