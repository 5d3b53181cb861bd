// libpci discovery and the sysfs transport, against a fake sysfs tree of
// regular files (PIOC_SYSFS_ROOT) and, read-only, against this machine's /sys.
#include "fake_sysfs.hpp"

#include "pci/pci.hpp"

#include <pioc/device.hpp>
#include <pioc/error.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include <fstream>
#include <numeric>
#include <vector>

using namespace pioc;
using pioc::test::fake_bar;
using pioc::test::fake_function;
using pioc::test::fake_sysfs;
using pioc::test::scoped_env;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;

// Two functions of the pioc image (one bound to pioc, one unbound), one
// foreign function.
void populate(fake_sysfs &t)
{
	fake_function a{"0000:0a:00.0", 0x10ee, 0x9038, 0x10ee, 0x0007, 0, "pioc", {}, {}, {}, {}, {}, {}, {}};
	a.bars = {{0, 0xf0000000, 64 * KiB, fake_sysfs::mem32},
		  {2, 0x4000000000, 1 * MiB, fake_sysfs::mem64_pref},
		  {4, 0xe000, 0x20, fake_sysfs::io}};
	a.lnkcap_speed = 3, a.lnkcap_width = 16, a.lnksta_speed = 3, a.lnksta_width = 8;
	a.mps_code = 1, a.mrrs_code = 2; // 256, 512 bytes
	t.add(a);
	fake_function b{"0000:0c:00.0", 0x10ee, 0x9038, 0, 0, 1, "", {}, {}, {}, {}, {}, {}, {}};
	b.bars = {{0, 0xf1000000, 4 * KiB, fake_sysfs::mem32, false}};
	t.add(b);
	fake_function c{"0000:0b:00.0", 0x8086, 0x1234, 0, 0, -1, "e1000e", {}, {}, {}, {}, {}, {}, {}};
	c.bars = {{0, 0xf2000000, 128 * KiB, fake_sysfs::mem32}};
	t.add(c);
}

std::vector<std::uint8_t> read_file(const fs::path &p)
{
	std::ifstream f(p, std::ios::binary);
	return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

template <class F> void require_error(F f, errc code, std::vector<std::string> needles)
{
	try {
		f();
		FAIL("no pioc::error thrown");
	} catch (const error &e) {
		INFO(e.what());
		CHECK(e.code() == code);
		for (const auto &n : needles)
			CHECK(std::string(e.what()).find(n) != std::string::npos);
	}
}

// The message only: for errors whose code belongs to another component.
template <class F> void require_message(F f, std::vector<std::string> needles)
{
	try {
		f();
		FAIL("no pioc::error thrown");
	} catch (const error &e) {
		INFO(e.what());
		for (const auto &n : needles)
			CHECK(std::string(e.what()).find(n) != std::string::npos);
	}
}

const device_info *by_bdf(const std::vector<device_info> &v, const std::string &bdf)
{
	auto it = std::find_if(v.begin(), v.end(), [&](const device_info &d) { return d.bdf == bdf; });
	return it == v.end() ? nullptr : &*it;
}

} // namespace

TEST_CASE("discovery reads IDs, driver, NUMA node, link and BARs through libpci")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());

	const auto all = detail::pci::scan();
	REQUIRE(all.size() == 3);
	CHECK(all[0].bdf == "0000:0a:00.0"); // sorted by BDF
	CHECK(all[1].bdf == "0000:0b:00.0");
	CHECK(all[2].bdf == "0000:0c:00.0");

	const device_info &d = all[0];
	CHECK(d.spec == "0000:0a:00.0");
	CHECK(d.vendor == 0x10ee);
	CHECK(d.device == 0x9038);
	CHECK(d.subsys_vendor == 0x10ee);
	CHECK(d.subsys_device == 0x0007);
	CHECK(d.driver == "pioc");
	CHECK(d.numa_node == 0);
	CHECK(d.transport == "sysfs");
	CHECK(!d.simulated);
	CHECK(d.link.gen == 3);
	CHECK(d.link.width == 8);
	CHECK(d.link.max_gen == 3);
	CHECK(d.link.max_width == 16);
	CHECK(d.link.mps == 256);
	CHECK(d.link.mrrs == 512);
	REQUIRE(d.bars.size() == 3);
	CHECK(d.bars[0].index == 0);
	CHECK(d.bars[0].size == 64 * KiB);
	CHECK(d.bars[0].phys == 0xf0000000);
	CHECK(!d.bars[0].prefetchable);
	CHECK(!d.bars[0].is_64bit);
	CHECK(!d.bars[0].is_io);
	CHECK(d.bars[1].index == 2);
	CHECK(d.bars[1].size == 1 * MiB);
	CHECK(d.bars[1].phys == 0x4000000000);
	CHECK(d.bars[1].prefetchable);
	CHECK(d.bars[1].is_64bit);
	CHECK(d.bars[2].index == 4);
	CHECK(d.bars[2].is_io);
	CHECK(d.bars[2].size == 0x20);

	// No PCI Express capability: link unknown (0), not made up.
	CHECK(all[2].link.gen == 0);
	CHECK(all[2].link.mps == 0);
	CHECK(all[2].numa_node == 1);
	CHECK(all[1].driver == "e1000e");
	CHECK(all[1].numa_node == -1);
}

