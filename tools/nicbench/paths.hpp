// The NIC paths nicbench knows: the one place a path is registered (name,
// default device, how to open its driver). Each path's driver is a concrete
// class; with_path() picks it once, above every timed loop.
#pragma once

#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include "eci_open.hpp"

#include <pioc/nic/dma_nic.hpp>
#include <pioc/nic/pio_nic.hpp>

#include <string>
#include <string_view>

namespace nicbench {

struct path_entry {
	std::string_view name, default_device, what;
	std::string_view memory_type; ///< how the driver maps the device (the report's memory_type)
};

inline constexpr path_entry paths[] = {
	{"pio", "sim:nic_pio", "PCIe PIO: rings and buffers in FPGA SRAM, CPU loads/stores (Fig. 8(b))", "uc+wc"},
	{"dma", "sim:nic_dma", "PCIe DMA: XDMA stream engines, descriptor rings in host memory (Fig. 8(a))", "uc"},
	{"eci", "sim:nic_eci", "ECI: frames as Fig. 5(b) messages, TX as Fig. 5(a) invocations over cache lines (Fig. 8(c))", "wb"},
};

inline const path_entry &find_path(std::string_view name)
{
	for (const auto &p : paths)
		if (p.name == name)
			return p;
	throw pioc::error(pioc::errc::invalid_argument, "nicbench: no path '" + std::string(name) + "'");
}

/** Opens path @p name on @p dev (with interrupt receive if @p rx_irq) and
 *  calls @p f(driver&). */
template <class F>
void with_path(std::string_view name, pioc::device &dev, pioc::nic::ring_sizes rings, bool rx_irq, F &&f)
{
	if (name == "pio")
		pioc::nic::with_pio_nic(dev, rings, [&](auto &nic) {
			if (rx_irq)
				nic.use_rx_interrupt(pioc::nic::pio_nic_rx_interrupt(dev));
			f(nic);
		});
	else if (name == "dma")
		pioc::nic::with_dma_nic(dev, rings, f, rx_irq);
	else if (name == "eci" && rx_irq)
		throw pioc::error(pioc::errc::not_supported,
				  "nicbench: --rx-wait irq: the ECI NIC delivers frames as messages into the "
				  "cache; it has no receive interrupt");
	else if (name == "eci")
		with_eci_nic(dev, rings, f);
	else
		find_path(name); // throws, naming the path
}

} // namespace nicbench
