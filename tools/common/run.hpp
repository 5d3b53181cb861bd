/** @file
 * How every pioc tool ends: exit codes, the usage_error a bad command line
 * throws, run() turning exceptions into "<prog>: ..." on stderr and an exit
 * code, emit() writing a report to stdout.
 */
#pragma once

#include <pioc/bench/report.hpp>

#include <functional>
#include <stdexcept>
#include <string_view>

namespace pioc::tool {

/** Bad command line: printed with a pointer to --help, exit code 2. */
class usage_error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

/** Exit codes shared by all tools. */
enum exit_code : int { exit_ok = 0, exit_failure = 1, exit_usage = 2 };

/** Runs @p body; prints usage_error as "<prog>: <message>" with a pointer to
 *  '<prog> --help' (exit 2), pioc::error as "<prog>: error (<code>): ..." and
 *  other exceptions as "<prog>: error: ..." (exit 1). */
int run(std::string_view prog, const std::function<int()> &body);

/** Writes a report to stdout in the chosen format. */
void emit(const bench::report &r, bench::format f);

} // namespace pioc::tool
