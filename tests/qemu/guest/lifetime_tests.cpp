// The module's lifetime and security rules under concurrency, in the guest:
// mappings against revocation on two CPUs, removal and hot-unplug while
// mapped and while ioctls run, DMA in flight at close, a 256 GiB window,
// and who may open a function with and without an IOMMU. Each test is
// bounded in time; the kernel log (judged on the host) must stay clean.
#include "lifetime_tests.hpp"

#include "guest_util.hpp"

#include <atomic>
#include <grp.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

namespace guest {
namespace {

/** The raw ioctl interface of one open file, as an attacker would use it. */
struct raw_file {
	int fd;
	explicit raw_file(const std::string &bdf)
		: fd(::open((pioc::kmod::dev_dir() + "/" + bdf).c_str(), O_RDWR | O_CLOEXEC))
	{
		EXPECT(fd >= 0, "open {}: {}", bdf, std::strerror(errno));
		auto v = hdr<pioc_version>();
		v.user_version = PIOC_API_VERSION;
		EXPECT(::ioctl(fd, PIOC_IOC_VERSION, &v) == 0, "handshake: {}", std::strerror(errno));
	}
	~raw_file() { ::close(fd); }
	raw_file(const raw_file &) = delete;
	raw_file &operator=(const raw_file &) = delete;

	/** DMA_ALLOC + MAP: handle, map handle, mmap offset; 0 or errno. */
	int dma(std::uint64_t size, std::uint32_t &h, std::uint32_t &mh, std::uint64_t &off,
		std::uint64_t *bus = nullptr) const
	{
		auto a = hdr<pioc_dma_alloc>();
		a.size = size;
		if (::ioctl(fd, PIOC_IOC_DMA_ALLOC, &a))
			return errno;
		h = a.handle;
		if (bus)
			*bus = a.bus_addr;
		return map(PIOC_MAP_DMA, h, PIOC_MEM_WB, mh, off);
	}
	int map(std::uint32_t target, std::uint32_t index, std::uint32_t mt, std::uint32_t &mh,
		std::uint64_t &off) const
	{
		auto m = hdr<pioc_map>();
		m.target = target;
		m.index = index;
		m.mem_type = mt;
		if (::ioctl(fd, PIOC_IOC_MAP, &m))
			return errno;
		mh = m.handle;
		off = m.offset;
		return 0;
	}
	int unmap(std::uint32_t mh) const
	{
		auto u = hdr<pioc_unmap>();
		u.handle = mh;
		return ::ioctl(fd, PIOC_IOC_UNMAP, &u) ? errno : 0;
	}
	int dma_free(std::uint32_t h) const
	{
		auto f = hdr<pioc_dma_free>();
		f.handle = h;
		return ::ioctl(fd, PIOC_IOC_DMA_FREE, &f) ? errno : 0;
	}
	pioc_version version() const
	{
		auto v = hdr<pioc_version>();
		v.user_version = PIOC_API_VERSION;
		EXPECT(::ioctl(fd, PIOC_IOC_VERSION, &v) == 0, "VERSION: {}", std::strerror(errno));
		return v;
	}
};

/**
 * The value a read of @p p gives (masked to 63 bits), or the signal it
 * raises as -signal. The access has the width of T: edu's registers below
 * 0x80 take 4-byte accesses only.
 */
template <class T> std::int64_t read_or_signal(const volatile T *p)
{
	T v = 0;
	if (int sig = sigsetjmp(g_jmp, 1)) {
		g_in_probe = 0;
		return -sig;
	}
	g_in_probe = 1;
	v = *p;
	g_in_probe = 0;
	return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) & 0x7fffffffffffffffULL);
}

std::int64_t read32_or_signal(const volatile std::uint32_t *p)
{
	return read_or_signal(p);
}

/** munmap on scope exit, so a failed check leaves no VMA holding the file. */
struct vma_guard {
	void *p;
	std::size_t n;
	~vma_guard()
	{
		if (p != MAP_FAILED)
			::munmap(p, n);
	}
};

/** Stores @p v; the signal it raised (0: none). */
int write_or_signal(volatile std::uint64_t *p, std::uint64_t v)
{
	if (int sig = sigsetjmp(g_jmp, 1)) {
		g_in_probe = 0;
		return sig;
	}
	g_in_probe = 1;
	*p = v;
	g_in_probe = 0;
	return 0;
}

