// The "sysfs" transport: BARs mapped through the kernel's PCI resource files,
// <sysfs>/bus/pci/devices/<BDF>/resourceN (uncached) and resourceN_wc
// (write-combining; the kernel creates it only for prefetchable memory BARs).
// No DMA, no interrupts: those need the pioc module.
#include "pci/pci.hpp"

#include <pioc/error.hpp>
#include "core/log.hpp"
#include <pioc/wide.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace pioc::detail::pci {

namespace {

class sysfs_transport final : public transport {
public:
	explicit sysfs_transport(device_info info) : info_(std::move(info)) { info_.transport = "sysfs"; }

	std::string_view name() const noexcept override { return "sysfs"; }
	bool simulated() const noexcept override { return false; }
	const device_info &info() const noexcept override { return info_; }

	region map_bar(unsigned bar, mem_type t) override
	{
		const bar_info &b = find_bar(bar);
		if (b.is_io)
			throw error(errc::not_supported,
				    fmt::format("{} BAR{}: an I/O-port BAR ({} bytes) cannot be memory-mapped; "
						"pioc maps memory BARs only", info_.spec, bar, b.size));
		if (t == mem_type::wt || t == mem_type::wb)
			throw error(errc::not_supported,
				    fmt::format("{} BAR{}: memory type {} is not available through sysfs (resource "
						"files give uc, and wc for prefetchable BARs); bind {} to the pioc "
						"module and open kmod:{}", info_.spec, bar, to_string(t), info_.bdf,
						info_.bdf));
		const bool wc = t == mem_type::wc;
		const fs::path path = device_dir(info_.bdf) / fmt::format("resource{}{}", bar, wc ? "_wc" : "");
		std::error_code ec;
		if (wc && !fs::exists(path, ec))
			throw error(errc::not_supported,
				    fmt::format("{} BAR{}: no {}: the kernel offers write-combining mappings only of "
						"prefetchable memory BARs, and BAR{} is {}prefetchable; map it uc, or "
						"use the pioc module (kmod:{})", info_.spec, bar, path.string(), bar,
						b.prefetchable ? "" : "non-", info_.bdf));
		warn_if_disabled();

		const int fd = ::open(path.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
		if (fd < 0) {
			const int err = errno;
			throw_os_error(fmt::format("{} BAR{}: cannot open {}{}", info_.spec, bar, path.string(),
						   err == EACCES || err == EPERM ? " (resource files need root; "
										   "kernel lockdown forbids them)"
										 : ""),
				       err);
		}
		struct stat st {};
		if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < b.size) {
			const int err = errno;
			::close(fd);
			throw error(errc::os_error,
				    fmt::format("{} BAR{}: {} is {} bytes but the BAR is {} bytes; the device "
						"changed or the sysfs tree is inconsistent", info_.spec, bar,
						path.string(), st.st_size, b.size) +
					    (err ? fmt::format(" (fstat: errno {})", err) : ""));
		}
		const long page = ::sysconf(_SC_PAGESIZE);
		const std::uint64_t len = (b.size + page - 1) & ~static_cast<std::uint64_t>(page - 1);
		void *p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		const int err = errno;
		::close(fd); // the mapping keeps the file referenced
		if (p == MAP_FAILED)
			throw_os_error(fmt::format("{} BAR{}: mmap of {} bytes at offset 0 of {}", info_.spec, bar,
						   len, path.string()),
				       err);
		log().info("{} BAR{}: mapped {} bytes ({}) from {}", info_.spec, bar, b.size, to_string(t),
			   path.string());
		std::shared_ptr<const void> owner(p, [len](const void *q) { ::munmap(const_cast<void *>(q), len); });
		return region(fmt::format("{} BAR{} ({})", info_.spec, bar, to_string(t)),
			      mmio_io(static_cast<std::uint8_t *>(p), b.size, t, wide_isa_default()), std::move(owner));
	}

private:
	const bar_info &find_bar(unsigned bar) const
	{
		if (bar > 5)
			throw error(errc::not_found,
				    fmt::format("{}: BAR{} does not exist (PCI functions have BAR0..BAR5)", info_.spec, bar));
		for (const auto &b : info_.bars)
			if (b.index == bar)
				return b;
		std::string have;
		for (const auto &b : info_.bars)
			have += (have.empty() ? "" : ", ") + fmt::format("BAR{}", b.index);
		throw error(errc::not_found,
			    fmt::format("{}: BAR{} is not implemented (size 0); this function has {}", info_.spec, bar,
					have.empty() ? std::string("no BARs") : have));
	}

	// The kernel lets us map the BAR of a disabled function, but the device
	// then answers nothing (all-ones on reads). Say so once.
	void warn_if_disabled()
	{
		if (warned_)
			return;
		std::ifstream f(device_dir(info_.bdf) / "enable");
		int enabled = 1;
		if (f >> enabled && enabled == 0) {
			log().warn("{}: the function is disabled (memory decoding off): reads will return all-ones; "
				   "enable it with `echo 1 > {}`", info_.spec, (device_dir(info_.bdf) / "enable").string());
			warned_ = true;
		}
	}

	device_info info_;
	bool warned_ = false;
};

} // namespace

std::shared_ptr<transport> open_sysfs(device_info d)
{
	log().info("opening {} through sysfs ({})", d.bdf, device_dir(d.bdf).string());
	return std::make_shared<sysfs_transport>(std::move(d));
}

} // namespace pioc::detail::pci
