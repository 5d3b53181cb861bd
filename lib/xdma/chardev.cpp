// Compatibility transport over the Xilinx XDMA driver's character devices.
#include <pioc/error.hpp>
#include <pioc/wide.hpp>
#include <pioc/xdma/chardev.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace pioc::xdma {

// Xilinx's char device (dma_ip_drivers cdev_sgdma.c) honours the file offset
// only in its read/write handlers; its read_iter/write_iter, which io_uring
// and aio use, pass the iov_iter's iov_offset (0) as the card address. So
// every transfer here is a synchronous pread/pwrite, and queue depth comes
// from worker threads, each blocked in one call.
struct chardev::impl {
	int h2c = -1, c2h = -1;
	struct job {
		bool write;
		std::uint64_t card;
		void *buf;
		std::size_t n;
		std::uint64_t tag;
		ssize_t res = 0;
		int err = 0;
	};
	std::mutex m;
	std::condition_variable work, done;
	std::deque<job> todo, finished;
	bool stop = false;
	std::vector<std::thread> workers;

	void serve()
	{
		std::unique_lock lk(m);
		for (;;) {
			work.wait(lk, [&] { return stop || !todo.empty(); });
			if (stop)
				return;
			job j = todo.front();
			todo.pop_front();
			lk.unlock();
			j.res = j.write ? ::pwrite(h2c, j.buf, j.n, off_t(j.card)) : ::pread(c2h, j.buf, j.n, off_t(j.card));
			j.err = j.res < 0 ? errno : 0;
			lk.lock();
			finished.push_back(j);
			done.notify_all();
		}
	}
};

chardev::paths chardev::default_paths(unsigned card, unsigned channel)
{
	return {fmt::format("/dev/xdma{}_h2c_{}", card, channel), fmt::format("/dev/xdma{}_c2h_{}", card, channel),
		fmt::format("/dev/xdma{}_user", card)};
}

chardev::chardev(paths p, unsigned queue_depth) : p_(std::make_unique<impl>()), paths_(std::move(p)), qd_(queue_depth)
{
	if (qd_ == 0 || qd_ > 1024)
		throw error(errc::invalid_argument,
			    fmt::format("XDMA char devices: queue depth {} is not 1..1024 (one thread per transfer in "
					"flight)",
					qd_));
	p_->h2c = ::open(paths_.h2c.c_str(), O_RDWR | O_CLOEXEC);
	if (p_->h2c < 0)
		throw_os_error(fmt::format("XDMA char device {} (stock Xilinx driver loaded?)", paths_.h2c), errno);
	p_->c2h = paths_.c2h == paths_.h2c ? ::dup(p_->h2c) : ::open(paths_.c2h.c_str(), O_RDWR | O_CLOEXEC);
	if (p_->c2h < 0) {
		const int e = errno;
		::close(p_->h2c);
		throw_os_error(fmt::format("XDMA char device {}", paths_.c2h), e);
	}
	for (unsigned i = 0; i < qd_; ++i)
		p_->workers.emplace_back([this] { p_->serve(); });
}

chardev::~chardev()
{
	{
		std::lock_guard lk(p_->m);
		p_->stop = true;
	}
	p_->work.notify_all();
	for (auto &t : p_->workers)
		t.join();
	::close(p_->h2c);
	::close(p_->c2h);
}

void chardev::write(std::uint64_t card, const void *src, std::size_t n)
{
	const ssize_t r = ::pwrite(p_->h2c, src, n, off_t(card));
	if (r < 0)
		throw_os_error(fmt::format("{}: write of {} bytes to card address {:#x}", paths_.h2c, n, card), errno);
	if (std::size_t(r) != n)
		throw error(errc::device_error, fmt::format("{}: write of {} bytes to card address {:#x} moved only {} "
							    "bytes",
							    paths_.h2c, n, card, r));
}

void chardev::read(std::uint64_t card, void *dst, std::size_t n)
{
	const ssize_t r = ::pread(p_->c2h, dst, n, off_t(card));
	if (r < 0)
		throw_os_error(fmt::format("{}: read of {} bytes from card address {:#x}", paths_.c2h, n, card), errno);
	if (std::size_t(r) != n)
		throw error(errc::device_error, fmt::format("{}: read of {} bytes from card address {:#x} moved only {} "
							    "bytes",
							    paths_.c2h, n, card, r));
}

void chardev::submit(bool wr, std::uint64_t card, void *buf, std::size_t n, std::uint64_t tag)
{
	if (in_flight_ >= qd_)
		throw error(errc::out_of_range,
			    fmt::format("XDMA char devices: {} transfers already in flight (queue depth); reap first", qd_));
	{
		std::lock_guard lk(p_->m);
		p_->todo.push_back({wr, card, buf, n, tag});
	}
	p_->work.notify_one();
	++in_flight_;
}

void chardev::submit_write(std::uint64_t card, const void *src, std::size_t n, std::uint64_t tag)
{
	submit(true, card, const_cast<void *>(src), n, tag);
}

void chardev::submit_read(std::uint64_t card, void *dst, std::size_t n, std::uint64_t tag)
{
	submit(false, card, dst, n, tag);
}

std::vector<std::uint64_t> chardev::reap(unsigned min)
{
	std::vector<std::uint64_t> tags;
	std::string err;
	std::unique_lock lk(p_->m);
	const std::size_t want = std::min<std::size_t>(min, in_flight_);
	p_->done.wait(lk, [&] { return p_->finished.size() >= want; });
	while (!p_->finished.empty()) {
		const impl::job j = p_->finished.front();
		p_->finished.pop_front();
		--in_flight_;
		if (j.res < 0 || std::size_t(j.res) != j.n) {
			if (err.empty())
				err = fmt::format("{}: {} of {} bytes at card address {:#x} {}", j.write ? paths_.h2c : paths_.c2h,
						  j.write ? "write" : "read", j.n, j.card,
						  j.res < 0 ? fmt::format("failed: {}", std::strerror(j.err))
							    : fmt::format("moved only {} bytes", j.res));
			continue;
		}
		tags.push_back(j.tag);
	}
	if (!err.empty())
		throw error(errc::device_error, err);
	return tags;
}

region chardev::map_user(std::uint64_t size)
{
	const int fd = ::open(paths_.user.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		throw_os_error(fmt::format("XDMA user BAR {}", paths_.user), errno);
	void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	const int e = errno;
	::close(fd);
	if (p == MAP_FAILED)
		throw_os_error(fmt::format("XDMA user BAR {}: mmap of {} bytes", paths_.user, size), e);
	auto owner = std::shared_ptr<void>(p, [size](void *q) { ::munmap(q, size); });
	return region(paths_.user + " (uc, stock driver)",
		      mmio_io(static_cast<std::uint8_t *>(p), size, mem_type::uc, wide_isa::none), owner);
}

} // namespace pioc::xdma
