#include "common/progress.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace pioc::tool {
namespace {

// A terminal line is cheap to redraw; a log gets one line per interval.
constexpr double tty_redraw_s = 0.25;
constexpr double log_interval_s = 10.0;

double seconds_from_env(const char *name, double fallback)
{
	const char *v = std::getenv(name);
	if (!v || !*v)
		return fallback;
	char *end = nullptr;
	const double x = std::strtod(v, &end);
	return (end && *end == '\0' && x >= 0) ? x : fallback;
}

} // namespace

progress::progress(std::string prog, std::uint64_t total, bool quiet, std::string unit)
	: prog_(std::move(prog)), unit_(std::move(unit)), total_(total), on_(!quiet),
	  tty_(::isatty(STDERR_FILENO) != 0), start_(clock::now()), last_(start_)
{
	delay_s_ = seconds_from_env("PIOC_PROGRESS_DELAY", 2.0);
	interval_s_ = tty_ ? tty_redraw_s : seconds_from_env("PIOC_PROGRESS_INTERVAL", log_interval_s);
}

progress::~progress() { finish(); }

std::string progress::line(std::uint64_t done, std::string_view what, double elapsed_s) const
{
	std::string s = fmt::format("{} {}: {}/{} {}", prog_, what, done, total_, unit_);
	if (total_ == 0)
		return s;
	s += fmt::format(", {}%", done * 100 / total_);
	// The estimate assumes the rest goes at the rate so far; none before the first unit.
	if (done > 0 && done < total_)
		s += fmt::format(", ~{:.0f} s left", elapsed_s / double(done) * double(total_ - done));
	return s;
}

void progress::update(std::uint64_t done, std::string_view what)
{
	if (!on_)
		return;
	const auto now = clock::now();
	const double elapsed = std::chrono::duration<double>(now - start_).count();
	if (elapsed < delay_s_)
		return;
	if (dirty_ && std::chrono::duration<double>(now - last_).count() < interval_s_)
		return;
	last_ = now;
	dirty_ = true;
	if (tty_)
		std::cerr << "\r\033[K" << line(done, what, elapsed) << std::flush;
	else
		std::cerr << line(done, what, elapsed) << '\n' << std::flush;
}

void progress::finish()
{
	if (on_ && tty_ && dirty_)
		std::cerr << "\r\033[K" << std::flush;
	dirty_ = false;
}

} // namespace pioc::tool
