// Internal interface of lib/pci: where sysfs is, libpci discovery, and the
// sysfs transport. device::open() reaches it through transport/pci_transport.hpp.
#pragma once

#include <pioc/device.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pioc::detail::pci {

/** Root of sysfs: $PIOC_SYSFS_ROOT if set and not empty, else "/sys". Tests
 *  point it at a tree of regular files shaped like sysfs. */
std::filesystem::path sysfs_root();

/** <sysfs root>/bus/pci/devices/<bdf>. */
std::filesystem::path device_dir(std::string_view bdf);

/** True for the vendor:device pairs the pioc module binds by default (the
 *  XDMA IP's default IDs our images keep; same table as kmod/pioc_pci.c). */
bool is_pioc_id(std::uint16_t vendor, std::uint16_t device) noexcept;

/** Every PCI function (libpci, sysfs access method), sorted by BDF. Empty
 *  when the machine (or the sysfs root) has no PCI bus. Throws errc::os_error
 *  with libpci's message if libpci fails. */
std::vector<device_info> scan();

/** The one function that @p spec names: "0000:01:00.0", "01:00.0",
 *  "10ee:9038" or "10ee:9038#1" (0-based among matches in BDF order).
 *  Throws errc::invalid_argument for a malformed spec and errc::not_found,
 *  naming the spec and pointing to `pioc-info --all`, for no match. */
device_info find(std::string_view spec);

/** Opens @p d through its sysfs resource files. */
std::shared_ptr<transport> open_sysfs(device_info d);

} // namespace pioc::detail::pci
