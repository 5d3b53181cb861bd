// A modelled Enzian with one protocol engine and the CPU side over it.
#pragma once
#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/sim/eci_engine.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

namespace fx {
using namespace pioc;
using lines_t = coherent::eci_sim_lines;

struct rig {
	std::unique_ptr<sim::eci::system> sys;
	std::unique_ptr<sim::eci::proto_engine> eng;
	explicit rig(sim::eci::engine_config e = {}, sim::eci::config c = {})
	    : sys(std::make_unique<sim::eci::system>(c)), eng(std::make_unique<sim::eci::proto_engine>(*sys, e))
	{
		sys->cpu_spend(5000); // the device's reset: it takes its lines (CPU-homed variants)
	}
	lines_t lines() { return lines_t(*sys, eng->window_base()); }
	coherent::invoker<lines_t> invoker(std::uint32_t ch = 0, coherent::cpu_options o = {})
	{
		return coherent::invoker<lines_t>(lines(), eng->channel_layout(ch), o);
	}
	coherent::receiver<lines_t> receiver(std::uint32_t ch = 0)
	{
		return coherent::receiver<lines_t>(lines(), eng->channel_layout(ch));
	}
};

inline std::vector<std::uint8_t> pattern(std::size_t n, unsigned salt)
{
	std::vector<std::uint8_t> v(n);
	for (std::size_t i = 0; i < n; ++i)
		v[i] = static_cast<std::uint8_t>(i * 7 + salt * 13 + (i >> 8));
	return v;
}

inline double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}
} // namespace fx
