// A stand-in for the stock Xilinx char device's one reliable entry point:
// pread/pwrite, interposed for the whole test binary. Calls on a watched file
// descriptor are recorded (direction, file offset = card address, length) and
// can be slowed down, so tests see which card addresses a transport really
// asked for and how many calls were in flight at once. io_uring and aio do
// not come through here: on the stock driver they ignore the offset.
// No <unistd.h> here: its declarations of pread/pwrite may be redirected.
#include "unit/xdma/positioned_io_recorder.hpp"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

extern "C" long syscall(long number, ...) noexcept;

namespace pioc_test {
namespace {
std::mutex mu;
bool watching = false;
dev_t watched_dev = 0;
ino_t watched_ino = 0;
std::vector<io_call> calls;
unsigned active = 0, peak = 0;
unsigned delay_us = 0;

bool is_watched(int fd)
{
	struct stat st {};
	if (fstat(fd, &st) != 0)
		return false;
	std::lock_guard lk(mu);
	return watching && st.st_dev == watched_dev && st.st_ino == watched_ino;
}

long positioned(bool write, int fd, void *buf, std::size_t n, long long off)
{
	const bool w = is_watched(fd);
	unsigned sleep = 0;
	if (w) {
		std::lock_guard lk(mu);
		calls.push_back({write, std::uint64_t(off), n});
		peak = std::max(peak, ++active);
		sleep = delay_us;
	}
	if (sleep)
		std::this_thread::sleep_for(std::chrono::microseconds(sleep));
	const long r = syscall(write ? SYS_pwrite64 : SYS_pread64, fd, buf, n, off);
	if (w) {
		std::lock_guard lk(mu);
		--active;
	}
	return r;
}
} // namespace

bool watch_file(const std::string &path)
{
	struct stat st {};
	if (stat(path.c_str(), &st) != 0)
		return false;
	std::lock_guard lk(mu);
	watching = true;
	watched_dev = st.st_dev;
	watched_ino = st.st_ino;
	calls.clear();
	active = peak = 0;
	return true;
}

void unwatch()
{
	std::lock_guard lk(mu);
	watching = false;
	delay_us = 0;
}

void set_call_delay_us(unsigned us)
{
	std::lock_guard lk(mu);
	delay_us = us;
}

std::vector<io_call> recorded_calls()
{
	std::lock_guard lk(mu);
	return calls;
}

unsigned peak_concurrency()
{
	std::lock_guard lk(mu);
	return peak;
}

} // namespace pioc_test

extern "C" {
ssize_t pwrite(int fd, const void *buf, std::size_t n, off_t off)
{
	return pioc_test::positioned(true, fd, const_cast<void *>(buf), n, off);
}
ssize_t pwrite64(int fd, const void *buf, std::size_t n, off_t off)
{
	return pioc_test::positioned(true, fd, const_cast<void *>(buf), n, off);
}
ssize_t pread(int fd, void *buf, std::size_t n, off_t off)
{
	return pioc_test::positioned(false, fd, buf, n, off);
}
ssize_t pread64(int fd, void *buf, std::size_t n, off_t off)
{
	return pioc_test::positioned(false, fd, buf, n, off);
}
}
