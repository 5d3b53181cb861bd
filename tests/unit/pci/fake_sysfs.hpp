// A tree of regular files shaped like /sys/bus/pci, for running libpci
// discovery and the sysfs transport's real open/mmap path without hardware.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pioc::test {

struct fake_bar {
	unsigned index;
	std::uint64_t start, size, flags; ///< flags as in the sysfs resource file
	bool make_files = true;           ///< create resourceN (and _wc if prefetchable)
};

struct fake_function {
	std::string bdf;
	std::uint16_t vendor, device, subsys_vendor = 0, subsys_device = 0;
	int numa_node = -1;
	std::string driver; ///< "" = unbound
	std::vector<fake_bar> bars;
	/** PCI Express capability: LNKCAP speed/width, LNKSTA speed/width, MPS/MRRS codes. */
	std::optional<std::uint16_t> lnkcap_speed, lnkcap_width, lnksta_speed, lnksta_width, mps_code, mrrs_code;
};

/** Creates a fresh tree under a temporary directory; removes it on destruction. */
class fake_sysfs {
public:
	fake_sysfs();
	~fake_sysfs();
	fake_sysfs(const fake_sysfs &) = delete;
	fake_sysfs &operator=(const fake_sysfs &) = delete;

	const std::filesystem::path &root() const noexcept { return root_; }
	std::filesystem::path dir(const std::string &bdf) const { return root_ / "bus/pci/devices" / bdf; }
	void add(const fake_function &f);

	/** Memory flags as the kernel writes them in the resource file. */
	static constexpr std::uint64_t mem32 = 0x40200, mem64_pref = 0x14220c, io = 0x40101;

private:
	std::filesystem::path root_;
};

/** Sets an environment variable for the scope of the object. */
class scoped_env {
public:
	scoped_env(const char *name, const std::string &value);
	~scoped_env();

private:
	std::string name_;
	std::optional<std::string> old_;
};

} // namespace pioc::test
