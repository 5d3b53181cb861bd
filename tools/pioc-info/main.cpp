// pioc-info: the devices pioc knows (simulated models and PCI functions),
// what a benchmark reports about them (link, MPS/MRRS, BARs, NUMA node,
// driver) and the cores near each; human-readable or --json.
#include "common/options.hpp"

#include <pioc/device.hpp>
#include <pioc/place.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <unistd.h>
#include <string>
#include <vector>

// Ordered: keys print in the order written, which reads better than sorted.
using json = nlohmann::ordered_json;

namespace {

const char *const prog = "pioc-info";

std::string hex4(unsigned v) { return fmt::format("{:04x}", v); }

// A device without a PCI function (sim:eci: the ECI window is memory, not a
// PCI function) has no IDs; 0000:0000 would read as a real but odd ID.
bool has_pci_id(const pioc::device_info &d) { return d.vendor != 0 || d.device != 0; }

json id_json(const pioc::device_info &d, unsigned v) { return has_pci_id(d) ? json(hex4(v)) : json(nullptr); }

std::string human_size(std::uint64_t b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	while (u < 4 && b >= 1024 && b % 1024 == 0)
		b /= 1024, ++u;
	return fmt::format("{} {}", b, units[u]);
}

const char *gts(unsigned gen)
{
	switch (gen) {
	case 1: return "2.5";
	case 2: return "5";
	case 3: return "8";
	case 4: return "16";
	case 5: return "32";
	case 6: return "64";
	default: return "?";
	}
}

// Without root, config space past 64 bytes (where the PCI Express
// capability lives) reads as absent, so "no link" and "cannot tell" differ.
std::string no_link_text()
{
	return ::geteuid() == 0 ? "none (no PCI Express capability)"
				: "unknown (run as root: the PCI Express capability is past the first 64 bytes of "
				  "config space)";
}

std::string link_text(const pioc::link_info &l, bool simulated)
{
	if (!l.gen)
		return no_link_text();
	std::string s = fmt::format("Gen{} x{} ({} GT/s)", l.gen, l.width, gts(l.gen));
	if (l.max_gen && (l.max_gen != l.gen || l.max_width != l.width))
		s += fmt::format(", capable Gen{} x{}", l.max_gen, l.max_width);
	return simulated ? s + ", simulated" : s;
}

std::string short_link(const pioc::link_info &l)
{
	return l.gen ? fmt::format("Gen{} x{}", l.gen, l.width) : "-";
}

std::string cores_text(const std::vector<pioc::cpu_core> &v)
{
	std::string s;
	for (const auto &c : v)
		s += (s.empty() ? "" : ",") + std::to_string(c.os_index);
	return s;
}

json opt_num(unsigned v) { return v ? json(v) : json(nullptr); }

json to_json(const pioc::device_info &d)
{
	json bars = json::array();
	for (const auto &b : d.bars)
		bars.push_back({{"index", b.index},
				{"size", b.size},
				{"phys", d.simulated ? json(nullptr) : json(fmt::format("0x{:x}", b.phys))},
				{"io", b.is_io},
				{"64bit", b.is_64bit},
				{"prefetchable", b.prefetchable}});
	const auto near = pioc::cores_near(d);
	json cores = json::array();
	for (const auto &c : near)
		cores.push_back(c.os_index);
	return {{"spec", d.spec},
		{"bdf", d.bdf.empty() ? json(nullptr) : json(d.bdf)},
		{"vendor", id_json(d, d.vendor)},
		{"device", id_json(d, d.device)},
		{"subsystem_vendor", id_json(d, d.subsys_vendor)},
		{"subsystem_device", id_json(d, d.subsys_device)},
		{"description", d.description},
		{"driver", d.driver.empty() ? json(nullptr) : json(d.driver)},
		{"transport", d.transport},
		{"simulated", d.simulated},
		{"numa_node", d.numa_node < 0 ? json(nullptr) : json(d.numa_node)},
		{"link",
		 {{"gen", opt_num(d.link.gen)},
		  {"width", opt_num(d.link.width)},
		  {"max_gen", opt_num(d.link.max_gen)},
		  {"max_width", opt_num(d.link.max_width)},
		  {"mps", opt_num(d.link.mps)},
		  {"mrrs", opt_num(d.link.mrrs)}}},
		{"bars", bars},
		{"local_cores", cores},
		{"timing_core", pioc::default_timing_core(d).os_index}};
}

json machine_json()
{
	json cores = json::array();
	for (const auto &c : pioc::all_cores())
		cores.push_back({{"cpu", c.os_index},
				 {"numa_node", c.numa_node < 0 ? json(nullptr) : json(c.numa_node)}});
	return cores;
}

void print_machine(std::ostream &os)
{
	// "cores 0,1 on NUMA node 0; cores 2,3 on NUMA node 1"
	std::vector<std::pair<int, std::string>> nodes;
	for (const auto &c : pioc::all_cores()) {
		auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto &n) { return n.first == c.numa_node; });
		if (it == nodes.end())
			nodes.emplace_back(c.numa_node, std::to_string(c.os_index));
		else
			it->second += "," + std::to_string(c.os_index);
	}
	std::string s;
	for (const auto &[node, list] : nodes)
		s += (s.empty() ? "" : "; ") +
		     fmt::format("cores {} on {}", list,
				 node < 0 ? std::string("an unknown NUMA node") : fmt::format("NUMA node {}", node));
	os << "this machine: " << s << "\n";
}

