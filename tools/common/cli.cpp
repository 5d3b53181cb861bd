// Shared command-line machinery of the pioc tools. See cli.hpp.
#include "common/cli.hpp"

#include <pioc/error.hpp>
#include <pioc/place.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iostream>
#include <unistd.h>

namespace pioc::tool {

// ---- cli --------------------------------------------------------------------

cli::cli(std::string prog, std::string summary) : prog_(std::move(prog)), summary_(std::move(summary)) {}

cli &cli::flag(std::string name, std::string help, bool &out, char short_name)
{
	return flag(std::move(name), std::move(help), [&out] { out = true; }, short_name);
}

cli &cli::flag(std::string name, std::string help, std::function<void()> on, char short_name)
{
	opt o;
	o.name = std::move(name);
	o.help = std::move(help);
	o.short_name = short_name;
	o.is_flag = true;
	o.on_flag = std::move(on);
	opts_.push_back(std::move(o));
	return *this;
}

cli &cli::option(std::string name, std::string metavar, std::string help,
		 std::function<void(std::string_view)> parse, char short_name, std::string default_text)
{
	opt o;
	o.name = std::move(name);
	o.metavar = std::move(metavar);
	o.help = std::move(help);
	o.default_text = std::move(default_text);
	o.short_name = short_name;
	o.parse = std::move(parse);
	opts_.push_back(std::move(o));
	return *this;
}

cli &cli::value(std::string name, std::string metavar, std::string help, std::string &out, char short_name)
{
	std::string def = out;
	return option(std::move(name), std::move(metavar), std::move(help),
		      [&out](std::string_view v) { out = std::string(v); }, short_name, def);
}

cli &cli::value(std::string name, std::string metavar, std::string help, std::uint64_t &out,
		std::uint64_t lo, std::uint64_t hi, char short_name)
{
	const std::string n = name;
	return option(std::move(name), std::move(metavar), std::move(help),
		      [&out, lo, hi, n](std::string_view v) {
			      const auto x = parse_count(v);
			      if (x < lo || x > hi)
				      throw usage_error(fmt::format("--{} {}: must be {}..{}", n, v, lo, hi));
			      out = x;
		      },
		      short_name, fmt::format("{}", out));
}

cli &cli::epilog(std::string text)
{
	epilog_ = std::move(text);
	return *this;
}

cli &cli::positional(std::string metavar, std::string help)
{
	allow_pos_ = true;
	pos_metavar_ = std::move(metavar);
	pos_help_ = std::move(help);
	return *this;
}

const cli::opt *cli::find(std::string_view name) const
{
	for (const auto &o : opts_)
		if (o.name == name)
			return &o;
	return nullptr;
}

const cli::opt *cli::find_short(char c) const
{
	for (const auto &o : opts_)
		if (o.short_name == c)
			return &o;
	return nullptr;
}

bool cli::given(std::string_view name) const
{
	return std::find(given_.begin(), given_.end(), name) != given_.end();
}

bool cli::parse(int argc, char **argv, int first)
{
	for (int i = first; i < argc; ++i) {
		std::string_view a = argv[i];
		if (a == "-h" || a == "--help") {
			print_help(std::cout);
			return false;
		}
		if (a == "--") {
			for (++i; i < argc; ++i)
				positionals_.emplace_back(argv[i]);
			break;
		}
		const opt *o = nullptr;
		std::optional<std::string_view> inline_value;
		std::string shown;
		if (a.size() > 2 && a.substr(0, 2) == "--") {
			std::string_view name = a.substr(2);
			if (auto eq = name.find('='); eq != std::string_view::npos) {
				inline_value = name.substr(eq + 1);
				name = name.substr(0, eq);
			}
			o = find(name);
			shown = fmt::format("--{}", name);
			if (!o) {
				// Suggest the options that share a prefix with the typo.
				std::string near;
				for (const auto &c : opts_)
					if (c.name.substr(0, 3) == name.substr(0, 3))
						near += (near.empty() ? "" : ", ") + ("--" + c.name);
				throw usage_error(fmt::format("unknown option {}{}", shown,
							      near.empty() ? "" : " (did you mean " + near + "?)"));
			}
		} else if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && !std::isdigit(static_cast<unsigned char>(a[1]))) {
			o = find_short(a[1]);
			shown = fmt::format("-{}", a[1]);
			if (!o)
				throw usage_error(fmt::format("unknown option {}", shown));
			if (a.size() > 2)
				inline_value = a.substr(2);
		} else {
			if (!allow_pos_)
				throw usage_error(fmt::format("unexpected argument '{}'", a));
			positionals_.emplace_back(a);
			continue;
		}
		given_.push_back(o->name);
		if (o->is_flag) {
			if (inline_value)
				throw usage_error(fmt::format("{} takes no value", shown));
			o->on_flag();
			continue;
		}
		std::string_view v;
		if (inline_value) {
			v = *inline_value;
		} else {
			if (i + 1 >= argc)
				throw usage_error(fmt::format("{} needs a value ({})", shown, o->metavar));
			v = argv[++i];
		}
		try {
			o->parse(v);
		} catch (const usage_error &e) {
			const std::string m = e.what();
			throw usage_error(m.rfind("--", 0) == 0 ? m : fmt::format("{}: {}", shown, m));
		} catch (const pioc::error &e) {
			throw usage_error(fmt::format("{}: {}", shown, e.what()));
		}
	}
	return true;
}

