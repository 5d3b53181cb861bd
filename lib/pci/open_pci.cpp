// device::open() for hardware specs, and the PCI part of list_devices():
// resolve the spec with libpci, then pick the transport in one place
// (choose_route): the pioc module when the function is bound to it, sysfs
// resource files otherwise; "sysfs:" / "kmod:" force one.
#include "pci/pci.hpp"
#include "transport/pci_transport.hpp"

#if __has_include("kmod/kmod_transport.hpp")
#include "kmod/kmod_transport.hpp"
#define PIOC_HAVE_KMOD 1
#else
#define PIOC_HAVE_KMOD 0
#endif

#include <pioc/error.hpp>
#include "core/log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace pioc::detail {

namespace {

enum class route { sysfs, kmod };

/** The module's device node for @p name ("0000:01:00.0", "eci0"), if any. */
bool kmod_node_exists(const std::string &name)
{
#if PIOC_HAVE_KMOD
	std::error_code ec;
	return fs::exists(fs::path(kmod::dev_dir()) / name, ec);
#else
	(void)name;
	return false;
#endif
}

/** Which transport opens PCI function @p bdf. @p forced is "", "sysfs" or "kmod". */
route choose_route(std::string_view forced, const std::string &bdf)
{
	if (forced == "sysfs")
		return route::sysfs;
	if (forced == "kmod")
		return route::kmod;
	return kmod_node_exists(bdf) ? route::kmod : route::sysfs;
}

std::shared_ptr<transport> open_through_kmod(std::string_view spec, const std::string &name)
{
#if PIOC_HAVE_KMOD
	(void)spec;
	return open_kmod(name);
#else
	(void)name;
	throw error(errc::not_supported,
		    fmt::format("{}: this libpioc was built without the kmod transport; use sysfs:BDF", spec));
#endif
}

} // namespace

std::shared_ptr<transport> open_pci(std::string_view spec)
{
	std::string_view forced, rest = spec;
	for (std::string_view t : {"sysfs", "kmod"})
		if (spec.size() > t.size() && spec.substr(0, t.size()) == t && spec[t.size()] == ':') {
			forced = t;
			rest = spec.substr(t.size() + 1);
		}
	// "kmod:0000:01:00.0" and "kmod:eci0" name a device node: the module
	// resolves and checks those itself. Everything else goes through libpci.
	if (forced == "kmod" && (rest.find('.') != std::string_view::npos || rest.substr(0, 3) == "eci"))
		return open_through_kmod(spec, std::string(rest));

	device_info d = pci::find(rest);
	if (choose_route(forced, d.bdf) == route::kmod)
		return open_through_kmod(spec, d.bdf);
	return pci::open_sysfs(std::move(d));
}

std::vector<device_info> pci_list_devices(bool all)
{
	std::vector<device_info> out;
	for (auto &d : pci::scan()) {
		if (!all && !pci::is_pioc_id(d.vendor, d.device) && d.driver != "pioc")
			continue;
		if (choose_route({}, d.bdf) == route::kmod)
			d.transport = "kmod";
		out.push_back(std::move(d));
	}
#if PIOC_HAVE_KMOD
	// ECI windows, and anything the module serves that libpci did not list.
	for (auto &k : kmod_list_devices()) {
		const bool listed = !k.bdf.empty() && std::any_of(out.begin(), out.end(), [&](const device_info &d) {
			return d.bdf == k.bdf;
		});
		if (!listed)
			out.push_back(std::move(k));
	}
#endif
	return out;
}

} // namespace pioc::detail
