/** @file
 * The hand-written parser ecibench still uses until it moves to options.hpp
 * (CLI11), then this file goes. What it offered: a small argument parser whose --help teaches,
 * the options all benchmarks take (--device, --mem-type, --cpu, --json/--csv/
 * --table, --iterations, --warmup), parsing of sizes and lists, progress on
 * stderr (only when it is a terminal), and a main() wrapper that turns
 * pioc::error into a clear message and an exit code.
 *
 * Usage sketch (see tools/ecibench/main.cpp):
 * @code
 *   pioc::tool::cli cli("pciebench pio", "PIO latency and throughput over PCIe");
 *   pioc::tool::bench_options o;
 *   pioc::tool::add_bench_options(cli, o);
 *   cli.value("sizes", "LIST", "payload sizes (8,64,4K or 8..8K powers of two)", sizes_text);
 *   if (!cli.parse(argc, argv)) return 0;   // --help was printed
 * @endcode
 */
#pragma once

#include <pioc/bench/report.hpp>
#include <pioc/device.hpp>
#include <pioc/mem_type.hpp>

#include "common/options.hpp" // bench_options, pin_timing_thread
#include "common/progress.hpp" // the tools that include cli.hpp report progress
#include "common/run.hpp"
#include "common/units.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pioc::tool {

/** A command-line parser: long options (--name VALUE, --name=VALUE), optional
 *  one-letter aliases, flags, and positional words left for the caller. */
class cli {
public:
	/** @p prog as the user typed it ("pciebench pio"); @p summary one line. */
	cli(std::string prog, std::string summary);

	/** A flag: sets @p out to true. */
	cli &flag(std::string name, std::string help, bool &out, char short_name = 0);
	/** A flag that runs @p on when given. */
	cli &flag(std::string name, std::string help, std::function<void()> on, char short_name = 0);
	/** An option with a value handed to @p parse (which throws usage_error on bad input). */
	cli &option(std::string name, std::string metavar, std::string help,
		    std::function<void(std::string_view)> parse, char short_name = 0,
		    std::string default_text = {});
	/** A string option; the current value of @p out is shown as the default. */
	cli &value(std::string name, std::string metavar, std::string help, std::string &out, char short_name = 0);
	/** An unsigned option in [lo, hi]; accepts 10000, 10k, 1M, 0x10. */
	cli &value(std::string name, std::string metavar, std::string help, std::uint64_t &out,
		   std::uint64_t lo = 0, std::uint64_t hi = ~0ull, char short_name = 0);
	/** A paragraph printed after the options (examples, notes). */
	cli &epilog(std::string text);
	/** Allows positional words (returned by positionals()); off by default. */
	cli &positional(std::string metavar, std::string help);

	/** Parses argv[first..argc). Returns false if --help was asked (and
	 *  printed to stdout); throws usage_error on anything it cannot take. */
	bool parse(int argc, char **argv, int first = 1);
	const std::vector<std::string> &positionals() const noexcept { return positionals_; }
	/** True if option @p name appeared on the command line. */
	bool given(std::string_view name) const;

	void print_help(std::ostream &os) const;
	const std::string &prog() const noexcept { return prog_; }

private:
	struct opt {
		std::string name, metavar, help, default_text;
		char short_name = 0;
		bool is_flag = false;
		std::function<void()> on_flag;
		std::function<void(std::string_view)> parse;
	};
	const opt *find(std::string_view name) const;
	const opt *find_short(char c) const;

	std::string prog_, summary_, epilog_, pos_metavar_, pos_help_;
	std::vector<opt> opts_;
	std::vector<std::string> positionals_, given_;
	bool allow_pos_ = false;
};

/** Registers --device/-d, --mem-type/-m, --json, --csv, --table, --cpu/-c,
 *  --no-pin, --iterations/-n, --warmup/-w and --quiet/-q on @p c. */
void add_bench_options(cli &c, bench_options &o, unsigned which = opt_all,
		       std::string_view mem_help = "memory type of the mapping: uc, wc or wt");

} // namespace pioc::tool
