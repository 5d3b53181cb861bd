/** @file
 * The coherent engine's control block on the hardware path.
 *
 * On Enzian the engine's registers (fpga/regmap/coh_dev.toml: ID, VERSION,
 * CONFIG, CHANNELS, ...) sit at the start of the FPGA's uncached I/O window,
 * a window of its own beside the coherent one (`eci=...:io` of pioc.ko,
 * /dev/pioc/eciN). A tool that times the coherent window takes what the
 * image offers from here, not from build constants: how many CPU-initiated
 * channels it serves, and whether it answers the trigger line Exclusive.
 * The simulated engines have their own ports (pioc/coherent/port.hpp).
 */
#pragma once

#include <pioc/region.hpp>

#include <cstdint>
#include <string>

namespace pioc::coherent {

/** The control block at offset 0 of an I/O window mapped uncached. */
class engine_control {
public:
	/** Checks the block's ID ("COHE") and VERSION (major 3, the control
	 *  words this library speaks; minor 1 or later, which has CHANNELS).
	 *  Throws errc::not_supported naming the window, the offset, the value
	 *  read and the rule, or errc::out_of_range if the window is smaller
	 *  than the block. */
	explicit engine_control(region io);

	/** VERSION: major in [31:16], minor in [15:0]. */
	std::uint32_t version() const;
	/** CHANNELS: CPU-initiated channels 0 .. channels()-1. */
	std::uint32_t channels() const;
	/** CONFIG's CFG_EXCLUSIVE: the trigger line answered Exclusive. */
	bool exclusive() const;
	/** Sets or clears CFG_EXCLUSIVE, keeping CONFIG's other bits, and reads
	 *  it back: throws errc::device_error if the register did not take it. */
	void set_exclusive(bool on) const;
	/** The window, for messages. */
	const std::string &name() const noexcept { return io_.name(); }

private:
	region io_;
};

} // namespace pioc::coherent
