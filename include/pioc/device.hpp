/** @file
 * Devices and the transports that give access to them.
 *
 * A device spec names what to open:
 *  - "sim:pio", "sim:xdma", ...: an in-process simulated device;
 *  - "rtl:pio", ...: a Verilated RTL design (when built with RTL support);
 *  - "0000:01:00.0" or "01:00.0": a PCI function by BDF; the transport is the
 *    pioc module when the function is bound to it, sysfs resource files otherwise;
 *  - "10ee:9038" or "10ee:9038#1": the first (second) function with that vendor:device;
 *  - "sysfs:BDF" / "kmod:BDF": force a transport;
 *  - coherent devices: "sim:eci" (the modelled Enzian), "rtl:coh" (its
 *    Verilated coherent engine) and a module's ECI window ("kmod:eci0"):
 *    device::coherent() gives the coherent drivers their lines.
 * Regions come from the transport; so do DMA buffers where it has them.
 */
#pragma once

#include <pioc/mem_type.hpp>
#include <pioc/region.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pioc {

namespace sim { class pcie_link; }
namespace coherent { class port; }

/** One BAR as the OS reports it. */
struct bar_info {
	unsigned index = 0;
	std::uint64_t size = 0;      ///< bytes; 0 = not implemented
	std::uint64_t phys = 0;      ///< bus address (0 when unknown or simulated)
	bool is_io = false;          ///< I/O-port BAR (not mappable)
	bool is_64bit = false;
	bool prefetchable = false;
};

/** PCIe link state, as a benchmark must report it. 0 = unknown. */
struct link_info {
	unsigned gen = 0, width = 0;          ///< negotiated
	unsigned max_gen = 0, max_width = 0;  ///< capability
	unsigned mps = 0, mrrs = 0;           ///< bytes
};

/** Everything pioc knows about a device without opening it. */
struct device_info {
	std::string spec;        ///< how to open it again ("sim:pio", "0000:01:00.0")
	std::string bdf;         ///< PCI address, empty for simulated devices
	std::uint16_t vendor = 0, device = 0;
	std::uint16_t subsys_vendor = 0, subsys_device = 0;
	std::string driver;      ///< bound kernel driver, "" if none
	std::string description; ///< what it is ("pioc PIO test image (simulated)")
	int numa_node = -1;      ///< -1 = unknown / not NUMA
	link_info link;
	std::vector<bar_info> bars;
	std::string transport;   ///< "sim", "rtl", "sysfs", "kmod"
	bool simulated = false;
};

/** A DMA buffer: host memory the device can reach at @p bus. */
struct dma_buffer {
	void *cpu = nullptr;
	std::uint64_t bus = 0;
	std::size_t size = 0;
	std::shared_ptr<void> owner; ///< frees the buffer when the last copy goes
};

/** Where regions come from. Not used in hot paths. */
class transport {
public:
	virtual ~transport() = default;
	virtual std::string_view name() const noexcept = 0;
	virtual bool simulated() const noexcept = 0;
	virtual const device_info &info() const noexcept = 0;
	/** Maps the whole of BAR @p bar with memory type @p t.
	 *  Throws errc::not_supported if the type cannot be granted. */
	virtual region map_bar(unsigned bar, mem_type t) = 0;
	/** Maps [off, off + size) of BAR @p bar (whole pages) with type @p t,
	 *  so that a driver can give disjoint pages of one BAR different types
	 *  (x86 PAT allows one type per page, not one per BAR). Throws as
	 *  map_bar(). Default: the whole BAR mapped with @p t, sub-ranged; a
	 *  transport whose memory types are claimed per range overrides it. */
	virtual region map_bar_range(unsigned bar, std::uint64_t off, std::uint64_t size, mem_type t)
	{
		return map_bar(bar, t).sub(off, size);
	}
	/** Allocates @p size bytes of DMA-able memory. Default: not supported. */
	virtual dma_buffer alloc_dma(std::size_t size);
	/** The simulated link, or nullptr on hardware. */
	virtual sim::pcie_link *sim_link() noexcept { return nullptr; }
	/** A simulated coherent device ("sim:eci", "rtl:coh"), or nullptr. */
	virtual coherent::port *coherent_port() noexcept { return nullptr; }