void print_list(const std::vector<pioc::device_info> &devs, bool all, std::ostream &os)
{
	const std::vector<std::string> head = {"SPEC", "TRANSPORT", "ID", "NUMA", "LINK", "DRIVER", "DESCRIPTION"};
	std::vector<std::vector<std::string>> rows;
	for (const auto &d : devs)
		rows.push_back({d.spec, d.transport, has_pci_id(d) ? hex4(d.vendor) + ":" + hex4(d.device) : "-",
				d.numa_node < 0 ? "-" : std::to_string(d.numa_node),
				d.simulated ? short_link(d.link) + " (sim)" : short_link(d.link),
				d.driver.empty() ? "-" : d.driver, d.description});
	std::vector<std::size_t> w(head.size());
	for (std::size_t i = 0; i < head.size(); ++i) {
		w[i] = head[i].size();
		for (const auto &r : rows)
			w[i] = std::max(w[i], r[i].size());
	}
	auto line = [&](const std::vector<std::string> &r) {
		std::string s;
		for (std::size_t i = 0; i < r.size(); ++i)
			s += i + 1 == r.size() ? r[i] : fmt::format("{:<{}}  ", r[i], w[i]);
		os << s << "\n";
	};
	const auto nsim = std::count_if(devs.begin(), devs.end(), [](const auto &d) { return d.simulated; });
	os << fmt::format("{} device{} ({} simulated, {} PCI{})\n\n", devs.size(), devs.size() == 1 ? "" : "s", nsim,
			  static_cast<long>(devs.size()) - nsim, all ? ": every function" : " known to pioc");
	line(head);
	for (const auto &r : rows)
		line(r);
	os << "\n";
	print_machine(os);
	if (!all)
		os << "(--all lists every PCI function; --device SPEC shows BARs, link and local cores)\n";
}

