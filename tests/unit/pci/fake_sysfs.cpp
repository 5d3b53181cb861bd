#include "fake_sysfs.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace pioc::test {

namespace {
void write_text(const fs::path &p, const std::string &s)
{
	std::ofstream f(p);
	f << s;
	if (!f)
		throw std::runtime_error("cannot write " + p.string());
}
void write_sized(const fs::path &p, std::uint64_t size)
{
	std::ofstream f(p, std::ios::binary);
	f.close();
	fs::resize_file(p, size);
}
} // namespace

fake_sysfs::fake_sysfs()
{
	std::string tmpl = (fs::temp_directory_path() / "pioc-fake-sysfs-XXXXXX").string();
	if (!::mkdtemp(tmpl.data()))
		throw std::runtime_error("mkdtemp failed");
	root_ = tmpl;
	fs::create_directories(root_ / "bus/pci/devices");
	fs::create_directories(root_ / "bus/pci/drivers");
}

fake_sysfs::~fake_sysfs()
{
	std::error_code ec;
	fs::remove_all(root_, ec);
}

void fake_sysfs::add(const fake_function &f)
{
	const fs::path d = dir(f.bdf);
	fs::create_directories(d);
	write_text(d / "vendor", fmt::format("0x{:04x}\n", f.vendor));
	write_text(d / "device", fmt::format("0x{:04x}\n", f.device));
	write_text(d / "subsystem_vendor", fmt::format("0x{:04x}\n", f.subsys_vendor));
	write_text(d / "subsystem_device", fmt::format("0x{:04x}\n", f.subsys_device));
	write_text(d / "class", "0x058000\n");
	write_text(d / "irq", "0\n");
	write_text(d / "numa_node", fmt::format("{}\n", f.numa_node));
	write_text(d / "enable", "1\n");
	if (!f.driver.empty()) {
		fs::create_directories(root_ / "bus/pci/drivers" / f.driver);
		fs::create_directory_symlink(fs::path("../../drivers") / f.driver, d / "driver");
	}

	// Config space: header type 0, capability list with one PCI Express
	// capability at 0x40 when a link is given.
	std::vector<std::uint8_t> cfg(4096, 0);
	auto put16 = [&](unsigned o, std::uint16_t v) { cfg[o] = v & 0xff, cfg[o + 1] = v >> 8; };
	auto put32 = [&](unsigned o, std::uint32_t v) { put16(o, v & 0xffff), put16(o + 2, v >> 16); };
	put16(0x00, f.vendor);
	put16(0x02, f.device);
	cfg[0x0b] = 0x05; // class: memory controller
	put16(0x2c, f.subsys_vendor);
	put16(0x2e, f.subsys_device);
	if (f.lnksta_speed) {
		put16(0x06, 0x0010); // status: capability list
		cfg[0x34] = 0x40;
		cfg[0x40] = 0x10; // PCI Express
		cfg[0x41] = 0x00; // end of list
		put16(0x42, 0x0002); // v2, endpoint
		put16(0x48, static_cast<std::uint16_t>((*f.mps_code << 5) | (*f.mrrs_code << 12)));
		put32(0x4c, static_cast<std::uint32_t>(*f.lnkcap_speed | (*f.lnkcap_width << 4)));
		put16(0x52, static_cast<std::uint16_t>(*f.lnksta_speed | (*f.lnksta_width << 4)));
	}
	{
		std::ofstream c(d / "config", std::ios::binary);
		c.write(reinterpret_cast<const char *>(cfg.data()), static_cast<std::streamsize>(cfg.size()));
	}

	std::string table;
	for (unsigned i = 0; i < 7; ++i) {
		const fake_bar *b = nullptr;
		for (const auto &x : f.bars)
			if (x.index == i)
				b = &x;
		if (!b) {
			table += "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
			continue;
		}
		table += fmt::format("0x{:016x} 0x{:016x} 0x{:016x}\n", b->start, b->start + b->size - 1, b->flags);
		if (b->make_files && !(b->flags & 0x100)) {
			write_sized(d / fmt::format("resource{}", i), b->size);
			if (b->flags & 0x2000)
				write_sized(d / fmt::format("resource{}_wc", i), b->size);
		}
	}
	write_text(d / "resource", table);
}

scoped_env::scoped_env(const char *name, const std::string &value) : name_(name)
{
	if (const char *o = std::getenv(name))
		old_ = o;
	::setenv(name, value.c_str(), 1);
}

scoped_env::~scoped_env()
{
	if (old_)
		::setenv(name_.c_str(), old_->c_str(), 1);
	else
		::unsetenv(name_.c_str());
}

} // namespace pioc::test
