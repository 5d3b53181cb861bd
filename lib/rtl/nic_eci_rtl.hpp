/** @file
 * The Verilated ECI NIC image (fpga/rtl/nic/nic_eci_top.sv: the coherent
 * engine with the RX/TX bridges and the MAC stand-in in loopback) behind
 * the directory controller's interface, as coh_engine_rtl puts coh_top
 * there: the same events and calls (coh_event), so one directory model
 * (the fpga testbench's, lib/rtl/nic_eci_rtl_engine's over the ECI model)
 * drives either image. Window offsets are nic_eci.toml's; the core clock is
 * its clock_mhz (250 MHz).
 */
#pragma once

#include "coh_rtl.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pioc::rtl {

class nic_eci_ports {
public:
	struct options {
		std::uint64_t seed = 1;
		unsigned stall_percent = 0; ///< random idle / not-ready cycles on every DC channel
		/** The image's rx_banks pin: RX messages whole with data banks,
		 *  FEATURES = FEAT_RX_BANKS | BANK_LINES << FEAT_LINES_SHIFT. Off:
		 *  FEATURES = 0, messages line by line (what a driver that does not
		 *  read FEATURES expects). */
		bool rx_banks = false;
		/** Leave out the edges in which the image only waits (its quiet
		 *  output: a held read waiting for the CPU, a frame waiting in the
		 *  RX bridge for the CPU's signal): the cycle counter and the held
		 *  reads' timers are advanced by their number instead, before the
		 *  next input or event. Needs the model built with lib/rtl/speed.vlt;
		 *  with random stalls (drawn per edge evaluated) the two differ. */
		bool skip_quiet = false;
		/** The image's tx_banks pin: TX requests may come whole with data
		 *  banks, FEATURES also says FEAT_TX_BANKS (and BANK_LINES). */
		bool tx_banks = false;
		/** One evaluation per edge instead of two (tb::sim::arm_edge): every
		 *  output the ports sample is a register's, so the evaluation that
		 *  only settled the inputs before the edge changes nothing. Off: the
		 *  reference it is checked against. */
		bool one_eval = true;
	};
	explicit nic_eci_ports(options o);
	nic_eci_ports() : nic_eci_ports(options{}) {}
	~nic_eci_ports();
	nic_eci_ports(const nic_eci_ports &) = delete;
	nic_eci_ports &operator=(const nic_eci_ports &) = delete;

	// ---- directory controller -> image (queued; delivered in order per channel)
	void read_request(std::uint32_t id, std::uint64_t addr, bool excl);
	void write_back(std::uint32_t id, std::uint64_t addr, const line &data,
			const std::array<bool, 128> *byte_enable = nullptr);
	void local_ack(std::uint64_t addr, bool inv);

	// ---- image -> directory controller
	std::optional<coh_event> next_event();

	// ---- time
	void step(std::uint64_t cycles = 1);
	/** @p cycles edges in which the image is idle (nothing in flight; inputs
	 *  queued now are presented after them): only its cycle
	 *  counter moves, so it is advanced without evaluating them (where the
	 *  model is built with lib/rtl/speed.vlt; else they are evaluated). */
	void idle(std::uint64_t cycles);
	std::uint64_t cycle() const;
	/** Of cycle(), the edges left out as quiet (options::skip_quiet). */
	std::uint64_t skipped() const;
	/** Work in flight: queued inputs, undelivered events, or the image's
	 *  busy output (held reads, LCI/UL, a frame in the bridges or the MAC).
	 *  While false, the clock may stop: nothing changes until the next input. */
	bool busy() const;
	double clock_mhz() const;

	/** The MAC stand-in's drop counters (frames below MIN_FRAME, above MTU). */
	std::uint32_t runt_count() const;
	std::uint32_t oversize_count() const;
	/** The core-clock counter the image stamps with (its CYCLES line). */
	std::uint64_t counter() const;

	/** Handshake-protocol violations seen on the image's ports (empty = fine). */
	const std::vector<std::string> &protocol_errors() const;
	/** Window offset of line @p k (0/1) of channel @p ch (0: RX_CHAN, 1: TX_CHAN). */
	static std::uint64_t line_addr(unsigned ch, unsigned k);
	/** Window offset of data line @p i of bank @p bank of channel @p ch. */
	static std::uint64_t data_line_addr(unsigned ch, unsigned bank, std::uint32_t i);

private:
	struct impl;
	std::unique_ptr<impl> p_;
};

} // namespace pioc::rtl
