// pciebench: PCIe benchmarks (pcie-bench methodology) on real or simulated devices.
// Subcommands come from commands.hpp: {name, function, one-line help}.
#include "commands.hpp"
#include "common/subcommands.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

using pioc::tool::subcommand;

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
	pioc::tool::print_subcommands(to, commands);
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
	return pioc::tool::dispatch("pciebench", commands, usage, argc, argv);
}