void install_fault_handler()
{
	struct sigaction sa {};
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, nullptr);
	sigaction(SIGSEGV, &sa, nullptr);
}

/**
 * One mapper's loop: buffers and a BAR mapped, tagged, re-read, unmapped,
 * while others revoke. Every read must give what this thread wrote (the
 * buffer's own memory) or SIGBUS: never zeros, poison or another buffer.
 * Stops at @p stop or when the device is gone (ENODEV); returns reads done.
 */
std::uint64_t mapper(const raw_file &f, std::atomic<bool> &stop, std::atomic<std::uint32_t> &last_h,
		     std::atomic<std::uint32_t> &last_mh, std::uint64_t tag_base, bool with_bar,
		     bool surprise = false)
{
	std::uint64_t reads = 0, tag = tag_base;
	while (!stop.load(std::memory_order_relaxed)) {
		std::uint32_t h = 0, mh = 0;
		std::uint64_t off = 0;
		int e = f.dma(8192, h, mh, off);
		if (e == ENODEV)
			break;
		if (e == ENOENT) // the other thread freed the handle between ALLOC and MAP
			continue;
		EXPECT(e == 0, "DMA_ALLOC/MAP: {}", std::strerror(e));
		last_h = h;
		last_mh = mh;
		void *p = ::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, static_cast<off_t>(off));
		if (p == MAP_FAILED) {
			EXPECT(errno == EINVAL || errno == ENODEV, "mmap: {}", std::strerror(errno));
			continue;
		}
		vma_guard pg{p, 8192};
		auto *w = static_cast<volatile std::uint64_t *>(p);
		++tag;
		bool revoked = false;
		for (unsigned i = 0; i < 2 && !revoked; i++) {
			const int sig = write_or_signal(w + i * 512, tag);
			EXPECT(sig == 0 || sig == SIGBUS, "store into a buffer raised signal {}", sig);
			revoked = sig != 0;
		}
		for (unsigned k = 0; k < 4 && !revoked; k++) {
			for (unsigned i = 0; i < 2; i++) {
				const auto v = read_or_signal(w + i * 512);
				reads++;
				if (v == -SIGBUS) {
					revoked = true;
					break;
				}
				EXPECT(v == static_cast<std::int64_t>(tag), "buffer word {} read {:#x}, wrote {:#x}",
				       i * 512, v, tag);
			}
		}
		if (with_bar) {
			std::uint32_t bmh = 0;
			std::uint64_t boff = 0;
			if (f.map(PIOC_MAP_BAR, 0, PIOC_MEM_UC, bmh, boff) == 0) {
				vma_guard b{::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, f.fd, static_cast<off_t>(boff)),
					    4096};
				if (b.p != MAP_FAILED) {
					const auto id = read32_or_signal(static_cast<const volatile std::uint32_t *>(b.p));
					// A device unplugged from under us answers nothing until the
					// driver's remove() has revoked the mapping: all-ones on PCIe,
					// zero from QEMU's empty bus. No driver can close that window.
					EXPECT(id == -SIGBUS || id == 0x010000ed ||
						       (surprise && (id == 0 || id == 0xffffffff)),
					       "edu id read {:#x}", id);
				}
				f.unmap(bmh);
			}
		}
		f.unmap(mh);
		f.dma_free(h);
	}
	return reads;
}

/**
 * A file closed while its mapping lives: the VMA holds the file, so the
 * buffer stays readable until munmap, and the release that follows runs
 * beside the other thread's faults.
 */
void close_while_mapped(const std::string &bdf, std::uint64_t tag)
{
	auto g = std::make_unique<raw_file>(bdf);
	std::uint32_t h = 0, mh = 0;
	std::uint64_t off = 0;
	if (g->dma(4096, h, mh, off))
		return; // dma_limit reached by the graveyard: fine
	vma_guard v{::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, static_cast<off_t>(off)),
		    4096};
	EXPECT(v.p != MAP_FAILED, "mmap: {}", std::strerror(errno));
	auto *w = static_cast<volatile std::uint64_t *>(v.p);
	EXPECT(write_or_signal(w, tag) == 0, "store into a fresh buffer faulted");
	g.reset(); // close(): the VMA keeps the file
	const auto got = read_or_signal(w);
	EXPECT(got == static_cast<std::int64_t>(tag), "after close the buffer read {:#x}, wrote {:#x}", got, tag);
}

