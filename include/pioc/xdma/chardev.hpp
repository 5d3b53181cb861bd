/** @file
 * Compatibility transport over the stock Xilinx XDMA driver (dma_ip_drivers):
 * its character devices /dev/xdma<N>_h2c_<C> and _c2h_<C> (pwrite/pread, the
 * file offset is the card's AXI address) and _user (mmap of the user BAR).
 * For users who keep the stock driver: pciebench can still measure.
 *
 * Only synchronous pread/pwrite: the stock driver's read_iter/write_iter
 * (what io_uring and aio reach) take the iov_iter's iov_offset as the card
 * address instead of the file position, so every queued transfer would land
 * at card address 0. Queue depth comes from one worker thread per transfer in
 * flight, each blocked in its own pread/pwrite (the driver serializes each
 * engine; H2C and C2H, and the pinning of the next buffer, still overlap).
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
	/** Opens the H2C and C2H devices (user is mapped on demand) and starts
	 *  @p queue_depth (1..1024) I/O threads. Throws pioc::error naming the path. */
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

	/** Queues a transfer (at most queue_depth in flight): an I/O thread does
	 *  the pwrite / pread at offset @p card; @p tag comes back from reap(). */
	void submit_write(std::uint64_t card, const void *src, std::size_t n, std::uint64_t tag);
	void submit_read(std::uint64_t card, void *dst, std::size_t n, std::uint64_t tag);
	/** Waits for at least @p min completions (at most what is in flight);
	 *  returns their tags and any others already done. Throws on an error or
	 *  short transfer, naming the device, offset and size. */
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
