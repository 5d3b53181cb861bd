/** @file
 * Compatibility transport over the stock Xilinx XDMA driver (dma_ip_drivers):
 * its character devices /dev/xdma<N>_h2c_<C> and _c2h_<C> (pwrite/pread, the
 * file offset is the card's AXI address) and _user (mmap of the user BAR).
 * For users who keep the stock driver: pciebench can still measure, with
 * io_uring giving queue depth (the driver itself serializes each channel).
 */
#pragma once

#include <pioc/region.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pioc::xdma {

class chardev {
public:
	struct paths {
		std::string h2c, c2h, user;
	};
	/** "/dev/xdma<card>_h2c_<ch>", "..._c2h_<ch>", "/dev/xdma<card>_user". */
	static paths default_paths(unsigned card, unsigned channel);
	/** Opens the H2C and C2H devices (user is mapped on demand) with an io_uring
	 *  of @p queue_depth entries. Throws pioc::error naming the path. */
	explicit chardev(paths p, unsigned queue_depth = 8);
	~chardev();
	chardev(const chardev &) = delete;
	chardev &operator=(const chardev &) = delete;

	const paths &files() const noexcept { return paths_; }
	unsigned queue_depth() const noexcept { return qd_; }

	/** Blocking host -> card (pwrite at offset @p card); throws on short writes. */
	void write(std::uint64_t card, const void *src, std::size_t n);
	/** Blocking card -> host (pread). */
	void read(std::uint64_t card, void *dst, std::size_t n);

	/** Queues a transfer (at most queue_depth in flight); @p tag comes back from reap(). */
	void submit_write(std::uint64_t card, const void *src, std::size_t n, std::uint64_t tag);
	void submit_read(std::uint64_t card, void *dst, std::size_t n, std::uint64_t tag);
	/** Waits for at least @p min completions; returns their tags. Throws on
	 *  an error or short transfer, naming the device, offset and size. */
	std::vector<std::uint64_t> reap(unsigned min);
	unsigned in_flight() const noexcept { return in_flight_; }

	/** Maps the _user device (the user BAR, uncached as the stock driver gives it). */
	region map_user(std::uint64_t size);

private:
	void submit(bool write, std::uint64_t card, void *buf, std::size_t n, std::uint64_t tag);
	struct impl;
	std::unique_ptr<impl> p_;
	paths paths_;
	unsigned qd_;
	unsigned in_flight_ = 0;
};

} // namespace pioc::xdma