TEST_CASE("list_devices: simulated devices, pioc's PCI functions, or all with --all")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());

	const auto known = list_devices(false);
	CHECK(std::any_of(known.begin(), known.end(), [](const device_info &d) { return d.spec == "sim:pio"; }));
	CHECK(by_bdf(known, "0000:0a:00.0"));
	CHECK(by_bdf(known, "0000:0c:00.0"));
	CHECK(!by_bdf(known, "0000:0b:00.0"));

	const auto every = list_devices(true);
	CHECK(by_bdf(every, "0000:0b:00.0"));
	CHECK(every.size() == known.size() + 1);
}

TEST_CASE("specs resolve by BDF, short BDF and vendor:device[#n]")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());

	CHECK(device::open("0000:0a:00.0").info().bdf == "0000:0a:00.0");
	CHECK(device::open("0a:00.0").info().bdf == "0000:0a:00.0");
	CHECK(device::open("sysfs:0000:0c:00.0").info().bdf == "0000:0c:00.0");
	CHECK(device::open("10ee:9038").info().bdf == "0000:0a:00.0");
	CHECK(device::open("10ee:9038#0").info().bdf == "0000:0a:00.0");
	CHECK(device::open("10ee:9038#1").info().bdf == "0000:0c:00.0");
	CHECK(device::open("8086:1234").info().bdf == "0000:0b:00.0");
	CHECK(device::open("sysfs:0a:00.0").get_transport().name() == "sysfs");
}

TEST_CASE("unknown devices and malformed specs give the documented errors")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());

	require_error([] { device::open("0000:99:00.0"); }, errc::not_found,
		      {"no PCI function 0000:99:00.0", "3 functions", "pioc-info --all"});
	require_error([] { device::open("dead:beef"); }, errc::not_found, {"no PCI function dead:beef"});
	require_error([] { device::open("10ee:9038#2"); }, errc::not_found,
		      {"10ee:9038#2", "2 functions match", "0000:0a:00.0, 0000:0c:00.0", "#0"});
	require_error([] { device::open("bogus"); }, errc::invalid_argument, {"'bogus' is not a device spec"});
	require_error([] { device::open("0a:00.0#1"); }, errc::invalid_argument, {"only follows vendor:device"});
	require_error([] { device::open("10ee:9038#x"); }, errc::invalid_argument, {"'10ee:9038#x'"});
	require_error([] { device::open("zz:00.0"); }, errc::invalid_argument, {"'zz:00.0' is not a PCI address"});
	require_error([] { device::open("0a:*.0"); }, errc::invalid_argument, {"names several functions"});
	require_error([] { device::open("sim:nothing"); }, errc::not_found, {"no simulated device 'sim:nothing'"});
}

TEST_CASE("a machine without a PCI bus lists only simulated devices")
{
	fake_sysfs t; // bus/pci/devices exists but is empty
	scoped_env env("PIOC_SYSFS_ROOT", (t.root() / "nothing-here").string());
	for (const auto &d : list_devices(true))
		CHECK(d.simulated);
	require_error([] { device::open("0000:01:00.0"); }, errc::not_found, {"no PCI function 0000:01:00.0", "0 functions"});
}

