// The home directory's entry for one line (eci_system.cpp, miss_batch.cpp).
#pragma once

#include <pioc/sim/eci.hpp>

#include <vector>

namespace pioc::sim::eci {

struct system::dir_entry {
	line_state cpu = line_state::I; // what the home knows of the CPU's copy
	line_state dev = line_state::I; // CPU-homed lines: the device's copy
	bool locked = false;
	// A CPU request the home holds (device-homed: engine has not answered;
	// CPU-homed: forwarded to the device, not released yet).
	bool *pending_done = nullptr;
	bool pending_excl = false, pending_upgrade = false;
	std::vector<event_queue::callback> waiting; // requests queued behind the lock
	line_bytes devdata;			    // device's copy of a CPU-homed line
};

} // namespace pioc::sim::eci
