// pciebench: PCIe benchmarks (pcie-bench methodology) on real or simulated devices.
// Subcommands come from commands.hpp: {name, setup, one-line help}.
#include "commands.hpp"

int main(int argc, char **argv)
{
	pioc::tool::tool t("pciebench",
			   "PCIe benchmarks between the CPU and an FPGA. Without --device they run on a built-in\n"
			   "simulated device (each command says which) and say so: simulated times are modelled by\n"
			   "the link and device model, never measured.");
	pioc::tool::set_footer(t.app(), pioc::tool::device_kinds_help() +
		       "\n"
		       "'pciebench COMMAND --help' explains a command's options. Every command prints\n"
		       "a table by default, --json or --csv for scripts (Documentation/benchmarking.md).\n"
		       "\n"
		       "examples:\n"
		       "  pciebench pio                               # all PIO ops, 8 B..8 KiB, simulated PC\n"
		       "  pciebench pio --device sim:pio@enzian-gen3x8 --mem-type uc --ops write_read\n"
		       "  pciebench pio --device 0000:01:00.0 --cpu 2 --json > pio.json");
#define PCIEBENCH_ADD(name, help) t.command(#name, help, pciebench_##name);
	PCIEBENCH_COMMANDS(PCIEBENCH_ADD)
#undef PCIEBENCH_ADD
	return t.main(argc, argv);
}