/** Revokes what the mapper just made (UNMAP, DMA_FREE of its handles) and
 *  now and then closes a second file of the device under a live mapping. */
std::uint64_t revoker(const raw_file &f, std::atomic<bool> &stop, std::atomic<std::uint32_t> &last_h,
		      std::atomic<std::uint32_t> &last_mh, const std::string &bdf)
{
	std::uint64_t n = 0;
	for (std::uint64_t i = 0; !stop.load(std::memory_order_relaxed); i++) {
		if (f.unmap(last_mh.load()) == 0)
			n++;
		if (f.dma_free(last_h.load()) == 0)
			n++;
		if (i % 64 == 0)
			close_while_mapped(bdf, (7ULL << 40) + i);
		sched_yield();
	}
	return n;
}

void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof s, &s);
}

/** Mapper and revoker on two CPUs for @p seconds. */
void test_stress_revoke(double seconds)
{
	EXPECT(std::thread::hardware_concurrency() >= 2, "needs 2 vCPUs, have {}",
	       std::thread::hardware_concurrency());
	install_fault_handler();
	const std::string bdf = need_bdf(edu_vendor, edu_device);
	raw_file f(bdf);
	std::atomic<bool> stop{false};
	std::atomic<std::uint32_t> h{0}, mh{0};
	std::uint64_t reads = 0, revoked = 0;
	std::exception_ptr err, err_b;
	std::thread a([&] {
		pin(0);
		try {
			reads = mapper(f, stop, h, mh, 1ULL << 40, true);
		} catch (...) {
			err = std::current_exception();
			stop = true;
		}
	});
	std::thread b([&] {
		pin(1);
		try {
			revoked = revoker(f, stop, h, mh, bdf);
		} catch (...) {
			err_b = std::current_exception();
			stop = true;
		}
	});
	std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
	stop = true;
	a.join();
	b.join();
	if (err)
		std::rethrow_exception(err);
	if (err_b)
		std::rethrow_exception(err_b);
	std::printf("stress-revoke: %llu checked reads, %llu revocations raced in\n",
		    static_cast<unsigned long long>(reads), static_cast<unsigned long long>(revoked));
	EXPECT(reads > 100 && revoked > 10, "too little happened: {} reads, {} revocations", reads, revoked);
	// Everything was returned: the device holds nothing once all is unmapped
	// and the file is closed (graveyard included).
}

