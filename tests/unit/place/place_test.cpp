// Placement: hwloc-backed core lists, pinning and the "cpu" report field.
#include <catch2/catch.hpp>

#include <pioc/error.hpp>
#include <pioc/place.hpp>

#include <sched.h>
#include <unistd.h>

#include <set>
#include <string>
#include <thread>

namespace {

// The CPUs the OS lets this process use, independent of hwloc.
std::set<unsigned> os_allowed_cpus()
{
	cpu_set_t s;
	CPU_ZERO(&s);
	REQUIRE(sched_getaffinity(0, sizeof s, &s) == 0);
	std::set<unsigned> v;
	for (unsigned i = 0; i < CPU_SETSIZE; ++i)
		if (CPU_ISSET(i, &s))
			v.insert(i);
	return v;
}

} // namespace

TEST_CASE("all_cores lists usable CPUs only, each once")
{
	const auto cores = pioc::all_cores();
	REQUIRE(!cores.empty());
	const auto allowed = os_allowed_cpus();
	std::set<unsigned> seen;
	for (const auto &c : cores) {
		CHECK(allowed.count(c.os_index) == 1);
		CHECK(seen.insert(c.os_index).second);
	}
	CHECK(cores.size() <= allowed.size());
}

TEST_CASE("cores_near: unknown or simulated NUMA node gives all cores")
{
	pioc::device_info d;
	d.spec = "0000:00:00.0";
	d.numa_node = -1;
	CHECK(pioc::cores_near(d).size() == pioc::all_cores().size());
	d.numa_node = 0;
	d.simulated = true;
	CHECK(pioc::cores_near(d).size() == pioc::all_cores().size());
}

TEST_CASE("cores_near: a NUMA node keeps only its cores")
{
	const auto all = pioc::all_cores();
	pioc::device_info d;
	d.spec = "0000:00:00.0";
	d.numa_node = all.front().numa_node;
	if (d.numa_node < 0)
		return; // hwloc gave no NUMA information; covered by the test above
	for (const auto &c : pioc::cores_near(d))
		CHECK(c.numa_node == d.numa_node);
	// A node that does not exist falls back to every core.
	d.numa_node = 4096;
	CHECK(pioc::cores_near(d).size() == all.size());
}

TEST_CASE("default timing core avoids core 0 when there is another")
{
	pioc::device_info d;
	d.spec = "sim:pio";
	d.simulated = true;
	const auto c = pioc::default_timing_core(d);
	if (pioc::all_cores().size() > 1)
		CHECK(c.os_index != 0);
	else
		CHECK(c.os_index == pioc::all_cores().front().os_index);
}

TEST_CASE("pinning moves the thread and describe_current_cpu says so", "[native]")
{
	const auto cores = pioc::all_cores();
	for (const auto &c : cores) {
		std::string desc;
		int ran_on = -1;
		std::thread t([&] {
			pioc::pin_this_thread(c);
			ran_on = sched_getcpu();
			desc = pioc::describe_current_cpu();
		});
		t.join();
		CHECK(ran_on == static_cast<int>(c.os_index));
		CHECK(desc.rfind("core " + std::to_string(c.os_index) + " (", 0) == 0);
		CHECK(desc.find(", pinned)") != std::string::npos);
		if (c.numa_node >= 0)
			CHECK(desc.find("NUMA node " + std::to_string(c.numa_node)) != std::string::npos);
	}
}

TEST_CASE("an unpinned thread is reported as not pinned", "[native]")
{
	if (os_allowed_cpus().size() < 2)
		return; // with one CPU every thread is pinned
	std::string desc;
	std::thread t([&] { desc = pioc::describe_current_cpu(); });
	t.join();
	CHECK(desc.find("not pinned") != std::string::npos);
}

TEST_CASE("pin_for_timing honours a requested core and rejects unknown ones", "[native]")
{
	const auto cores = pioc::all_cores();
	pioc::device_info d;
	d.spec = "sim:pio";
	d.simulated = true;
	std::thread t([&] {
		auto c = pioc::pin_for_timing(d, cores.back().os_index);
		CHECK(c.os_index == cores.back().os_index);
		CHECK(sched_getcpu() == static_cast<int>(c.os_index));
	});
	t.join();
	try {
		pioc::core_by_os_index(100000);
		FAIL("no error for CPU 100000");
	} catch (const pioc::error &e) {
		CHECK(e.code() == pioc::errc::not_found);
		CHECK(std::string(e.what()).find("CPU 100000") != std::string::npos);
		CHECK(std::string(e.what()).find("usable CPUs: ") != std::string::npos);
	}
}