void cli::print_help(std::ostream &os) const
{
	os << fmt::format("usage: {} [options]{}\n\n{}\n\noptions:\n", prog_,
			  allow_pos_ ? " " + pos_metavar_ : std::string(), summary_);
	std::vector<std::pair<std::string, std::string>> rows;
	for (const auto &o : opts_) {
		std::string left = o.short_name ? fmt::format("-{}, --{}", o.short_name, o.name)
						: fmt::format("    --{}", o.name);
		if (!o.is_flag)
			left += " " + o.metavar;
		std::string right = o.help;
		if (!o.default_text.empty())
			right += fmt::format(" [default: {}]", o.default_text);
		rows.emplace_back(std::move(left), std::move(right));
	}
	rows.emplace_back("-h, --help", "show this help and exit");
	if (allow_pos_)
		rows.emplace_back(pos_metavar_, pos_help_);
	std::size_t w = 0;
	for (const auto &r : rows)
		w = std::max(w, r.first.size());
	for (const auto &r : rows)
		os << fmt::format("  {:<{}}  {}\n", r.first, w, r.second);
	if (!epilog_.empty())
		os << '\n' << epilog_ << (epilog_.back() == '\n' ? "" : "\n");
}

// ---- common options ---------------------------------------------------------

void add_bench_options(cli &c, bench_options &o, unsigned which, std::string_view mem_help)
{
	if (which & opt_device)
		c.value("device", "SPEC",
			"device to use: sim:pio (simulated, PC timing), sim:pio@enzian-gen3x8, sim:xdma, rtl:pio or "
			"rtl:xdma (Verilated RTL, -DPIOC_RTL=ON builds), a PCI address (0000:01:00.0) or "
			"vendor:device (10ee:9038)",
			o.device, 'd');
	if (which & opt_mem_type)
		c.option("mem-type", "TYPE", std::string(mem_help), [&o](std::string_view v) { o.mem = parse_mem(v); },
			 'm');
	if (which & opt_format) {
		c.flag("json", "print one JSON object instead of the table (shape: Documentation/benchmarking.md)",
		       [&o] { o.format = bench::format::json; });
		c.flag("csv", "print CSV (a header line, then one line per result)",
		       [&o] { o.format = bench::format::csv; });
		c.flag("table", "print the human-readable table (the default)", [&o] { o.format = bench::format::table; });
	}
	if (which & opt_cpu) {
		c.option("cpu", "N", "pin the timing thread to OS CPU N [default: a core near the device, not core 0]",
			 [&o](std::string_view v) { o.cpu = static_cast<unsigned>(parse_count(v)); }, 'c');
		c.flag("no-pin", "do not pin the timing thread (the report then says \"not pinned\")", o.no_pin);
	}
	if (which & opt_iterations) {
		c.value("iterations", "N", "timed iterations per operation and size", o.iterations, 1,
			100'000'000, 'n');
		c.value("warmup", "N", "untimed iterations before each timed run", o.warmup, 0, 100'000'000, 'w');
	}
	if (which & opt_quiet)
		c.flag("quiet", "no progress on stderr (shown after 2 s: a redrawn line on a terminal, a line every 10 s otherwise)", o.quiet, 'q');
}

} // namespace pioc::tool