/** Mappers on both CPUs while the function is unbound, removed or unplugged. */
void test_stress_gone(const std::string &how)
{
	install_fault_handler();
	const bool unplug = how == "hotunplug";
	// The hot-pluggable edu sits behind a root port (bus != 0); the other
	// tests use the one on the root bus.
	std::string bdf;
	for (const auto &e : fs::directory_iterator("/sys/bus/pci/devices")) {
		const std::string n = e.path().filename().string();
		if (std::strtoul(read_file(e.path() / "device").c_str(), nullptr, 16) == edu_device &&
		    n.substr(5, 2) != "00")
			bdf = n;
	}
	EXPECT(!bdf.empty(), "no edu behind a root port");
	wait_node(bdf);
	auto f = std::make_unique<raw_file>(bdf);
	std::atomic<bool> stop{false};
	std::atomic<std::uint32_t> h{0}, mh{0};
	std::exception_ptr err;
	std::uint64_t reads[2] = {};
	std::vector<std::thread> ts;
	// One mapping that lives through the removal: it must be revoked.
	std::uint32_t kmh = 0;
	std::uint64_t koff = 0;
	EXPECT(f->map(PIOC_MAP_BAR, 0, PIOC_MEM_UC, kmh, koff) == 0, "BAR0");
	vma_guard keep{::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, f->fd, static_cast<off_t>(koff)), 4096};
	EXPECT(keep.p != MAP_FAILED, "mmap: {}", std::strerror(errno));
	EXPECT(read32_or_signal(static_cast<const volatile std::uint32_t *>(keep.p)) == 0x010000ed, "edu id");
	for (int c = 0; c < 2; c++)
		ts.emplace_back([&, c] {
			pin(c);
			try {
				reads[c] = mapper(*f, stop, h, mh, (2ULL + c) << 40, true, unplug);
			} catch (...) {
				err = std::current_exception();
				stop = true;
			}
		});
	// A reader of the mapping made before, spinning through the removal. An
	// unbind or remove must revoke it before anything stops the device
	// answering: the reset in remove() turns memory decoding off for its
	// whole duration (a bus reset here: over a second), and a mapping still
	// live then reads zeros from QEMU (all-ones on PCIe) instead of the ID.
	// Only a surprise removal may show those, until the mapping goes.
	std::int64_t odd = 0x010000ed;
	std::uint64_t spins = 0;
	const auto give_up = std::chrono::steady_clock::now() + 90s; // never revoked: the check below fails
	std::thread spinner([&] {
		for (;;) {
			if ((spins & 4095) == 0 && std::chrono::steady_clock::now() > give_up)
				return;
			const auto v = read32_or_signal(static_cast<const volatile std::uint32_t *>(keep.p));
			if (v == -SIGBUS)
				return;
			if (v != 0x010000ed && !unplug)
				odd = v;
			++spins;
		}
	});
	std::this_thread::sleep_for(300ms);
	if (how == "unbind")
		write_sysfs("/sys/bus/pci/drivers/pioc/unbind", bdf);
	else if (how == "remove")
		write_sysfs("/sys/bus/pci/devices/" + bdf + "/remove", "1");
	else // the host's QMP watcher sends this to QEMU
		std::printf("PIOC-QMP {\"execute\":\"device_del\",\"arguments\":{\"id\":\"edu-hp\"}}\n");
	std::fflush(stdout);
	// The mappers end on their own once the device says ENODEV.
	const auto t0 = std::chrono::steady_clock::now();
	for (auto &t : ts)
		t.join();
	spinner.join();
	EXPECT(odd == 0x010000ed, "a mapping made before {} read {:#x} before it was revoked ({} reads)", how, odd,
	       spins);
	if (err)
		std::rethrow_exception(err);
	EXPECT(std::chrono::steady_clock::now() - t0 < 60s, "mappers did not see the device go");
	auto v = hdr<pioc_version>();
	expect_errno(f->fd, PIOC_IOC_VERSION, &v, ENODEV, ("ioctl after " + how).c_str());
	const auto late = read32_or_signal(static_cast<const volatile std::uint32_t *>(keep.p));
	EXPECT(late == -SIGBUS, "a mapping made before {} still reads {:#x}", how, late);
	f.reset();
	std::printf("stress-%s: %llu + %llu checked reads before the device went\n", how.c_str(),
		    static_cast<unsigned long long>(reads[0]), static_cast<unsigned long long>(reads[1]));
	// Bring it back for the tests that follow.
	if (how == "unbind")
		write_sysfs("/sys/bus/pci/drivers/pioc/bind", bdf);
	else if (how == "remove")
		write_sysfs("/sys/bus/pci/rescan", "1");
	else {
		for (int i = 0; i < 300 && fs::exists("/sys/bus/pci/devices/" + bdf); i++)
			std::this_thread::sleep_for(100ms);
		EXPECT(!fs::exists("/sys/bus/pci/devices/" + bdf), "{} still present after device_del", bdf);
		return;
	}
	wait_node(bdf);
	raw_file again(bdf);
	(void)unplug;
}

void edu_w64(volatile std::uint8_t *bar, std::uint64_t off, std::uint64_t v)
{
	*reinterpret_cast<volatile std::uint64_t *>(bar + off) = v;
}

/**
 * A device write still in flight when its owner goes must land nowhere:
 * the module stops bus mastering before it returns the buffer. edu's DMA
 * lands ~100 ms after the command; the buffer is freed at close (or
 * unbind), long before. Page poisoning (page_poison=1) reports a write into
 * a freed page when the page is next handed out, and memory handed out
 * after the write must not show the device's pattern.
 */
