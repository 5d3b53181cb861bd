// The kmod transport: regions, DMA buffers and interrupts through the pioc
// kernel module's device files.
#include "kmod/kmod_transport.hpp"

#include <pioc/error.hpp>
#include <pioc/wide.hpp>

#include <fmt/format.h>
#include <liburing.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static_assert(PIOC_MEM_UC == static_cast<int>(pioc::mem_type::uc));
static_assert(PIOC_MEM_WC == static_cast<int>(pioc::mem_type::wc));
static_assert(PIOC_MEM_WT == static_cast<int>(pioc::mem_type::wt));
static_assert(PIOC_MEM_WB == static_cast<int>(pioc::mem_type::wb));

namespace fs = std::filesystem;

namespace pioc {
namespace kmod {

namespace {

/** errno of a call on an open device file -> errc. */
errc errc_of(int err)
{
	switch (err) {
	case EACCES: case EPERM: return errc::permission;
	case ENODEV: return errc::device_gone;
	case ENOENT: return errc::not_found;
	case EINVAL: case ENOTTY: case EPROTO: return errc::invalid_argument;
	case ENXIO: case E2BIG: case ENOSPC: return errc::out_of_range;
	case EOPNOTSUPP: return errc::not_supported;
	case ETIMEDOUT: return errc::timeout;
	default: return errc::os_error;
	}
}

template <class T> T hdr()
{
	T v{};
	v.argsz = sizeof(T);
	return v;
}

std::string read_line(const fs::path &p)
{
	std::ifstream in(p);
	std::string s;
	std::getline(in, s);
	return s;
}

std::uint16_t read_hex(const fs::path &p)
{
	const std::string s = read_line(p);
	return s.empty() ? 0 : static_cast<std::uint16_t>(std::strtoul(s.c_str(), nullptr, 16));
}

/** "01:00.0" -> "0000:01:00.0"; other names unchanged. */
std::string full_name(std::string_view n)
{
	if (n.size() == 7 && n[2] == ':' && n[5] == '.')
		return "0000:" + std::string(n);
	return std::string(n);
}

} // namespace

std::string dev_dir()
{
	const char *e = std::getenv("PIOC_DEV_DIR");
	return e && *e ? e : "/dev/pioc";
}

std::string_view mem_name(std::uint32_t m) noexcept
{
	switch (m) {
	case PIOC_MEM_UC: return "uc";
	case PIOC_MEM_WC: return "wc";
	case PIOC_MEM_WT: return "wt";
	case PIOC_MEM_WB: return "wb";
	default: return "?";
	}
}

// ------------------------------------------------------------------ file

file::~file()
{
	if (fd_ >= 0)
		::close(fd_);
}

int file::try_ioctl(unsigned long cmd, void *arg) const noexcept
{
	return ::ioctl(fd_, cmd, arg) < 0 ? -errno : 0;
}

void file::ioctl(unsigned long cmd, void *arg, const char *what) const
{
	if (int r = try_ioctl(cmd, arg))
		throw error(errc_of(-r), fmt::format("{}: {} failed: {}", path_, what, std::strerror(-r)));
}

// ------------------------------------------------------------- interrupts

irq_event::irq_event(std::shared_ptr<const file> f, unsigned vector, int efd, bool intx)
	: file_(std::move(f)), vector_(vector), efd_(efd), intx_(intx)
{
}

irq_event::~irq_event()
{
	auto is = hdr<pioc_irq_set>();
	is.vector = vector_;
	is.fd = -1;
	(void)file_->try_ioctl(PIOC_IOC_IRQ_SET, &is); // fails harmlessly if the device is gone
	::close(efd_);
}

std::uint64_t irq_event::poll_now()
{
	return wait(std::chrono::milliseconds(0));
}

std::uint64_t irq_event::wait(std::chrono::milliseconds timeout)
{
	pollfd p{efd_, POLLIN, 0};
	const int ms = timeout.count() < 0 ? -1 : static_cast<int>(std::min<long long>(timeout.count(), 1 << 30));
	int r;
	do
		r = ::poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		throw_os_error(fmt::format("{}: poll on the eventfd of interrupt vector {}", file_->path(), vector_), errno);
	if (r == 0)
		return 0;
	std::uint64_t n = 0;
	if (::read(efd_, &n, sizeof n) != sizeof n)
		throw_os_error(fmt::format("{}: read of the eventfd of interrupt vector {}", file_->path(), vector_), errno);
	return n;
}

void irq_event::unmask()
{
	if (!intx_)
		return;
	auto is = hdr<pioc_irq_set>();
	is.vector = vector_;
	is.flags = PIOC_IRQ_FLAG_UNMASK;
	file_->ioctl(PIOC_IOC_IRQ_SET, &is, "PIOC_IOC_IRQ_SET(unmask)");
}

std::uint64_t irq_event::kernel_count() const
{
	// Re-registering the same eventfd is harmless and returns the count.
	auto is = hdr<pioc_irq_set>();
	is.vector = vector_;
	is.fd = efd_;
	file_->ioctl(PIOC_IOC_IRQ_SET, &is, "PIOC_IOC_IRQ_SET(count)");
	return is.count;
}

struct irq_ring::impl {
	io_uring ring{};
	std::vector<irq_event *> ev;
	std::vector<std::uint64_t> buf;

