// ecibench's command line on CLI11: see options.hpp.
#include "options.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace ecibench {

namespace {

/** "usage: ecibench invoke [options]" first, then what the command does:
 *  the order the tools' --help has always had (and tests/tools checks). */
class help_format : public CLI::Formatter {
public:
	help_format()
	{
		label("Usage", "usage");
		label("OPTIONS", "options");
		column_width(34);
	}
	std::string make_help(const CLI::App *app, std::string name, CLI::AppFormatMode mode) const override
	{
		std::string out = make_usage(app, std::move(name));
		if (!app->get_description().empty())
			out += "\n" + app->get_description() + "\n";
		out += make_groups(app, mode);
		if (!app->get_footer().empty())
			out += "\n" + make_footer(app);
		return out;
	}
};

} // namespace

command_line::command_line(std::string prog, std::string summary) : prog_(std::move(prog)), app_(std::move(summary), prog_)
{
	app_.formatter(std::make_shared<help_format>());
	app_.set_help_flag("-h,--help", "print this help and exit");
	app_.option_defaults()->always_capture_default()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option *command_line::add_parsed(const std::string &names, const std::string &metavar, const std::string &help,
				      std::function<void(std::string_view)> parse, const std::string &default_text)
{
	const std::string first = names.substr(0, names.find(','));
	auto *o = app_.add_option_function<std::string>(
		names,
		[parse = std::move(parse), first](const std::string &v) {
			try {
				parse(v);
			} catch (const usage_error &e) {
				throw usage_error(fmt::format("{} {}: {}", first, v, e.what()));
			}
		},
		help);
	o->type_name(metavar);
	if (!default_text.empty())
		o->default_str(default_text);
	return o;
}

CLI::Option *command_line::add_text(const std::string &names, const std::string &metavar, const std::string &help,
				    std::string &out)
{
	return add_parsed(names, metavar, help, [&out](std::string_view v) { out = std::string(v); }, out);
}

CLI::Option *command_line::add_count(const std::string &names, const std::string &metavar, const std::string &help,
				     std::uint64_t &out, std::uint64_t lo, std::uint64_t hi)
{
	return add_parsed(
		names, metavar, hi == ~0ull ? help : fmt::format("{} ({}..{})", help, lo, hi),
		[&out, lo, hi](std::string_view v) {
			const std::uint64_t x = pioc::tool::parse_count(v);
			if (x < lo || x > hi)
				throw usage_error(fmt::format("outside {}..{}", lo, hi));
			out = x;
		},
		std::to_string(out));
}

CLI::Option *command_line::add_sizes(const std::string &names, const std::string &help, std::vector<std::uint64_t> &out,
				     const std::string &default_text)
{
	out = pioc::tool::parse_size_list(default_text);
	return add_parsed(names, "LIST", help, [&out](std::string_view v) { out = pioc::tool::parse_size_list(v); },
			  default_text);
}

CLI::Option *command_line::add_flag(const std::string &names, const std::string &help, bool &out)
{
	return app_.add_flag(names, out, help);
}

void command_line::add_bench_options(bench_options &o)
{
	using pioc::bench::format;
	app_.add_flag_callback("--json", [&o] { o.format = format::json; },
			       "print one JSON object instead of the table (shape: Documentation/benchmarking.md)");
	app_.add_flag_callback("--csv", [&o] { o.format = format::csv; },
			       "print CSV (a header line, then one line per result)");
	app_.add_flag_callback("--table", [&o] { o.format = format::table; },
			       "print the human-readable table (the default)");
	add_parsed("--cpu,-c", "N", "pin the timing thread to OS CPU N [default: a core near the device, not core 0]",
		   [&o](std::string_view v) { o.cpu = static_cast<unsigned>(pioc::tool::parse_count(v)); });
	add_flag("--no-pin", "do not pin the timing thread (the report then says \"not pinned\")", o.no_pin);
	add_count("--iterations,-n", "N", "timed iterations per operation and size", o.iterations, 1, 100'000'000);
	add_count("--warmup,-w", "N", "untimed iterations before each timed run", o.warmup, 0, 100'000'000);
	add_flag("--quiet,-q",
		 "no progress on stderr (shown after 2 s: a redrawn line on a terminal, a line every 10 s otherwise)",
		 o.quiet);
}

bool command_line::parse(int argc, char **argv)
{
	try {
		app_.parse(argc, argv);
	} catch (const CLI::CallForHelp &) {
		std::cout << app_.help();
		return false;
	} catch (const CLI::ParseError &e) {
		throw usage_error(e.what());
	}
	return true;
}

int run_command(char **argv, const std::function<int()> &body)
{
	return pioc::tool::run(argv[0], body);
}

} // namespace ecibench
