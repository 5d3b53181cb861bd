/** @file
 * What a coherent device gives the coherent drivers (invoker, receiver,
 * cq_ring, ff_queue, cq): the lines to work on and, on a simulated device,
 * the device side that answers. pioc::device::coherent() returns it for
 *  - "sim:eci": the modelled Enzian (pioc/sim/eci.hpp), its device side the
 *    behavioral Fig. 5 engine or the CNI queue engine, chosen per run;
 *  - "rtl:coh" (builds with -DPIOC_RTL=ON): the same model with the Verilated
 *    coherent invocation engine (fpga/rtl/coh) as its device side;
 *  - a module's ECI window ("kmod:eci0"): hardware, mapped write-back.
 * The drivers' line-access policy follows from it: eci_sim_lines over
 * system() on a simulated device, mem_lines over map_window() on hardware.
 * Nothing here is called inside a timed loop.
 */
#pragma once

#include <pioc/coherent/proto.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pioc::sim::eci {
class system;
struct config;
} // namespace pioc::sim::eci

namespace pioc::coherent {

/** The device side of the Fig. 5 protocols, as a run sets it up. */
struct engine_setup {
	variant v = variant::cpu_dev;
	bool exclusive = true;        ///< answer Exclusive although the CPU asked for Shared
	std::uint32_t data_lines = 0; ///< data lines per bank (pipelined mode), 0 = line by line
	std::uint32_t channels = 1;   ///< channels 0..channels-1
};

/** The Fig. 5 engine a simulated coherent device runs (owned by its port). */
class invocation_engine {
public:
	virtual ~invocation_engine() = default;
	/** Simulated address where the variant's window starts (0: device-homed;
	 *  the CPU-homed variants' window lies in the CPU's memory): the base of
	 *  the eci_sim_lines the CPU side uses with channel_layout(). */
	virtual std::uint64_t window_base() const noexcept = 0;
	/** The lines of channel @p ch for the variant the engine runs. */
	virtual layout channel_layout(std::uint32_t ch) const = 0;
	/** Device-initiated variants: a message for channel @p ch, available now. */
	virtual void post(std::uint32_t ch, std::vector<std::uint8_t> m) = 0;
	/** Clock cycles the engine has run (the RTL engine); none for a model. */
	virtual std::optional<std::uint64_t> cycles() const { return std::nullopt; }
};

/** Where the CNI queue engine put its two rings (device-homed addresses). */
struct queue_rings {
	std::uint64_t to_device = 0, from_device = 0;
};

/** Cacheable device memory mapped into this process (hardware). */
struct window {
	void *base = nullptr;
	std::uint64_t size = 0;
};

/** A coherent device. The simulated-only and hardware-only calls throw
 *  errc::not_supported on the other kind, naming the spec and the reason. */
class port {
public:
	virtual ~port() = default;
	const std::string &spec() const noexcept { return spec_; }
	virtual bool simulated() const noexcept = 0;
	/** Who answers on the device side: "model", "rtl" or "hardware". */
	virtual std::string_view engine_kind() const noexcept = 0;

	// ---- simulated devices
	/** Sets the modelled CPU's cache-line size (a power of two, 16..4096)
	 *  before the first system()/start_*(); rtl:coh takes 128 only. */
	virtual void set_line_size(std::uint32_t bytes);
	/** The parameters of the model this device runs on. */
	virtual const sim::eci::config &model() const;
	/** The simulated system eci_sim_lines drives (made on first use). */
	virtual sim::eci::system &system();
	/** Attaches the Fig. 5 engine for @p s; one engine per opened device. */
	virtual invocation_engine &start_invocations(const engine_setup &s);
	/** Attaches the CNI cachable queue engine, @p entries per ring. */
	virtual queue_rings start_queue(std::uint32_t entries);

	// ---- hardware
	/** The window mapped write-back: all of it (@p bytes 0) or its first
	 *  @p bytes (errc::out_of_range if larger). Mapped once, kept by the port. */
	virtual window map_window(std::uint64_t bytes = 0);

protected:
	explicit port(std::string spec) : spec_(std::move(spec)) {}
	[[noreturn]] void refuse(std::string_view what, std::string_view why) const;

private:
	std::string spec_;
};

} // namespace pioc::coherent
