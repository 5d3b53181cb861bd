// Runs inside the QEMU guest against the real pioc module and QEMU's
// virtual PCI devices, through libpioc. Every check prints one marker line:
//   PIOC-TEST PASS <name>
//   PIOC-TEST FAIL <name>: <reason>
// and the host harness (tests/qemu/run) decides from those lines.
//
//   pioc-qemu-guest <test>... [--seed N]   run the named tests
//   pioc-qemu-guest hold <BDF>             keep the device open until killed
#include "kmod/kmod_transport.hpp"

#include <pioc/regs/coh_dev.hpp>
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/region.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using pioc::kmod::transport;

#include "guest_util.hpp"
#include "lifetime_tests.hpp"
#include "pat_tests.hpp"

using namespace guest;

namespace {

void test_handshake()
{
	auto t = open_edu();
	const auto &v = t->version();
	EXPECT(v.kernel_version == PIOC_API_VERSION, "module version {}", v.kernel_version);
	EXPECT(v.kind == PIOC_KIND_PCI, "kind {}", v.kind);
	EXPECT((v.caps & (PIOC_CAP_PCI | PIOC_CAP_DMA | PIOC_CAP_IRQ)) ==
		       (PIOC_CAP_PCI | PIOC_CAP_DMA | PIOC_CAP_IRQ), "caps {:#x}", v.caps);
	EXPECT(v.irq_type == PIOC_IRQ_MSI && v.num_irqs == 1, "edu has one MSI: type {} n {}",
	       v.irq_type, v.num_irqs);
	// The handshake refuses a library newer than the module.
	auto nv = hdr<pioc_version>();
	nv.user_version = PIOC_API_VERSION + 1;
	expect_errno(t->dev_file()->fd(), PIOC_IOC_VERSION, &nv, EPROTO, "newer user_version");
	EXPECT(t->info().vendor == edu_vendor && t->info().device == edu_device, "ids {:04x}:{:04x}",
	       t->info().vendor, t->info().device);
}

void test_bar_info()
{
	auto t = open_edu();
	const auto &bars = t->info().bars;
	EXPECT(bars.size() == 6, "{} BARs", bars.size());
	const auto r = sysfs_resource(t->info().bdf, 0);
	EXPECT(bars[0].size == 1 << 20, "edu BAR0 is 1 MiB, module says {:#x}", bars[0].size);
	EXPECT(bars[0].phys == r[0] && bars[0].size == r[1] - r[0] + 1,
	       "BAR0 {:#x}+{:#x} vs sysfs {:#x}..{:#x}", bars[0].phys, bars[0].size, r[0], r[1]);
	EXPECT(!bars[0].prefetchable && !bars[0].is_io && !bars[0].is_64bit, "edu BAR0 flags");
	for (unsigned i = 1; i < 6; i++)
		EXPECT(bars[i].size == 0, "BAR{} should be absent, size {:#x}", i, bars[i].size);
	EXPECT(t->info().numa_node == -1 || t->info().numa_node == 0, "numa {}", t->info().numa_node);
}

void test_edu_pio()
{
	auto t = open_edu();
	pioc::region bar = t->map_bar(0, pioc::mem_type::uc);
	EXPECT(bar.type() == pioc::mem_type::uc, "granted {}", pioc::to_string(bar.type()));
	EXPECT(bar.size() == 1 << 20, "size {:#x}", bar.size());
	const auto id = bar.read<std::uint32_t>(EDU_ID);
	EXPECT(id == 0x010000ed, "identification {:#x}", id);
	for (std::uint32_t x : {0u, 0x12345678u, 0xdeadbeefu, 0xffffffffu}) {
		bar.write<std::uint32_t>(EDU_LIVE, x);
		const auto y = bar.read<std::uint32_t>(EDU_LIVE);
		EXPECT(y == ~x, "liveness: wrote {:#x} read {:#x}", x, y);
		EXPECT(y != x || x != ~x, "liveness check cannot tell a plain echo");
	}
	// Invoke a function on the device: n! by polling.
	bar.write<std::uint32_t>(EDU_FACT, 10);
	const auto t0 = std::chrono::steady_clock::now();
	while (bar.read<std::uint32_t>(EDU_STATUS) & 1)
		EXPECT(std::chrono::steady_clock::now() - t0 < 5s, "factorial did not finish");
	const auto f = bar.read<std::uint32_t>(EDU_FACT);
	EXPECT(f == 3628800, "10! = {}", f);

	// And by interrupt: status bit 7 asks for one when done.
	auto ev = t->irq(0);
	EXPECT(ev->poll_now() == 0, "spurious interrupt before the call");
	bar.write<std::uint32_t>(EDU_STATUS, 0x80);
	bar.write<std::uint32_t>(EDU_FACT, 12);
	const auto n = ev->wait(5000ms);
	EXPECT(n >= 1, "no factorial interrupt within 5 s");
	const auto st = bar.read<std::uint32_t>(EDU_IRQ_STATUS);
	EXPECT(st & 1, "interrupt status {:#x}", st);
	bar.write<std::uint32_t>(EDU_IRQ_ACK, st);
	const auto f12 = bar.read<std::uint32_t>(EDU_FACT);
	EXPECT(f12 == 479001600, "12! = {}", f12);
	EXPECT(ev->kernel_count() >= 1, "module counted no interrupt");
	bar.write<std::uint32_t>(EDU_STATUS, 0);
	EXPECT(ev->wait(50ms) == 0, "blocking wait returned without an interrupt");

	// Many at once through io_uring (edu has one vector: the ring must time
	// out with nothing pending and report exactly the one that fires).
	{
		pioc::kmod::irq_ring ring({ev.get()});
		EXPECT(ring.wait(50ms).empty(), "io_uring wait reported an interrupt that did not happen");
		bar.write<std::uint32_t>(0x60, 0x4); // edu: raise interrupt 0x4
		const auto fired = ring.wait(5000ms);
		EXPECT(fired.size() == 1 && fired[0].index == 0 && fired[0].count >= 1,
		       "io_uring: {} events fired", fired.size());
		const auto st4 = bar.read<std::uint32_t>(EDU_IRQ_STATUS);
		EXPECT(st4 == 0x4, "raised interrupt status {:#x}", st4);
		bar.write<std::uint32_t>(EDU_IRQ_ACK, st4);
	}
	// An eventfd of a vector already owned by another file is refused.
	auto t2 = open_edu();
	try {
		t2->irq(0);
		EXPECT(false, "second owner of vector 0 accepted");
	} catch (const pioc::error &e) {
		EXPECT(e.code() == pioc::errc::permission, "second owner: {}", e.what());
	}
}

/** One edu DMA transfer, completed by interrupt. */
void edu_dma(const pioc::region &bar, pioc::kmod::irq_event &ev, std::uint64_t src, std::uint64_t dst,
	     std::uint64_t n, bool to_ram)
{
	bar.write<std::uint64_t>(EDU_DMA_SRC, src);
	bar.write<std::uint64_t>(EDU_DMA_DST, dst);
	bar.write<std::uint64_t>(EDU_DMA_CNT, n);
	bar.write<std::uint64_t>(EDU_DMA_CMD, 1 | (to_ram ? 2 : 0) | 4);
	EXPECT(ev.wait(5000ms) >= 1, "no DMA completion interrupt within 5 s ({})",
	       to_ram ? "device->RAM" : "RAM->device");
	const auto st = bar.read<std::uint32_t>(EDU_IRQ_STATUS);
	EXPECT(st & 0x100, "DMA interrupt status {:#x}", st);
	bar.write<std::uint32_t>(EDU_IRQ_ACK, st);
	EXPECT((bar.read<std::uint64_t>(EDU_DMA_CMD) & 1) == 0, "DMA still running after its interrupt");
}

void test_edu_dma()
{
	auto t = open_edu();
	pioc::region bar = t->map_bar(0, pioc::mem_type::uc);
	auto ev = t->irq(0);
	pioc::dma_buffer buf = t->alloc_dma(8192);
	EXPECT(buf.size == 8192 && buf.cpu && buf.bus, "buffer {} bytes at {:#x}", buf.size, buf.bus);
	EXPECT(t->version().dma_used == 0, "stale accounting");
	auto *p = static_cast<std::uint8_t *>(buf.cpu);
	constexpr std::size_t n = 4000; // QEMU 7.2 edu aborts at exactly 4096
	for (std::size_t i = 0; i < n; i++)
		p[i] = static_cast<std::uint8_t>(i * 13 + 7);
	std::memset(p + 4096, 0xa5, n);
	EXPECT(std::memcmp(p, p + 4096, n) != 0, "poisoned copy equals the source: check cannot fail");
	edu_dma(bar, *ev, buf.bus, EDU_BUF, n, false);
	edu_dma(bar, *ev, EDU_BUF, buf.bus + 4096, n, true);
	for (std::size_t i = 0; i < n; i++)
		EXPECT(p[4096 + i] == p[i], "byte {} came back {:#x}, sent {:#x}", i, p[4096 + i], p[i]);
	// Accounting: this device holds 8 KiB now.
	auto v = hdr<pioc_version>();
	v.user_version = PIOC_API_VERSION;
	t->dev_file()->ioctl(PIOC_IOC_VERSION, &v, "version");
	EXPECT(v.dma_used == 8192, "dma_used {}", v.dma_used);
	// Without a strict IOMMU a freed buffer waits until bus mastering is
	// off (the last close), since the device could still write to it.
	const bool strict = t->version().caps & PIOC_CAP_IOMMU_STRICT;
	buf.owner.reset();
	t->dev_file()->ioctl(PIOC_IOC_VERSION, &v, "version");
	EXPECT(v.dma_used == (strict ? 0 : 8192), "dma_used {} after free (strict IOMMU: {})", v.dma_used,
	       strict);

	// A buffer freed while mapped lives until its mapping goes; revoking the
	// mapping (UNMAP) gives SIGBUS.
	const int fd = t->dev_file()->fd();
	auto a = hdr<pioc_dma_alloc>();
	a.size = 4096;
	t->dev_file()->ioctl(PIOC_IOC_DMA_ALLOC, &a, "DMA_ALLOC");
	auto m = hdr<pioc_map>();
	m.target = PIOC_MAP_DMA;
	m.index = a.handle;
	m.mem_type = PIOC_MEM_WB;
	t->dev_file()->ioctl(PIOC_IOC_MAP, &m, "MAP");
	EXPECT(m.granted == PIOC_MEM_WB, "DMA memory granted {}", m.granted);
	void *q = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(m.offset));
	EXPECT(q != MAP_FAILED, "mmap of DMA buffer: {}", std::strerror(errno));
	static_cast<volatile std::uint32_t *>(q)[0] = 0x1234;
	EXPECT(probe(q) == 0, "fresh DMA mapping faults");
	auto f = hdr<pioc_dma_free>();
	f.handle = a.handle;
	t->dev_file()->ioctl(PIOC_IOC_DMA_FREE, &f, "DMA_FREE");
	EXPECT(probe(q) == 0 && static_cast<volatile std::uint32_t *>(q)[0] == 0x1234,
	       "a freed buffer lost its memory while still mapped");
	auto u = hdr<pioc_unmap>();
	u.handle = m.handle;
	t->dev_file()->ioctl(PIOC_IOC_UNMAP, &u, "UNMAP");
	EXPECT(faults(q), "access after UNMAP did not raise SIGBUS");
	::munmap(q, 4096);
	EXPECT(probe(q) == SIGSEGV, "the probe cannot tell SIGBUS from an unmapped hole");
}

