/** @file
 * The command line of the pioc tools, on CLI11 (Debian's libcli11-dev): one
 * way to declare a tool, its subcommands and the options the benchmarks
 * share, with a --help that teaches (each option's unit, default and the
 * devices it applies to; the device kinds from the library's registry) and
 * errors that name the option, the value and the rule (exit code 2).
 *
 * The whole API, shared by pciebench, ecibench, nicbench, pioc-info, pioc-devd:
 *  - tool t(name, summary): the program. t.app() is its CLI::App (footer,
 *    options of a tool without subcommands).
 *  - t.command(name, help, setup): a subcommand. setup(CLI::App &cmd) adds
 *    the command's options (their storage must outlive the parse: keep it in
 *    a std::make_shared the body captures) and returns the body, int(), that
 *    runs after a good parse.
 *  - t.main(argc, argv) runs the command argv[1] names ("TOOL help CMD" is
 *    "TOOL CMD --help"; no command: the usage on stderr, exit 2; an unknown
 *    one: named with the known ones, exit 2); t.main(argc, argv, body) for a
 *    tool without subcommands. Bodies run inside run() (run.hpp): usage_error
 *    exits 2, pioc::error 1.
 *  - add_bench_options(cmd, o, which): --device/-d, --mem-type/-m, --json,
 *    --csv, --table, --cpu/-c, --no-pin, --iterations/-n, --warmup/-w,
 *    --quiet/-q into a bench_options (its values when called are the defaults).
 *  - add_sizes, add_count, add_name, add_name_list, add_text, add_parsed:
 *    one option each; the current value of the output is the default shown.
 *  - open_device(spec): device::open; a spec the library refuses as unknown
 *    or malformed is a usage error naming --device.
 *  - device_kinds_help(): the device list for a --help footer.
 *  - full_name(cmd): "pciebench pio", for reports and progress lines.
 *  - describe, set_footer, add_flag, describe_option, given, show_default:
 *    the few CLI::App and CLI::Option calls the commands make.
 * This header declares CLI::App and CLI::Option without including CLI11:
 * <CLI/CLI.hpp> costs each file that includes it about 7 s of compiling
 * (its validators are built in every translation unit), so only
 * options.cpp and the files that parse on their own include it
 * (Documentation/testing.md, "Compile time").
 * Beside it: run.hpp (usage_error, exit codes, emit), units.hpp (the size and
 * count parsers on their own), progress.hpp (progress lines on stderr).
 *
 * @code
 *   pioc::tool::tool t("ecibench", "ECI benchmarks ...");
 *   t.command("invoke", "one line of help", [](CLI::App &cmd) {
 *       auto o = std::make_shared<invoke_options>();
 *       pioc::tool::add_bench_options(cmd, o->common, pioc::tool::opt_format | pioc::tool::opt_iterations);
 *       pioc::tool::add_sizes(cmd, "--sizes,-s", o->sizes, "8..8K", "payload sizes in bytes");
 *       return [o, &cmd] { return run_invoke(*o, pioc::tool::full_name(cmd)); };
 *   });
 *   return t.main(argc, argv);
 * @endcode
 */
#pragma once

#include "common/run.hpp"
#include "common/units.hpp"

#include <pioc/bench/report.hpp>
#include <pioc/device.hpp>
#include <pioc/enum_names.hpp>
#include <pioc/mem_type.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace pioc::tool {

/** A program: its CLI::App, its subcommands and their bodies. */
class tool {
public:
	using body = std::function<int()>;
	using setup = std::function<body(CLI::App &)>;

	tool(std::string name, std::string summary);
	~tool();
	tool(const tool &) = delete;
	tool &operator=(const tool &) = delete;

	CLI::App &app() noexcept { return *app_; }
	/** Adds subcommand @p name; @p s registers its options, returns its body. */
	void command(std::string name, std::string help, const setup &s);
	/** Parses and runs: the chosen subcommand's body, or @p single for a tool
	 *  without subcommands. Returns the exit code. */
	int main(int argc, char **argv, const body &single = {});

private:
	int run_command(int argc, char **argv);

	std::unique_ptr<CLI::App> app_;
	std::map<std::string, body, std::less<>> bodies_;
	std::vector<std::string> order_; ///< command names as added (for messages)
};

/** "pciebench pio" for a subcommand, "pioc-info" for a tool's own app. */
std::string full_name(const CLI::App &cmd);

/** The command's description, the first paragraph of its --help. */
void describe(CLI::App &cmd, const std::string &text);

/** Text after the options in --help (replaces what was set before). */
void set_footer(CLI::App &cmd, const std::string &text);

/** A flag: @p out becomes true when given. */
CLI::Option *add_flag(CLI::App &cmd, const std::string &names, bool &out, const std::string &help);

/** Replaces the help of the option @p name registered earlier on @p cmd
 *  (a command that takes only some devices says which for --device). */
