// Behavioral model of the PIO test image (fpga/regmap/pio_dev.toml).
#pragma once

#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/target.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace pioc::sim {

/** The PIO test image as a transaction-level model. Time in ns is converted
 *  to device cycles at regs::pio_dev::clock_mhz. Every access is checked like
 *  the RTL would: registers take their declared width (32-bit registers also
 *  32-bit halves of 64-bit ones), windows take any size. */
class pio_dev final : public target {
public:
	/** Cycles the invoke unit needs: fixed latency + cost per 64 bytes.
	 *  Calibrated against the Verilated RTL (fpga/rtl/pio): its 64-bit
	 *  datapath needs about 20 cycles to start and 18 per 128 bytes. */
	struct timing {
		unsigned fixed_cycles = 20;
		unsigned cycles_per_64b = 9;
		/** BLOOM, n elements: fixed + bloom_first + bloom_per_element (n - 1).
		 *  The RTL reads an element in 18 cycles and the hash pipeline waits
		 *  while the 8 result words drain (not the paper's one element per
		 *  2 cycles, which needs a 512-bit element path). */
		unsigned bloom_first_cycles = 77;
		unsigned bloom_per_element_cycles = 23;
	};
	pio_dev();
	explicit pio_dev(timing t);

	std::string name() const override { return "pio_dev"; }
	// Everything happens when a register is accessed; a held status read
	// answers at a computed time. Nothing runs as time passes.
	bool advances() const noexcept override { return false; }
	std::uint64_t bar_size(unsigned bar) const override;
	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override;
	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len,
			   std::uint64_t t_ns) override;

	/** Device cycles at simulated time @p t_ns. */
	static std::uint64_t cycles_at(std::uint64_t t_ns) noexcept;
	static std::uint64_t ns_at(std::uint64_t cycles) noexcept;

	/** Counters the tests look at. */
	std::uint64_t ignored_writes() const noexcept { return ignored_writes_; }

private:
	void start_invoke(std::uint64_t doorbell, std::uint64_t t_ns);
	std::uint64_t reg_read(std::uint64_t off, unsigned len, std::uint64_t t_ns, std::uint64_t &ready_ns);
	void reg_write(std::uint64_t off, std::uint64_t v, unsigned len, std::uint64_t t_ns);

	timing timing_;
	std::vector<std::uint8_t> req_, resp_, bram_;
	std::uint32_t scratch_ = 0;
	std::uint32_t timeout_cycles_;
	std::uint32_t delay_cycles_ = 0;
	std::uint32_t invoke_count_ = 0, not_ready_count_ = 0;
	std::uint32_t cycles_hi_latch_ = 0;
	// The invocation in flight (or last finished).
	bool busy_ = false;
	std::uint64_t done_ns_ = 0;
	std::uint32_t seq_ = 0, len_ = 0;
	std::uint64_t ignored_writes_ = 0;
};

/** The PIO image on a simulated link with the named timing preset. */
std::unique_ptr<target> make_pio_dev();

} // namespace pioc::sim