TEST_CASE("sysfs transport: a uc mapping of resourceN writes and reads the file")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());
	auto dev = device::open("sysfs:0000:0a:00.0");
	CHECK(dev.get_transport().name() == "sysfs");
	CHECK(!dev.simulated());

	// A value already in the "device" is seen through the mapping.
	{
		std::fstream f(t.dir("0000:0a:00.0") / "resource0", std::ios::in | std::ios::out | std::ios::binary);
		f.seekp(0x100);
		const std::uint32_t v = 0xc0ffee42;
		f.write(reinterpret_cast<const char *>(&v), 4);
	}
	region r = dev.map(0, mem_type::uc);
	CHECK(r.size() == 64 * KiB);
	CHECK(r.type() == mem_type::uc);
	CHECK(!r.simulated());
	CHECK(r.name() == "0000:0a:00.0 BAR0 (uc)");
	CHECK(r.read<std::uint32_t>(0x100) == 0xc0ffee42);

	// A pattern written through the mapping lands in the file.
	std::vector<std::uint8_t> pat(4096 + 13);
	std::iota(pat.begin(), pat.end(), std::uint8_t(7));
	r.copy_to(0x2003, pat.data(), pat.size());
	r.write<std::uint64_t>(64 * KiB - 8, 0x1122334455667788ull);
	const auto file = read_file(t.dir("0000:0a:00.0") / "resource0");
	REQUIRE(file.size() == 64 * KiB);
	CHECK(std::equal(pat.begin(), pat.end(), file.begin() + 0x2003));
	std::uint64_t last;
	std::memcpy(&last, file.data() + 64 * KiB - 8, 8);
	CHECK(last == 0x1122334455667788ull);

	// Bounds are the BAR's, named in the error.
	require_error([&] { r.read<std::uint32_t>(64 * KiB); }, errc::out_of_range, {"0000:0a:00.0 BAR0"});
}

TEST_CASE("sysfs transport: wc maps resourceN_wc of a prefetchable BAR")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());
	auto dev = device::open("0000:0a:00.0");
	region r = dev.map(2, mem_type::wc);
	CHECK(r.type() == mem_type::wc);
	CHECK(r.size() == 1 * MiB);
	std::vector<std::uint8_t> pat(512);
	std::iota(pat.begin(), pat.end(), std::uint8_t(1));
	r.copy_to(1 * MiB - 512, pat.data(), pat.size());
	r.visit([](const auto &io) { io.wc_flush(); });
	const auto wc = read_file(t.dir("0000:0a:00.0") / "resource2_wc");
	const auto uc = read_file(t.dir("0000:0a:00.0") / "resource2");
	CHECK(std::equal(pat.begin(), pat.end(), wc.begin() + (1 * MiB - 512)));
	CHECK(std::all_of(uc.begin(), uc.end(), [](std::uint8_t b) { return b == 0; }));
}

TEST_CASE("sysfs transport refuses what it cannot map, naming device, BAR and rule")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());
	auto dev = device::open("sysfs:0000:0a:00.0");

	require_error([&] { dev.map(0, mem_type::wc); }, errc::not_supported,
		      {"0000:0a:00.0 BAR0", "resource0_wc", "non-prefetchable", "map it uc"});
	require_error([&] { dev.map(2, mem_type::wt); }, errc::not_supported,
		      {"0000:0a:00.0 BAR2", "memory type wt", "kmod:0000:0a:00.0"});
	require_error([&] { dev.map(0, mem_type::wb); }, errc::not_supported, {"BAR0", "memory type wb"});
	require_error([&] { dev.map(4, mem_type::uc); }, errc::not_supported, {"BAR4", "I/O-port BAR", "32 bytes"});
	require_error([&] { dev.map(1, mem_type::uc); }, errc::not_found,
		      {"0000:0a:00.0: BAR1 is not implemented", "BAR0, BAR2, BAR4"});
	require_error([&] { dev.map(6, mem_type::uc); }, errc::not_found, {"BAR6 does not exist", "BAR0..BAR5"});
	require_error([&] { dev.alloc_dma(4096); }, errc::not_supported, {"0000:0a:00.0", "sysfs", "4096 bytes"});

	// Function 0c's BAR has no resource file (e.g. removed under us).
	auto other = device::open("sysfs:0000:0c:00.0");
	require_error([&] { other.map(0, mem_type::uc); }, errc::not_found,
		      {"0000:0c:00.0 BAR0: cannot open", "resource0"});
	// A resource file shorter than the BAR is refused, not mapped short.
	fs::resize_file(t.dir("0000:0a:00.0") / "resource0", 4 * KiB);
	require_error([&] { dev.map(0, mem_type::uc); }, errc::os_error, {"resource0 is 4096 bytes but the BAR is 65536"});
}

TEST_CASE("discovery of this machine's /sys agrees with the files libpci reads")
{
	// Read-only: every function under /sys/bus/pci/devices is listed once
	// with the vendor/device IDs of its sysfs files.
	const fs::path devs = "/sys/bus/pci/devices";
	std::error_code ec;
	if (!fs::is_directory(devs, ec))
		return; // no PCI on this machine
	scoped_env env("PIOC_SYSFS_ROOT", "/sys");
	const auto found = detail::pci::scan();
	std::size_t n = 0;
	for (const auto &e : fs::directory_iterator(devs)) {
		++n;
		const auto *d = by_bdf(found, e.path().filename().string());
		REQUIRE(d);
		unsigned v = 0, id = 0;
		std::ifstream(e.path() / "vendor") >> std::hex >> v;
		std::ifstream(e.path() / "device") >> std::hex >> id;
		CHECK(d->vendor == v);
		CHECK(d->device == id);
		std::error_code lec;
		const auto drv = fs::read_symlink(e.path() / "driver", lec);
		CHECK(d->driver == (lec ? std::string() : drv.filename().string()));
	}
	CHECK(found.size() == n);
}

