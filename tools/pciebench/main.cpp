// pciebench: PCIe benchmarks (pcie-bench methodology) on real or simulated devices.
// Subcommands come from commands.hpp: {name, function, one-line help}.
#include "commands.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

struct subcommand {
	std::string_view name;
	int (*run)(int argc, char **argv);
	std::string_view help;
};

constexpr subcommand commands[] = {
#define PCIEBENCH_ENTRY(name, help) {#name, pciebench_##name, help},
	PCIEBENCH_COMMANDS(PCIEBENCH_ENTRY)
#undef PCIEBENCH_ENTRY
};

void usage(std::FILE *to)
{
	fmt::print(to,
		   "usage: pciebench COMMAND [options]\n"
		   "\n"
		   "PCIe benchmarks between the CPU and an FPGA. Without --device they run on the\n"
		   "built-in simulated device (sim:pio) and say so: simulated times are modelled\n"
		   "by the link and device model, never measured.\n"
		   "\n"
		   "commands:\n");
	for (const auto &c : commands)
		fmt::print(to, "  {:<12}{}\n", c.name, c.help);
	fmt::print(to,
		   "\n"
		   "devices (--device SPEC):\n"
		   "  sim:pio, sim:xdma, sim:xdma_pio   models in this process (SIMULATED time);\n"
		   "                                    @enzian-gen3x8 picks Enzian link timing\n"
		   "  rtl:pio, rtl:xdma                 the Verilated RTL of the images (SIMULATED time;\n"
		   "                                    builds configured with -DPIOC_RTL=ON)\n"
		   "  0000:01:00.0, 10ee:9038           a PCI function on this machine (measured)\n"
		   "  pioc-info lists them; Documentation/devices.md explains specs.\n"
		   "\n"
		   "'pciebench COMMAND --help' explains a command's options. Every command prints\n"
		   "a table by default, --json or --csv for scripts (Documentation/benchmarking.md).\n"
		   "\n"
		   "examples:\n"
		   "  pciebench pio                               # all PIO ops, 8 B..8 KiB, simulated PC\n"
		   "  pciebench pio --device sim:pio@enzian-gen3x8 --mem-type uc --ops write_read\n"
		   "  pciebench pio --device 0000:01:00.0 --cpu 2 --json > pio.json\n");
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const std::string_view cmd = argv[1];
	if (cmd == "-h" || cmd == "--help" || cmd == "help") {
		if (cmd == "help" && argc > 2) {
			for (const auto &c : commands)
				if (c.name == argv[2]) {
					char help[] = "--help";
					std::string prog = fmt::format("pciebench {}", c.name);
					char *args[] = {prog.data(), help, nullptr};
					return c.run(2, args);
				}
		}
		usage(stdout);
		return 0;
	}
	for (const auto &c : commands)
		if (c.name == cmd) {
			std::string prog = fmt::format("pciebench {}", c.name);
			argv[1] = prog.data();
			return c.run(argc - 1, argv + 1);
		}
	std::string known;
	for (const auto &c : commands)
		known += (known.empty() ? "" : ", ") + std::string(c.name);
	fmt::print(stderr, "pciebench: unknown command '{}' (known: {}; see 'pciebench --help')\n", cmd, known);
	return 2;
}