void test_dma_inflight(const std::string &how)
{
	pin(0);
	const std::string bdf = need_bdf(edu_vendor, edu_device);
	constexpr std::uint64_t sig = 0x5eed0fdeadbeefULL;
	{
		raw_file f(bdf);
		std::uint32_t h = 0, mh = 0, bmh = 0;
		std::uint64_t off = 0, boff = 0, bus = 0;
		EXPECT(f.dma(4096, h, mh, off, &bus) == 0, "DMA buffer");
		EXPECT(f.map(PIOC_MAP_BAR, 0, PIOC_MEM_UC, bmh, boff) == 0, "BAR0");
		auto *buf = static_cast<volatile std::uint64_t *>(
			::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, static_cast<off_t>(off)));
		auto *bar = static_cast<volatile std::uint8_t *>(
			::mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, static_cast<off_t>(boff)));
		EXPECT(buf != MAP_FAILED && bar != MAP_FAILED, "mmap: {}", std::strerror(errno));
		// The signature into edu's buffer: RAM -> device, polled.
		for (unsigned i = 0; i < 512; i++)
			buf[i] = sig ^ i;
		edu_w64(bar, EDU_DMA_SRC, bus);
		edu_w64(bar, EDU_DMA_DST, EDU_BUF);
		edu_w64(bar, EDU_DMA_CNT, 4000);
		edu_w64(bar, EDU_DMA_CMD, 1);
		const auto t0 = std::chrono::steady_clock::now();
		while (*reinterpret_cast<const volatile std::uint64_t *>(bar + EDU_DMA_CMD) & 1)
			EXPECT(std::chrono::steady_clock::now() - t0 < 5s, "RAM->device DMA did not finish");
		// Now the device writes it back into the buffer in ~100 ms, and we
		// let go of everything at once.
		edu_w64(bar, EDU_DMA_SRC, EDU_BUF);
		edu_w64(bar, EDU_DMA_DST, bus);
		edu_w64(bar, EDU_DMA_CNT, 4000);
		edu_w64(bar, EDU_DMA_CMD, 1 | 2);
		::munmap(const_cast<std::uint64_t *>(buf), 4096);
		::munmap(const_cast<std::uint8_t *>(bar), 1 << 20);
		if (how == "unbind")
			write_sysfs("/sys/bus/pci/drivers/pioc/unbind", bdf);
	} // close: the last file (after unbind the device is already gone)
	// The freed page goes back to this CPU's free lists: take many pages now
	// (poison is checked as each is handed out), then wait past the DMA.
	std::vector<std::vector<std::uint8_t>> hog;
	for (int i = 0; i < 64; i++)
		hog.emplace_back(1 << 20, 1);
	std::this_thread::sleep_for(400ms);
	for (auto &v : hog)
		for (std::size_t i = 0; i + 8 <= v.size(); i += 4096) {
			std::uint64_t x;
			std::memcpy(&x, &v[i], 8);
			EXPECT((x ^ sig) >= 512, "the device's late write landed in memory handed out later");
		}
	if (how == "unbind")
		write_sysfs("/sys/bus/pci/drivers/pioc/bind", bdf);
	wait_node(bdf);
	raw_file f2(bdf);
	EXPECT(f2.version().dma_used == 0, "DMA memory still held after the last close");
}

/** A window of 256 GiB maps in a moment and costs page tables only for
 *  what is touched. */
void test_big_window(const std::string &node)
{
	wait_node(node);
	auto t = transport::open(node);
	const std::uint64_t size = t->info().bars.at(0).size;
	EXPECT(size >= (256ULL << 30), "{} is {:#x} bytes, want 256 GiB", node, size);
	auto pte_kb = [] {
		const std::string s = read_file("/proc/self/status");
		const auto p = s.find("VmPTE:");
		return p == std::string::npos ? -1L : std::strtol(s.c_str() + p + 6, nullptr, 10);
	};
	const long before = pte_kb();
	const auto t0 = std::chrono::steady_clock::now();
	pioc::region w = t->map_bar(0, pioc::mem_type::wb);
	const double map_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	auto *p = static_cast<volatile std::uint8_t *>(std::get<pioc::mmio_io>(w.io()).base());
	for (std::uint64_t off : {std::uint64_t{0}, size / 3 & ~std::uint64_t{4095}, size / 2, size - 4096})
		(void)p[off];
	const long after = pte_kb();
	const std::uint64_t phys = t->info().bars.at(0).phys;
	const bool aligned = ((reinterpret_cast<std::uintptr_t>(p) - phys) & ((1ULL << 30) - 1)) == 0;
	std::printf("big-window: %llu GiB mapped in %.2f ms (TCG), page tables %ld -> %ld KiB after 4 touches "
		    "(address %s 1 GiB-congruent with the window)\n",
		    static_cast<unsigned long long>(size >> 30), map_ms, before, after, aligned ? "is" : "is not");
	// libpioc places large mappings so that huge entries can be used.
	EXPECT(aligned, "mapping at {:#x} is not 1 GiB-congruent with {:#x}", reinterpret_cast<std::uintptr_t>(p),
	       phys);
	EXPECT(map_ms < 1000, "mapping took {} ms", map_ms);
	EXPECT(after - before < 256, "page tables grew by {} KiB", after - before);
	// Where the kernel maps 1 GiB PFN entries, the four touches need no
	// page-table page below the PUD level: at most two PUD pages appear.
	const char *huge = std::getenv("PIOC_EXPECT_HUGE_PUD");
	if (huge && *huge == '1')
		EXPECT(after - before <= 8, "1 GiB entries expected, page tables grew by {} KiB", after - before);
}