	/** An eventfd the transport signals on MSI-X vector @p vector, and what
	 *  keeps it registered (dropping @c owner closes and unregisters it). */
	struct interrupt_fd {
		int fd = -1;
		std::shared_ptr<void> owner;
	};
	/** Default: {-1, nullptr}, the transport does not deliver interrupts
	 *  itself (the driver's caller may bind them another way). A transport
	 *  that does but cannot now (vector taken, no MSI-X) throws. Drivers ask
	 *  here instead of knowing which transport they run on. */
	virtual interrupt_fd interrupt(unsigned vector);
	/** A function-level reset (PCIe FLR). Default: the kernel's, through
	 *  sysfs (/sys/bus/pci/devices/<BDF>/reset); a simulated device resets
	 *  its model. Throws errc::not_supported without a PCI address. */
	virtual void function_reset();
	/** The card address space the device's DMA engines reach, in bytes, when
	 *  the transport knows it (a simulated device's card memory); 0: unknown,
	 *  the driver does not check card addresses. */
	virtual std::uint64_t card_memory_size() const noexcept { return 0; }
};

/** An open device. */
class device {
public:
	/** Opens a device by spec (see file comment). Throws errc::not_found.
	 *  There is no default: a program that forgot its spec must not measure
	 *  a simulator by accident (the tools default to sim:* and say so). */
	static device open(std::string_view spec);

	explicit device(std::shared_ptr<transport> t) : t_(std::move(t)) {}
	const device_info &info() const noexcept { return t_->info(); }
	const std::string &spec() const noexcept { return t_->info().spec; }
	bool simulated() const noexcept { return t_->simulated(); }
	region map(unsigned bar, mem_type t = mem_type::uc) { return t_->map_bar(bar, t); }
	/** [off, off + size) of BAR @p bar alone (transport::map_bar_range). */
	region map(unsigned bar, std::uint64_t off, std::uint64_t size, mem_type t)
	{
		return t_->map_bar_range(bar, off, size, t);
	}
	dma_buffer alloc_dma(std::size_t size) { return t_->alloc_dma(size); }
	transport &get_transport() noexcept { return *t_; }
	sim::pcie_link *sim_link() noexcept { return t_->sim_link(); }
	/** The device as a coherent device (pioc/coherent/port.hpp): the
	 *  simulated ones as they are; any other device as a window mapped
	 *  write-back from BAR 0, which only a coherent ECI window of the module
	 *  grants (errc::not_supported naming the spec otherwise). */
	coherent::port &coherent();

private:
	std::shared_ptr<transport> t_;
	std::shared_ptr<coherent::port> window_; ///< coherent() of a hardware window
};

/** The BAR of @p dev that holds a user design: the first memory BAR of at
 *  least @p min_size bytes whose 32-bit register at @p id_off reads @p id.
 *  Where the user design sits depends on how the board's IP was built
 *  (PG195: behind an AXI-Lite BAR the XDMA config BAR is BAR1 and the
 *  bypass BAR BAR2; without one, BAR0 and BAR1, or BAR2 with 64-bit BARs),
 *  so drivers find it by its ID rather than by number. Each candidate is
 *  mapped uncached and read once at @p id_off (< min_size); BARs below
 *  @p first are not looked at. Throws
 *  errc::not_found naming @p what, the ID sought and what each BAR read. */
unsigned find_bar(device &dev, std::uint64_t min_size, std::uint64_t id_off, std::uint32_t id,
		  std::string_view what, unsigned first = 0);

/** Every device pioc knows: the simulated ones and PCI functions it can drive
 *  (our IDs, anything bound to the pioc module). @p all lists every PCI function. */
std::vector<device_info> list_devices(bool all = false);

} // namespace pioc