// ------------------------------------------------------------ ivshmem

constexpr unsigned ivshmem_vendor = 0x1af4, ivshmem_device = 0x1110;
// Layout of the 1 MiB shared file, agreed with tests/qemu/run:
constexpr std::uint64_t IV_GUEST_WC = 0x00000, IV_GUEST_UC = 0x10000, IV_HOST = 0x80000,
			IV_LEN = 0x10000;

std::uint8_t iv_pattern(char who, std::uint64_t i)
{
	// Must match pattern() in tests/qemu/run.
	return static_cast<std::uint8_t>((i * 31 + static_cast<unsigned char>(who)) ^ (i >> 8));
}

void test_ivshmem()
{
	const std::string bdf = need_bdf(ivshmem_vendor, ivshmem_device);
	wait_node(bdf);
	auto t = transport::open(bdf);
	EXPECT(t->info().bars[2].size == 1 << 20 && t->info().bars[2].prefetchable,
	       "ivshmem BAR2 {:#x} prefetchable {}", t->info().bars[2].size, t->info().bars[2].prefetchable);
	std::vector<std::uint8_t> v(IV_LEN);
	{
		pioc::region wc = t->map_bar(2, pioc::mem_type::wc);
		EXPECT(wc.type() == pioc::mem_type::wc, "granted {}", pioc::to_string(wc.type()));
		for (std::uint64_t i = 0; i < IV_LEN; i++)
			v[i] = iv_pattern('W', i);
		wc.copy_to(IV_GUEST_WC, v.data(), v.size());
		wc.visit([](const auto &io) { io.wc_flush(); });
		// What the host wrote before boot, read through WC (loads are uncached).
		wc.copy_from(IV_HOST, v.data(), v.size());
		for (std::uint64_t i = 0; i < IV_LEN; i++)
			EXPECT(v[i] == iv_pattern('H', i), "host byte {:#x} read {:#x} through WC", i, v[i]);
	}
	{
		pioc::region uc = t->map_bar(2, pioc::mem_type::uc);
		for (std::uint64_t i = 0; i < IV_LEN; i += 4) {
			std::uint32_t w = 0;
			for (unsigned k = 0; k < 4; k++)
				w |= static_cast<std::uint32_t>(iv_pattern('U', i + k)) << (8 * k);
			uc.write<std::uint32_t>(IV_GUEST_UC + i, w);
		}
		uc.copy_from(IV_HOST, v.data(), v.size());
		for (std::uint64_t i = 0; i < IV_LEN; i++)
			EXPECT(v[i] == iv_pattern('H', i), "host byte {:#x} read {:#x} through UC", i, v[i]);
		// The comparison can fail: the untouched space after the host's
		// pattern must not match it.
		uc.copy_from(IV_HOST + IV_LEN, v.data(), v.size());
		std::size_t same = 0;
		for (std::uint64_t i = 0; i < IV_LEN; i++)
			same += v[i] == iv_pattern('H', i);
		EXPECT(same < IV_LEN / 2, "untouched memory matches the pattern ({} bytes)", same);
	}
	// The host checks the guest's patterns in the backing file after the run.
}

