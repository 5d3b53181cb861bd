// The tools' command line on CLI11. See options.hpp.
#include "common/options.hpp"

#include "transport/sim_transport.hpp" // the registry of simulated devices

#include <pioc/error.hpp>
#include <pioc/place.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <sstream>

namespace pioc::tool {

namespace {

constexpr std::size_t help_width = 100, option_column = 30;

// Breaks @p text into lines of at most @p width characters at spaces.
std::string wrap(const std::string &text, std::size_t width)
{
	std::string out, line;
	std::istringstream words(text);
	std::string w;
	while (words >> w) {
		if (!line.empty() && line.size() + 1 + w.size() > width) {
			out += line + "\n";
			line.clear();
		}
		line += (line.empty() ? "" : " ") + w;
	}
	return out + line;
}

// --help as the old tools printed it: "usage: TOOL CMD [options]" first, then
// the summary, the options with their value kind and [default: ...], the
// commands and the footer.
class help_format : public CLI::Formatter {
public:
	help_format() { column_width(option_column); }

	std::string make_usage(const CLI::App *app, std::string name) const override
	{
		std::string s = "usage: " + name;
		if (!app->get_subcommands({}).empty())
			s += " COMMAND";
		s += " [options]";
		for (const CLI::Option *o : app->get_options([](const CLI::Option *x) { return x->get_positional(); }))
			s += " " + o->get_name(true);
		return s + "\n";
	}

	std::string make_option_opts(const CLI::Option *o) const override
	{
		return o->get_type_size() == 0 ? std::string() : " " + o->get_type_name();
	}

	std::string make_option_desc(const CLI::Option *o) const override
	{
		std::string d = o->get_description();
		if (o->get_default_str().empty())
			return wrap(d, help_width - option_column);
		// "[default:" and its value stay on one line: joined while wrapping.
		std::string w = wrap(d + " [default:\x01" + o->get_default_str() + "]", help_width - option_column);
		w[w.find('\x01')] = ' ';
		return w;
	}