void describe_option(CLI::App &cmd, const std::string &name, const std::string &help);

/** Whether the command line gave option @p name (after the parse; false
 *  for an option @p cmd does not have). */
bool given(const CLI::App &cmd, const std::string &name);

/** The default --help shows for @p o ([default: TEXT]). */
CLI::Option *show_default(CLI::Option *o, const std::string &text);

/** Options every benchmark takes; the values set before add_bench_options()
 *  are the defaults --help shows. */
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

/** Registers the shared options of @p which on @p cmd. @p mem_help says which
 *  mapping --mem-type applies to ("the BAR0 mapping"). A command that takes
 *  only some devices says which with describe_option(cmd, "--device", ...). */
void add_bench_options(CLI::App &cmd, bench_options &o, unsigned which = opt_all,
		       std::string_view mem_help = "memory type of the BAR mapping");

/** Any option with a value: @p parse gets the text and throws usage_error or
 *  pioc::error on bad input (the message is prefixed with the option's name).
 *  @p names as CLI11 takes them ("--sizes,-s"); @p metavar the value's kind;
 *  @p default_text shown as [default: ...] (empty: none). */
CLI::Option *add_parsed(CLI::App &cmd, const std::string &names, const std::string &help,
			std::function<void(std::string_view)> parse, const std::string &metavar = "VALUE",
			const std::string &default_text = {});

/** A string option; its current value is the default shown. */
CLI::Option *add_text(CLI::App &cmd, const std::string &names, std::string &out, const std::string &help,
		      const std::string &metavar = "TEXT");

/** A size list ("8,64,4K", "8..8K": binary units). @p out becomes the list
 *  @p default_text names, which is also the default shown. */
CLI::Option *add_sizes(CLI::App &cmd, const std::string &names, std::vector<std::uint64_t> &out,
		       const std::string &default_text, const std::string &help);

/** A count in [lo, hi] ("10000", "10k", "1M", "0x10"); the current value of
 *  @p out is the default shown. */
template <class T>
CLI::Option *add_count(CLI::App &cmd, const std::string &names, T &out, std::uint64_t lo, std::uint64_t hi,
		       const std::string &help, const std::string &metavar = "N");

/** One enum value by its name in @p table (pioc/enum_names.hpp); @p what
 *  names the kind in errors ("op code"). */
template <class E, std::size_t N>
CLI::Option *add_name(CLI::App &cmd, const std::string &names, const enum_name<E> (&table)[N], E &out,
		      std::string_view what, const std::string &help)
{
	return add_parsed(
		cmd, names, help + " (" + accepted_names(table) + ")",
		[&table, &out, what](std::string_view v) {
			auto x = parse_name(table, v);
			if (!x)
				throw usage_error(unknown_name(table, v, what));
			out = *x;
		},
		"NAME", std::string(name_of(table, out)));
}

/** A comma list of enum names, duplicates dropped; @p out's current content
 *  is the default shown. */
template <class E, std::size_t N>
CLI::Option *add_name_list(CLI::App &cmd, const std::string &names, const enum_name<E> (&table)[N],
			   std::vector<E> &out, std::string_view what, const std::string &help)
{
	std::string def;
	for (E e : out)
		def += (def.empty() ? "" : ",") + std::string(name_of(table, e));
	return add_parsed(
		cmd, names, help,
		[&table, &out, what](std::string_view v) {
			out.clear();
			for (const auto &w : split_list(v, "name")) {
				auto x = parse_name(table, w);
				if (!x)
					throw usage_error(unknown_name(table, w, what));
				if (std::find(out.begin(), out.end(), *x) == out.end())
					out.push_back(*x);
			}
		},
		"LIST", def);
}

/** device::open(@p spec); a spec the library does not know (an unknown
 *  sim:/rtl: name, a malformed spec) is a usage_error naming @p option. */
device open_device(const std::string &spec, std::string_view option = "--device");

/** Every kind of device spec, one per line, the simulated ones from the
 *  library's registry: for a --help footer. */
std::string device_kinds_help();

/** Pins the timing thread (through pioc::pin_for_timing, near the device)
 *  unless @p o.no_pin, and returns the text for the report's "cpu" field. */
std::string pin_timing_thread(const device_info &dev, const bench_options &o);

// ---- template definitions ----

std::string range_error(std::string_view value, std::uint64_t lo, std::uint64_t hi);

template <class T>
CLI::Option *add_count(CLI::App &cmd, const std::string &names, T &out, std::uint64_t lo, std::uint64_t hi,
		       const std::string &help, const std::string &metavar)
{
	return add_parsed(
		cmd, names, help,
		[&out, lo, hi](std::string_view v) {
			const std::uint64_t x = parse_count(v);
			if (x < lo || x > hi)
				throw usage_error(range_error(v, lo, hi));
			out = static_cast<T>(x);
		},
		metavar, std::to_string(out));
}

} // namespace pioc::tool