// ------------------------------------------------------- pci-testdev

void test_testdev()
{
	const std::string bdf = need_bdf(0x1b36, 0x0005);
	wait_node(bdf);
	auto t = transport::open(bdf);
	const char *want_s = std::getenv("PIOC_TESTDEV_MEMBAR");
	const std::uint64_t want = want_s ? std::strtoull(want_s, nullptr, 0) : 0;
	const auto &b = t->info().bars[2];
	const auto r = sysfs_resource(bdf, 2);
	EXPECT(want && b.size == want, "BAR2 size {:#x}, QEMU was given membar={:#x}", b.size, want);
	EXPECT(b.size == r[1] - r[0] + 1 && b.phys == r[0], "BAR2 vs sysfs");
	EXPECT(b.is_64bit && b.prefetchable, "large BAR is 64-bit prefetchable");
	pioc::region big = t->map_bar(2, pioc::mem_type::wc);
	EXPECT(big.size() == want, "mapping size {:#x}", big.size());
	// Unbacked: touching it must not fault (first and last word).
	(void)big.read<std::uint32_t>(0);
	(void)big.read<std::uint32_t>(big.size() - 4);
}

// ------------------------------------------------------------- ECI

void test_eci()
{
	wait_node("eci0");
	auto t = transport::open("eci0");
	EXPECT(t->is_eci() && (t->version().caps & PIOC_CAP_MEM_WB), "eci0 caps {:#x}", t->version().caps);
	const char *base_s = std::getenv("PIOC_ECI_BASE");
	const char *size_s = std::getenv("PIOC_ECI_SIZE");
	const std::uint64_t base = base_s ? std::strtoull(base_s, nullptr, 0) : 0;
	const std::uint64_t size = size_s ? std::strtoull(size_s, nullptr, 0) : 0;
	EXPECT(t->info().bars.size() == 1 && t->info().bars[0].phys == base && t->info().bars[0].size == size,
	       "window {:#x}+{:#x}, expected {:#x}+{:#x}", t->info().bars[0].phys, t->info().bars[0].size,
	       base, size);
	// The coherent window is cacheable memory: only WB is granted.
	try {
		t->map_bar(0, pioc::mem_type::uc);
		EXPECT(false, "UC granted on a coherent window");
	} catch (const pioc::error &e) {
		EXPECT(e.code() == pioc::errc::not_supported, "{}", e.what());
	}
	pioc::region w = t->map_bar(0, pioc::mem_type::wb);
	EXPECT(w.size() == size, "mapped {:#x}", w.size());
	auto *p = static_cast<std::uint64_t *>(static_cast<void *>(std::get<pioc::mmio_io>(w.io()).base()));
	const std::size_t words = size / 8;
	for (std::size_t i = 0; i < words; i++)
		p[i] = i * 0x9e3779b97f4a7c15ULL ^ 0x5a5a;
	std::size_t bad = 0, wrong_seed = 0;
	for (std::size_t i = 0; i < words; i++) {
		bad += p[i] != (i * 0x9e3779b97f4a7c15ULL ^ 0x5a5a);
		wrong_seed += p[i] != (i * 0x9e3779b97f4a7c15ULL ^ 0x5a5b);
	}
	EXPECT(bad == 0, "{} of {} words changed in the window", bad, words);
	EXPECT(wrong_seed == words, "a wrong pattern was not detected ({} of {})", wrong_seed, words);
	// The window shows up as our resource.
	const std::string iomem = read_file("/proc/iomem");
	EXPECT(iomem.find("pioc-eci") != std::string::npos, "/proc/iomem has no pioc-eci");
}

