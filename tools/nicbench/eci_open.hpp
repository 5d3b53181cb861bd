// Opens the ECI NIC driver on a coherent device, picking its line policy
// once: eci_sim_lines on the simulated NIC (sim:nic_eci), mem_lines over the
// module's write-back window on hardware. The driver is the same code.
#pragma once

#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/port.hpp>
#include <pioc/device.hpp>
#include <pioc/nic/eci_nic.hpp>
#include <pioc/sim/eci_lines.hpp>

namespace nicbench {

template <class F> void with_eci_nic(pioc::device &dev, pioc::nic::ring_sizes rings, F &&f)
{
	auto &port = dev.coherent();
	const std::string &name = dev.info().spec;
	if (port.simulated()) {
		pioc::nic::eci_nic<pioc::coherent::eci_sim_lines> nic(pioc::coherent::eci_sim_lines(port.system(), 0),
								      rings, name);
		f(nic);
	} else {
		const auto w = port.map_window(pioc::regs::nic_eci::bar_size);
		pioc::nic::eci_nic<pioc::coherent::mem_lines>
			nic(pioc::coherent::mem_lines(w.base, pioc::regs::nic_eci::LINE_BYTES), rings, name);
		f(nic);
	}
}

} // namespace nicbench
