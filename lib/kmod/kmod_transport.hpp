// The "kmod" transport: a PCI function bound to the pioc kernel module
// (/dev/pioc/<BDF>) or an ECI window (/dev/pioc/eci<N>). Regions are mmaps
// of the device file with the memory type chosen before mapping; DMA
// buffers are module-allocated coherent memory; interrupts arrive on
// eventfds, waited for one at a time (poll) or many at once (liburing).
#pragma once

#include <pioc/device.hpp>

#include <uapi/linux/pioc.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pioc {

namespace kmod {

/** Directory of the module's device nodes: $PIOC_DEV_DIR or "/dev/pioc". */
std::string dev_dir();

/** An open device file; closes on destruction. Shared by regions and
 *  buffers made from it, so they stay valid after the transport goes. */
class file {
public:
	file(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
	~file();
	file(const file &) = delete;
	file &operator=(const file &) = delete;

	int fd() const noexcept { return fd_; }
	const std::string &path() const noexcept { return path_; }
	/** ioctl(); throws pioc::error naming @p what, the device and errno. */
	void ioctl(unsigned long cmd, void *arg, const char *what) const;
	/** ioctl(); returns 0 or -errno instead of throwing. */
	int try_ioctl(unsigned long cmd, void *arg) const noexcept;

private:
	std::string path_;
	int fd_;
};

/** An eventfd that receives one interrupt vector of a device. */
class irq_event {
public:
	irq_event(std::shared_ptr<const file> f, unsigned vector, int efd, bool intx);
	~irq_event();
	irq_event(const irq_event &) = delete;
	irq_event &operator=(const irq_event &) = delete;

	unsigned vector() const noexcept { return vector_; }
	int fd() const noexcept { return efd_; }
	/** Waits up to @p timeout for interrupts; returns how many arrived
	 *  since the last wait (0: timed out). Negative timeout: forever. */
	std::uint64_t wait(std::chrono::milliseconds timeout);
	/** Interrupts pending now, without waiting (0 if none). */
	std::uint64_t poll_now();
	/** INTx only: re-enable the line after the device was acknowledged. */
	void unmask();
	/** Interrupts the module has seen on this vector in total. */
	std::uint64_t kernel_count() const;

private:
	std::shared_ptr<const file> file_;
	unsigned vector_;
	int efd_;
	bool intx_;
};

/** Waits for many irq_events at once with io_uring: one read in flight per
 *  eventfd, re-armed after it completes. */
class irq_ring {
public:
	explicit irq_ring(std::vector<irq_event *> events);
	~irq_ring();
	irq_ring(const irq_ring &) = delete;
	irq_ring &operator=(const irq_ring &) = delete;

	struct fired {
		std::size_t index;   ///< position in the vector given to the constructor
		std::uint64_t count; ///< interrupts it received
	};
	/** Waits up to @p timeout for at least one event; returns every event
	 *  that completed (empty: timed out). */
	std::vector<fired> wait(std::chrono::milliseconds timeout);

private:
	struct impl;
	std::unique_ptr<impl> p_;
};

/** A PCI function bound to pioc, or an ECI window. */
class transport final : public pioc::transport {
public:
	/** Opens /dev/pioc/@p name ("0000:01:00.0", "01:00.0" or "eci0") and
	 *  checks the interface version. Throws errc::not_found. */
	static std::shared_ptr<transport> open(std::string_view name);

	std::string_view name() const noexcept override { return "kmod"; }
	bool simulated() const noexcept override { return false; }
	const device_info &info() const noexcept override { return info_; }
	/** Maps BAR (or window) @p bar; throws errc::not_supported unless the
	 *  module grants exactly @p t. */
	region map_bar(unsigned bar, mem_type t) override;
	/** Maps [off, off + size) (size 0: to the end) of BAR @p bar as one
	 *  mapping of the module (PIOC_IOC_MAP start/length): under x86 PAT the
	 *  module grants WC and UC on disjoint ranges of one BAR. Throws
	 *  errc::not_supported unless it grants exactly @p t there. */
	region map_bar_range(unsigned bar, std::uint64_t off, std::uint64_t size, mem_type t) override;
	/** Maps with the type the module grants for @p t (see region::type()). */
	region map_bar_granted(unsigned bar, mem_type t);
	/** map_bar_range() with the type the module grants. */
	region map_range_granted(unsigned bar, std::uint64_t off, std::uint64_t size, mem_type t);
	dma_buffer alloc_dma(std::size_t size) override;

	/** Registers an eventfd for interrupt @p vector (one owner at a time). */
	std::unique_ptr<irq_event> irq(unsigned vector);
	/** irq() for a driver that sees only pioc::transport. */
	interrupt_fd interrupt(unsigned vector) override;
	const pioc_version &version() const noexcept { return ver_; }
	bool is_eci() const noexcept { return ver_.kind == PIOC_KIND_ECI; }
	/** The device file, for callers that need the raw descriptor. */
	const std::shared_ptr<const file> &dev_file() const noexcept { return file_; }

	transport(std::shared_ptr<const file> f, pioc_version v, device_info info)
		: file_(std::move(f)), ver_(v), info_(std::move(info)) {}

private:
	std::shared_ptr<const file> file_;
	pioc_version ver_;
	device_info info_;
};

/** "uc", "wc", ... for a PIOC_MEM_* value; "?" for others. */
std::string_view mem_name(std::uint32_t m) noexcept;

} // namespace kmod

/** Every device file of the pioc module with what it reports (spec
 *  "kmod:<BDF>" or "kmod:eci<N>"). A node that cannot be opened is listed
 *  from sysfs with the reason in its description. */
std::vector<device_info> kmod_list_devices();

/** Opens "kmod:<name>" / "<BDF>" through the module (for device::open). */
std::shared_ptr<pioc::transport> open_kmod(std::string_view name);

} // namespace pioc
