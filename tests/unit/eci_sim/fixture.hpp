// A modelled Enzian with one protocol engine and the CPU side over it.
#pragma once
#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/sim/eci_engine.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <algorithm>
#include <cstring>
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

/** Every line of a channel: both control lines and both data banks. */
inline std::vector<std::uint64_t> channel_lines(const coherent::layout &l, std::uint64_t base)
{
	std::vector<std::uint64_t> v{base + l.ctrl_off(0), base + l.ctrl_off(1)};
	for (std::uint32_t i = 0; i < l.data_lines; ++i)
		for (unsigned b = 0; b < 2; ++b)
			v.push_back(base + l.data_off(b, i));
	return v;
}

/** @p calls calls of an echo device, each request of the next size in
 *  @p sizes tagged with its number; returns how many answers were wrong or
 *  refused (the invoker resyncs after a refusal). */
template <class Inv> unsigned echo_calls(Inv &inv, unsigned calls, const std::vector<std::size_t> &sizes)
{
	unsigned bad = 0;
	std::vector<std::uint8_t> resp(coherent::max_message);
	for (std::uint32_t id = 1; id <= calls; ++id) {
		auto req = pattern(sizes[id % sizes.size()], id);
		std::memcpy(req.data(), &id, 4);
		try {
			const std::size_t got = inv.call(req.data(), req.size(), resp.data(), resp.size());
			if (got != req.size() || !std::equal(req.begin(), req.end(), resp.begin()))
				++bad;
		} catch (const pioc::error &) {
			++bad;
			inv.resync();
		}
	}
	return bad;
}

inline double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}
} // namespace fx
