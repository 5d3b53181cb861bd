// pciebench model: the pcie-bench PCIe bandwidth model (pcie-model.md).
// Scripts depend on the --json shape: {raw_gbps, tlp_gbps, rows: [{size,
// write_gbps, read_gbps, rdwr_rx_gbps, rdwr_tx_gbps}]}, Gb/s, unrounded.
#include "commands.hpp"
#include "common/options.hpp"

#include <pioc/device.hpp>
#include <pioc/pcie_model.hpp>
#include <pioc/xdma/xdma.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace pioc::tool {
namespace {

struct model_opts {
	pcie_model::params p;
	std::uint64_t gen = p.gen, lanes = p.lanes, mps = p.mps, mrrs = p.mrrs, rcb = p.rcb, addr = p.addr_bits;
	std::vector<std::uint64_t> sizes;
	std::string device;
	bool json = false;
};

void add_model_options(CLI::App &c, model_opts &o)
{
	add_count(c, "--gen", o.gen, 1, 7, "PCIe generation 1..7 (6, 7: rough guess with gen5 tables)");
	add_count(c, "--lanes", o.lanes, 1, 32, "lanes: 1, 2, 4, 8, 16, 32");
	add_count(c, "--mps", o.mps, 128, 4096, "max payload size in bytes, 128..4096", "BYTES");
	add_count(c, "--mrrs", o.mrrs, 128, 4096, "max read request size in bytes, 128..4096", "BYTES");
	add_count(c, "--rcb", o.rcb, 64, 128, "read completion boundary in bytes: 64 or 128", "BYTES");
	add_flag(c, "--rcb-chunks", o.p.rcb_chunks, "completions cut at the RCB instead of MPS");
	add_count(c, "--addr", o.addr, 32, 64, "address width of MWr/MRd headers in bits: 32 or 64", "BITS");
	add_flag(c, "--ecrc", o.p.ecrc, "a 4-byte ECRC digest on every TLP");
	add_sizes(c, "--sizes,-s", o.sizes, "64,128,256,512,1024,1500,2048,4096", "transfer sizes in bytes");
	add_text(c, "--device,-d", o.device,
		 "take generation, lanes (from the OS) and MPS/MRRS (from the XDMA config block) from a device "
		 "(any spec; sim:* report their modelled link); explicit options win [default: none, the options]",
		 "SPEC");
	add_flag(c, "--json", o.json,
		   "one JSON object: raw_gbps, tlp_gbps, rows [{size, write_gbps, read_gbps, rdwr_rx_gbps, "
		   "rdwr_tx_gbps}]");
	set_footer(c, "worked example (pcie-model.md): pciebench model --gen 3 --lanes 8 --mps 256 --mrrs 512 --rcb 64 "
		 "--sizes 64,256,1500\n"
		 "  -> raw 63.02, TLP 57.88; 64 B: write 42.10, read 44.10, read+write 33.08 Gb/s");
}

int run_model(model_opts &o, const CLI::App &c)
{
	auto given = [&c](const char *name) { return pioc::tool::given(c, name); };
	pcie_model::params &p = o.p;
	std::uint64_t gen = o.gen, lanes = o.lanes, mps = o.mps, mrrs = o.mrrs;
	std::string source = "command line";
	if (!o.device.empty()) {
		pioc::device dev = open_device(o.device);
		const auto &l = dev.info().link;
		if (!given("--gen") && l.gen)
			gen = l.gen;
		if (!given("--lanes") && l.width)
			lanes = l.width;
		unsigned dm = l.mps, dr = l.mrrs;
		try {
			xdma::dma x(dev);
			dm = x.mps(), dr = x.mrrs();
			source = dev.spec() + " (XDMA config block)";
		} catch (const error &) {
			source = dev.spec() + " (OS link info)";
		}
		if (!given("--mps") && dm)
			mps = dm;
		if (!given("--mrrs") && dr)
			mrrs = dr;
	}
	p.gen = unsigned(gen), p.lanes = unsigned(lanes), p.mps = unsigned(mps), p.mrrs = unsigned(mrrs);
	p.rcb = unsigned(o.rcb), p.addr_bits = unsigned(o.addr);
	const std::vector<std::uint64_t> &sz = o.sizes;
	pcie_model::model m(p);
	const auto rows = m.evaluate(sz);
	if (o.json) {
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

pioc::tool::tool::body pciebench_model(CLI::App &cmd)
{
	auto o = std::make_shared<pioc::tool::model_opts>();
	pioc::tool::add_model_options(cmd, *o);
	return [o, &cmd] { return pioc::tool::run_model(*o, cmd); };
}