/**
 * The security model: a non-root member of the device's group may use a
 * function whose DMA an IOMMU confines, and may not use one without.
 */
void test_noroot(bool expect_iommu)
{
	const std::string bdf = need_bdf(edu_vendor, edu_device);
	const std::string node = pioc::kmod::dev_dir() + "/" + bdf;
	// What udev's 99-pioc.rules does: group pioc (here gid 4242), 0660.
	EXPECT(::chown(node.c_str(), 0, 4242) == 0 && ::chmod(node.c_str(), 0660) == 0, "chown/chmod");
	const pid_t pid = fork();
	if (pid == 0) {
		const gid_t g = 4242;
		if (setgroups(1, &g) || setgid(4242) || setuid(1000))
			_exit(10);
		const int fd = ::open(node.c_str(), O_RDWR);
		if (fd < 0)
			_exit(errno == EPERM ? 1 : 20 + errno % 100);
		// DMA memory counts against RLIMIT_MEMLOCK (no CAP_IPC_LOCK here).
		const struct rlimit rl = {16384, 16384};
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(11);
		auto v = hdr<pioc_version>();
		v.user_version = PIOC_API_VERSION;
		auto a = hdr<pioc_dma_alloc>();
		a.size = 8192;
		if (::ioctl(fd, PIOC_IOC_VERSION, &v) || ::ioctl(fd, PIOC_IOC_DMA_ALLOC, &a))
			_exit(12); // within the limit
		a = hdr<pioc_dma_alloc>();
		a.size = 65536;
		if (::ioctl(fd, PIOC_IOC_DMA_ALLOC, &a) == 0 || errno != ENOMEM)
			_exit(13); // over it
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	EXPECT(WIFEXITED(st), "child died");
	const int rc = WEXITSTATUS(st);
	if (expect_iommu)
		EXPECT(rc == 0, "group member behind an IOMMU: exit {} (1: refused; 12: 8 KiB under a 16 KiB "
				"RLIMIT_MEMLOCK refused; 13: 64 KiB over it allowed)", rc);
	else
		EXPECT(rc == 1, "group member without CAP_SYS_RAWIO got a function no IOMMU confines (exit {})", rc);
	// root (CAP_SYS_RAWIO) always may.
	raw_file f(bdf);
	const auto v = f.version();
	EXPECT(!!(v.caps & PIOC_CAP_IOMMU) == expect_iommu && !!(v.caps & PIOC_CAP_NOIOMMU) == !expect_iommu,
	       "caps {:#x}, expected {} IOMMU", v.caps, expect_iommu ? "an" : "no");
}

} // namespace

bool run_lifetime_test(const std::string &n)
{
	const char *e = std::getenv("PIOC_EXPECT_IOMMU");
	const bool iommu = e && *e == '1';
	if (n == "stress-revoke") run(n, [] { test_stress_revoke(3.0); });
	else if (n == "stress-unbind") run(n, [] { test_stress_gone("unbind"); });
	else if (n == "stress-remove") run(n, [] { test_stress_gone("remove"); });
	else if (n == "hotunplug") run(n, [] { test_stress_gone("hotunplug"); });
	else if (n == "dma-inflight-close") run(n, [] { test_dma_inflight("close"); });
	else if (n == "dma-inflight-unbind") run(n, [] { test_dma_inflight("unbind"); });
	else if (n == "big-window") run(n, [] { test_big_window("eci2"); });
	else if (n == "noroot") run(n, [iommu] { test_noroot(iommu); });
	else return false;
	return true;
}

} // namespace guest
