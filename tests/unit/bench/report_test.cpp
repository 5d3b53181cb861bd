// The shared result shape: JSON keys and types, CSV columns, table labels.
#include <pioc/bench/report.hpp>

#include <catch2/catch.hpp>

#include <sstream>

using namespace pioc::bench;

namespace {
report sample(bool simulated)
{
	report r;
	r.tool = "pciebench pio";
	r.device = "sim:pio";
	r.transport = "sim";
	r.memory_type = "wc";
	r.cpu = "core 1 (NUMA node 0, pinned)";
	r.simulated = simulated;
	r.extra["timing"] = "pc-gen3x16";
	histogram h;
	for (int i = 1; i <= 1000; ++i)
		h.record(1000 + i);
	r.results.push_back(result::from("write_read", 64, h));
	auto s = result::from("write_stream", 4096, h);
	s.mbps = 1234.5;
	s.extra["tlps"] = 64;
	s.extra["note"] = "a, \"quoted\" field";
	r.results.push_back(s);
	return r;
}
} // namespace

TEST_CASE("report JSON has exactly the documented shape", "[report]")
{
	const auto j = sample(true).to_json();
	for (const char *k : {"tool", "device", "transport", "memory_type", "cpu"}) {
		INFO(k);
		REQUIRE(j.contains(k));
		CHECK(j[k].is_string());
	}
	CHECK(j["simulated"].is_boolean());
	CHECK(j["simulated"] == true);
	CHECK(j["timing"] == "pc-gen3x16");
	REQUIRE(j["results"].is_array());
	REQUIRE(j["results"].size() == 2);
	const auto &r0 = j["results"][0];
	CHECK(r0["op"] == "write_read");
	CHECK(r0["size"] == 64);
	CHECK(r0["iterations"] == 1000);
	for (const char *k : {"min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"}) {
		INFO(k);
		CHECK(r0[k].is_number());
	}
	CHECK(r0["min_ns"] == 1001.0);
	CHECK(r0["max_ns"] == 2000.0);
	CHECK(r0["p50_ns"].get<double>() == Approx(1500).epsilon(0.01));
	CHECK(!r0.contains("mbps")); // only for throughput runs
	const auto &r1 = j["results"][1];
	CHECK(r1["mbps"] == 1234.5);
	CHECK(r1["tlps"] == 64);
	CHECK(sample(false).to_json()["simulated"] == false);
}

TEST_CASE("extra fields cannot overwrite the contract fields", "[report]")
{
	auto r = sample(true);
	r.extra["simulated"] = false;
	r.results[0].extra["op"] = "bogus";
	const auto j = r.to_json();
	CHECK(j["simulated"] == true);
	CHECK(j["results"][0]["op"] == "write_read");
}

TEST_CASE("CSV: header, one line per result, extra columns, quoting", "[report]")
{
	std::ostringstream os;
	write(sample(true), format::csv, os);
	std::istringstream in(os.str());
	std::string head, l1, l2, l3;
	std::getline(in, head);
	std::getline(in, l1);
	std::getline(in, l2);
	CHECK(!std::getline(in, l3));
	CHECK(head == "op,size,iterations,min_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,mbps,note,tlps,"
		      "tool,device,transport,memory_type,cpu,simulated");
	CHECK(l1.rfind("write_read,64,1000,1001,", 0) == 0);
	CHECK(l1.find(",,,,pciebench pio,sim:pio,sim,wc,") != std::string::npos); // no mbps/tlps/note
	CHECK(l2.find(",1234.5,\"a, \"\"quoted\"\" field\",64,") != std::string::npos);
	CHECK(l2.substr(l2.size() - 5) == ",true");
}

TEST_CASE("table says whether times are simulated", "[report]")
{
	std::ostringstream sim, hw;
	write(sample(true), format::table, sim);
	write(sample(false), format::table, hw);
	CHECK(sim.str().find("SIMULATED TIME") != std::string::npos);
	CHECK(hw.str().find("SIMULATED") == std::string::npos);
	CHECK(hw.str().find("measured time") != std::string::npos);
	CHECK(sim.str().find("device sim:pio") != std::string::npos);
	CHECK(sim.str().find("memory type wc") != std::string::npos);
	CHECK(sim.str().find("write_stream") != std::string::npos);
	CHECK(sim.str().find("4 KiB") != std::string::npos);
}

TEST_CASE("table shows the run's and each row's simulator speed per CPU ns", "[report]")
{
	report r = sample(true);
	sim_speed whole;
	whole.wall_s = 0.004;
	whole.cpu_s = 0.002;
	whole.passed.sim_ns = 3e6;
	r.speed = whole;
	sim_speed row;
	row.cpu_s = 0.001;
	row.wall_s = 0.001;
	row.passed.sim_ns = 1.25e6;
	r.results[1].extra["simulation"] = row.to_json();
	std::ostringstream t;
	write(r, format::table, t);
	const std::string s = t.str();
	CHECK(s.find("0.75 simulated ns per wall ns, 1.5 per CPU ns") != std::string::npos);
	CHECK(s.find("simulation = simulated ns per CPU ns while the row ran") != std::string::npos);
	CHECK(s.find("1.25x") != std::string::npos); // the row's object as one cell
	CHECK(s.find("sim_ns_per_cpu_ns") == std::string::npos);
	// JSON keeps the whole object for scripts.
	const auto j = r.to_json();
	CHECK(j["results"][1]["simulation"]["simulated_ns"] == 1.25e6);
	CHECK(j["results"][0].contains("simulation") == false);
}
