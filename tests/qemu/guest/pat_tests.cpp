// x86 PAT per range, in the guest (-cpu max has PAT): the module grants WC
// and UC on disjoint ranges of one BAR and refuses only what would give a
// page two types. Each mapping's type is checked twice: the granted field,
// and the kernel's own PAT reservations (debugfs x86/pat_memtype_list),
// where a WC mapping must show as a write-combining reservation of exactly
// its range and a UC one as none (a fault-mapped page with no reservation
// is UC-).
#include "pat_tests.hpp"

#include "guest_util.hpp"

#include <optional>
#include <sstream>
#include <sys/mount.h>

namespace guest {
namespace {

constexpr unsigned testdev_vendor = 0x1b36, testdev_device = 0x0005, testdev_bar = 2;
constexpr char pat_list[] = "/sys/kernel/debug/x86/pat_memtype_list";

struct pat_entry {
	std::uint64_t start, end; // as the kernel prints them
	std::string type;
};

/** The kernel's PAT reservations ("PAT: [mem 0xS-0xE] type"). */
std::vector<pat_entry> pat_entries()
{
	if (!fs::exists(pat_list))
		::mount("debugfs", "/sys/kernel/debug", "debugfs", 0, nullptr);
	std::ifstream in(pat_list);
	EXPECT(in.good(), "{} not readable (debugfs: {})", pat_list, std::strerror(errno));
	std::vector<pat_entry> v;
	std::string line;
	while (std::getline(in, line)) {
		const auto a = line.find("0x");
		const auto dash = a == std::string::npos ? a : line.find('-', a);
		const auto close = dash == std::string::npos ? dash : line.find(']', dash);
		if (close == std::string::npos)
			continue;
		pat_entry e;
		e.start = std::strtoull(line.c_str() + a, nullptr, 16);
		e.end = std::strtoull(line.c_str() + dash + 1, nullptr, 16);
		std::istringstream(line.substr(close + 1)) >> e.type;
		v.push_back(e);
	}
	EXPECT(!v.empty(), "{} lists no reservation at all: format not understood", pat_list);
	return v;
}

/** The write-combining reservations overlapping [lo, hi). */
std::vector<pat_entry> wc_over(std::uint64_t lo, std::uint64_t hi)
{
	std::vector<pat_entry> out;
	for (const auto &e : pat_entries())
		if (e.type == "write-combining" && e.start < hi && lo < e.end)
			out.push_back(e);
	return out;
}

std::string show(const std::vector<pat_entry> &v)
{
	std::string s;
	for (const auto &e : v)
		s += fmt::format(" [{:#x}-{:#x}] {}", e.start, e.end, e.type);
	return s.empty() ? " none" : s;
}

/** PIOC_IOC_MAP of [start, start + length) of the BAR as @p type: its errno. */
int raw_map(int fd, std::uint64_t start, std::uint64_t length, std::uint32_t type)
{
	auto m = hdr<pioc_map>();
	m.target = PIOC_MAP_BAR;
	m.index = testdev_bar;
	m.mem_type = type;
	m.start = start;
	m.length = length;
	if (::ioctl(fd, PIOC_IOC_MAP, &m) == 0) {
		auto u = hdr<pioc_unmap>();
		u.handle = m.handle;
		::ioctl(fd, PIOC_IOC_UNMAP, &u);
		return 0;
	}
	return errno;
}

void touch(const pioc::region &r)
{
	(void)r.read<std::uint32_t>(0);
	(void)r.read<std::uint32_t>(r.size() - 4);
}

void test_pat_ranges()
{
	const std::string bdf = need_bdf(testdev_vendor, testdev_device);
	wait_node(bdf);
	auto t = transport::open(bdf);
	EXPECT(t->version().caps & PIOC_CAP_MEM_WC, "the module grants no WC here (PAT off?): caps {:#x}",
	       t->version().caps);
	const auto &b = t->info().bars[testdev_bar];
	EXPECT(b.prefetchable && b.size >= (8u << 20), "BAR{} {:#x} prefetchable {}", testdev_bar, b.size,
	       b.prefetchable);
	const std::uint64_t a = b.size / 2, lo = b.phys, mid = b.phys + a, hi = b.phys + b.size;
	const int fd = t->dev_file()->fd();

	// UC on [0, a), then WC on [a, end): both as asked.
	pioc::region uc = t->map_range_granted(testdev_bar, 0, a, pioc::mem_type::uc);
	EXPECT(uc.type() == pioc::mem_type::uc && uc.size() == a, "UC [0, {:#x}): granted {} size {:#x}", a,
	       pioc::to_string(uc.type()), uc.size());
	std::optional<pioc::region> wc = t->map_range_granted(testdev_bar, a, 0, pioc::mem_type::wc);
	EXPECT(wc->type() == pioc::mem_type::wc, "WC [{:#x}, end) beside UC [0, {:#x}): granted {}", a, a,
	       pioc::to_string(wc->type()));
	EXPECT(wc->size() == b.size - a, "WC size {:#x}", wc->size());
	touch(uc);
	touch(*wc);
	const auto high = wc_over(lo, hi);
	EXPECT(high.size() == 1 && high[0].start == mid && (high[0].end == hi || high[0].end == hi - 1),
	       "PAT reservations over the BAR {:#x}..{:#x}:{}; want write-combining exactly {:#x}..{:#x}", lo, hi,
	       show(high), mid, hi);

	// UC over WC pages is refused: straddling the boundary, and inside.
	EXPECT(raw_map(fd, a - 4096, 8192, PIOC_MEM_UC) == EBUSY, "UC across the WC boundary not refused");
	EXPECT(raw_map(fd, a, 4096, PIOC_MEM_UC) == EBUSY, "UC inside the WC range not refused");
	// WC over UC pages is granted UC, and reserves nothing there.
	pioc::region wc_low = t->map_range_granted(testdev_bar, 0, 4096, pioc::mem_type::wc);
	EXPECT(wc_low.type() == pioc::mem_type::uc, "WC over the UC range: granted {}", pioc::to_string(wc_low.type()));
	touch(wc_low);
	EXPECT(wc_over(lo, mid).empty(), "a WC reservation over the UC range:{}", show(wc_over(lo, mid)));
	// A second file sees the same rule: it is one device's pages, not a file's.
	auto t2 = transport::open(bdf);
	EXPECT(raw_map(t2->dev_file()->fd(), a, 0, PIOC_MEM_UC) == EBUSY, "another file's UC over WC accepted");

	// Unmapping the WC range gives its reservation back; UC of it is granted.
	wc.reset();
	EXPECT(wc_over(lo, hi).empty(), "WC reservation left after unmap:{}", show(wc_over(lo, hi)));
	pioc::region uc_high = t2->map_range_granted(testdev_bar, a, 0, pioc::mem_type::uc);
	EXPECT(uc_high.type() == pioc::mem_type::uc, "UC [{:#x}, end) after the WC unmap: granted {}", a,
	       pioc::to_string(uc_high.type()));
	touch(uc_high);
	std::printf("pat-ranges: BAR%u %#llx..%#llx: UC [0, %#llx) and WC [%#llx, end) granted; reservation%s\n",
		    testdev_bar, static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
		    static_cast<unsigned long long>(a), static_cast<unsigned long long>(a), show(high).c_str());
}

} // namespace

bool run_pat_test(const std::string &name)
{
	if (name != "pat-ranges")
		return false;
	run(name, test_pat_ranges);
	return true;
}

} // namespace guest
