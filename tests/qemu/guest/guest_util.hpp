// Helpers shared by the guest programs' files: marker lines, sysfs, the
// SIGBUS probe (per thread) and the edu device's registers.
#pragma once
#include "kmod/kmod_transport.hpp"
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
#include <array>
#include <memory>
#include <stdexcept>

namespace guest {

struct failure : std::runtime_error {
	using std::runtime_error::runtime_error;
};

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond))                                                                       \
			throw failure(fmt::format("{}:{}: {}: {}", __FILE__, __LINE__, #cond,      \
						  fmt::format(__VA_ARGS__)));                      \
	} while (0)

inline int g_failed = 0;

inline void run(const std::string &name, const std::function<void()> &f)
{
	const auto t0 = std::chrono::steady_clock::now();
	try {
		f();
		const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
			std::chrono::steady_clock::now() - t0).count();
		std::printf("PIOC-TEST PASS %s (%lld ms)\n", name.c_str(), static_cast<long long>(ms));
	} catch (const std::exception &e) {
		std::printf("PIOC-TEST FAIL %s: %s\n", name.c_str(), e.what());
		g_failed++;
	}
	std::fflush(stdout);
}

// ------------------------------------------------------------ helpers

inline std::string read_file(const fs::path &p)
{
	std::ifstream in(p);
	std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	return s;
}

inline void write_sysfs(const fs::path &p, const std::string &v)
{
	std::ofstream out(p);
	out << v;
	out.flush();
	EXPECT(out.good(), "write of '{}' to {} failed", v, p.string());
}

/** BDF of the first function with vendor:device, "" if none. */
inline std::string find_bdf(unsigned vendor, unsigned device)
{
	std::vector<std::string> v;
	for (const auto &e : fs::directory_iterator("/sys/bus/pci/devices")) {
		const auto ven = std::strtoul(read_file(e.path() / "vendor").c_str(), nullptr, 16);
		const auto dev = std::strtoul(read_file(e.path() / "device").c_str(), nullptr, 16);
		if (ven == vendor && dev == device)
			v.push_back(e.path().filename().string());
	}
	std::sort(v.begin(), v.end());
	return v.empty() ? "" : v.front();
}

inline std::string need_bdf(unsigned vendor, unsigned device)
{
	const std::string b = find_bdf(vendor, device);
	EXPECT(!b.empty(), "no PCI function {:04x}:{:04x} in the guest", vendor, device);
	return b;
}

/** Waits for /dev/pioc/<name> (devtmpfs creates it asynchronously). */
inline void wait_node(const std::string &name)
{
	const fs::path p = pioc::kmod::dev_dir() + "/" + name;
	for (int i = 0; i < 200 && !fs::exists(p); i++)
		std::this_thread::sleep_for(10ms);
	EXPECT(fs::exists(p), "{} did not appear", p.string());
}

/** sysfs "resource" line @p bar: start, end, flags. */
inline std::array<std::uint64_t, 3> sysfs_resource(const std::string &bdf, unsigned bar)
{
	std::ifstream in("/sys/bus/pci/devices/" + bdf + "/resource");
	std::string line;
	for (unsigned i = 0; i <= bar; i++)
		std::getline(in, line);
	std::array<std::uint64_t, 3> r{};
	std::sscanf(line.c_str(), "%lx %lx %lx", &r[0], &r[1], &r[2]);
	return r;
}

// Per thread: the stress tests probe from several threads at once.
inline thread_local sigjmp_buf g_jmp;
inline thread_local volatile sig_atomic_t g_in_probe = 0;

inline void on_fault(int sig)
{
	if (g_in_probe)
		siglongjmp(g_jmp, sig);
	std::_Exit(99);
}

/** The signal a 4-byte read of @p p raises: 0, SIGBUS or SIGSEGV. */
inline int probe(const volatile void *p)
{
	struct sigaction sa {};
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, nullptr);
	sigaction(SIGSEGV, &sa, nullptr);
	if (int sig = sigsetjmp(g_jmp, 1)) {
		g_in_probe = 0;
		return sig;
	}
	g_in_probe = 1;
	(void)*static_cast<const volatile std::uint32_t *>(p);
	g_in_probe = 0;
	return 0;
}

/** True if reading @p p raises SIGBUS (a revoked mapping, not a hole). */
inline bool faults(const volatile void *p)
{
	return probe(p) == SIGBUS;
}

template <class T> T hdr()
{
	T v{};
	v.argsz = sizeof(T);
	return v;
}

/** ioctl that must fail with @p want. */
inline void expect_errno(int fd, unsigned long cmd, void *arg, int want, const char *what)
{
	errno = 0;
	const int r = ::ioctl(fd, cmd, arg);
	const int e = errno;
	EXPECT(r == -1 && e == want, "{}: got {} ({}), documented {} ({})", what, r == -1 ? e : 0,
	       r == -1 ? std::strerror(e) : "success", want, std::strerror(want));
}

// ---------------------------------------------------------------- edu

constexpr unsigned edu_vendor = 0x1234, edu_device = 0x11e8;
constexpr std::uint64_t EDU_ID = 0x00, EDU_LIVE = 0x04, EDU_FACT = 0x08, EDU_STATUS = 0x20,
			EDU_IRQ_STATUS = 0x24, EDU_IRQ_ACK = 0x64, EDU_DMA_SRC = 0x80,
			EDU_DMA_DST = 0x88, EDU_DMA_CNT = 0x90, EDU_DMA_CMD = 0x98;
constexpr std::uint64_t EDU_BUF = 0x40000;

inline std::shared_ptr<transport> open_edu()
{
	const std::string bdf = need_bdf(edu_vendor, edu_device);
	wait_node(bdf);
	return transport::open(bdf);
}

} // namespace guest