void test_eci_io()
{
	wait_node("eci1");
	auto t = transport::open("eci1");
	EXPECT(t->is_eci() && !(t->version().caps & PIOC_CAP_MEM_WB), "eci1 caps {:#x}", t->version().caps);
	const char *base_s = std::getenv("PIOC_ECI_IO_BASE");
	const std::uint64_t base = base_s ? std::strtoull(base_s, nullptr, 0) : 0;
	EXPECT(t->info().bars[0].phys == base, "I/O window at {:#x}, expected {:#x}", t->info().bars[0].phys, base);
	// The I/O window is device memory: WB is not granted, UC is.
	try {
		t->map_bar(0, pioc::mem_type::wb);
		EXPECT(false, "WB granted on an ECI I/O window");
	} catch (const pioc::error &e) {
		EXPECT(e.code() == pioc::errc::not_supported, "{}", e.what());
	}
	pioc::region w = t->map_bar(0, pioc::mem_type::uc);
	EXPECT(w.type() == pioc::mem_type::uc, "granted {}", pioc::to_string(w.type()));
	for (std::uint64_t off = 0; off < 65536; off += 8)
		w.write<std::uint64_t>(off, off * 0x0101010101010101ULL + 1);
	for (std::uint64_t off = 0; off < 65536; off += 8) {
		const auto v = w.read<std::uint64_t>(off);
		EXPECT(v == off * 0x0101010101010101ULL + 1, "I/O window word {:#x} read {:#x}", off, v);
	}
	// The coherent window (right below) was not touched by these writes.
	EXPECT(w.read<std::uint64_t>(65536) != 65536 * 0x0101010101010101ULL + 1, "pattern check cannot fail");
}

