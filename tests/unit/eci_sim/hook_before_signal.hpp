// eci_sim_lines that, once armed, run a callback between the CPU's request
// store and its signalling load (at the store_load barrier the invoker
// issues there): a place to reset the device or read a line behind the
// protocol's back. Shared by the model's and the RTL engine's tests.
#pragma once

#include <pioc/sim/eci_lines.hpp>

#include <functional>
#include <utility>

namespace fx {

struct hook_before_signal : pioc::coherent::eci_sim_lines {
	std::function<void()> *at_signal;
	hook_before_signal(pioc::sim::eci::system &s, std::uint64_t base, std::function<void()> *f)
	    : eci_sim_lines(s, base), at_signal(f)
	{
	}
	void store_load() const
	{
		eci_sim_lines::store_load();
		if (*at_signal) {
			auto f = std::move(*at_signal);
			*at_signal = nullptr;
			f();
		}
	}
};

} // namespace fx