TEST_CASE("dispatch: a function with a pioc device node opens through the module")
{
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());
	const fs::path nodes = t.root() / "dev-pioc";
	fs::create_directories(nodes);
	scoped_env dev_env("PIOC_DEV_DIR", nodes.string());
	// Not a real pioc node: a regular file, so the module's version
	// handshake (an ioctl) fails. That error proves the kmod route was taken.
	std::ofstream(nodes / "0000:0a:00.0").put('\0');

	require_message([] { device::open("0000:0a:00.0"); }, {(nodes / "0000:0a:00.0").string(), "PIOC_IOC_VERSION"});
	require_message([] { device::open("10ee:9038"); }, {"PIOC_IOC_VERSION"});
	// sysfs: forces resource files even so.
	CHECK(device::open("sysfs:0a:00.0").get_transport().name() == "sysfs");
	// Without a node, plain BDFs use sysfs and kmod: says what is missing.
	CHECK(device::open("0000:0c:00.0").get_transport().name() == "sysfs");
	require_error([] { device::open("kmod:0000:0c:00.0"); }, errc::not_found,
		      {(nodes / "0000:0c:00.0").string(), "bound to pioc"});

	const auto known = list_devices(false);
	REQUIRE(by_bdf(known, "0000:0a:00.0"));
	CHECK(by_bdf(known, "0000:0a:00.0")->transport == "kmod");
	CHECK(by_bdf(known, "0000:0c:00.0")->transport == "sysfs");
}

namespace {

// Runs @p f in a child process and returns its exit status and what @p f
// returned. libpci's error path leaks what it had open when it failed (its
// errors are not meant to return), so tests of that path run apart: the
// leak dies with the child instead of failing the sanitizer build.
std::pair<int, std::string> in_child(const std::function<std::string()> &f)
{
	int fds[2];
	REQUIRE(::pipe(fds) == 0);
	std::fflush(nullptr);
	const pid_t pid = ::fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		::close(fds[0]);
		std::string out;
		try {
			out = f();
		} catch (const std::exception &e) {
			out = std::string("unexpected exception: ") + e.what();
		}
		const auto n = ::write(fds[1], out.data(), out.size());
		::_exit(n == static_cast<ssize_t>(out.size()) ? 0 : 3);
	}
	::close(fds[1]);
	std::string out;
	char buf[4096];
	for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
		out.append(buf, static_cast<std::size_t>(n));
	::close(fds[0]);
	int st = 0;
	::waitpid(pid, &st, 0);
	return {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out};
}

// "code: message" of the pioc::error @p g throws, or "no error".
template <class G> std::string error_of(G g)
{
	try {
		g();
		return "no error";
	} catch (const error &e) {
		return std::string(to_string(e.code())) + ": " + e.what();
	}
}

} // namespace

TEST_CASE("libpci failures become pioc::errors instead of exiting the process", "[native]")
{
	// libpci's default error handler calls exit(); ours must throw, and
	// libpci must work again on the next call.
	fake_sysfs t;
	populate(t);
	scoped_env env("PIOC_SYSFS_ROOT", t.root().string());
	fs::remove(t.dir("0000:0b:00.0") / "vendor");
	auto [st1, out1] = in_child([] {
		return error_of([] { list_devices(true); }) + "\n" + error_of([] { device::open("10ee:9038"); });
	});
	INFO(out1);
	CHECK(st1 == 0);
	CHECK(out1.find("os_error: libpci: ") == 0);
	CHECK(out1.find("0000:0b:00.0/vendor") != std::string::npos);
	CHECK(out1.find("\nos_error: libpci: ") != std::string::npos);

	fs::remove_all(t.dir("0000:0b:00.0"));
	fs::create_directories(t.root() / "bus/pci/devices/not-a-device");
	const fs::path bad = t.root() / "bus/pci/devices/not-a-device";
	auto [st2, out2] = in_child([&] {
		std::string r = error_of([] { list_devices(true); });
		fs::remove_all(bad);
		return r + "\n" + std::to_string(list_devices(true).size());
	});
	INFO(out2);
	CHECK(st2 == 0);
	CHECK(out2.find("os_error: libpci: ") == 0);
	CHECK(out2.find("not-a-device") != std::string::npos);
	// After the failure, the next scan works (sim devices + 2 functions).
	CHECK(out2.substr(out2.rfind('\n') + 1) == std::to_string(list_devices(false).size()));
}
