// Compatibility transport over the Xilinx XDMA driver's character devices.
#include <pioc/error.hpp>
#include <pioc/wide.hpp>
#include <pioc/xdma/chardev.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace pioc::xdma {

struct chardev::impl {
	int h2c = -1, c2h = -1;
	io_uring ring{};
	struct op {
		bool write;
		std::uint64_t card;
		std::size_t n;
		std::uint64_t tag;
	};
	std::vector<op> ops; // by slot
	std::vector<unsigned> free_slots;
};

chardev::paths chardev::default_paths(unsigned card, unsigned channel)
{
	return {fmt::format("/dev/xdma{}_h2c_{}", card, channel), fmt::format("/dev/xdma{}_c2h_{}", card, channel),
		fmt::format("/dev/xdma{}_user", card)};
}

chardev::chardev(paths p, unsigned queue_depth) : p_(std::make_unique<impl>()), paths_(std::move(p)), qd_(queue_depth)
{
	if (qd_ == 0 || qd_ > 4096)
		throw error(errc::invalid_argument, fmt::format("XDMA char devices: queue depth {} is not 1..4096", qd_));
	p_->h2c = ::open(paths_.h2c.c_str(), O_RDWR | O_CLOEXEC);
	if (p_->h2c < 0)
		throw_os_error(fmt::format("XDMA char device {} (stock Xilinx driver loaded?)", paths_.h2c), errno);
	p_->c2h = paths_.c2h == paths_.h2c ? ::dup(p_->h2c) : ::open(paths_.c2h.c_str(), O_RDWR | O_CLOEXEC);
	if (p_->c2h < 0) {
		const int e = errno;
		::close(p_->h2c);
		throw_os_error(fmt::format("XDMA char device {}", paths_.c2h), e);
	}
	const int rc = io_uring_queue_init(qd_, &p_->ring, 0);
	if (rc < 0) {
		::close(p_->h2c);
		::close(p_->c2h);
		throw_os_error("XDMA char devices: io_uring setup", -rc);
	}
	p_->ops.resize(qd_);
	for (unsigned i = qd_; i-- > 0;)
		p_->free_slots.push_back(i);
}

chardev::~chardev()
{
	io_uring_queue_exit(&p_->ring);
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
	if (p_->free_slots.empty())
		throw error(errc::out_of_range,
			    fmt::format("XDMA char devices: {} transfers already in flight (queue depth); reap first", qd_));
	io_uring_sqe *sqe = io_uring_get_sqe(&p_->ring);
	if (!sqe)
		throw error(errc::out_of_range, "XDMA char devices: io_uring submission queue full");
	const unsigned slot = p_->free_slots.back();
	p_->free_slots.pop_back();
	p_->ops[slot] = {wr, card, n, tag};
	if (wr)
		io_uring_prep_write(sqe, p_->h2c, buf, unsigned(n), card);
	else
		io_uring_prep_read(sqe, p_->c2h, buf, unsigned(n), card);
	io_uring_sqe_set_data64(sqe, slot);
	const int rc = io_uring_submit(&p_->ring);
	if (rc < 0)
		throw_os_error("XDMA char devices: io_uring submit", -rc);
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
	while (in_flight_ && (tags.size() < min || !err.empty())) {
		io_uring_cqe *cqe = nullptr;
		const int rc = tags.size() < min ? io_uring_wait_cqe(&p_->ring, &cqe) : io_uring_peek_cqe(&p_->ring, &cqe);
		if (rc == -EAGAIN)
			break;
		if (rc < 0)
			throw_os_error("XDMA char devices: io_uring wait", -rc);
		const unsigned slot = unsigned(io_uring_cqe_get_data64(cqe));
		const int res = cqe->res;
		io_uring_cqe_seen(&p_->ring, cqe);
		--in_flight_;
		p_->free_slots.push_back(slot);
		const auto &o = p_->ops[slot];
		if (res < 0 || std::size_t(res) != o.n) {
			if (err.empty())
				err = fmt::format("{}: {} of {} bytes at card address {:#x} {}", o.write ? paths_.h2c : paths_.c2h,
						  o.write ? "write" : "read", o.n, o.card,
						  res < 0 ? fmt::format("failed: {}", std::strerror(-res))
							  : fmt::format("moved only {} bytes", res));
			continue;
		}
		tags.push_back(o.tag);
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