/** The coherent engine's control block as our Enzian image puts it at the
 *  start of its I/O window, written into the guest's I/O window (plain
 *  memory here) so that ecibench's --control runs through the module: two
 *  channels (not the register map's four) and CONFIG with another bit set
 *  beside CFG_EXCLUSIVE, which --shared must keep. */
void test_eci_control_block()
{
	namespace C = pioc::regs::coh_dev;
	auto w = transport::open("eci1")->map_bar(0, pioc::mem_type::uc);
	w.write<std::uint32_t>(C::ID.offset, C::id_value);
	w.write<std::uint32_t>(C::VERSION.offset, C::version_major << 16 | C::version_minor);
	w.write<std::uint32_t>(C::CONFIG.offset, 0x100 | C::CFG_EXCLUSIVE);
	w.write<std::uint32_t>(C::CHANNELS.offset, 2);
}

/** After `ecibench invoke --control kmod:eci1 --shared`: CFG_EXCLUSIVE
 *  cleared, the other bit kept. */
void test_eci_control_shared()
{
	namespace C = pioc::regs::coh_dev;
	auto w = transport::open("eci1")->map_bar(0, pioc::mem_type::uc);
	const auto cfg = w.read<std::uint32_t>(C::CONFIG.offset);
	EXPECT(cfg == 0x100, "CONFIG {:#x} after ecibench --shared (expected 0x100)", cfg);
}

// --------------------------------------------------------- bad input

