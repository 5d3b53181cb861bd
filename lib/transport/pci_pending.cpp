// Placeholder until the libpci discovery and sysfs transport land (issue 2):
// hardware specs are rejected with a clear error instead of a crash.
#include "transport/pci_transport.hpp"

#include <pioc/error.hpp>

#include <fmt/format.h>

namespace pioc::detail {
std::shared_ptr<transport> open_pci(std::string_view spec)
{
	throw error(errc::not_supported, fmt::format("{}: PCI devices are not supported in this build yet", spec));
}
std::vector<device_info> pci_list_devices(bool) { return {}; }
} // namespace pioc::detail