	void arm(std::size_t i)
	{
		io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		if (!sqe)
			throw error(errc::os_error, "irq_ring: submission queue full");
		io_uring_prep_read(sqe, ev[i]->fd(), &buf[i], sizeof buf[i], 0);
		io_uring_sqe_set_data64(sqe, i);
	}
};

irq_ring::irq_ring(std::vector<irq_event *> events) : p_(std::make_unique<impl>())
{
	if (events.empty())
		throw error(errc::invalid_argument, "irq_ring: no interrupt events to wait for");
	p_->ev = std::move(events);
	p_->buf.assign(p_->ev.size(), 0);
	unsigned entries = 1;
	while (entries < p_->ev.size())
		entries <<= 1;
	if (int r = io_uring_queue_init(entries, &p_->ring, 0); r < 0)
		throw_os_error(fmt::format("irq_ring: io_uring_queue_init({} entries)", entries), -r);
	try {
		for (std::size_t i = 0; i < p_->ev.size(); i++)
			p_->arm(i);
		if (int r = io_uring_submit(&p_->ring); r < 0)
			throw_os_error("irq_ring: io_uring_submit", -r);
	} catch (...) {
		io_uring_queue_exit(&p_->ring);
		throw;
	}
}

irq_ring::~irq_ring()
{
	io_uring_queue_exit(&p_->ring);
}

std::vector<irq_ring::fired> irq_ring::wait(std::chrono::milliseconds timeout)
{
	std::vector<fired> out;
	io_uring_cqe *cqe = nullptr;
	__kernel_timespec ts{};
	ts.tv_sec = timeout.count() / 1000;
	ts.tv_nsec = (timeout.count() % 1000) * 1000000;
	int r = io_uring_wait_cqe_timeout(&p_->ring, &cqe, timeout.count() < 0 ? nullptr : &ts);
	if (r == -ETIME || r == -EINTR)
		return out;
	if (r < 0)
		throw_os_error("irq_ring: io_uring_wait_cqe_timeout", -r);
	while (io_uring_peek_cqe(&p_->ring, &cqe) == 0) {
		const std::size_t i = io_uring_cqe_get_data64(cqe);
		const int res = cqe->res;
		io_uring_cqe_seen(&p_->ring, cqe);
		if (res != sizeof(std::uint64_t))
			throw_os_error(fmt::format("irq_ring: read of interrupt vector {}", p_->ev[i]->vector()),
				       res < 0 ? -res : EIO);
		out.push_back({i, p_->buf[i]});
		p_->arm(i);
	}
	if (int s = io_uring_submit(&p_->ring); s < 0)
		throw_os_error("irq_ring: io_uring_submit", -s);
	return out;
}

// -------------------------------------------------------------- transport

namespace {

/** Everything a mapping needs to stay valid and to be undone. */
struct mapping {
	std::shared_ptr<const file> f;
	void *addr = MAP_FAILED;
	std::size_t size = 0;
	std::uint32_t handle = 0;
	std::uint32_t dma_handle = 0; // frees the DMA buffer too

