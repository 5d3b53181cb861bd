// How fast a simulated device ran (include/pioc/bench/sim_speed.hpp).
#include <pioc/bench/sim_speed.hpp>

#include <pioc/coherent/port.hpp>
#include <pioc/device.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/pcie_link.hpp>

#ifdef PIOC_HAVE_RTL
#include "rtl_devices.hpp" // lib/rtl, linked into transport in -DPIOC_RTL=ON builds
#endif

#include <ctime>

namespace pioc::bench {

namespace {

double process_cpu_s()
{
	timespec ts{};
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

/** A simulated coherent device (sim:nic_eci, rtl:nic_eci): the ECI model's
 *  clock and, behind its directory, a Verilated engine's cycles. */
std::optional<sim_sample> coherent_sample(device &dev)
{
	coherent::port *p = dev.get_transport().coherent_port();
	if (!p || !p->simulated())
		return std::nullopt;
	sim::eci::system &sys = p->system();
	sim_sample s;
	s.sim_ns = sys.now();
#ifdef PIOC_HAVE_RTL
	if (const sim::eci::device_engine *e = sys.engine()) {
		const rtl::rtl_stats r = rtl::stats_of(*e);
		s.cycles = r.cycles;
		s.evaluated_cycles = r.evaluated_cycles;
		s.clock_mhz = r.clock_mhz;
	}
#endif
	return s;
}

std::optional<sim_sample> sample(device &dev)
{
	sim::pcie_link *link = dev.sim_link();
	if (!link)
		return coherent_sample(dev);
	sim_sample s;
	s.sim_ns = double(link->now_ns());
#ifdef PIOC_HAVE_RTL
	const rtl::rtl_stats r = rtl::stats_of(link->device());
	s.cycles = r.cycles;
	s.evaluated_cycles = r.evaluated_cycles;
	s.clock_mhz = r.clock_mhz;
#endif
	return s;
}

} // namespace

nlohmann::json sim_speed::to_json() const
{
	nlohmann::json j = {{"wall_s", wall_s},
			    {"cpu_s", cpu_s},
			    {"simulated_ns", passed.sim_ns},
			    {"sim_ns_per_wall_ns", sim_ns_per_wall_ns()},
			    {"sim_ns_per_cpu_ns", sim_ns_per_cpu_ns()}};
	if (passed.clock_mhz > 0) {
		j["cycles"] = passed.cycles;
		j["evaluated_cycles"] = passed.evaluated_cycles;
		j["cycles_per_s"] = cycles_per_s();
		j["cycles_per_cpu_s"] = cycles_per_cpu_s();
		j["clock_mhz"] = passed.clock_mhz;
	}
	return j;
}

speed_meter::speed_meter(const sim_sample &start)
	: start_(start), t0_(clock::now()), cpu0_(process_cpu_s())
{
}

sim_speed speed_meter::stop(const sim_sample &end) const
{
	sim_speed v;
	v.wall_s = std::chrono::duration<double>(clock::now() - t0_).count();
	v.cpu_s = process_cpu_s() - cpu0_;
	v.passed.sim_ns = end.sim_ns - start_.sim_ns;
	v.passed.cycles = end.cycles - start_.cycles;
	v.passed.evaluated_cycles = end.evaluated_cycles - start_.evaluated_cycles;
	v.passed.clock_mhz = end.clock_mhz;
	return v;
}

std::optional<speed_meter> speed_meter::start(device &dev)
{
	if (auto s = sample(dev))
		return speed_meter(*s);
	return std::nullopt;
}

sim_speed speed_meter::stop(device &dev) const
{
	const auto s = sample(dev);
	return stop(s ? *s : start_);
}

} // namespace pioc::bench
