// nicbench: latency (Table 1, Fig. 9/10) and throughput of the NIC paths.
//   nicbench rx|tx|throughput --path pio --size 64,1536,9600 [--device SPEC]
// rx and tx come from the same ping loop (one frame in flight); the mode
// picks which latency is reported. The JSON is the shape of pciebench and
// ecibench (lib/bench/report); simulated devices say SIMULATED.
#include "measure.hpp"
#include "paths.hpp"

#include <pioc/bench/report.hpp>
#include <pioc/bench/sim_speed.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char **argv)
{
	CLI::App app{"nicbench: NIC latency and throughput (issue 15, paper Sec. 6.3)"};
	std::string mode, path = "pio", spec, fmt = "table", rx_wait = "poll";
	std::vector<std::size_t> sizes{64, 1536, 9600};
	std::uint64_t iterations = 1000, warmup = 2;
	std::uint32_t ring = 64;
	std::uint64_t rx_timeout_ms = nicbench::irq_wait_limit_ns / 1'000'000;
	app.add_option("mode", mode, "rx | tx | throughput")->required()->check(CLI::IsMember({"rx", "tx", "throughput"}));
	std::string paths_help = "NIC path:";
	for (const auto &p : nicbench::paths)
		paths_help += " " + std::string(p.name) + " (" + std::string(p.what) + ", default device " +
			      std::string(p.default_device) + ")";
	app.add_option("--path", path, paths_help);
	app.add_option("--device", spec, "device spec (default: the simulated device of the path)");
	app.add_option("--size", sizes, "frame sizes in bytes, 60..9600")->delimiter(',');
	auto *iter_opt = app.add_option("--iterations,-n", iterations, "frames per size (default 1000, 20 on rtl:*)")
				 ->check(CLI::PositiveNumber);
	app.add_option("--warmup,-w", warmup,
		       "untimed frames per size before the timed ones, checked as the others (default 2: the first "
		       "frame with data-bank bytes on each of the ECI NIC's two banks takes the bank's lines back "
		       "once after a reset)");
	app.add_option("--ring", ring, "RX and TX ring size (power of two)");
	app.add_option("--rx-wait", rx_wait, "poll (spin on the ring) | irq (sleep until the RX interrupt; pio, dma)")
		->check(CLI::IsMember({"poll", "irq"}));
	app.add_option("--rx-timeout", rx_timeout_ms,
		       "with --rx-wait irq: ms to wait for each frame before the run fails (default 1000; the "
		       "device's clock: host time on hardware, simulated time on a model; raise it for a slow "
		       "guest)")
		->check(CLI::Range(std::uint64_t{1}, std::uint64_t{3'600'000}));
	app.add_option("--format", fmt, "table | json | csv")->check(CLI::IsMember({"table", "json", "csv"}));
	app.add_flag_callback("--json", [&] { fmt = "json"; }, "same as --format json");
	CLI11_PARSE(app, argc, argv);

	try {
		const auto &entry = nicbench::find_path(path);
		if (spec.empty()) {
			spec = std::string(entry.default_device);
			std::cerr << "nicbench: no --device given: using " << spec << " (simulated)\n";
		}
		// A Verilated device runs every cycle: a 9600-byte frame is ~0.1 M
		// cycles, so the default count would take many minutes.
		if (iter_opt->count() == 0 && spec.rfind("rtl:", 0) == 0) {
			iterations = 20;
			std::cerr << "nicbench: " << spec << " is Verilated RTL: " << iterations
				  << " frames per size by default (-n to change)\n";
		}
		for (auto s : sizes)
			pioc::nic::check_frame(s, "nicbench --size");
		auto dev = pioc::device::open(spec);
		pioc::bench::report rep;
		rep.tool = "nicbench " + mode;
		rep.device = spec;
		rep.transport = dev.info().transport;
		rep.memory_type = std::string(entry.memory_type);
		rep.cpu = "unpinned";
		rep.simulated = dev.simulated();
		rep.extra["path"] = path;
		rep.extra["rx_wait"] = rx_wait;
		const bool irq = rx_wait == "irq";
		// The simulator's speed over the whole run (PCIe models and their
		// RTL; the ECI NIC's model has no PCIe link to sample).
		const auto meter = pioc::bench::speed_meter::start(dev);
		nicbench::with_path(path, dev, {ring, ring}, irq, [&](auto &nic) {
			// What the mappings were granted, where the driver knows (the
			// PIO NIC through pioc.ko: x86 PAT decides per page).
			if constexpr (requires { nic.mem_types(); }) {
				rep.memory_type = nic.mem_types();
				std::cerr << "nicbench: " << spec << " mapped " << rep.memory_type << " (granted)\n";
			}
			nicbench::frame_source src;
			for (auto len : sizes) {
				// Each size's own speed too: the per-frame work differs
				// (a 9600-byte frame is mostly copies, a 64-byte one the
				// models' steps), so one figure over the run hides which.
				const auto row_meter = pioc::bench::speed_meter::start(dev);
				if (warmup != 0) // one at a time, as ping: every frame checked, nothing recorded
					irq ? nicbench::ping_irq(nic, len, warmup, src, rx_timeout_ms * 1'000'000) : nicbench::ping(nic, len, warmup, src);
				if (mode == "throughput") {
					const auto s = nicbench::stream(nic, len, iterations, src);
					pioc::bench::histogram h;
					h.record(s.ns / iterations);
					auto r = pioc::bench::result::from("throughput", len, h);
					r.iterations = iterations;
					// What came back: a dropped frame moved no data.
					r.mbps = double(len) * double(s.delivered) * 1e3 / double(s.ns);
					r.extra["frames_per_s"] = double(s.delivered) * 1e9 / double(s.ns);
					r.extra["lost_frames"] = double(s.lost);
					if (s.lost != 0)
						std::cerr << "nicbench: " << len << " B: the NIC dropped " << s.lost << " of "
							  << iterations << " frames (its receive side fell behind its "
							  "transmit side); the rate counts the " << s.delivered
							  << " that came back\n";
					if (row_meter)
						r.extra["simulation"] = row_meter->stop(dev).to_json();
					rep.results.push_back(r);
				} else {
					auto l = irq ? nicbench::ping_irq(nic, len, iterations, src, rx_timeout_ms * 1'000'000)
						     : nicbench::ping(nic, len, iterations, src);
					const auto &h = mode == "rx" ? l.rx : l.tx;
					auto r = pioc::bench::result::from(mode, len, h);
					r.extra["p95_ns"] = h.percentile(95);
					r.extra["p100_ns"] = h.max();
					if (row_meter)
						r.extra["simulation"] = row_meter->stop(dev).to_json();
					rep.results.push_back(r);
				}
			}
		});
		if (meter)
			rep.speed = meter->stop(dev);
		pioc::bench::write(rep,
				   fmt == "json" ? pioc::bench::format::json
				   : fmt == "csv" ? pioc::bench::format::csv
						  : pioc::bench::format::table,
				   std::cout);
	} catch (const pioc::error &e) {
		std::cerr << "nicbench: " << e.what() << "\n";
		return 1;
	}
	return 0;
}
