// rtl::stats_of() for the Verilated engines behind the ECI model's
// directory (rtl:coh, rtl:nic_eci): cycles simulated and evaluated, for the
// benchmarks' "simulation" report (include/pioc/bench/sim_speed.hpp).
#include "coh_rtl_engine.hpp"
#include "nic_eci_rtl_engine.hpp"
#include "pioc/regs/nic_eci.hpp"
#include "rtl_devices.hpp"

namespace pioc::rtl {

rtl_stats stats_of(const pioc::sim::eci::device_engine &e)
{
	if (auto *n = dynamic_cast<const nic_eci_rtl_engine *>(&e)) {
		const double mhz = double(regs::nic_eci::clock_mhz);
		return {n->cycles(), mhz, std::uint64_t(double(n->cycles()) * 1000.0 / mhz), n->evaluated_cycles()};
	}
	if (auto *c = dynamic_cast<const coh_rtl_engine *>(&e))
		return {c->cycles(), c->clock_mhz(), std::uint64_t(double(c->cycles()) * c->cycle_ns()),
			c->evaluated_cycles()};
	return {0, 0.0, 0};
}

} // namespace pioc::rtl
