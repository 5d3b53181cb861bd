// Behavioural model of the PCIe PIO NIC (fpga/regmap/nic_pio.toml, the
// paper's Fig. 8(b)): descriptor rings and packet buffers in device SRAM that
// the host reads and writes over BAR0, a TX engine that streams a frame to
// the MAC stand-in (mac_model) when the host rings TX_HEAD, an RX engine that
// writes frames coming back from the MAC into the RX ring, or drops them
// (RX_DROPS) when the ring is full.
//
// Timing, in core cycles at 250 MHz, every constant the RTL's
// (fpga/rtl/nic/nic_pio_*.sv; tests/rtl/test_nic_pio_vs_model.cpp checks the
// model against rtl:nic_pio and fpga/tb/test_nic_pio_top.cpp the constants
// against the RTL's cycle counts):
//  - The BAR port (the image's 64-bit AXI4 slave) takes one access at a time:
//    an access arriving while an earlier one is still on the port waits for
//    it. A read arriving at an idle port in cycle a is taken on the NIC's bus
//    in a+1 (what it sees is the state of that cycle) and its data is back in
//    a + 3 + beats; a write occupies the port 2 + beats cycles and takes
//    effect in a + beats (its last 8-byte beat on the bus).
//  - TX: the first beat leaves tx_start_cycles after the doorbell took
//    effect, then one 64-byte beat per cycle, frames back to back; a TX
//    descriptor shows DESC_DONE to reads taken tx_done_cycles after the
//    frame's last beat.
//  - RX: a frame gets its RX slot, or is dropped because the ring is full,
//    when its first beat arrives; its descriptor and RX_HEAD show
//    rx_land_cycles after its last beat.
//  - RX interrupt (RX_IRQ_ARM): a frame landing while armed disarms and
//    raises the XDMA IP's user interrupt line RX_IRQ_LINE in its landing
//    cycle. sim:nic_pio is this model behind the XDMA model (xdma_dev, as
//    the board's image is the IP with this logic on its bypass BAR): the IP
//    sends the MSI-X vector its IRQ block maps the line to (RX_IRQ_VECTOR
//    by default) once the driver enabled the line, and the eventfd is
//    signalled one_way_ns + irq_ns later (the posted write crossing the
//    link, then the host's interrupt handler and the waiter's wake-up).
//    Alone (unit tests of the model) the line goes nowhere. Nothing else of the host's
//    interrupt path (the IOMMU's interrupt remapping, a sleeping core's exit
//    latency, the scheduler under load) is modelled.
// The MAC's line timing is mac_model's, checked cycle-exact against
// mac_loopback.sv.
#pragma once

#include "sim/nic/mac_model.hpp"
#include "sim/xdma/xdma_dev.hpp"

#include <pioc/regs/nic_pio.hpp>
#include <pioc/sim/target.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace pioc::sim::nic {

class pio_nic_model final : public target, public user_irq_source {
public:
	struct timing {
		unsigned tx_start_cycles = 3; ///< TX_HEAD written -> first TX beat (descriptor, then row read)
		unsigned tx_done_cycles = 2;  ///< last TX beat -> DESC_DONE seen (MAC strobe, then descriptor write)
		unsigned rx_land_cycles = 2;  ///< last RX beat -> descriptor and RX_HEAD seen
		unsigned read_cycles = 3;     ///< BAR read: port time besides one cycle per beat
		unsigned write_cycles = 2;    ///< BAR write: port time besides one cycle per beat
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
	// Its landings are the events a CPU waiting for the interrupt sleeps to.
	bool has_event_clock() const noexcept override { return true; }
	std::uint64_t next_event_ns() const noexcept override;
	/** Behind the XDMA model: landings raise its user line instead. */
	void connect_user_irq(std::function<void(unsigned, double)> raise) override { raise_ = std::move(raise); }

	/** The device cycle running at simulated time @p t_ns. */
	static std::uint64_t cycles_at(std::uint64_t t_ns) noexcept;
	/** The first device cycle that starts at or after @p t_ns. */
	static std::uint64_t cycle_from(std::uint64_t t_ns) noexcept;
	static std::uint64_t ns_at(std::uint64_t cycles) noexcept;

	/** Writes the model refused (read-only register, bad ring size, ...). */
	std::uint64_t ignored_writes() const noexcept { return ignored_writes_; }
	/** Simulated time at which the next landing frame makes RX_HEAD show
	 *  it (UINT64_MAX if none is in flight): lets a test put a landing
	 *  exactly between two of a driver's accesses. */
	std::uint64_t next_landing_ns() const noexcept;

private:
	struct frame {
		std::uint32_t tx_slot;
		std::uint64_t tx_done_cycle; ///< last TX beat at the MAC; the stamp
		mac_result mac;
		std::vector<std::uint8_t> bytes;
		bool tx_reported = false;
		bool rx_decided = false;      ///< got an RX slot or was dropped (at its first beat)
		bool rx_dropped = false;
		std::uint32_t rx_slot = 0;
	};
	void run_to(std::uint64_t now);
	/** Port cycle in which an access of @p beats arriving at @p t_ns starts. */
	std::uint64_t port_start(std::uint64_t t_ns) const;
	void ring_tx(std::uint32_t new_head, std::uint64_t now);
	void reg_write(std::uint64_t off, std::uint32_t v, std::uint64_t now);
	std::uint64_t reg_read(std::uint64_t off, unsigned len, std::uint64_t now);
	void put64(std::vector<std::uint8_t> &mem, std::uint64_t off, std::uint64_t v);
	void land(const frame &f);

	timing timing_;
	mac_model mac_;
	std::vector<std::uint8_t> rx_desc_, tx_desc_, rx_buf_, tx_buf_;
	std::uint32_t rx_size_, tx_size_;
	std::uint32_t rx_head_ = 0, rx_tail_ = 0, tx_head_ = 0, tx_tail_ = 0;
	std::uint32_t rx_reserved_ = 0;   ///< frames given an RX slot (>= rx_head_)
	std::uint64_t port_free_ = 0;     ///< first cycle the BAR port is free
	std::uint32_t rx_drops_ = 0;
	std::uint64_t tx_free_cycle_ = 0; ///< first cycle the TX stream is free
	std::deque<frame> in_flight_;     ///< sent, TX stamp or RX landing pending
	std::uint64_t ignored_writes_ = 0;
	bool irq_armed_ = false;
	std::uint32_t rx_irqs_ = 0;
	std::function<void(unsigned, double)> raise_; ///< the IP's usr_irq_req, when behind xdma_dev
};

/** sim:nic_pio: the model on BAR1 of an XDMA function whose config BAR is
 *  BAR0, as the board's image (no AXI-Lite BAR: PG195's BAR order). */
std::unique_ptr<target> make_pio_nic_model();
/** The model inside @p dev (sim:nic_pio's target), or nullptr. */
pio_nic_model *pio_nic_model_of(target &dev) noexcept;

} // namespace pioc::sim::nic
