// Placement with hwloc: cores near a device, pinning, and describing where a
// thread runs. One topology per process, loaded on first use and then only
// read (hwloc topologies are safe to read from several threads).
#include <pioc/error.hpp>
#include "core/log.hpp"
#include <pioc/place.hpp>

#include <fmt/format.h>
#include <hwloc.h>

#include <cerrno>
#include <memory>

namespace pioc {

namespace {

struct bitmap {
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	bitmap() { if (!b) throw std::bad_alloc(); }
	~bitmap() { hwloc_bitmap_free(b); }
	bitmap(const bitmap &) = delete;
	bitmap &operator=(const bitmap &) = delete;
	operator hwloc_bitmap_t() const noexcept { return b; }
};

class topology {
public:
	topology()
	{
		if (hwloc_topology_init(&topo_) != 0)
			throw_os_error("hwloc: cannot initialise the topology", errno);
		if (hwloc_topology_load(topo_) != 0) {
			const int err = errno;
			hwloc_topology_destroy(topo_);
			throw_os_error("hwloc: cannot load the topology", err);
		}
		// Cores, or PUs where the platform does not report cores.
		hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
											     : HWLOC_OBJ_PU;
		const int n = hwloc_get_nbobjs_by_type(topo_, type);
		for (int i = 0; i < n; ++i) {
			hwloc_obj_t o = hwloc_get_obj_by_type(topo_, type, static_cast<unsigned>(i));
			if (!o->cpuset || hwloc_bitmap_iszero(o->cpuset))
				continue; // no usable hardware thread (disallowed or offline)
			const int first = hwloc_bitmap_first(o->cpuset);
			cpu_core c;
			c.os_index = static_cast<unsigned>(first);
			c.logical = o->logical_index;
			c.numa_node = numa_of(o->cpuset);
			cores_.push_back(c);
		}
		if (cores_.empty()) {
			hwloc_topology_destroy(topo_);
			throw error(errc::not_found, "hwloc: the topology has no usable CPU core");
		}
	}
	~topology() { hwloc_topology_destroy(topo_); }
	topology(const topology &) = delete;
	topology &operator=(const topology &) = delete;

	hwloc_topology_t get() const noexcept { return topo_; }
	const std::vector<cpu_core> &cores() const noexcept { return cores_; }

	/** OS index of the NUMA node whose CPUs include @p set, -1 if none or several. */
	int numa_of(hwloc_const_cpuset_t set) const noexcept
	{
		int found = -1;
		for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_NUMANODE, nullptr); n;
		     n = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_NUMANODE, n)) {
			if (!n->cpuset || !hwloc_bitmap_isincluded(set, n->cpuset))
				continue;
			if (found >= 0 && found != static_cast<int>(n->os_index))
				return -1;
			found = static_cast<int>(n->os_index);
		}
		return found;
	}

	/** The core whose hardware threads include OS CPU @p os_cpu. */
	const cpu_core *core_containing(unsigned os_cpu) const noexcept
	{
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo_, os_cpu);
		if (!pu)
			return nullptr;
		for (const auto &c : cores_) {
			hwloc_obj_t first = hwloc_get_pu_obj_by_os_index(topo_, c.os_index);
			hwloc_obj_t core = first ? hwloc_get_ancestor_obj_by_type(topo_, HWLOC_OBJ_CORE, first) : nullptr;
			if (core ? hwloc_bitmap_isset(core->cpuset, os_cpu) : c.os_index == os_cpu)
				return &c;
		}
		return nullptr;
	}

private:
	hwloc_topology_t topo_ = nullptr;
	std::vector<cpu_core> cores_;
};

const topology &topo()
{
	static const topology t;
	return t;
}

std::string usable_cpus()
{
	std::string s;
	for (const auto &c : topo().cores())
		s += (s.empty() ? "" : ",") + std::to_string(c.os_index);
	return s;
}

std::string node_text(int node)
{
	return node < 0 ? std::string("NUMA node unknown") : fmt::format("NUMA node {}", node);
}

} // namespace