void print_device(const pioc::device_info &d, std::ostream &os)
{
	auto row = [&](std::string_view k, const std::string &v) { os << fmt::format("  {:<12} {}\n", k, v); };
	os << fmt::format("{}  {}\n", d.spec, d.description);
	row("transport", d.transport + (d.simulated ? " (simulated: every time is modelled)" : ""));
	if (!d.bdf.empty())
		row("address", d.bdf);
	row("ID", has_pci_id(d) ? fmt::format("{}:{}  subsystem {}:{}", hex4(d.vendor), hex4(d.device),
					      hex4(d.subsys_vendor), hex4(d.subsys_device))
				: std::string("none (not a PCI function)"));
	row("driver", d.driver.empty() ? std::string("none") : d.driver);
	row("link", link_text(d.link, d.simulated));
	row("MPS / MRRS", d.link.mps ? fmt::format("{} B / {} B", d.link.mps, d.link.mrrs) : "-");
	row("NUMA node", d.numa_node < 0 ? std::string("unknown (all cores count as local)") : std::to_string(d.numa_node));
	row("local cores", cores_text(pioc::cores_near(d)));
	row("timing core", fmt::format("{} (default for --cpu)", pioc::default_timing_core(d).os_index));
	if (d.bars.empty()) {
		row("BARs", "none");
		return;
	}
	os << "  BARs\n";
	for (const auto &b : d.bars) {
		std::string kind = b.is_io ? "I/O ports (not mappable)"
					   : fmt::format("memory, {}, {}", b.is_64bit ? "64-bit" : "32-bit",
							 b.prefetchable ? "prefetchable" : "non-prefetchable");
		std::string at = d.simulated || !b.phys ? "" : fmt::format("  at 0x{:x}", b.phys);
		os << fmt::format("    BAR{}  {:>9}  {}{}\n", b.index, human_size(b.size), kind, at);
	}
}

} // namespace

int main(int argc, char **argv)
{
	pioc::tool::tool t(prog, "List the devices pioc knows and what a benchmark reports about them.");
	CLI::App &cli = t.app();
	bool all = false, as_json = false;
	std::string spec;
	pioc::tool::add_flag(cli, "--all,-a", all, "list every PCI function, not only pioc's (Xilinx XDMA IDs, bound to pioc)");
	pioc::tool::add_text(cli, "--device,-d", spec,
			     "show one device in detail: BARs, link, MPS/MRRS, NUMA node, local cores (any spec below)",
			     "SPEC");
	pioc::tool::add_flag(cli, "--json", as_json, "print JSON instead of text (one object; see Documentation/devices.md)");
	pioc::tool::set_footer(cli, pioc::tool::device_kinds_help() +
		   "\n"
		   "Without --device, pioc-info lists the simulated devices and the PCI functions pioc can\n"
		   "drive. The link generation and width, MPS and MRRS come from the PCI Express capability\n"
		   "and need root (config space past 64 bytes); the NUMA node comes from sysfs, and the local\n"
		   "cores from hwloc: benchmarks pin their timing thread to the 'timing core' unless --cpu.\n"
		   "\n"
		   "Examples:\n"
		   "  pioc-info                      what can I benchmark here?\n"
		   "  sudo pioc-info -d 10ee:9038    the FPGA's link, BARs and local cores\n"
		   "  pioc-info --all --json | jq '.devices[] | .spec'\n"
		   "\n"
		   "Environment: PIOC_SYSFS_ROOT (default /sys), PIOC_DEV_DIR (default /dev/pioc),\n"
		   "PIOC_LOG_LEVEL (default warn).\n"
		   "Exit status: 0 ok, 1 error (e.g. no such device), 2 bad command line.");
	return t.main(argc, argv, [&] {
		if (all && !spec.empty())
			throw pioc::tool::usage_error("--all lists devices and --device shows one: give only one of them");

		if (!spec.empty()) {
			auto dev = pioc::tool::open_device(spec);
			if (as_json)
				std::cout << json({{"tool", prog}, {"device", to_json(dev.info())}, {"cores", machine_json()}})
						     .dump(2)
					  << "\n";
			else
				print_device(dev.info(), std::cout);
			return 0;
		}
		auto devs = pioc::list_devices(all);
		// Simulated devices get their link (timing preset) when opened.
		for (auto &d : devs)
			if (d.simulated)
				d = pioc::device::open(d.spec).info();
		if (as_json) {
			json arr = json::array();
			for (const auto &d : devs)
				arr.push_back(to_json(d));
			std::cout << json({{"tool", prog}, {"all", all}, {"devices", arr}, {"cores", machine_json()}}).dump(2)
				  << "\n";
		} else {
			print_list(devs, all, std::cout);
		}
		return 0;
	});
}
