// The shared benchmark result shape: JSON, CSV and a human table.
// The JSON shape is a contract (Documentation/benchmarking.md); only add.
#include <pioc/bench/report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace pioc::bench {

namespace {

// Fields every row has, in this order, in JSON and CSV.
constexpr const char *row_keys[] = {"op", "size", "iterations", "min_ns", "p50_ns", "p90_ns",
				    "p99_ns", "p999_ns", "max_ns", "mbps"};
// Top-level fields of every report.
constexpr const char *top_keys[] = {"tool", "device", "transport", "memory_type", "cpu", "simulated"};

bool is_core_key(const std::string &k, const auto &keys)
{
	return std::find_if(std::begin(keys), std::end(keys), [&](const char *c) { return k == c; }) !=
	       std::end(keys);
}

nlohmann::json row_json(const result &r)
{
	nlohmann::json j = nlohmann::json::object();
	j["op"] = r.op;
	j["size"] = r.size;
	j["iterations"] = r.iterations;
	j["min_ns"] = r.min_ns;
	j["p50_ns"] = r.p50_ns;
	j["p90_ns"] = r.p90_ns;
	j["p99_ns"] = r.p99_ns;
	j["p999_ns"] = r.p999_ns;
	j["max_ns"] = r.max_ns;
	if (r.mbps)
		j["mbps"] = *r.mbps;
	if (r.extra.is_object())
		for (auto it = r.extra.begin(); it != r.extra.end(); ++it)
			if (!is_core_key(it.key(), row_keys)) // the contract fields win
				j[it.key()] = it.value();
	return j;
}

// Extra row keys across all rows, in order of first appearance.
std::vector<std::string> extra_row_keys(const report &rep)
{
	std::vector<std::string> keys;
	for (const auto &r : rep.results)
		if (r.extra.is_object())
			for (auto it = r.extra.begin(); it != r.extra.end(); ++it)
				if (!is_core_key(it.key(), row_keys) &&
				    std::find(keys.begin(), keys.end(), it.key()) == keys.end())
					keys.push_back(it.key());
	return keys;
}

std::string scalar_text(const nlohmann::json &v)
{
	if (v.is_null())
		return {};
	if (v.is_string())
		return v.get<std::string>();
	if (v.is_number_float()) {
		const double d = v.get<double>();
		if (d == double(static_cast<long long>(d)))
			return fmt::format("{}", static_cast<long long>(d)); // 1001, not 1001.0
	}
	return v.dump(); // numbers at full precision (CSV)
}

// Table cells: floats with two decimals, a row's simulator speed (its
// "simulation" object) as simulated ns per CPU ns, everything else as in CSV.
std::string cell_text(const nlohmann::json &v)
{
	if (v.is_object() && v.contains("sim_ns_per_cpu_ns") && v["sim_ns_per_cpu_ns"].is_number())
		return fmt::format("{:.2f}x", v["sim_ns_per_cpu_ns"].get<double>());
	return v.is_number_float() ? fmt::format("{:.2f}", v.get<double>()) : scalar_text(v);
}

std::string csv_field(const std::string &s)
{
	if (s.find_first_of(",\"\n\r") == std::string::npos)
		return s;
	std::string q = "\"";
	for (char c : s) {
		if (c == '"')
			q += '"';
		q += c;
	}
	return q + '"';
}

std::string num(double v)
{
	return v == double(static_cast<long long>(v)) ? fmt::format("{}", static_cast<long long>(v))
						     : fmt::format("{:.1f}", v);
}

std::string human_size(std::uint64_t b)
{
	if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		return fmt::format("{} MiB", b >> 20);
	if (b >= 1024 && b % 1024 == 0)
		return fmt::format("{} KiB", b >> 10);
	return fmt::format("{} B", b);
}

} // namespace

result result::from(std::string op, std::uint64_t size, const histogram &h)
{
	result r;
	r.op = std::move(op);
	r.size = size;
	r.iterations = h.count();
	r.min_ns = double(h.min());
	r.p50_ns = double(h.percentile(50));
	r.p90_ns = double(h.percentile(90));
	r.p99_ns = double(h.percentile(99));
	r.p999_ns = double(h.percentile(99.9));
	r.max_ns = double(h.max());
	return r;
}

nlohmann::json report::to_json() const
{
	nlohmann::json j = nlohmann::json::object();
	j["tool"] = tool;
	j["device"] = device;
	j["transport"] = transport;
	j["memory_type"] = memory_type;
	j["cpu"] = cpu;
	j["simulated"] = simulated;
	if (extra.is_object())
		for (auto it = extra.begin(); it != extra.end(); ++it)
			if (!is_core_key(it.key(), top_keys) && it.key() != "results")
				j[it.key()] = it.value();
	nlohmann::json rows = nlohmann::json::array();
	for (const auto &r : results)
		rows.push_back(row_json(r));
	j["results"] = std::move(rows);
	if (speed)
		j["simulation"] = speed->to_json();
	return j;
}

