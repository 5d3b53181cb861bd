// The "sim" transport: an in-process device model behind a simulated link.
#pragma once

#include <pioc/device.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pioc::detail {

/** A simulated device pioc can open by name ("sim:pio"). */
struct sim_device_entry {
	std::string name;        ///< the part after "sim:" / "rtl:"
	std::string description;
	std::uint16_t vendor, device;
	std::function<std::unique_ptr<sim::target>()> make;
	bool rtl = false;        ///< a Verilated design rather than a behavioral model
	/** A coherent device (no PCIe link, no BARs: @c make is empty): opens
	 *  its transport, whose coherent_port() the coherent drivers use. */
	std::function<std::shared_ptr<transport>(device_info)> open_coherent = {};
};

/** Every simulated device built into this library. */
const std::vector<sim_device_entry> &sim_devices();

/** device_info for a simulated device (no link timing applied). */
device_info sim_device_info(const sim_device_entry &e);

/** Opens a simulated device; @p timing_preset names the link timing. */
std::shared_ptr<transport> open_sim(const sim_device_entry &e, const std::string &timing_preset);

} // namespace pioc::detail
