/** @file
 * How fast a simulated device ran: simulated time against wall-clock time,
 * and for the Verilated RTL the clock cycles per wall second (issue 13).
 * Measured around a benchmark's whole run, never inside a timed loop.
 *
 * JSON (report field "simulation", Documentation/benchmarking.md):
 * @code
 * "simulation": { "wall_s": 1.9, "cpu_s": 1.8, "simulated_ns": 4.1e6, "sim_ns_per_wall_ns": 0.0021,
 *                 "sim_ns_per_cpu_ns": 0.0023,
 *                 "cycles": 1025000, "evaluated_cycles": 310000, "cycles_per_s": 5.4e5,
 *                 "cycles_per_cpu_s": 5.7e5, "clock_mhz": 250 }
 * @endcode
 * The cycle fields are present for the Verilated images only. cpu_s is the
 * process's CPU time: on a shared machine wall time also counts other jobs.
 */
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>

namespace pioc {
class device;
}

namespace pioc::bench {

/** Simulated time and RTL cycles at one moment. */
struct sim_sample {
	double sim_ns = 0;                  ///< the simulator's clock
	std::uint64_t cycles = 0;           ///< RTL clock cycles simulated (0: not RTL)
	std::uint64_t evaluated_cycles = 0; ///< of those, evaluated one by one (the rest skipped as idle)
	double clock_mhz = 0;               ///< RTL clock (0: not RTL)
};

/** The speed of one run. */
struct sim_speed {
	double wall_s = 0;
	double cpu_s = 0;    ///< process CPU time over the run
	sim_sample passed;   ///< differences over the run (clock_mhz as sampled)

	double sim_ns_per_wall_ns() const { return wall_s > 0 ? passed.sim_ns / (wall_s * 1e9) : 0; }
	double sim_ns_per_cpu_ns() const { return cpu_s > 0 ? passed.sim_ns / (cpu_s * 1e9) : 0; }
	double cycles_per_s() const { return wall_s > 0 ? double(passed.cycles) / wall_s : 0; }
	double cycles_per_cpu_s() const { return cpu_s > 0 ? double(passed.cycles) / cpu_s : 0; }
	nlohmann::json to_json() const;
};

/** Wall clock and simulator samples at the start and the end of a run. */
class speed_meter {
public:
	/** From a sample the caller took (e.g. ecibench's ECI system and engine). */
	explicit speed_meter(const sim_sample &start);
	sim_speed stop(const sim_sample &end) const;

	/** A device opened with pioc::device::open(): its link clock and, for
	 *  rtl:pio / rtl:xdma, the image's cycles. Nothing for hardware. */
	static std::optional<speed_meter> start(device &dev);
	sim_speed stop(device &dev) const;

private:
	using clock = std::chrono::steady_clock;
	sim_sample start_;
	clock::time_point t0_;
	double cpu0_;
};

} // namespace pioc::bench
