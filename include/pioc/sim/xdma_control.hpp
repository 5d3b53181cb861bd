/** @file
 * What the simulated XDMA device offers beyond its BARs: the event clock the
 * driver's simulated waits jump along, the interrupt wiring (an eventfd per
 * MSI-X vector, as the pioc module gives on hardware), access to the card
 * side the engines address (for tests and tools), and error injection.
 *
 * The driver (pioc::xdma::dma) does not know this interface: it waits through
 * the I/O view (pioc::sim_io) and binds interrupts, resets the function and
 * learns the card's size through the transport, as on hardware. Tests, tools
 * and the vfio-user server reach it with pioc::sim::xdma_control().
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pioc {
class device;
}

namespace pioc::xdma {

/** Errors the engine model can be told to produce on a channel's next run. */
enum class fault : std::uint8_t {
	none,
	bad_magic,       ///< the first fetched descriptor reads with a wrong magic -> MAGIC_STOPPED
	misalign,        ///< the first descriptor is reported misaligned -> ALIGN_MISMATCH
	read_error,      ///< the first data read fails (UR) -> READ_ERROR
	write_error,     ///< the first data write fails -> WRITE_ERROR
	desc_error,      ///< the descriptor fetch completes with UR -> DESC_ERROR
	stuck,           ///< busy forever with nothing completed, until run is cleared
	stuck_hard,      ///< busy forever, ignores run being cleared (needs a function reset)
	removed,         ///< the function goes away as the run starts (hot-unplug, or the vfio-user
	                 ///< server dying): every BAR read answers all-ones, writes are dropped, nothing
	                 ///< moves and no interrupt comes, until function_reset() (a new function)
};
std::string_view to_string(fault f) noexcept;

class sim_control {
public:
	virtual ~sim_control() = default;
	/** Simulated time of the next thing the device will do, or UINT64_MAX. */
	virtual std::uint64_t next_event_ns() const noexcept = 0;
	/** Delivers MSI-X vector @p vector to eventfd @p fd (-1 to unbind). */
	virtual void bind_vector(unsigned vector, int fd) = 0;
	/** Arms @p f for the next run of the channel. */
	virtual void inject(bool c2h, unsigned channel, fault f) = 0;
	/** Copies card addresses [addr, addr+len) out / in, as the engines would
	 *  see them (tests and tools, not timed). sim:xdma: card memory; rtl:xdma:
	 *  through the RTL's DMA AXI port, taking its cycles at the device's
	 *  current time. Out of range: pioc::error(out_of_range) naming device,
	 *  address, size and the limit. */
	virtual void card_read(std::uint64_t addr, void *out, std::size_t len) = 0;
	virtual void card_write(std::uint64_t addr, const void *data, std::size_t len) = 0;
	/** The card address space the engines reach: addresses 0 .. size-1
	 *  (sim:xdma 64 MiB of memory; rtl:xdma the PIO image's 256 KiB map). */
	virtual std::uint64_t card_memory_size() const noexcept = 0;
	/** First card address plain data may go to: 0 for card memory; the BRAM
	 *  window when the card side is the PIO image (its low addresses are
	 *  registers: a DMA write there rings doorbells). */
	virtual std::uint64_t card_data_base() const noexcept = 0;
	/** Resets the whole function (as a PCIe FLR would): every engine idle, registers at reset values. */
	virtual void function_reset() = 0;
	/** The BAR of the IP's config registers and MSI-X table (PG195: BAR1
	 *  behind an AXI-Lite BAR, BAR0 without one, as in the NIC images). */
	virtual unsigned config_bar() const noexcept = 0;
};

} // namespace pioc::xdma

namespace pioc::sim {

/** The simulated XDMA device behind @p dev (sim:xdma, rtl:xdma), nullptr for
 *  any other device. Not for timed loops (a dynamic_cast). */
xdma::sim_control *xdma_control(device &dev) noexcept;

} // namespace pioc::sim
