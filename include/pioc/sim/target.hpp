/** @file
 * The transaction interface between the CPU side of a simulated link and a
 * device model. Behavioral models, the XDMA engine model and the Verilated RTL
 * all implement pioc::sim::target, so the same host code drives each of them.
 *
 * A device model sees exactly what a PCIe endpoint sees: posted memory
 * writes (with their size: a write-combined 64-byte burst arrives as one
 * 64-byte write) and non-posted reads that return data. Time flows in
 * nanoseconds of simulated time; the link (pioc::sim::pcie_link) decides
 * when each transaction arrives.
 */
#pragma once

#include <pioc/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pioc::sim {

/** Direction-tagged description of one transaction, for traces and counters. */
struct tlp {
	enum class kind : std::uint8_t { mwr, mrd } type;
	unsigned bar;
	std::uint64_t offset;
	std::uint32_t length;
	std::uint64_t time_ns;
};

struct link_timing;

/** A device model on a simulated PCIe link. */
class target {
public:
	virtual ~target() = default;

	/** A short name ("pio_dev", "xdma", "rtl:pio_dev"). */
	virtual std::string name() const = 0;

	/** Size of BAR @p bar in bytes, 0 if the BAR does not exist. */
	virtual std::uint64_t bar_size(unsigned bar) const = 0;

	/** A posted write of @p len bytes (1..4096, not crossing 4 KiB)
	 *  arriving at the device at simulated time @p t_ns. */
	virtual void posted_write(unsigned bar, std::uint64_t off, const void *data,
				  std::size_t len, std::uint64_t t_ns) = 0;

	/** A non-posted read of @p len bytes arriving at @p t_ns. Fills @p data and
	 *  returns the simulated time at which the device sends the completion
	 *  (t_ns for a register that answers at once; later for a read that the
	 *  device holds, as the invoke unit's status register does). */
	virtual std::uint64_t read(unsigned bar, std::uint64_t off, void *data,
				   std::size_t len, std::uint64_t t_ns) = 0;

	/** Lets the device run up to @p t_ns (DMA engines, counters). Default: nothing. */
	virtual void advance(std::uint64_t t_ns) { (void)t_ns; }
	/** Whether advance() does anything: false lets a model that holds this
	 *  one (the XDMA model's user BAR) skip the call on every simulated
	 *  poll. Default: true. */
	virtual bool advances() const noexcept { return true; }

	// What a driver needs from a simulated device beyond its BARs, reached
	// through pioc::sim_io (waits) and the simulated transport (interrupts,
	// reset, card limits), never by the driver naming the model.

	/** Whether next_event_ns() is meaningful. Default: no event clock (a
	 *  simulated wait then steps 100 ns at a time). */
	virtual bool has_event_clock() const noexcept { return false; }
	/** Simulated time of the next thing the device will do, or UINT64_MAX. */
	virtual std::uint64_t next_event_ns() const noexcept { return UINT64_MAX; }
	/** A time before which the device writes nothing into host memory and
	 *  raises nothing, however often it is advanced: a CPU polling host
	 *  memory may spend its polls before then at once
	 *  (sim_io::idle_polls). Exact, not rounded up as next_event_ns() is.
	 *  Default 0: the model cannot say (a clocked one runs on advance()). */
	virtual double quiet_before_ns() const noexcept { return 0; }
	/** Whether the model raises MSI-X vectors (bind_vector() does something). */
	virtual bool delivers_msix() const noexcept { return false; }
	/** Delivers MSI-X vector @p vector to eventfd @p fd (-1 to unbind). */
	virtual void bind_vector(unsigned vector, int fd) { (void)vector, (void)fd; }
	/** Writes the model has made to eventfds of bind_vector() so far, so
	 *  that a simulated wait reads its eventfd (a system call) only after
	 *  one; the model is the only writer of those eventfds. UINT64_MAX:
	 *  not counted (the wait reads its eventfd after every step). */
	virtual std::uint64_t msix_writes() const noexcept { return UINT64_MAX; }
	/** A function-level reset (as a PCIe FLR). Default: not_supported. */
	virtual void function_reset()
	{
		throw error(errc::not_supported, name() + ": the model has no function reset");
	}
	/** The link the device sits on, told once by pcie_link before the first
	 *  access: a model whose own DMA crosses the link (the XDMA engines)
	 *  takes its width, rate and latency from here, so a link preset
	 *  ("@enzian-gen3x8") applies to the device's traffic as to the CPU's.
	 *  Default: ignored. */
	virtual void attach_link(const link_timing &t) { (void)t; }
	/** The card address space the device's DMA engines reach (bytes); 0: none. */
	virtual std::uint64_t card_memory_size() const noexcept { return 0; }
};

} // namespace pioc::sim
