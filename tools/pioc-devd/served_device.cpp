// The served devices: the library's registry plus their PCI identity.
#include "served_device.hpp"

#include "transport/sim_transport.hpp"

#include <pioc/error.hpp>
#include <pioc/regs/xdma.hpp>
#include <pioc/sim/pcie_link.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <fmt/format.h>

namespace pioc::devd {

served_device find_served_device(const std::string &spec, const std::string &link)
{
	for (const auto &e : detail::sim_devices()) {
		if ((e.rtl ? "rtl:" : "sim:") + e.name != spec)
			continue;
		if (!e.make) // sim:eci, rtl:coh: no PCIe function to serve
			throw error(errc::not_supported, fmt::format("pioc-devd: {} is a coherent (ECI) device, not a "
								     "PCIe function; vfio-user serves PCIe devices",
								     spec));
		served_device d;
		d.spec = spec;
		d.make = e.make;
		auto &id = d.identity;
		id.vendor = e.vendor;
		id.device = e.device;
		auto probe = e.make();
		for (unsigned b = 0; b < 6; ++b)
			id.bar_sizes[b] = probe->bar_size(b);
		// The user design's BAR (the PIO image, a NIC) is prefetchable, so
		// the host may map it write-combining (as the VCU118 images' XDMA
		// bypass BAR is configured); XDMA's config BAR is registers. A
		// model that interrupts is an XDMA design: its MSI-X table and PBA
		// sit in the config BAR where PG195 puts them (BAR1 behind an
		// AXI-Lite BAR, BAR0 in the NIC images).
		if (auto *x = dynamic_cast<xdma::sim_control *>(probe.get())) {
			const unsigned cfg = x->config_bar();
			for (unsigned b = 0; b < 6; ++b)
				id.prefetchable[b] = b != cfg && id.bar_sizes[b] != 0;
			id.msix = vfio_user::msix_layout{cfg, std::uint32_t(regs::xdma::msix_base),
							 std::uint32_t(regs::xdma::msix_pba), 32};
		} else {
			id.prefetchable[0] = true;
		}
		const auto t = sim::link_timing::preset_named(link);
		id.link_gen = t.generation();
		id.link_width = t.lanes;
		return d;
	}
	throw error(errc::not_found, fmt::format("pioc-devd: no device '{}'; these exist:\n{}", spec,
						 served_device_list()));
}

std::string served_device_list()
{
	std::string out;
	for (const auto &e : detail::sim_devices())
		if (e.make)
			out += fmt::format("  {}:{:<10} {:04x}:{:04x}  {}\n", e.rtl ? "rtl" : "sim", e.name,
					   e.vendor, e.device, e.description);
	return out;
}

} // namespace pioc::devd