void test_bad_input()
{
	auto t = open_edu();
	const int fd = t->dev_file()->fd();
	const unsigned long dma_max = t->version().dma_max_size;
	const unsigned long dma_limit = t->version().dma_limit;

	auto m = hdr<pioc_map>();
	m.target = PIOC_MAP_BAR;
	m.mem_type = 7;
	expect_errno(fd, PIOC_IOC_MAP, &m, EINVAL, "unknown memory type");
	m.mem_type = PIOC_MEM_WB;
	expect_errno(fd, PIOC_IOC_MAP, &m, EOPNOTSUPP, "WB on a BAR");
	m.mem_type = PIOC_MEM_UC;
	m.index = 6;
	expect_errno(fd, PIOC_IOC_MAP, &m, EINVAL, "BAR 6");
	m.index = 1;
	expect_errno(fd, PIOC_IOC_MAP, &m, ENXIO, "absent BAR 1");
	m.index = 0;
	m.target = 9;
	expect_errno(fd, PIOC_IOC_MAP, &m, EINVAL, "unknown target");
	m.target = PIOC_MAP_DMA;
	m.index = 12345;
	expect_errno(fd, PIOC_IOC_MAP, &m, ENOENT, "unknown DMA handle");
	m.target = PIOC_MAP_BAR;
	m.index = 0;
	m.reserved[1] = 1;
	expect_errno(fd, PIOC_IOC_MAP, &m, EINVAL, "non-zero reserved");
	m.reserved[1] = 0;
	m.flags = 0x80;
	expect_errno(fd, PIOC_IOC_MAP, &m, EINVAL, "unknown flags");
	m.flags = 0;
	m.argsz = sizeof m - 8;
	expect_errno(fd, PIOC_IOC_MAP, &m, EINVAL, "wrong argsz");
	m.argsz = sizeof m;
	EXPECT(::ioctl(fd, PIOC_IOC_MAP, &m) == 0, "valid MAP failed: {}", std::strerror(errno));

	// mmap beyond the BAR, beside it, private, executable, unknown handle.
	const off_t off = static_cast<off_t>(m.offset);
	errno = 0;
	EXPECT(::mmap(nullptr, 2 << 20, PROT_READ, MAP_SHARED, fd, off) == MAP_FAILED && errno == EINVAL,
	       "2 MiB mmap of a 1 MiB BAR: errno {}", errno);
	errno = 0;
	EXPECT(::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, off + (1 << 20)) == MAP_FAILED &&
		       errno == EINVAL, "mmap past the BAR end: errno {}", errno);
	errno = 0;
	EXPECT(::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, off) == MAP_FAILED && errno == EINVAL,
	       "MAP_PRIVATE: errno {}", errno);
	errno = 0;
	EXPECT(::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, off) == MAP_FAILED &&
		       errno == EINVAL, "PROT_EXEC: errno {}", errno);
	errno = 0;
	EXPECT(::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, off + (64LL << 30)) ==
		       MAP_FAILED && errno == EINVAL, "offset no handle stands for: errno {}", errno);
	errno = 0;
	{
		// Two handles get adjacent offsets; one VMA may not span both.
		auto m2 = hdr<pioc_map>();
		m2.target = PIOC_MAP_BAR;
		m2.length = 8192;
		EXPECT(::ioctl(fd, PIOC_IOC_MAP, &m2) == 0, "second MAP: {}", std::strerror(errno));
		EXPECT(m2.offset == m.offset + m.size && m2.size == 8192, "offsets {:#x} then {:#x}+{:#x}",
		       m.offset, m2.offset, m2.size);
		errno = 0;
		EXPECT(::mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(m2.offset) - 4096) ==
			       MAP_FAILED && errno == EINVAL, "mapping across two handles: errno {}", errno);
		m2.start = 4096;
		m2.length = 1 << 20;
		m2.handle = 0, m2.granted = 0, m2.size = 0, m2.offset = 0;
		expect_errno(fd, PIOC_IOC_MAP, &m2, EINVAL, "range past the BAR end");
		m2.start = 100;
		m2.length = 0;
		expect_errno(fd, PIOC_IOC_MAP, &m2, EINVAL, "unaligned start");
	}
	// The last page is fine, and a mremap that grows it is refused.
	void *last = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, off + (1 << 20) - 4096);
	EXPECT(last != MAP_FAILED, "last page: {}", std::strerror(errno));
	EXPECT(::mremap(last, 4096, 8192, 0) == MAP_FAILED, "mremap grew a pioc mapping");
	// UNMAP revokes it: SIGBUS on the next access.
	auto u = hdr<pioc_unmap>();
	u.handle = m.handle;
	EXPECT(::ioctl(fd, PIOC_IOC_UNMAP, &u) == 0, "UNMAP: {}", std::strerror(errno));
	EXPECT(faults(last), "access after UNMAP did not fault");
	::munmap(last, 4096);
	expect_errno(fd, PIOC_IOC_UNMAP, &u, ENOENT, "UNMAP twice");

	// DMA allocations: zero, oversize, over the device limit.
	auto a = hdr<pioc_dma_alloc>();
	expect_errno(fd, PIOC_IOC_DMA_ALLOC, &a, EINVAL, "zero-byte DMA buffer");
	a.size = dma_max + 1;
	expect_errno(fd, PIOC_IOC_DMA_ALLOC, &a, E2BIG, "oversize DMA buffer");
	a.size = ~0ULL;
	expect_errno(fd, PIOC_IOC_DMA_ALLOC, &a, E2BIG, "2^64-1 byte DMA buffer");
	std::vector<std::uint32_t> handles;
	for (unsigned long used = 0; used + dma_max <= dma_limit; used += dma_max) {
		a = hdr<pioc_dma_alloc>();
		a.size = dma_max;
		EXPECT(::ioctl(fd, PIOC_IOC_DMA_ALLOC, &a) == 0, "DMA buffer {} of {} bytes: {}",
		       handles.size(), dma_max, std::strerror(errno));
		handles.push_back(a.handle);
	}
	a = hdr<pioc_dma_alloc>();
	a.size = 4096;
	expect_errno(fd, PIOC_IOC_DMA_ALLOC, &a, ENOSPC, "DMA beyond the device limit");
	auto f = hdr<pioc_dma_free>();
	for (auto h : handles) {
		f.handle = h;
		EXPECT(::ioctl(fd, PIOC_IOC_DMA_FREE, &f) == 0, "DMA_FREE {}: {}", h, std::strerror(errno));
	}
	expect_errno(fd, PIOC_IOC_DMA_FREE, &f, ENOENT, "DMA_FREE twice");

	// Unknown commands and garbage.
	auto v = hdr<pioc_version>();
	expect_errno(fd, _IOWR(PIOC_IOC_MAGIC, 0x7f, struct pioc_version), &v, ENOTTY, "unknown nr");
	expect_errno(fd, _IOWR('x', 0x00, struct pioc_version), &v, ENOTTY, "foreign magic");
	expect_errno(fd, _IOR(PIOC_IOC_MAGIC, 0x00, struct pioc_version), &v, ENOTTY, "wrong direction");
	expect_errno(fd, _IOWR(PIOC_IOC_MAGIC, 0x00, std::uint64_t), &v, ENOTTY, "wrong size");
	expect_errno(fd, PIOC_IOC_VERSION, nullptr, EFAULT, "NULL argument");
	expect_errno(fd, PIOC_IOC_VERSION, reinterpret_cast<void *>(0x10), EFAULT, "wild pointer");
	v.argsz = 0xffffffff;
	expect_errno(fd, PIOC_IOC_VERSION, &v, EINVAL, "garbage argsz");
	v = hdr<pioc_version>();
	v.reserved[2] = 0xdead;
	expect_errno(fd, PIOC_IOC_VERSION, &v, EINVAL, "garbage reserved");
	auto b = hdr<pioc_bar_info>();
	b.index = 0xffffffff;
	expect_errno(fd, PIOC_IOC_BAR_INFO, &b, EINVAL, "BAR index 2^32-1");
	auto di = hdr<pioc_dev_info>();
	di.reserved0 = 1;
	expect_errno(fd, PIOC_IOC_DEV_INFO, &di, EINVAL, "DEV_INFO reserved");

	// Interrupt registration.
	auto is = hdr<pioc_irq_set>();
	is.vector = 99;
	is.fd = -1;
	expect_errno(fd, PIOC_IOC_IRQ_SET, &is, EINVAL, "vector 99");
	is.vector = 0;
	is.fd = -7;
	expect_errno(fd, PIOC_IOC_IRQ_SET, &is, EINVAL, "fd -7");
	is.fd = fd; // not an eventfd
	expect_errno(fd, PIOC_IOC_IRQ_SET, &is, EINVAL, "fd that is not an eventfd");
	is.fd = 9999;
	expect_errno(fd, PIOC_IOC_IRQ_SET, &is, EBADF, "closed fd");
	is.fd = -1;
	is.flags = 0x10;
	expect_errno(fd, PIOC_IOC_IRQ_SET, &is, EINVAL, "unknown IRQ flags");

	// The device is still fine.
	pioc::region bar = t->map_bar(0, pioc::mem_type::uc);
	EXPECT(bar.read<std::uint32_t>(EDU_ID) == 0x010000ed, "edu after bad input");
	// ivshmem BAR0 is 256 bytes: not mappable (would expose its page).
	const std::string iv = find_bdf(ivshmem_vendor, ivshmem_device);
	if (!iv.empty()) {
		auto t2 = transport::open(iv);
		try {
			t2->map_bar(0, pioc::mem_type::uc);
			EXPECT(false, "sub-page BAR mapped");
		} catch (const pioc::error &e) {
			EXPECT(e.code() == pioc::errc::invalid_argument, "{}", e.what());
		}
	}
}

