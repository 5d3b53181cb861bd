// PCI discovery with libpci (sysfs access method): IDs, BARs, driver, NUMA
// node, and the PCI Express link as a benchmark must report it.
#include "pci/pci.hpp"

#include <pioc/error.hpp>
#include "core/log.hpp"

#include <fmt/format.h>

extern "C" {
#include <pci/pci.h>
}

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace fs = std::filesystem;

namespace pioc::detail::pci {

fs::path sysfs_root()
{
	const char *e = std::getenv("PIOC_SYSFS_ROOT");
	return e && *e ? fs::path(e) : fs::path("/sys");
}

fs::path device_dir(std::string_view bdf)
{
	return sysfs_root() / "bus/pci/devices" / std::string(bdf);
}

bool is_pioc_id(std::uint16_t vendor, std::uint16_t device) noexcept
{
	static constexpr std::uint16_t xdma_ids[] = {
		0x9011, 0x9012, 0x9014, 0x9018, 0x901f, 0x9021, 0x9022, 0x9024, 0x9028, 0x902f,
		0x9031, 0x9032, 0x9034, 0x9038, 0x903f, 0x9041, 0x9042, 0x9044, 0x9048, 0x904f,
	};
	return vendor == 0x10ee && std::find(std::begin(xdma_ids), std::end(xdma_ids), device) != std::end(xdma_ids);
}

namespace {

// libpci reports fatal errors through a callback that must not return (its
// default calls exit()). Ours longjmps back to the guarded() call that
// entered libpci, which turns the message into a pioc::error. Only libpci's
// C frames and guarded()'s trivially destructible locals are skipped.
struct guard_frame {
	std::jmp_buf jb;
	char msg[512];
};
thread_local guard_frame *current_guard = nullptr;

[[noreturn]] void on_libpci_error(char *msg, ...)
{
	std::va_list ap;
	va_start(ap, msg);
	guard_frame *g = current_guard;
	if (!g) {
		std::vfprintf(stderr, msg, ap);
		std::fputs("\npioc: libpci failed outside a guarded call\n", stderr);
		std::abort();
	}
	std::vsnprintf(g->msg, sizeof g->msg, msg, ap);
	va_end(ap);
	std::longjmp(g->jb, 1);
}

void on_libpci_warning(char *msg, ...)
{
	char buf[512];
	std::va_list ap;
	va_start(ap, msg);
	std::vsnprintf(buf, sizeof buf, msg, ap);
	va_end(ap);
	log().info("libpci: {}", buf);
}

void on_libpci_debug(char *, ...) {}

template <class F> auto guarded(const char *what, F f)
{
	guard_frame g;
	guard_frame *const prev = current_guard;
	current_guard = &g;
	if (setjmp(g.jb)) {
		current_guard = prev;
		throw error(errc::os_error, fmt::format("libpci: {}: {}", what, g.msg));
	}
	if constexpr (std::is_void_v<decltype(f())>) {
		f();
		current_guard = prev;
	} else {
		auto r = f();
		current_guard = prev;
		return r;
	}
}

std::string bdf_of(const pci_dev *d)
{
	return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", d->domain, d->bus, d->dev, d->func);
}

bool bdf_less(const pci_dev *a, const pci_dev *b)
{
	return std::tie(a->domain, a->bus, a->dev, a->func) < std::tie(b->domain, b->bus, b->dev, b->func);
}

/** Link, MPS and MRRS from the PCI Express capability (0 where unreadable:
 *  without root, config space past 64 bytes is hidden). */
link_info read_link(pci_dev *d)
{
	link_info l;
	pci_cap *cap = guarded("finding the PCI Express capability",
			       [d] { return pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL); });
	if (!cap)
		return l;
	const unsigned base = cap->addr;
	const u32 lnkcap = guarded("reading LNKCAP", [d, base] { return pci_read_long(d, base + PCI_EXP_LNKCAP); });
	const u16 lnksta = guarded("reading LNKSTA", [d, base] { return pci_read_word(d, base + PCI_EXP_LNKSTA); });
	const u16 devctl = guarded("reading DEVCTL", [d, base] { return pci_read_word(d, base + PCI_EXP_DEVCTL); });
	if (lnkcap != 0xffffffffu) {
		l.max_gen = lnkcap & PCI_EXP_LNKCAP_SPEED;
		l.max_width = (lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4;
	}
	if (lnksta != 0xffff) {
		l.gen = lnksta & PCI_EXP_LNKSTA_SPEED;
		l.width = (lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4;
	}
	if (devctl != 0xffff) {
		l.mps = 128u << ((devctl & PCI_EXP_DEVCTL_PAYLOAD) >> 5);
		l.mrrs = 128u << ((devctl & PCI_EXP_DEVCTL_READRQ) >> 12);
	}
	return l;
}

/** One libpci session over <sysfs root>/bus/pci. */
class session {
public:
	session()
	{
		bus_ = (sysfs_root() / "bus/pci").string();
		a_ = pci_alloc();
		a_->error = on_libpci_error;
		a_->warning = on_libpci_warning;
		a_->debug = on_libpci_debug;
		a_->method = PCI_ACCESS_SYS_BUS_PCI;
		std::error_code ec;
		if (!fs::is_directory(fs::path(bus_) / "devices", ec)) {
			log().debug("no PCI bus under {}", bus_);
			return; // no PCI on this machine (or in this test tree)
		}
		try {
			guarded("setting sysfs.path", [this] {
				return pci_set_param(a_, const_cast<char *>("sysfs.path"), bus_.data());
			});
			// Names from pci.ids only: the udev hwdb path of libpci leaks its
			// udev context on every lookup (LeakSanitizer), and pci.ids is
			// what lspci -n -n shows anyway.
			guarded("setting hwdb.disable", [this] {
				return pci_set_param(a_, const_cast<char *>("hwdb.disable"), const_cast<char *>("1"));
			});
			guarded("initialising", [this] { pci_init(a_); });
			guarded(bus_.c_str(), [this] { pci_scan_bus(a_); });
		} catch (...) {
			cleanup();
			throw;
		}
		for (pci_dev *d = a_->devices; d; d = d->next)
			devs_.push_back(d);
		std::sort(devs_.begin(), devs_.end(), bdf_less);
	}
	~session() { cleanup(); }
	session(const session &) = delete;
	session &operator=(const session &) = delete;

	pci_access *get() const noexcept { return a_; }
	const std::vector<pci_dev *> &devices() const noexcept { return devs_; }
	const std::string &bus_path() const noexcept { return bus_; }

	device_info info(pci_dev *d) const
	{
		const std::string bdf = bdf_of(d);
		const std::string what = "reading " + bdf;
		const int want = PCI_FILL_IDENT | PCI_FILL_BASES | PCI_FILL_SIZES | PCI_FILL_CLASS | PCI_FILL_CAPS |
				 PCI_FILL_NUMA_NODE | PCI_FILL_IO_FLAGS | PCI_FILL_SUBSYS | PCI_FILL_DRIVER;
		const int known = guarded(what.c_str(), [d] { return pci_fill_info(d, want); });

		device_info di;
		di.bdf = bdf;
		di.spec = bdf;
		di.vendor = d->vendor_id;
		di.device = d->device_id;
		if (known & PCI_FILL_SUBSYS) {
			di.subsys_vendor = d->subsys_vendor_id;
			di.subsys_device = d->subsys_id;
		}
		if (known & PCI_FILL_DRIVER)
			if (const char *drv = guarded(what.c_str(), [d] { return pci_get_string_property(d, PCI_FILL_DRIVER); }))
				di.driver = drv;
		if (known & PCI_FILL_NUMA_NODE)
			di.numa_node = d->numa_node < 0 ? -1 : d->numa_node;
		char name[256];
		pci_access *a = a_;
		const u16 v = d->vendor_id, dv = d->device_id;
		di.description = guarded("looking up the device name", [&name, a, v, dv] {
			return pci_lookup_name(a, name, sizeof name, PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, v, dv);
		});
		if (known & PCI_FILL_CAPS)
			di.link = read_link(d);
		for (unsigned i = 0; i < 6; ++i) {
			if (!(known & PCI_FILL_SIZES) || d->size[i] == 0)
				continue; // not implemented, or the upper half of a 64-bit BAR
			bar_info b;
			b.index = i;
			b.size = d->size[i];
			const pciaddr_t base = d->base_addr[i];
			if (known & PCI_FILL_IO_FLAGS) {
				const pciaddr_t f = d->flags[i];
				b.is_io = f & PCI_IORESOURCE_IO;
				b.is_64bit = f & PCI_IORESOURCE_MEM_64;
				b.prefetchable = f & PCI_IORESOURCE_PREFETCH;
			} else {
				b.is_io = base & PCI_BASE_ADDRESS_SPACE_IO;
				b.is_64bit = !b.is_io && (base & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64;
				b.prefetchable = !b.is_io && (base & PCI_BASE_ADDRESS_MEM_PREFETCH);
			}
			b.phys = b.is_io ? (base & PCI_ADDR_IO_MASK) : (base & PCI_ADDR_MEM_MASK);
			di.bars.push_back(b);
		}
		di.transport = "sysfs";
		return di;
	}

private:
	void cleanup() noexcept
	{
		if (!a_)
			return;
		// pci_cleanup() only frees and closes; it has no error path.
		pci_cleanup(a_);
		a_ = nullptr;
	}

	std::string bus_;
	pci_access *a_ = nullptr;
	std::vector<pci_dev *> devs_;
};

std::string list_of(const std::vector<pci_dev *> &v)
{
	std::string s;
	for (const pci_dev *d : v)
		s += (s.empty() ? "" : ", ") + bdf_of(d);
	return s;
}

} // namespace

std::vector<device_info> scan()
{
	session s;
	std::vector<device_info> v;
	for (pci_dev *d : s.devices())
		v.push_back(s.info(d));
	return v;
}

device_info find(std::string_view spec)
{
	session s;
	pci_filter f;
	guarded("initialising a filter", [&s, &f] { pci_filter_init(s.get(), &f); });

	std::string text(spec);
	unsigned index = 0;
	const bool is_slot = text.find('.') != std::string::npos;
	if (auto hash = text.find('#'); hash != std::string::npos) {
		const std::string n = text.substr(hash + 1);
		char *end = nullptr;
		const unsigned long i = std::strtoul(n.c_str(), &end, 10);
		if (is_slot || n.empty() || *end || i > 255)
			throw error(errc::invalid_argument,
				    fmt::format("'{}': '#N' (0-based function number) only follows vendor:device, "
						"N a decimal 0..255, e.g. 10ee:9038#1", spec));
		index = static_cast<unsigned>(i);
		text.resize(hash);
	}
	if (is_slot) {
		if (const char *err = guarded("parsing a PCI address",
					      [&f, &text] { return pci_filter_parse_slot(&f, text.data()); }))
			throw error(errc::invalid_argument,
				    fmt::format("'{}' is not a PCI address ({}): expected [domain:]bus:device.function, "
						"e.g. 0000:01:00.0", spec, err));
		if (f.bus < 0 || f.slot < 0 || f.func < 0)
			throw error(errc::invalid_argument,
				    fmt::format("'{}' names several functions: give bus, device and function, "
						"e.g. 0000:01:00.0", spec));
	} else if (text.find(':') != std::string::npos) {
		if (const char *err = guarded("parsing vendor:device",
					      [&f, &text] { return pci_filter_parse_id(&f, text.data()); }))
			throw error(errc::invalid_argument,
				    fmt::format("'{}' is not a vendor:device pair ({}): expected hex IDs, e.g. 10ee:9038",
						spec, err));
		if (f.vendor < 0 || f.device < 0)
			throw error(errc::invalid_argument,
				    fmt::format("'{}': give both vendor and device ID, e.g. 10ee:9038", spec));
	} else {
		throw error(errc::invalid_argument,
			    fmt::format("'{}' is not a device spec: expected sim:NAME, rtl:NAME, a PCI address "
					"(0000:01:00.0), vendor:device[#n] (10ee:9038#1), sysfs:BDF or kmod:BDF", spec));
	}

	std::vector<pci_dev *> hits;
	for (pci_dev *d : s.devices())
		if (guarded("matching", [&f, d] { return pci_filter_match(&f, d); }))
			hits.push_back(d);

	if (hits.empty())
		throw error(errc::not_found,
			    fmt::format("no PCI function {} on this machine ({} functions under {}; "
					"`pioc-info --all` lists them)", spec, s.devices().size(), s.bus_path()));
	if (is_slot && hits.size() > 1)
		throw error(errc::invalid_argument,
			    fmt::format("'{}' matches {} functions ({}): give the domain too", spec, hits.size(),
					list_of(hits)));
	if (index >= hits.size())
		throw error(errc::not_found,
			    fmt::format("no PCI function {}: {} function{} match{} {} ({}), numbered from #0", spec,
					hits.size(), hits.size() == 1 ? "" : "s", hits.size() == 1 ? "es" : "",
					text, list_of(hits)));
	return s.info(hits[index]);
}

} // namespace pioc::detail::pci
