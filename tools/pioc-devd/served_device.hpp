// What pioc-devd can serve: every device of the library's sim/rtl registry
// (lib/transport/sim_transport.cpp: adding a device there is its one
// registration), with the PCI identity the served function presents.
#pragma once

#include "vfio_user/pci_config.hpp"
#include "vfio_user/server.hpp"

#include <string>

namespace pioc::devd {

struct served_device {
	std::string spec;                  ///< "sim:xdma", "rtl:pio"
	vfio_user::device_server::factory make;
	vfio_user::pci_identity identity;
};

/** The device named @p spec ("sim:NAME" or "rtl:NAME"), its link from the
 *  timing preset @p link (as sim:NAME@PRESET). pioc::error(not_found) lists
 *  what exists. */
served_device find_served_device(const std::string &spec, const std::string &link);

/** "sim:pio  description" lines for --list. */
std::string served_device_list();

} // namespace pioc::devd