void test_fuzz(std::uint64_t seed, unsigned iterations)
{
	auto t = open_edu();
	const int fd = t->dev_file()->fd();
	std::mt19937_64 rng(seed);
	const unsigned long cmds[] = {PIOC_IOC_VERSION, PIOC_IOC_DEV_INFO, PIOC_IOC_BAR_INFO,
				      PIOC_IOC_MAP, PIOC_IOC_UNMAP, PIOC_IOC_DMA_ALLOC,
				      PIOC_IOC_DMA_FREE, PIOC_IOC_IRQ_SET};
	const std::uint32_t sizes[] = {sizeof(pioc_version), sizeof(pioc_dev_info), sizeof(pioc_bar_info),
				       sizeof(pioc_map), sizeof(pioc_unmap), sizeof(pioc_dma_alloc),
				       sizeof(pioc_dma_free), sizeof(pioc_irq_set)};
	const int allowed[] = {EINVAL, ENOTTY, EFAULT, ENOENT, ENXIO, E2BIG, ENOSPC, EOPNOTSUPP,
			       EBADF, EPROTO, EBUSY};
	alignas(8) std::uint8_t buf[256];
	unsigned ok = 0, rejected = 0;
	for (unsigned it = 0; it < iterations; it++) {
		for (auto &c : buf)
			c = static_cast<std::uint8_t>(rng());
		const std::size_t which = rng() % std::size(cmds);
		unsigned long cmd = cmds[which];
		const std::uint32_t size = sizes[which];
		const unsigned mode = rng() % 8;
		if (mode == 0) { // random command number and size
			cmd = _IOC(rng() % 4, rng() % 2 ? PIOC_IOC_MAGIC : rng() % 256, rng() % 256,
				   rng() % sizeof buf);
		} else if (mode < 6) { // a plausible header with random fields
			// argsz: the struct's size, or larger (a newer caller) with zeros past it
			const std::uint32_t argsz = rng() % 4 ? size : size + 8 * (rng() % 8);
			std::uint32_t h[2] = {argsz, 0};
			std::memcpy(buf, h, sizeof h);
			if (argsz > size)
				std::memset(buf + size, 0, argsz - size);
			if (mode < 4) { // mostly zero with a few small values: deeper paths
				std::memset(buf + 8, 0, size - 8);
				for (unsigned k = rng() % 3; k; k--)
					buf[8 + rng() % (size - 8)] = static_cast<std::uint8_t>(rng() % 8);
			}
		}
		void *arg = buf;
		if (rng() % 64 == 0)
			arg = reinterpret_cast<void *>(rng() % 2 ? 0 : 0xffff800000000000ULL);
		const int r = ::ioctl(fd, cmd, arg);
		if (r == 0) {
			ok++;
			continue;
		}
		const int e = errno;
		EXPECT(std::find(std::begin(allowed), std::end(allowed), e) != std::end(allowed),
		       "iteration {} (seed {}): cmd {:#x} failed with undocumented errno {} ({})", it, seed,
		       cmd, e, std::strerror(e));
		rejected++;
	}
	std::printf("fuzz: %u ioctls, %u accepted, %u rejected with documented errors\n", iterations, ok,
		    rejected);
	EXPECT(rejected > iterations / 2, "fuzz reached too few error paths ({})", rejected);
	// Still answers.
	pioc::region bar = t->map_bar(0, pioc::mem_type::uc);
	EXPECT(bar.read<std::uint32_t>(EDU_ID) == 0x010000ed, "edu after fuzz");
}

