/** @file
 * ecibench's options, declared on the tools' shared CLI11 framework
 * (tools/common/options.hpp, as pciebench): "ecibench COMMAND --device SPEC
 * [options]", --help with every option's unit and default, errors naming the
 * option (usage_error: exit code 2).
 *
 * command_line is a view of one subcommand's CLI::App with the argument
 * order the ecibench commands read best in (name, metavar, help, output);
 * every option goes through the shared helpers, so there is one parser.
 */
#pragma once

#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/run.hpp"
#include "common/units.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ecibench {

using pioc::tool::bench_options;
using pioc::tool::emit;
using pioc::tool::pin_timing_thread;
using pioc::tool::progress;
using pioc::tool::split_list;
using pioc::tool::usage_error;

/** The options of one subcommand (its CLI::App, owned by pioc::tool::tool). */
class command_line {
public:
	explicit command_line(CLI::App &app) noexcept : app_(app) {}

	CLI::App &app() noexcept { return app_; }
	/** "ecibench invoke", for reports and progress lines. */
	std::string prog() const { return pioc::tool::full_name(app_); }

	/** --json/--csv/--table, --cpu/-c and --no-pin, --iterations/-n and
	 *  --warmup/-w, --quiet/-q into @p o (its values now are the defaults). */
	void add_bench_options(bench_options &o)
	{
		using namespace pioc::tool;
		pioc::tool::add_bench_options(app_, o, opt_format | opt_cpu | opt_iterations | opt_quiet);
	}
	/** A string option; its current value is the default shown. */
	CLI::Option *add_text(const std::string &names, const std::string &metavar, const std::string &help,
			      std::string &out)
	{
		return pioc::tool::add_text(app_, names, out, help, metavar);
	}
	/** A count in [lo, hi] ("10000", "10k", "1M", "0x10"). */
	CLI::Option *add_count(const std::string &names, const std::string &metavar, const std::string &help,
			       std::uint64_t &out, std::uint64_t lo, std::uint64_t hi)
	{
		return pioc::tool::add_count(app_, names, out, lo, hi, help, metavar);
	}
	/** A size list ("8,64,4K", "8..16K"); @p out gets the default's sizes. */
	CLI::Option *add_sizes(const std::string &names, const std::string &help, std::vector<std::uint64_t> &out,
			       const std::string &default_text)
	{
		return pioc::tool::add_sizes(app_, names, out, default_text, help);
	}
	CLI::Option *add_flag(const std::string &names, const std::string &help, bool &out)
	{
		return pioc::tool::add_flag(app_, names, out, help);
	}
	void footer(const std::string &text) { pioc::tool::set_footer(app_, text); }

	/** True if option @p name ("--window") appeared on the command line
	 *  (false for an option this command does not have). */
	bool given(const std::string &name) const { return pioc::tool::given(app_, name); }

private:
	CLI::App &app_;
};

} // namespace ecibench