void report::write_csv(std::ostream &os) const
{
	// One self-describing table: the run's context repeats on every line so
	// CSVs of several runs can simply be concatenated (minus headers).
	const auto extra_keys = extra_row_keys(*this);
	std::string line;
	for (const char *k : row_keys)
		line += std::string(line.empty() ? "" : ",") + k;
	for (const auto &k : extra_keys)
		line += "," + csv_field(k);
	for (const char *k : top_keys)
		line += std::string(",") + k;
	os << line << '\n';
	for (const auto &r : results) {
		const auto j = row_json(r);
		line.clear();
		for (const char *k : row_keys)
			line += std::string(line.empty() ? "" : ",") + csv_field(j.contains(k) ? scalar_text(j[k]) : "");
		for (const auto &k : extra_keys)
			line += "," + csv_field(j.contains(k) ? scalar_text(j[k]) : "");
		line += "," + csv_field(tool) + "," + csv_field(device) + "," + csv_field(transport) + "," +
			csv_field(memory_type) + "," + csv_field(cpu) + "," + (simulated ? "true" : "false");
		os << line << '\n';
	}
}

void report::write_table(std::ostream &os) const
{
	os << fmt::format("{}: device {} (transport {}), memory type {}, cpu {}\n", tool, device, transport,
			  memory_type, cpu);
	if (extra.is_object() && !extra.empty()) {
		std::string ctx;
		for (auto it = extra.begin(); it != extra.end(); ++it)
			ctx += fmt::format("{}{} {}", ctx.empty() ? "" : ", ", it.key(), cell_text(it.value()));
		os << "  " << ctx << '\n';
	}
	// Rows that carry their own "time" label (measured or simulated) mix both.
	const bool per_row = simulated && std::any_of(results.begin(), results.end(), [](const result &r) {
		return r.extra.contains("time") && r.extra["time"] == "measured";
	});
	os << (per_row     ? "  MIXED: rows with time 'simulated' are modelled by the link and device model (SIMULATED "
			     "TIME), rows with time 'measured' are wall-clock nanoseconds on this machine\n"
	       : simulated ? "  SIMULATED TIME: every time below is modelled by the link and device model, "
			     "not measured on hardware\n"
			   : "  measured time: wall-clock nanoseconds from the calibrated cycle counter\n");
	if (speed) {
		os << fmt::format("  simulator speed: {:.3g} simulated ns per wall ns, {:.3g} per CPU ns ({:.3g} s wall, "
				  "{:.3g} s CPU)",
				  speed->sim_ns_per_wall_ns(), speed->sim_ns_per_cpu_ns(), speed->wall_s, speed->cpu_s);
		if (speed->passed.clock_mhz > 0)
			os << fmt::format(", {:.2f} M cycles/s ({:.2f} M per CPU s; {} of {} cycles evaluated)",
					  speed->cycles_per_s() / 1e6, speed->cycles_per_cpu_s() / 1e6,
					  speed->passed.evaluated_cycles, speed->passed.cycles);
		os << '\n';
	}

	const auto extra_keys = extra_row_keys(*this);
	bool any_mbps = std::any_of(results.begin(), results.end(), [](const result &r) { return r.mbps.has_value(); });
	std::vector<std::string> head = {"op", "size", "iters", "min", "p50", "p90", "p99", "p99.9", "max"};
	if (any_mbps)
		head.push_back("MB/s");
	for (const auto &k : extra_keys)
		head.push_back(k);
	std::vector<std::vector<std::string>> rows;
	for (const auto &r : results) {
		std::vector<std::string> row = {r.op, human_size(r.size), fmt::format("{}", r.iterations),
						num(r.min_ns), num(r.p50_ns), num(r.p90_ns), num(r.p99_ns),
						num(r.p999_ns), num(r.max_ns)};
		if (any_mbps)
			row.push_back(r.mbps ? fmt::format("{:.1f}", *r.mbps) : "-");
		for (const auto &k : extra_keys)
			row.push_back(r.extra.is_object() && r.extra.contains(k) ? cell_text(r.extra[k]) : "-");
		rows.push_back(std::move(row));
	}
	std::vector<std::size_t> w(head.size());
	for (std::size_t c = 0; c < head.size(); ++c) {
		w[c] = head[c].size();
		for (const auto &row : rows)
			w[c] = std::max(w[c], row[c].size());
	}
	auto print_row = [&](const std::vector<std::string> &row) {
		std::string s;
		for (std::size_t c = 0; c < row.size(); ++c)
			s += c == 0 ? fmt::format("{:<{}}", row[c], w[c]) : fmt::format("  {:>{}}", row[c], w[c]);
		os << s << '\n';
	};
	os << "  latency in ns" << (any_mbps ? "; MB/s = 10^6 bytes per second" : "")
	   << (std::find(extra_keys.begin(), extra_keys.end(), "simulation") != extra_keys.end()
		       ? "; simulation = simulated ns per CPU ns while the row ran"
		       : "")
	   << '\n';
	print_row(head);
	for (const auto &row : rows)
		print_row(row);
}

void write(const report &r, format f, std::ostream &os)
{
	switch (f) {
	case format::json: os << r.to_json().dump(2) << '\n'; break;
	case format::csv: r.write_csv(os); break;
	case format::table: r.write_table(os); break;
	}
}

} // namespace pioc::bench