std::vector<cpu_core> all_cores()
{
	return topo().cores();
}

std::vector<cpu_core> cores_near(const device_info &dev)
{
	const auto &all = topo().cores();
	if (dev.simulated || dev.numa_node < 0)
		return all;
	std::vector<cpu_core> v;
	for (const auto &c : all)
		if (c.numa_node == dev.numa_node)
			v.push_back(c);
	if (v.empty()) {
		log().warn("{}: NUMA node {} has no CPU this process may use; using all cores",
			   dev.spec, dev.numa_node);
		return all;
	}
	return v;
}

cpu_core default_timing_core(const device_info &dev)
{
	const auto near = cores_near(dev);
	for (const auto &c : near)
		if (c.os_index != 0)
			return c;
	return near.front();
}

cpu_core core_by_os_index(unsigned os_index)
{
	for (const auto &c : topo().cores())
		if (c.os_index == os_index)
			return c;
	if (const cpu_core *c = topo().core_containing(os_index))
		throw error(errc::not_found,
			    fmt::format("CPU {} is an SMT sibling of core {}: pioc pins timing threads to the "
					"first hardware thread of a core (usable CPUs: {})",
					os_index, c->os_index, usable_cpus()));
	throw error(errc::not_found,
		    fmt::format("CPU {} is not a CPU this process may use (offline, outside its cpuset, or "
				"absent); usable CPUs: {}", os_index, usable_cpus()));
}

void pin_this_thread(const cpu_core &c)
{
	bitmap set;
	hwloc_bitmap_only(set, c.os_index);
	if (hwloc_set_cpubind(topo().get(), set, HWLOC_CPUBIND_THREAD) != 0) {
		const int err = errno;
		throw_os_error(fmt::format("cannot pin this thread to core {} ({})", c.os_index,
					   node_text(c.numa_node)),
			       err);
	}
	log().debug("pinned thread to core {} ({})", c.os_index, node_text(c.numa_node));
}

cpu_core pin_for_timing(const device_info &dev, std::optional<unsigned> requested)
{
	cpu_core c;
	if (requested) {
		c = core_by_os_index(*requested);
		if (!dev.simulated && dev.numa_node >= 0 && c.numa_node != dev.numa_node)
			log().warn("{} is on NUMA node {} but core {} is on {}: latencies include the "
				   "socket interconnect",
				   dev.spec, dev.numa_node, c.os_index, node_text(c.numa_node));
	} else {
		c = default_timing_core(dev);
	}
	pin_this_thread(c);
	return c;
}

std::string describe_current_cpu()
{
	const topology &t = topo();
	bitmap where, bound;
	int cpu = -1;
	if (hwloc_get_last_cpu_location(t.get(), where, HWLOC_CPUBIND_THREAD) == 0)
		cpu = hwloc_bitmap_first(where);
	bool pinned = false;
	if (hwloc_get_cpubind(t.get(), bound, HWLOC_CPUBIND_THREAD) == 0 && !hwloc_bitmap_iszero(bound)) {
		if (hwloc_bitmap_weight(bound) == 1) {
			pinned = true;
			cpu = hwloc_bitmap_first(bound); // where it will run, whatever it last ran on
		} else {
			// Bound to all hardware threads of one core counts as pinned too.
			const int first = hwloc_bitmap_first(bound);
			hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t.get(), static_cast<unsigned>(first));
			hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(t.get(), HWLOC_OBJ_CORE, pu) : nullptr;
			pinned = core && hwloc_bitmap_isincluded(bound, core->cpuset);
		}
	}
	if (cpu < 0)
		return "core unknown (hwloc cannot tell where this thread runs)";
	bitmap one;
	hwloc_bitmap_only(one, static_cast<unsigned>(cpu));
	return fmt::format("core {} ({}, {})", cpu, node_text(t.numa_of(one)), pinned ? "pinned" : "not pinned");
}

} // namespace pioc
