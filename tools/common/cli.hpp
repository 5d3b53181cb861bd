/** @file
 * What every pioc tool shares: a small argument parser whose --help teaches,
 * the options all benchmarks take (--device, --mem-type, --cpu, --json/--csv/
 * --table, --iterations, --warmup), parsing of sizes and lists, progress on
 * stderr (only when it is a terminal), and a main() wrapper that turns
 * pioc::error into a clear message and an exit code.
 *
 * Usage sketch (see tools/pciebench/pio.cpp):
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

#include "common/progress.hpp" // the tools that include cli.hpp report progress

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pioc::tool {

/** Bad command line: printed with a pointer to --help, exit code 2. */
class usage_error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

/** Exit codes shared by all tools. */
enum exit_code : int { exit_ok = 0, exit_failure = 1, exit_usage = 2 };

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

/** Options every benchmark takes. */
struct bench_options {
	std::string device = "sim:pio";
	std::optional<mem_type> mem;          ///< unset: the tool's default
	bench::format format = bench::format::table;
	std::optional<unsigned> cpu;          ///< OS CPU to pin the timing thread to
	bool no_pin = false;
	std::uint64_t iterations = 10000;
	std::uint64_t warmup = 1000;
	bool quiet = false;                   ///< no progress even on a terminal
};

/** What add_bench_options() registers (tools leave out what they lack). */
enum bench_option_set : unsigned {
	opt_device = 1, opt_mem_type = 2, opt_format = 4, opt_cpu = 8, opt_iterations = 16, opt_quiet = 32,
	opt_all = 63,
};

/** Registers --device/-d, --mem-type/-m, --json, --csv, --table, --cpu/-c,
 *  --no-pin, --iterations/-n, --warmup/-w and --quiet/-q on @p c. */
void add_bench_options(cli &c, bench_options &o, unsigned which = opt_all,
		       std::string_view mem_help = "memory type of the mapping: uc, wc or wt");

/** Parses "4096", "4K", "4KiB", "1M" (binary units; B suffix allowed). */
std::uint64_t parse_size(std::string_view s);
/** Parses an unsigned count: "10000", "10k", "1M" (decimal units), "0x10". */
std::uint64_t parse_count(std::string_view s);
/** Parses a size list: "8,64,4K" or a range of powers of two "8..8K"
 *  (mixed: "8..64,1000"). Sorted, duplicates removed. */
std::vector<std::uint64_t> parse_size_list(std::string_view s);
/** Splits "a,b,c" into words, rejecting empty ones. */
std::vector<std::string> split_list(std::string_view s, std::string_view what);
/** Parses a memory type or throws usage_error listing the valid ones. */
mem_type parse_mem(std::string_view s);

/** Pins the timing thread (through pioc::pin_for_timing, near the device)
 *  unless @p o.no_pin, and returns the text for the report's "cpu" field. */
std::string pin_timing_thread(const device_info &dev, const bench_options &o);

/** Runs @p body; prints pioc::error / usage_error / other exceptions as
 *  "<prog>: error: ..." on stderr and returns the exit code. */
int run(std::string_view prog, const std::function<int()> &body);

/** Writes a report to stdout in the chosen format. */
void emit(const bench::report &r, bench::format f);

} // namespace pioc::tool
