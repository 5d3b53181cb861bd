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
};

} // namespace pioc::sim
