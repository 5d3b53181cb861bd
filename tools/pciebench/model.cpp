// pciebench model: the pcie-bench PCIe bandwidth model (pcie-model.md).
// Scripts depend on the --json shape: {raw_gbps, tlp_gbps, rows: [{size,
// write_gbps, read_gbps, rdwr_rx_gbps, rdwr_tx_gbps}]}, Gb/s, unrounded.
#include "common/cli.hpp"

#include <pioc/device.hpp>
#include <pioc/pcie_model.hpp>
#include <pioc/xdma/xdma.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace pioc::tool {
namespace {

int run_model(int argc, char **argv)
{
	pcie_model::params p;
	std::uint64_t gen = p.gen, lanes = p.lanes, mps = p.mps, mrrs = p.mrrs, rcb = p.rcb, addr = p.addr_bits;
	std::string sizes = "64,128,256,512,1024,1500,2048,4096", device;
	bool json = false;
	cli c(argv[0], "The PCIe bandwidth model of pcie-bench: effective write, read and read+write bandwidth per "
		       "transfer size (Gb/s = 10^9 bit/s).");
	c.value("gen", "N", "PCIe generation 1..7 (6, 7: rough guess with gen5 tables)", gen, 1, 7);
	c.value("lanes", "N", "lanes: 1, 2, 4, 8, 16, 32", lanes, 1, 32);
	c.value("mps", "BYTES", "max payload size 128..4096", mps, 128, 4096);
	c.value("mrrs", "BYTES", "max read request size 128..4096", mrrs, 128, 4096);
	c.value("rcb", "BYTES", "read completion boundary: 64 or 128", rcb, 64, 128);
	c.flag("rcb-chunks", "completions cut at the RCB instead of MPS", p.rcb_chunks);
	c.value("addr", "BITS", "address width of MWr/MRd headers: 32 or 64", addr, 32, 64);
	c.flag("ecrc", "a 4-byte ECRC digest on every TLP", p.ecrc);
	c.value("sizes", "LIST", "transfer sizes in bytes: 64,256,1500 or 64..4K (powers of two)", sizes, 's');
	c.value("device", "SPEC",
		"take generation, lanes (from the OS) and MPS/MRRS (from the XDMA config block) from a device; "
		"explicit options win",
		device, 'd');
	c.flag("json", "one JSON object: raw_gbps, tlp_gbps, rows [{size, write_gbps, read_gbps, rdwr_rx_gbps, "
		       "rdwr_tx_gbps}]",
	       json);
	c.epilog("worked example (pcie-model.md): pciebench model --gen 3 --lanes 8 --mps 256 --mrrs 512 --rcb 64 "
		 "--sizes 64,256,1500\n"
		 "  -> raw 63.02, TLP 57.88; 64 B: write 42.10, read 44.10, read+write 33.08 Gb/s");
	if (!c.parse(argc, argv))
		return exit_ok;
	std::string source = "command line";
	if (!device.empty()) {
		pioc::device dev = pioc::device::open(device);
		const auto &l = dev.info().link;
		if (!c.given("gen") && l.gen)
			gen = l.gen;
		if (!c.given("lanes") && l.width)
			lanes = l.width;
		unsigned dm = l.mps, dr = l.mrrs;
		try {
			xdma::dma x(dev);
			dm = x.mps(), dr = x.mrrs();
			source = dev.spec() + " (XDMA config block)";
		} catch (const error &) {
			source = dev.spec() + " (OS link info)";
		}
		if (!c.given("mps") && dm)
			mps = dm;
		if (!c.given("mrrs") && dr)
			mrrs = dr;
	}
	p.gen = unsigned(gen), p.lanes = unsigned(lanes), p.mps = unsigned(mps), p.mrrs = unsigned(mrrs);
	p.rcb = unsigned(rcb), p.addr_bits = unsigned(addr);
	std::vector<std::uint64_t> sz;
	try {
		sz = parse_size_list(sizes);
	} catch (const std::exception &e) {
		throw usage_error(fmt::format("--sizes: {}", e.what()));
	}
	pcie_model::model m(p);
	const auto rows = m.evaluate(sz);
	if (json) {
		nlohmann::json j;
		j["raw_gbps"] = m.raw_gbps();
		j["tlp_gbps"] = m.tlp_gbps();
		j["rows"] = nlohmann::json::array();
		for (const auto &r : rows)
			j["rows"].push_back({{"size", r.size},
					     {"write_gbps", r.write_gbps},
					     {"read_gbps", r.read_gbps},
					     {"rdwr_rx_gbps", r.rdwr_rx_gbps},
					     {"rdwr_tx_gbps", r.rdwr_tx_gbps}});
		std::cout << j.dump() << "\n";
		return exit_ok;
	}
	fmt::print("PCIe bandwidth model (pcie-bench): gen{} x{}, MPS {}, MRRS {}, RCB {}{}, {}-bit addresses{}\n",
		   p.gen, p.lanes, p.mps, p.mrrs, p.rcb, p.rcb_chunks ? " (completions cut at RCB)" : "", p.addr_bits,
		   p.ecrc ? ", ECRC" : "");
	fmt::print("parameters from: {}\n", source);
	fmt::print("raw {:.2f} Gb/s; TLP layer {:.2f} Gb/s (ACK every {} and FC update every {} symbols, SKP)\n",
		   m.raw_gbps(), m.tlp_gbps(), m.ack_limit(), m.fc_update());
	fmt::print("TLP overhead: MWr/MRd {} B, CplD {} B\n\n", m.mwr_overhead(), m.cpl_overhead());
	fmt::print("{:>10} {:>12} {:>12} {:>14} {:>14}\n", "size (B)", "write Gb/s", "read Gb/s", "rdwr rx Gb/s",
		   "rdwr tx Gb/s");
	for (const auto &r : rows)
		fmt::print("{:>10} {:>12.2f} {:>12.2f} {:>14.2f} {:>14.2f}\n", r.size, r.write_gbps, r.read_gbps,
			   r.rdwr_rx_gbps, r.rdwr_tx_gbps);
	return exit_ok;
}

} // namespace
} // namespace pioc::tool

int pciebench_model(int argc, char **argv)
{
	return pioc::tool::run(argv[0], [&] { return pioc::tool::run_model(argc, argv); });
}
