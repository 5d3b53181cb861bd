// Subcommand dispatch, written once for every tool that has subcommands.
#include "common/subcommands.hpp"

#include "common/run.hpp"

#include <fmt/format.h>

#include <string>

namespace pioc::tool {

void print_subcommands(std::FILE *to, std::span<const subcommand> commands)
{
	for (const auto &c : commands)
		fmt::print(to, "  {:<12}{}\n", c.name, c.help);
}

namespace {

const subcommand *find(std::span<const subcommand> commands, std::string_view name)
{
	for (const auto &c : commands)
		if (c.name == name)
			return &c;
	return nullptr;
}

// Runs @p c with argv[0] = "TOOL COMMAND"; @p args are the words after it.
int run_command(std::string_view tool, const subcommand &c, int argc, char **argv)
{
	std::string prog = fmt::format("{} {}", tool, c.name);
	argv[0] = prog.data();
	return c.run(argc, argv);
}

} // namespace

int dispatch(std::string_view tool, std::span<const subcommand> commands, void (*usage)(std::FILE *to),
	     int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return exit_usage;
	}
	const std::string_view cmd = argv[1];
	if (cmd == "-h" || cmd == "--help" || cmd == "help") {
		if (cmd == "help" && argc > 2)
			if (const auto *c = find(commands, argv[2])) {
				char help[] = "--help";
				char *args[] = {nullptr, help, nullptr};
				return run_command(tool, *c, 2, args);
			}
		usage(stdout);
		return exit_ok;
	}
	if (const auto *c = find(commands, cmd))
		return run_command(tool, *c, argc - 1, argv + 1);
	std::string known;
	for (const auto &c : commands)
		known += (known.empty() ? "" : ", ") + std::string(c.name);
	fmt::print(stderr, "{}: unknown command '{}' (known: {}; see '{} --help')\n", tool, cmd, known, tool);
	return exit_usage;
}

} // namespace pioc::tool