	~mapping()
	{
		if (addr != MAP_FAILED)
			::munmap(addr, size);
		if (handle) {
			auto u = hdr<pioc_unmap>();
			u.handle = handle;
			(void)f->try_ioctl(PIOC_IOC_UNMAP, &u);
		}
		if (dma_handle) {
			auto d = hdr<pioc_dma_free>();
			d.handle = dma_handle;
			(void)f->try_ioctl(PIOC_IOC_DMA_FREE, &d);
		}
	}
};

/**
 * An address for a mapping of @p size bytes whose physical start is @p phys,
 * congruent with it modulo the largest huge entry that fits (1 GiB, 2 MiB),
 * so that the module's fault handler can map whole PMD/PUD entries where
 * the kernel allows them. nullptr: let the kernel choose (small mappings, or
 * no room for the reservation).
 */
void *huge_aligned_hint(std::uint64_t phys, std::size_t size)
{
	constexpr std::size_t pmd = 2ull << 20, pud = 1ull << 30;
	const std::size_t align = size >= pud ? pud : size >= pmd ? pmd : 0;
	if (!align)
		return nullptr;
	// Reserve address space (no memory), pick the congruent address inside,
	// give the reservation back: the device mapping goes there right after.
	void *r = ::mmap(nullptr, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return nullptr;
	const auto base = reinterpret_cast<std::uintptr_t>(r);
	const std::uintptr_t want = phys & (align - 1);
	const std::uintptr_t hint = ((base - want + align - 1) & ~(align - 1)) + want;
	::munmap(r, size + align);
	return reinterpret_cast<void *>(hint);
}

/** Prepares and mmaps handle-encoded offset; fills m. @p phys: the target's
 *  physical address if known (BARs, windows), for huge-entry alignment. */
pioc_map map_handle(const std::shared_ptr<const file> &f, mapping &m, std::uint32_t target,
		    std::uint32_t index, mem_type t, std::uint64_t phys = 0, std::uint64_t start = 0,
		    std::uint64_t length = 0)
{
	auto mp = hdr<pioc_map>();
	mp.target = target;
	mp.index = index;
	mp.mem_type = static_cast<std::uint32_t>(t);
	mp.start = start;
	mp.length = length;
	f->ioctl(PIOC_IOC_MAP, &mp,
		 fmt::format("PIOC_IOC_MAP({} {}{} as {})", target == PIOC_MAP_BAR ? "BAR" : "DMA buffer", index,
			     start || length ? fmt::format(" [{:#x}, +{:#x})", start, length) : "", to_string(t))
			 .c_str());
	m.handle = mp.handle;
	m.size = mp.size;
	void *p = ::mmap(phys ? huge_aligned_hint(phys, mp.size) : nullptr, mp.size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, f->fd(), static_cast<off_t>(mp.offset));
	if (p == MAP_FAILED)
		throw_os_error(fmt::format("{}: mmap of {} bytes at handle offset {:#x}", f->path(), mp.size,
					   mp.offset), errno);
	m.addr = p;
	return mp;
}

device_info info_from(const file &f, const pioc_version &v, const std::string &name)
{
	device_info di;
	di.spec = "kmod:" + name;
	di.driver = "pioc";
	di.transport = "kmod";
	if (v.kind == PIOC_KIND_PCI) {
		di.bdf = name;
		auto d = hdr<pioc_dev_info>();
		f.ioctl(PIOC_IOC_DEV_INFO, &d, "PIOC_IOC_DEV_INFO");
		di.vendor = d.vendor;
		di.device = d.device;
		di.subsys_vendor = d.subsys_vendor;
		di.subsys_device = d.subsys_device;
		di.numa_node = d.numa_node;
		di.link = {d.link_speed, d.link_width, d.max_link_speed, d.max_link_width, d.mps, d.mrrs};
	}
	for (unsigned i = 0; i < v.num_bars; i++) {
		auto b = hdr<pioc_bar_info>();
		b.index = i;
		f.ioctl(PIOC_IOC_BAR_INFO, &b, "PIOC_IOC_BAR_INFO");
		bar_info bi;
		bi.index = i;
		bi.size = b.size;
		bi.phys = b.phys;
		bi.is_io = b.flags & PIOC_BAR_IO;
		bi.is_64bit = b.flags & PIOC_BAR_64;
		bi.prefetchable = b.flags & PIOC_BAR_PREFETCH;
		di.bars.push_back(bi);
	}
	static constexpr const char *irq_names[] = {"no", "INTx", "MSI", "MSI-X"};
	if (v.kind == PIOC_KIND_ECI) {
		const bool coh = v.caps & PIOC_CAP_MEM_WB;
		di.description = fmt::format("ECI {} window, {} bytes", coh ? "coherent" : "I/O",
					     di.bars.empty() ? 0 : di.bars[0].size);
	} else {
		di.description = fmt::format("bound to pioc: {} {} interrupt(s), {}-bit DMA {} ({} of {} bytes "
					     "in use)",
					     v.num_irqs, irq_names[std::min<std::uint32_t>(v.irq_type, 3)],
					     v.dma_mask_bits,
					     (v.caps & PIOC_CAP_IOMMU) ? "behind an IOMMU" : "without an IOMMU",
					     v.dma_used, v.dma_limit);
	}
	return di;
}

} // namespace

std::shared_ptr<transport> transport::open(std::string_view name_in)
{
	const std::string name = full_name(name_in);
	const std::string path = dev_dir() + "/" + name;
	const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		const int e = errno;
		throw error(e == EACCES || e == EPERM ? errc::permission : errc::not_found,
			    fmt::format("{}: cannot open ({}); is the function bound to pioc and are you "
					"in group pioc?", path, std::strerror(e)));
	}
	auto f = std::make_shared<const file>(path, fd);
	auto v = hdr<pioc_version>();
	v.user_version = PIOC_API_VERSION;
	// A module of another interface version refuses the handshake: one
	// older than 2 does not know the command at all (ENOTTY), a newer one
	// says EPROTO. Either way this library cannot use it.
	if (int r = f->try_ioctl(PIOC_IOC_VERSION, &v)) {
		if (r == -ENOTTY || r == -EPROTO)
			throw error(errc::not_supported,
				    fmt::format("{}: PIOC_IOC_VERSION: the node speaks another interface version "
						"than libpioc ({}): {}; load the pioc.ko built from the same pioc "
						"release",
						path, PIOC_API_VERSION,
						r == -ENOTTY ? "it does not know the version-2 handshake (a module "
							       "older than interface 2, or not a pioc node)"
							     : "it refused version " + std::to_string(PIOC_API_VERSION)));
		throw_os_error(fmt::format("{}: PIOC_IOC_VERSION (version handshake)", path), -r);
	}
	if (v.kernel_version != PIOC_API_VERSION)
		throw error(errc::not_supported,
			    fmt::format("{}: module speaks interface version {}, libpioc needs {}", path,
					v.kernel_version, PIOC_API_VERSION));
	device_info di = info_from(*f, v, name);
	return std::make_shared<transport>(std::move(f), v, std::move(di));
}

region transport::map_bar(unsigned bar, mem_type t)
{
	return map_bar_range(bar, 0, 0, t);
}

region transport::map_bar_range(unsigned bar, std::uint64_t off, std::uint64_t size, mem_type t)
{
	region r = map_range_granted(bar, off, size, t);
	if (r.type() != t)
		throw error(errc::not_supported,
			    fmt::format("{}: BAR {} [{:#x}, +{:#x}) asked as {} but the module grants {} here",
					info_.spec, bar, off, r.size(), to_string(t), to_string(r.type())));
	return r;
}

region transport::map_bar_granted(unsigned bar, mem_type t)
{
	return map_range_granted(bar, 0, 0, t);
}

region transport::map_range_granted(unsigned bar, std::uint64_t off, std::uint64_t size, mem_type t)
{
	if (bar >= ver_.num_bars)
		throw error(errc::out_of_range, fmt::format("{}: BAR {} does not exist ({} BARs)", info_.spec,
							    bar, ver_.num_bars));
	auto m = std::make_shared<mapping>();
	m->f = file_;
	const pioc_map mp = map_handle(file_, *m, PIOC_MAP_BAR, bar, t, info_.bars.at(bar).phys + off, off, size);
	const auto granted = static_cast<mem_type>(mp.granted);
	std::string rname = is_eci() ? fmt::format("{}", info_.spec)
				     : fmt::format("{} BAR{}", info_.spec, bar);
	if (off)
		rname += fmt::format("+{:#x}", off);
	mmio_io io(static_cast<std::uint8_t *>(m->addr), mp.size, granted, wide_isa_default());
	return region(std::move(rname), io, std::shared_ptr<const void>(m, m.get()));
}

dma_buffer transport::alloc_dma(std::size_t size)
{
	auto a = hdr<pioc_dma_alloc>();
	a.size = size;
	file_->ioctl(PIOC_IOC_DMA_ALLOC, &a,
		     fmt::format("PIOC_IOC_DMA_ALLOC({} bytes, limit {} per buffer)", size,
				 ver_.dma_max_size).c_str());
	auto m = std::make_shared<mapping>();
	m->f = file_;
	m->dma_handle = a.handle; // freed by ~mapping even if mmap fails
	map_handle(file_, *m, PIOC_MAP_DMA, a.handle, mem_type::wb);
	dma_buffer b;
	b.cpu = m->addr;
	b.bus = a.bus_addr;
	b.size = a.size;
	b.owner = std::shared_ptr<void>(m, m.get());
	return b;
}

std::unique_ptr<irq_event> transport::irq(unsigned vector)
{
	if (vector >= ver_.num_irqs)
		throw error(errc::out_of_range, fmt::format("{}: interrupt vector {} does not exist ({} vectors)",
							    info_.spec, vector, ver_.num_irqs));
	const int efd = ::eventfd(0, EFD_CLOEXEC);
	if (efd < 0)
		throw_os_error(fmt::format("{}: eventfd for interrupt vector {}", info_.spec, vector), errno);
	auto is = hdr<pioc_irq_set>();
	is.vector = vector;
	is.fd = efd;
	if (int r = file_->try_ioctl(PIOC_IOC_IRQ_SET, &is)) {
		::close(efd);
		throw error(r == -EBUSY ? errc::permission : errc_of(-r),
			    fmt::format("{}: PIOC_IOC_IRQ_SET(vector {}) failed: {}", file_->path(), vector,
					std::strerror(-r)));
	}
	return std::make_unique<irq_event>(file_, vector, efd, ver_.irq_type == PIOC_IRQ_INTX);
}

transport::interrupt_fd transport::interrupt(unsigned vector)
{
	std::shared_ptr<irq_event> ev = irq(vector);
	const int fd = ev->fd();
	return {fd, std::move(ev)};
}

} // namespace kmod

std::vector<device_info> kmod_list_devices()
{
	std::vector<device_info> out;
	const fs::path sys = "/sys/class/pioc";
	std::error_code ec;
	std::vector<std::string> names;
	for (const auto &e : fs::directory_iterator(sys, ec))
		names.push_back(e.path().filename().string());
	std::sort(names.begin(), names.end());
	for (const auto &n : names) {
		try {
			out.push_back(kmod::transport::open(n)->info());
		} catch (const error &e) {
			device_info di;
			di.spec = "kmod:" + n;
			di.driver = "pioc";
			di.transport = "kmod";
			const fs::path pci = sys / n / "device";
			if (fs::exists(pci / "vendor")) {
				using kmod::read_hex;
				di.bdf = n;
				di.vendor = read_hex(pci / "vendor");
				di.device = read_hex(pci / "device");
				di.subsys_vendor = read_hex(pci / "subsystem_vendor");
				di.subsys_device = read_hex(pci / "subsystem_device");
				const std::string node = kmod::read_line(pci / "numa_node");
				di.numa_node = node.empty() ? -1 : std::atoi(node.c_str());
			}
			di.description = fmt::format("bound to pioc, not accessible: {}", e.what());
			out.push_back(std::move(di));
		}
	}
	return out;
}

std::shared_ptr<pioc::transport> open_kmod(std::string_view name)
{
	if (name.substr(0, 5) == "kmod:")
		name.remove_prefix(5);
	return kmod::transport::open(name);
}

} // namespace pioc
