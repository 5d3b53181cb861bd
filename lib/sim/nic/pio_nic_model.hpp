// Behavioural model of the PCIe PIO NIC (fpga/regmap/nic_pio.toml, the
// paper's Fig. 8(b)): descriptor rings and packet buffers in device SRAM that
// the host reads and writes over BAR0, a TX engine that streams a frame to
// the MAC stand-in (mac_model) when the host rings TX_HEAD, an RX engine that
// writes frames coming back from the MAC into the RX ring, or drops them
// (RX_DROPS) when the ring is full.
//
// Timing, in core cycles at 250 MHz: TX starts tx_start_cycles after the
// doorbell arrives and sends one 64-byte beat per cycle; an RX frame's
// descriptor is visible rx_land_cycles after its last beat. These two
// constants are PROVISIONAL: there is no nic_pio RTL yet to calibrate them
// against (Documentation/nic.md). The MAC's line timing is mac_model's,
// which is checked cycle-exact against mac_loopback.sv.
#pragma once

#include "sim/nic/mac_model.hpp"

#include <pioc/regs/nic_pio.hpp>
#include <pioc/sim/target.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace pioc::sim::nic {

class pio_nic_model final : public target {
public:
	struct timing {
		unsigned tx_start_cycles = 4; ///< doorbell -> first TX beat (descriptor read from SRAM)
		unsigned rx_land_cycles = 2;  ///< last RX beat -> descriptor and RX_HEAD visible
	};
	pio_nic_model();
	explicit pio_nic_model(timing t);

	std::string name() const override { return "nic_pio"; }
	std::uint64_t bar_size(unsigned bar) const override;
	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override;
	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len,
			   std::uint64_t t_ns) override;
	void advance(std::uint64_t t_ns) override;

	static std::uint64_t cycles_at(std::uint64_t t_ns) noexcept;

	/** Writes the model refused (read-only register, bad ring size, ...). */
	std::uint64_t ignored_writes() const noexcept { return ignored_writes_; }

private:
	struct frame {
		std::uint32_t tx_slot;
		std::uint64_t tx_done_cycle; ///< last TX beat at the MAC; the stamp
		mac_result mac;
		std::vector<std::uint8_t> bytes;
		bool tx_reported = false;
	};
	void ring_tx(std::uint32_t new_head, std::uint64_t t_ns);
	void reg_write(std::uint64_t off, std::uint32_t v, std::uint64_t t_ns);
	std::uint64_t reg_read(std::uint64_t off, unsigned len, std::uint64_t t_ns);
	void put64(std::vector<std::uint8_t> &mem, std::uint64_t off, std::uint64_t v);

	timing timing_;
	mac_model mac_;
	std::vector<std::uint8_t> rx_desc_, tx_desc_, rx_buf_, tx_buf_;
	std::uint32_t rx_size_, tx_size_;
	std::uint32_t rx_head_ = 0, rx_tail_ = 0, tx_head_ = 0, tx_tail_ = 0;
	std::uint32_t rx_drops_ = 0;
	std::uint64_t tx_free_cycle_ = 0; ///< first cycle the TX stream is free
	std::deque<frame> in_flight_;     ///< sent, TX stamp or RX landing pending
	std::uint64_t ignored_writes_ = 0;
};

std::unique_ptr<target> make_pio_nic_model();

} // namespace pioc::sim::nic
