// The subcommands of pciebench: one line each. To add one, add a line
// X(name, "one-line help") here and define
//   pioc::tool::tool::body pciebench_<name>(CLI::App &cmd);
// in tools/pciebench/<name>.cpp: it adds the command's options to cmd and
// returns what runs after a good parse (common/options.hpp). main.cpp adds
// every command of this list.
#pragma once

#include "common/options.hpp"

#define PCIEBENCH_COMMANDS(X)                                                                    \
	X(pio, "PIO latency (write, read, write-then-read invocation) and PIO stream throughput") \
	X(dma, "pcie-bench DMA suite on XDMA: LAT_RD, LAT_WRRD, BW_RD, BW_WR, BW_RDWR") \
	X(model, "PCIe bandwidth model: effective write/read/read+write Gb/s per size") \
	X(crossover, "PIO vs DMA latency: offset+slope fits and the size where DMA wins") \
	X(offload, "Bloom-filter offload (paper Fig. 12): CPU vs PIO vs DMA vs ECI, hashes checked")

#define PCIEBENCH_DECLARE(name, help) pioc::tool::tool::body pciebench_##name(CLI::App &cmd);
PCIEBENCH_COMMANDS(PCIEBENCH_DECLARE)
#undef PCIEBENCH_DECLARE
