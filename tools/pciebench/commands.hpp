// The subcommands of pciebench: one line each. To add one, add a line
// X(name, "one-line help") here and define
//   int pciebench_<name>(int argc, char **argv);   // argv[0] = "pciebench <name>"
// in tools/pciebench/<name>.cpp. main.cpp builds its table and --help from this list.
#pragma once

#define PCIEBENCH_COMMANDS(X)                                                                    \
	X(pio, "PIO latency (write, read, write-then-read invocation) and PIO stream throughput") \
	X(dma, "pcie-bench DMA suite on XDMA: LAT_RD, LAT_WRRD, BW_RD, BW_WR, BW_RDWR") \
	X(model, "PCIe bandwidth model: effective write/read/read+write Gb/s per size") \
	X(crossover, "PIO vs DMA latency: offset+slope fits and the size where DMA wins") \
	X(offload, "Bloom-filter offload (paper Fig. 12): CPU vs PIO vs DMA vs ECI, hashes checked")

#define PCIEBENCH_DECLARE(name, help) int pciebench_##name(int argc, char **argv);
PCIEBENCH_COMMANDS(PCIEBENCH_DECLARE)
#undef PCIEBENCH_DECLARE