/** Unbind (or remove) while a BAR and a DMA buffer are mapped. */
void test_unbind(bool remove)
{
	const std::string bdf = need_bdf(remove ? ivshmem_vendor : edu_vendor,
					 remove ? ivshmem_device : edu_device);
	wait_node(bdf);
	auto t = transport::open(bdf);
	const unsigned bar_no = remove ? 2 : 0;
	pioc::region bar = t->map_bar(bar_no, pioc::mem_type::uc);
	pioc::dma_buffer buf = t->alloc_dma(4096);
	const volatile void *bp = std::get<pioc::mmio_io>(bar.io()).base();
	EXPECT(!faults(bp) && !faults(buf.cpu), "mapping faults before unbind");
	if (remove)
		write_sysfs("/sys/bus/pci/devices/" + bdf + "/remove", "1");
	else
		write_sysfs("/sys/bus/pci/drivers/pioc/unbind", bdf);
	EXPECT(faults(bp), "BAR access after {} did not fault", remove ? "remove" : "unbind");
	EXPECT(faults(buf.cpu), "DMA buffer access after {} did not fault", remove ? "remove" : "unbind");
	auto v = hdr<pioc_version>();
	expect_errno(t->dev_file()->fd(), PIOC_IOC_VERSION, &v, ENODEV, "ioctl on a removed device");
	errno = 0;
	EXPECT(::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, t->dev_file()->fd(), 0) == MAP_FAILED &&
		       errno == ENODEV, "mmap on a removed device: errno {}", errno);
	// Drop everything (regions unmap, buffers try to free: device gone).
	bar = pioc::region();
	buf = pioc::dma_buffer();
	t.reset();
	if (remove)
		write_sysfs("/sys/bus/pci/rescan", "1");
	else
		write_sysfs("/sys/bus/pci/drivers/pioc/bind", bdf);
	wait_node(bdf);
	auto t2 = transport::open(bdf);
	pioc::region again = t2->map_bar(bar_no, pioc::mem_type::uc);
	if (!remove)
		EXPECT(again.read<std::uint32_t>(EDU_ID) == 0x010000ed, "edu after rebind");
}

int hold(const std::string &bdf)
{
	auto t = transport::open(bdf);
	pioc::region bar = t->map_bar(0, pioc::mem_type::uc);
	std::printf("PIOC-HOLD ready\n");
	std::fflush(stdout);
	for (;;)
		pause();
}

} // namespace

int main(int argc, char **argv)
{
	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	std::vector<std::string> tests;
	std::uint64_t seed = 1;
	unsigned iterations = 5000;
	for (int i = 1; i < argc; i++) {
		const std::string a = argv[i];
		if (a == "--seed" && i + 1 < argc)
			seed = std::strtoull(argv[++i], nullptr, 0);
		else if (a == "--iterations" && i + 1 < argc)
			iterations = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
		else if (a == "hold" && i + 1 < argc)
			return hold(argv[i + 1]);
		else
			tests.push_back(a);
	}
	for (const auto &n : tests) {
		if (n == "handshake") run(n, test_handshake);
		else if (n == "bar-info") run(n, test_bar_info);
		else if (n == "edu-pio") run(n, test_edu_pio);
		else if (n == "edu-dma") run(n, test_edu_dma);
		else if (n == "ivshmem") run(n, test_ivshmem);
		else if (n == "testdev") run(n, test_testdev);
		else if (n == "eci") run(n, test_eci);
		else if (n == "eci-io") run(n, test_eci_io);
		else if (n == "eci-control-block") run(n, test_eci_control_block);
		else if (n == "eci-control-shared") run(n, test_eci_control_shared);
		else if (n == "bad-input") run(n, test_bad_input);
		else if (n == "fuzz") run(n, [&] { test_fuzz(seed, iterations); });
		else if (n == "unbind") run(n, [] { test_unbind(false); });
		else if (n == "remove") run(n, [] { test_unbind(true); });
		else if (n == "list") run(n, [] {
			auto v = pioc::kmod_list_devices();
			for (const auto &d : v)
				std::printf("  %s %04x:%04x %s\n", d.spec.c_str(), d.vendor, d.device,
					    d.description.c_str());
			EXPECT(v.size() >= 4, "{} devices listed", v.size());
		});
		else if (!run_lifetime_test(n) && !run_pat_test(n)) {
			std::printf("PIOC-TEST FAIL %s: unknown test\n", n.c_str());
			g_failed++;
		}
	}
	return g_failed ? 1 : 0;
}
