// PCI functions on this machine: discovery (libpci) and the transports that
// map them (sysfs resource files; the pioc module).
#pragma once

#include <pioc/device.hpp>

#include <memory>
#include <string_view>
#include <vector>

namespace pioc::detail {

/** Opens a PCI function by "BDF", "vendor:device[#n]", "sysfs:BDF" or "kmod:BDF". */
std::shared_ptr<transport> open_pci(std::string_view spec);

/** PCI functions pioc knows (our IDs, bound to pioc), or every function if @p all. */
std::vector<device_info> pci_list_devices(bool all);

} // namespace pioc::detail
