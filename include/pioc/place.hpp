/** @file
 * Placement: which CPU cores are close to a device, and pinning timing
 * threads there (hwloc).
 *
 * A latency measurement depends on where the timing thread runs: a core on
 * the device's NUMA node reaches the root port without crossing the socket
 * interconnect. Every tool pins its timing thread with pin_for_timing() and
 * reports describe_current_cpu() in its "cpu" field.
 *
 * Cores are named by the OS CPU number of the hardware thread pioc runs on
 * (what taskset, /proc/cpuinfo and `lscpu` call "CPU"); on machines with SMT
 * pioc uses the first hardware thread of each core. The hwloc topology is
 * loaded once per process, restricted to the CPUs the process may use.
 */
#pragma once

#include <pioc/device.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pioc {

/** One CPU core a thread can be pinned to. */
struct cpu_core {
	unsigned os_index = 0; ///< OS CPU number of the core's first hardware thread
	unsigned logical = 0;  ///< hwloc logical index of the core (0..n-1)
	int numa_node = -1;    ///< OS index of its NUMA node, -1 if unknown
};

/** Every core this process may run on, in hwloc (topology) order. */
std::vector<cpu_core> all_cores();

/** Cores on the device's NUMA node; all cores if the node is unknown (-1),
 *  the device is simulated, or the node has no usable core. Never empty. */
std::vector<cpu_core> cores_near(const device_info &dev);

/** The core a timing thread should use by default: a core local to the
 *  device other than core 0 (which takes most interrupts and housekeeping)
 *  when there is one; otherwise the first local core. */
cpu_core default_timing_core(const device_info &dev);

/** The core with OS CPU number @p os_index. Throws errc::not_found naming
 *  the usable CPUs if there is none (offline, not allowed by the cpuset, or
 *  not the first hardware thread of its core). */
cpu_core core_by_os_index(unsigned os_index);

/** Binds the calling thread to @p c (hwloc_set_cpubind, this thread only).
 *  Throws errc::permission / errc::os_error naming the core. */
void pin_this_thread(const cpu_core &c);

/** Pins the calling thread for timing: to OS CPU @p requested if given,
 *  else to default_timing_core(dev). Warns (log) when the requested core is
 *  not on the device's NUMA node. Returns the core used. */
cpu_core pin_for_timing(const device_info &dev, std::optional<unsigned> requested = std::nullopt);

/** Where the calling thread runs now, for reports:
 *  "core 1 (NUMA node 0, pinned)", "core 3 (NUMA node unknown, not pinned)".
 *  "pinned" means the thread's binding is exactly one core. */
std::string describe_current_cpu();

} // namespace pioc
