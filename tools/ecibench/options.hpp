/** @file
 * ecibench's command line on CLI11 (Debian's libcli11-dev): one subcommand
 * each, "ecibench COMMAND --device SPEC [options]" as pciebench, --help that
 * starts "usage: ecibench COMMAND" and gives every option's unit and default,
 * and errors that name the option (usage_error: exit code 2).
 *
 * The tool helpers it uses besides the parser (bench_options, run, emit,
 * pin_timing_thread, parse_size_list, parse_count, usage_error) are the
 * tools' shared ones; the hand-written parser (pioc::tool::cli) is not used.
 */
#pragma once

// The shared helpers named above (the CLI11 framework of pciebench).
#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/run.hpp"
#include "common/units.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ecibench {

using pioc::tool::bench_options;
using pioc::tool::emit;
using pioc::tool::pin_timing_thread;
using pioc::tool::progress;
using pioc::tool::split_list;
using pioc::tool::usage_error;

/** One subcommand's options. */
class command_line {
public:
	/** @p prog as the user typed it ("ecibench invoke"); @p summary one line. */
	command_line(std::string prog, std::string summary);

	CLI::App &app() noexcept { return app_; }
	const std::string &prog() const noexcept { return prog_; }

	/** --json/--csv/--table, --cpu/-c and --no-pin, --iterations/-n and
	 *  --warmup/-w, --quiet/-q into @p o (its values now are the defaults). */
	void add_bench_options(bench_options &o);
	/** An option whose text @p parse takes (throwing usage_error on bad
	 *  input; the message gets the option's name in front). */
	CLI::Option *add_parsed(const std::string &names, const std::string &metavar, const std::string &help,
				std::function<void(std::string_view)> parse, const std::string &default_text = {});
	/** A string option; its current value is the default shown. */
	CLI::Option *add_text(const std::string &names, const std::string &metavar, const std::string &help,
			      std::string &out);
	/** A count in [lo, hi] ("10000", "10k", "1M", "0x10"). */
	CLI::Option *add_count(const std::string &names, const std::string &metavar, const std::string &help,
			       std::uint64_t &out, std::uint64_t lo, std::uint64_t hi);
	/** A size list ("8,64,4K", "8..16K"); @p out gets the default's sizes. */
	CLI::Option *add_sizes(const std::string &names, const std::string &help, std::vector<std::uint64_t> &out,
			       const std::string &default_text);
	CLI::Option *add_flag(const std::string &names, const std::string &help, bool &out);
	void footer(std::string text) { app_.footer(std::move(text)); }

	/** Parses argv[1..argc). Returns false if --help was asked (printed to
	 *  stdout); throws usage_error naming the option on anything else. */
	bool parse(int argc, char **argv);
	/** True if option @p name ("--window") appeared on the command line
	 *  (false for an option this command does not have). */
	bool given(const std::string &name) const
	{
		const CLI::Option *o = app_.get_option_no_throw(name);
		return o && o->count() > 0;
	}

private:
	std::string prog_;
	CLI::App app_;
};

/** Runs @p body as command @p argv[0] (exit codes: pioc::tool::run). */
int run_command(char **argv, const std::function<int()> &body);

} // namespace ecibench
