/** @file
 * The one result shape every pioc benchmark prints (pciebench, ecibench).
 *
 * JSON (documented in Documentation/benchmarking.md; scripts depend on it):
 * @code
 * { "tool": "pciebench pio", "device": "sim:pio", "transport": "sim",
 *   "memory_type": "wc", "cpu": "core 3 (NUMA node 0)", "simulated": true,
 *   "results": [ { "op": "write_read", "size": 64, "iterations": 100000,
 *                  "min_ns": ..., "p50_ns": ..., "p90_ns": ..., "p99_ns": ...,
 *                  "p999_ns": ..., "max_ns": ..., "mbps": ... (throughput runs),
 *                  ...tool-specific fields (messages_per_op, ...) } ],
 *   "simulation": { "wall_s": ..., "sim_ns_per_wall_ns": ..., "cycles_per_s": ... }
 *                 (simulated devices only, see sim_speed.hpp),
 *   ...tool-specific top-level fields ("timing", "wide_isa", ...) }
 * @endcode
 * "simulated": true means every *_ns value is modelled time, not measured.
 */
#pragma once

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/sim_speed.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace pioc::bench {

/** One row: an operation at one size. */
struct result {
	std::string op;
	std::uint64_t size = 0;
	std::uint64_t iterations = 0;
	double min_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
	std::optional<double> mbps;  ///< throughput runs only (10^6 bytes per second)
	nlohmann::json extra = nlohmann::json::object(); ///< tool-specific fields, merged into the row

	/** Fills the percentile fields from a histogram of nanoseconds. */
	static result from(std::string op, std::uint64_t size, const histogram &h);
};

/** A whole run. */
struct report {
	std::string tool, device, transport, memory_type, cpu;
	bool simulated = false;
	std::vector<result> results;
	nlohmann::json extra = nlohmann::json::object(); ///< tool-specific top-level fields
	std::optional<sim_speed> speed;  ///< simulated devices: how fast the simulator ran ("simulation")

	nlohmann::json to_json() const;
	/** CSV: a header line, then one line per result (extra row fields as columns). */
	void write_csv(std::ostream &os) const;
	/** Human table with a header naming device, transport, memory type, CPU
	 *  and "SIMULATED TIME" or "measured time". */
	void write_table(std::ostream &os) const;
};

enum class format { table, json, csv };

/** Writes @p r in format @p f. */
void write(const report &r, format f, std::ostream &os);

} // namespace pioc::bench
