/** @file
 * The old subcommand dispatch, kept only while ecibench uses it: pciebench
 * dispatches through tool::command (options.hpp, CLI11), and so will
 * ecibench, then this file goes. It dispatches "TOOL COMMAND [options]",
 * "TOOL --help", "TOOL help COMMAND". A command runs with argv[0] =
 * "TOOL COMMAND" and its own options after it.
 */
#pragma once

#include <cstdio>
#include <span>
#include <string_view>

namespace pioc::tool {

/** One subcommand: its name, what runs it, and one line of help. */
struct subcommand {
	std::string_view name;
	int (*run)(int argc, char **argv);
	std::string_view help;
};

/** Prints "  name        help" for each command (the tools' --help lists). */
void print_subcommands(std::FILE *to, std::span<const subcommand> commands);

/** Runs the command argv[1] names. No command: @p usage on stderr, exit 2;
 *  -h/--help/help: @p usage on stdout, exit 0 ("help COMMAND" runs COMMAND
 *  --help); an unknown one: a message naming it and the known ones, exit 2. */
int dispatch(std::string_view tool, std::span<const subcommand> commands, void (*usage)(std::FILE *to),
	     int argc, char **argv);

} // namespace pioc::tool
