/** @file
 * What the simulated XDMA device offers beyond its BARs: the event clock the
 * driver's simulated waits jump along, the interrupt wiring (an eventfd per
 * MSI-X vector, as the pioc module gives on hardware), access to card memory
 * for tests, and error injection. The driver finds it once, at open, with a
 * dynamic_cast on the simulated link's device; never in a timed loop.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

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
	/** Card memory [addr, addr+len), or nullptr if out of range (tests only). */
	virtual std::uint8_t *card_memory(std::uint64_t addr, std::size_t len) = 0;
	virtual std::uint64_t card_memory_size() const noexcept = 0;
	/** Resets the whole function (as a PCIe FLR would): every engine idle, registers at reset values. */
	virtual void function_reset() = 0;
};

} // namespace pioc::xdma
