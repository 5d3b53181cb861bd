// device::open(): from a spec string to a transport.
#include "transport/pci_transport.hpp"
#include "transport/sim_transport.hpp"

#include <pioc/device.hpp>
#include <pioc/error.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace pioc {

dma_buffer transport::alloc_dma(std::size_t size)
{
	throw error(errc::not_supported,
		    fmt::format("{}: transport '{}' cannot allocate DMA buffers ({} bytes asked); "
				"bind the device to the pioc module", info().spec, name(), size));
}

transport::interrupt_fd transport::interrupt(unsigned)
{
	return {};
}

void transport::function_reset()
{
	const std::string &bdf = info().bdf;
	if (bdf.empty())
		throw error(errc::not_supported,
			    fmt::format("{}: function reset needs a PCI address", info().spec));
	const std::string path = "/sys/bus/pci/devices/" + bdf + "/reset";
	std::ofstream f(path);
	if (!(f << "1" << std::flush))
		throw_os_error(fmt::format("{}: function reset through {}", info().spec, path), errno);
}

namespace {
std::string known_sim_names()
{
	std::string s;
	for (const auto &e : detail::sim_devices())
		s += (s.empty() ? "" : ", ") + std::string(e.rtl ? "rtl:" : "sim:") + e.name;
	return s;
}
bool has_rtl()
{
	for (const auto &e : detail::sim_devices())
		if (e.rtl)
			return true;
	return false;
}
} // namespace

device device::open(std::string_view spec)
{
	const auto colon = spec.find(':');
	const std::string_view scheme = colon == std::string_view::npos ? std::string_view{} : spec.substr(0, colon);
	if (scheme == "sim" || scheme == "rtl") {
		// "sim:pio" or "sim:pio@enzian-gen3x8": model name and link timing preset.
		std::string_view rest = spec.substr(colon + 1);
		std::string preset = "pc-gen3x16";
		bool preset_given = false;
		if (auto at = rest.find('@'); at != std::string_view::npos) {
			preset_given = true;
			preset = std::string(rest.substr(at + 1));
			rest = rest.substr(0, at);
		} else if (const char *env = std::getenv("PIOC_SIM_TIMING")) {
			preset = env;
		}
		for (const auto &e : detail::sim_devices()) {
			if (e.name != rest || e.rtl != (scheme == "rtl"))
				continue;
			if (e.open_coherent && preset_given)
				throw error(errc::invalid_argument,
					    fmt::format("{}: a coherent device has no PCIe link timing preset (\"@{}\"): "
							"its timing is the ECI model's (pioc/sim/eci.hpp)", spec, preset));
			return device(detail::open_sim(e, preset));
		}
		throw error(errc::not_found, fmt::format("no simulated device '{}' (known: {}){}", spec, known_sim_names(),
							 scheme == "rtl" && !has_rtl() ? "; rtl:* devices need a build "
								"with -DPIOC_RTL=ON (Verilator)" : ""));
	}
	return device(detail::open_pci(spec));
}

} // namespace pioc

namespace pioc {

std::vector<device_info> list_devices(bool all)
{
	std::vector<device_info> v;
	for (const auto &e : detail::sim_devices())
		v.push_back(detail::sim_device_info(e));
	for (auto &d : detail::pci_list_devices(all))
		v.push_back(std::move(d));
	return v;
}

} // namespace pioc
