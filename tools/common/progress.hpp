/* Progress of a long benchmark run on stderr (issue 13).
 *
 * The tools call update() between measurement batches (once per size or
 * operation), never inside a timed loop. Nothing is printed during the first
 * couple of seconds, so short runs stay silent. After that, on a terminal the
 * reporter redraws one line; otherwise (stderr to a file or a CI log) it
 * prints a whole line at most every interval. --quiet silences it; stdout
 * (where --json/--csv go) is never written.
 *
 * PIOC_PROGRESS_DELAY and PIOC_PROGRESS_INTERVAL (seconds, e.g. 0 and 0.001)
 * override the first-report delay and the non-terminal interval: the tests
 * use them to see progress on a short run.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace pioc::tool {

class progress {
public:
	/** @p total units of work (e.g. iterations over all sizes), counted in @p unit. */
	progress(std::string prog, std::uint64_t total, bool quiet, std::string unit = "iterations");
	~progress();
	progress(const progress &) = delete;
	progress &operator=(const progress &) = delete;

	/** @p done units finished so far; @p what is running now ("write_read 64 B"). */
	void update(std::uint64_t done, std::string_view what);
	/** Clears the terminal line (if one was drawn). */
	void finish();
	bool enabled() const noexcept { return on_; }

	/** The line as printed: "<prog> <what>: done/total unit, P%, ~S s left". */
	std::string line(std::uint64_t done, std::string_view what, double elapsed_s) const;

private:
	using clock = std::chrono::steady_clock;
	std::string prog_, unit_;
	std::uint64_t total_;
	bool on_, tty_, dirty_ = false;
	clock::time_point start_, last_;
	double delay_s_ = 2.0, interval_s_;
};

} // namespace pioc::tool
