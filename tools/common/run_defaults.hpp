/** @file
 * Default iteration counts per backend (issue 13): the tools' own defaults
 * are sized for hardware and the behavioural models (sim:*), which run
 * faster than real time; the Verilated RTL (rtl:*) simulates a few million
 * cycles per second, so the same counts would run for many minutes. Every
 * default run must finish within a minute on a 2-core machine
 * (Documentation/benchmarking.md, "RTL simulation speed"). Applied once,
 * after parsing, above every timed loop; --iterations / --warmup win.
 */
#pragma once

#include "common/options.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pioc::tool {

/** Iterations and warm-up of one run. */
struct run_counts {
	std::uint64_t iterations, warmup;
};

/** The counts @p command ("pciebench pio", "pciebench dma", "pciebench
 *  offload", "ecibench invoke") uses by default on @p backend (a device spec
 *  such as rtl:pio, or ecibench's engine name "rtl"); nullopt: the
 *  command's own defaults. */
std::optional<run_counts> backend_defaults(std::string_view command, std::string_view backend);

/** Sets @p o's iterations and warm-up to backend_defaults() for @p backend
 *  unless the command line (@p cmd, parsed) gave them. */
void apply_backend_defaults(bench_options &o, std::string_view command, std::string_view backend,
			    const CLI::App &cmd);

/** A line for --help naming the defaults @p command uses on the RTL. */
std::string backend_defaults_help(std::string_view command);

} // namespace pioc::tool
