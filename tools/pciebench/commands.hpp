// The subcommands of pciebench: one line each. To add one, add a line
// X(name, "one-line help") here and define
//   int pciebench_<name>(int argc, char **argv);   // argv[0] = "pciebench <name>"
// in tools/pciebench/<name>.cpp. main.cpp builds its table and --help from this list.
#pragma once

#define PCIEBENCH_COMMANDS(X)                                                                    \
	X(pio, "PIO latency (write, read, write-then-read invocation) and PIO stream throughput")

#define PCIEBENCH_DECLARE(name, help) int pciebench_##name(int argc, char **argv);
PCIEBENCH_COMMANDS(PCIEBENCH_DECLARE)
#undef PCIEBENCH_DECLARE