	std::string make_help(const CLI::App *app, std::string name, CLI::AppFormatMode mode) const override
	{
		std::string out = make_usage(app, name);
		if (!app->get_description().empty())
			out += "\n" + app->get_description() + "\n";
		out += make_positionals(app) + make_groups(app, mode) + make_subcommands(app, mode);
		const std::string foot = make_footer(app);
		if (!foot.empty())
			out += "\n" + foot;
		return out;
	}
};

void set_up(CLI::App &app)
{
	app.option_defaults()->group("options")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
	app.set_help_flag("-h,--help", "show this help and exit");
	// Unknown words are ours to report (reject_extras), with suggestions.
	app.allow_extras();
}

// "--sizes" from "--sizes,-s" (the first long name, else the first name).
std::string shown_name(const std::string &names)
{
	std::vector<std::string> parts;
	std::string cur;
	for (char c : names + ",") {
		if (c == ',') {
			if (!cur.empty())
				parts.push_back(cur);
			cur.clear();
		} else if (c != ' ') {
			cur += c;
		}
	}
	for (const auto &p : parts)
		if (p.rfind("--", 0) == 0)
			return p;
	return parts.empty() ? names : parts.front();
}

// Words CLI11 left over (allow_extras): an unknown option, with the options
// that share its first letters, or a stray positional word.
void reject_extras(const CLI::App &cmd)
{
	const auto extra = cmd.remaining();
	if (extra.empty())
		return;
	const std::string &w = extra.front();
	if (w.size() < 2 || w[0] != '-')
		throw usage_error(fmt::format("unexpected argument '{}'", w));
	const std::string name = w.substr(0, w.find('='));
	std::string near;
	const std::string stem = name.substr(0, std::min<std::size_t>(name.size(), 5));
	for (const CLI::Option *o : cmd.get_options())
		for (const auto &l : o->get_lnames())
			if (("--" + l).rfind(stem, 0) == 0 && stem.size() > 2)
				near += (near.empty() ? "" : ", ") + ("--" + l);
	throw usage_error(fmt::format("unknown option {}{}", name, near.empty() ? "" : " (did you mean " + near + "?)"));
}

// Parses with CLI11; true if --help was printed. CLI11's own errors (a
// missing value, a value our parsers refused) become usage errors.
bool parse(CLI::App &app, int argc, char **argv, const CLI::App &cmd)
{
	try {
		app.parse(argc, argv);
	} catch (const CLI::CallForHelp &) {
		std::cout << app.help();
		return true;
	} catch (const CLI::ParseError &e) {
		throw usage_error(e.what());
	}
	reject_extras(cmd);
	return false;
}

} // namespace

tool::tool(std::string name, std::string summary)
	: app_(std::make_unique<CLI::App>(std::move(summary), std::move(name)))
{
	app_->formatter(std::make_shared<help_format>());
	set_up(*app_);
}

tool::~tool() = default;

void tool::command(std::string name, std::string help, const setup &s)
{
	CLI::App *cmd = app_->add_subcommand(name, std::move(help));
	cmd->group("commands");
	set_up(*cmd);
	order_.push_back(name);
	bodies_.emplace(std::move(name), s(*cmd));
}

std::string full_name(const CLI::App &cmd)
{
	const CLI::App *parent = cmd.get_parent();
	return parent ? parent->get_name() + " " + cmd.get_name() : cmd.get_name();
}

int tool::main(int argc, char **argv, const body &single)
{
	if (bodies_.empty())
		return run(app_->get_name(), [&] { return parse(*app_, argc, argv, *app_) ? exit_ok : single(); });
	return run_command(argc, argv);
}

int tool::run_command(int argc, char **argv)
{
	const std::string &name = app_->get_name();
	if (argc < 2) {
		std::cerr << app_->help();
		return exit_usage;
	}
	const std::string_view first = argv[1];
	if (first == "-h" || first == "--help" || first == "help") {
		if (first == "help" && argc > 2 && bodies_.count(std::string_view(argv[2]))) {
			char help[] = "--help";
			char *args[] = {argv[0], argv[2], help, nullptr};
			return run_command(3, args);
		}
		std::cout << app_->help();
		return exit_ok;
	}
	const auto it = bodies_.find(first);
	if (it == bodies_.end()) {
		std::string known;
		for (const auto &c : order_)
			known += (known.empty() ? "" : ", ") + c;
		std::cerr << fmt::format("{}: unknown command '{}' (known: {}; see '{} --help')\n", name, first, known,
					 name);
		return exit_usage;
	}
	const CLI::App &cmd = *app_->get_subcommand(std::string(first));
	return run(full_name(cmd), [&] { return parse(*app_, argc, argv, cmd) ? exit_ok : it->second(); });
}

// ---- options ----------------------------------------------------------------

void describe(CLI::App &cmd, const std::string &text) { cmd.description(text); }

void set_footer(CLI::App &cmd, const std::string &text) { cmd.footer(text); }

CLI::Option *add_flag(CLI::App &cmd, const std::string &names, bool &out, const std::string &help)
{
	return cmd.add_flag(names, out, help);
}

void describe_option(CLI::App &cmd, const std::string &name, const std::string &help)
{
	cmd.get_option(name)->description(help);
}

bool given(const CLI::App &cmd, const std::string &name)
{
	const CLI::Option *o = cmd.get_option_no_throw(name);
	return o && o->count() > 0;
}

CLI::Option *show_default(CLI::Option *o, const std::string &text) { return o->default_str(text); }

CLI::Option *add_parsed(CLI::App &cmd, const std::string &names, const std::string &help,
			std::function<void(std::string_view)> parse, const std::string &metavar,
			const std::string &default_text)
{
	const std::string shown = shown_name(names);
	auto *o = cmd.add_option_function<std::string>(
		names,
		[shown, parse = std::move(parse)](const std::string &v) {
			// The option's name before the message, unless it names it already.
			auto named = [&](const std::string &m) {
				return m.rfind(shown, 0) == 0 ? m : shown + ": " + m;
			};
			try {
				parse(v);
			} catch (const usage_error &e) {
				throw CLI::ValidationError(named(e.what()));
			} catch (const pioc::error &e) {
				throw CLI::ValidationError(named(e.what()));
			}
		},
		help);
	o->type_name(metavar);
	if (!default_text.empty())
		o->default_str(default_text);
	return o;
}

CLI::Option *add_text(CLI::App &cmd, const std::string &names, std::string &out, const std::string &help,
		      const std::string &metavar)
{
	return add_parsed(cmd, names, help, [&out](std::string_view v) { out = std::string(v); }, metavar, out);
}

CLI::Option *add_sizes(CLI::App &cmd, const std::string &names, std::vector<std::uint64_t> &out,
		       const std::string &default_text, const std::string &help)
{
	out = parse_size_list(default_text);
	return add_parsed(cmd, names, help + "; a list 8,64,4K (K/M/G = 2^10/2^20/2^30 bytes) or powers of two 8..8K",
			  [&out](std::string_view v) { out = parse_size_list(v); }, "LIST", default_text);
}

std::string range_error(std::string_view value, std::uint64_t lo, std::uint64_t hi)
{
	return fmt::format("{} is outside {}..{}", value, lo, hi);
}

void add_bench_options(CLI::App &cmd, bench_options &o, unsigned which, std::string_view mem_help)
{
	if (which & opt_device) {
		// The list of device kinds is in the tool's own --help.
		const CLI::App *top = cmd.get_parent() ? cmd.get_parent() : &cmd;
		add_text(cmd, "--device,-d", o.device,
			 fmt::format("device to use, any kind '{} --help' lists (this machine's: pioc-info)",
				     top->get_name()),
			 "SPEC");
	}
	if (which & opt_mem_type)
		add_parsed(cmd, "--mem-type,-m",
			   std::string(mem_help) + ": " + accepted_names(mem_type_names) +
				   " (uc: uncached, wc: write-combining, wt: write-through, wb: refused for device memory)",
			   [&o](std::string_view v) { o.mem = parse_mem(v); }, "TYPE",
			   o.mem ? std::string(to_string(*o.mem)) : std::string());
	if (which & opt_format) {
		cmd.add_flag_callback("--json", [&o] { o.format = bench::format::json; },
				      "print one JSON object instead of the table (shape: Documentation/benchmarking.md)");
		cmd.add_flag_callback("--csv", [&o] { o.format = bench::format::csv; },
				      "print CSV (a header line, then one line per result)");
		cmd.add_flag_callback("--table", [&o] { o.format = bench::format::table; },
				      "print the human-readable table (the default)");
	}
	if (which & opt_cpu) {
		add_parsed(cmd, "--cpu,-c", "pin the timing thread to OS CPU N (hardware and simulated devices alike)",
			   [&o](std::string_view v) { o.cpu = static_cast<unsigned>(parse_count(v)); }, "N",
			   "a core near the device, not core 0");
		cmd.add_flag("--no-pin", o.no_pin, "do not pin the timing thread (the report then says \"not pinned\")");
	}
	if (which & opt_iterations) {
		add_count(cmd, "--iterations,-n", o.iterations, 1, 100'000'000,
			  "timed iterations per operation and size (10k = 10000, 1M = 10^6)");
		add_count(cmd, "--warmup,-w", o.warmup, 0, 100'000'000, "untimed iterations before each timed run");
	}
	if (which & opt_quiet)
		cmd.add_flag("--quiet,-q", o.quiet,
			     "no progress on stderr (shown after 2 s: a redrawn line on a terminal, a line every 10 s "
			     "otherwise)");
}

// ---- devices ----------------------------------------------------------------

device open_device(const std::string &spec, std::string_view option)
{
	try {
		return device::open(spec);
	} catch (const error &e) {
		// Unknown names are the command line's fault; an absent PCI function is not.
		const bool simulated = spec.rfind("sim:", 0) == 0 || spec.rfind("rtl:", 0) == 0;
		if (e.code() == errc::invalid_argument || (simulated && e.code() == errc::not_found))
			throw usage_error(fmt::format("{} {}: {}", option, spec, e.what()));
		throw;
	}
}

std::string device_kinds_help()
{
	std::vector<std::pair<std::string, std::string>> rows;
	bool have_rtl = false;
	for (const auto &e : detail::sim_devices()) {
		have_rtl |= e.rtl;
		rows.emplace_back((e.rtl ? "rtl:" : "sim:") + e.name, e.description + "; SIMULATED time");
	}
	// The registry holds the RTL devices only in -DPIOC_RTL=ON builds; the
	// user of any build must learn they exist.
	if (!have_rtl)
		rows.emplace_back("rtl:pio, rtl:xdma, rtl:nic_pio, rtl:nic_dma", "the Verilated RTL of the PIO, XDMA, "
										  "PIO NIC and DMA NIC images: not in this build "
										  "(configure with -DPIOC_RTL=ON)");
	rows.emplace_back("SIM@PRESET", "a simulated device with another link timing: sim:pio@enzian-gen3x8 "
					"(default pc-gen3x16)");
	rows.emplace_back("0000:01:00.0, 01:00.0", "a PCI function on this machine (measured time): through the "
						   "pioc module when bound to it, sysfs resource files otherwise");
	rows.emplace_back("10ee:9038, 10ee:9038#1", "the first (second) PCI function with that vendor:device");
	rows.emplace_back("sysfs:BDF, kmod:BDF", "a PCI function through that transport (kmod: the pioc module's "
						 "device node)");
	rows.emplace_back("xilinx:/dev/xdma0[:CH]", "the stock Xilinx XDMA driver's char devices (pciebench dma "
						    "only, measured time)");
	std::string out = "devices (--device SPEC; 'pioc-info' lists this machine's, Documentation/devices.md):\n";
	constexpr std::size_t col = 26; // a longer spec starts its text on the next line
	for (const auto &[spec, what] : rows) {
		std::string text = wrap(what, help_width - col);
		for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', nl + 1))
			text.insert(nl + 1, std::string(col, ' '));
		if (spec.size() + 3 > col)
			out += fmt::format("  {}\n{:<{}}{}\n", spec, "", col, text);
		else
			out += fmt::format("  {:<{}}{}\n", spec, col - 2, text);
	}
	return out;
}

std::string pin_timing_thread(const device_info &dev, const bench_options &o)
{
	if (!o.no_pin)
		pin_for_timing(dev, o.cpu);
	return describe_current_cpu();
}

} // namespace pioc::tool
