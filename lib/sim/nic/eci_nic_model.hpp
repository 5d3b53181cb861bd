// Behavioural model of the ECI NIC (the paper's Fig. 8(c), issue 15 (c)): a
// module between the ECI directory controller and the MAC stand-in, on the
// window of fpga/regmap/nic_eci.toml (128-byte device-homed lines).
//
// Two Fig. 5 engines (lib/sim/eci/proto_engine) share the one directory:
//  - RX: device-initiated (5b), one message per frame the MAC hands the NIC:
//    RX_HDR bytes (the MAC cycle of the frame's last RX beat) then the frame,
//    delivered over as many line exchanges as it takes; it becomes
//    available the cycle after that last beat (store-and-forward).
//  - TX: CPU-initiated (5a): the request is the frame; once its last chunk
//    is at the device the frame leaves on the MAC's TX stream, one 64-byte
//    beat per cycle from the next free cycle, and the answer (TX_RESP bytes:
//    the cycle of the last beat at the MAC) is released the cycle after that
//    beat, so the CPU never holds a stamp of a beat still to come.
// A third kind of line, CYCLES, is filled with the core-clock counter at
// every load that reaches the device; FEATURES says whether both channels
// have data banks (BANK_LINES lines each, the multi-line 5b variant of
// Documentation/protocols.md "Data banks": a whole message per exchange).
//
// Charged: the ECI model's coherence traffic for every exchange (what
// sim:eci charges), the TX stream's beats, the MAC's store-and-forward and
// line time (mac_model), RX beats one per cycle, and the module's pipeline
// as the RTL (fpga/rtl/nic/nic_eci_*.sv) has it: cycles per line exchange
// in the coherent engine and the RX bridge's offer after the last beat
// (eci_nic_model.cpp), a data line's read or write-back (3 cycles) and the
// pipeline around a whole RX message into a bank (fill, take-back, answer),
// fitted to the RTL with RX banks (tests/rtl/test_nic_eci_vs_model.cpp);
// the TX banks charge the generic engine's take-back plus the data line's
// 3 cycles, which agrees with the RTL's TX banks within the test's
// tolerance without a constant of their own. Left out: any finite RX buffer (the message queue is
// unbounded: the model never drops; the RTL holds the MAC when its 240 KiB
// are full), the RTL's cheaper one-line TX request (about 5 cycles less
// than a chunk), a cut-through start of the RX message before the frame's
// last beat.
#pragma once

#include "sim/nic/mac_model.hpp"

#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_engine.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace pioc::sim::nic {

class eci_nic_model final : public eci::device_engine {
public:
	/** Builds both engines on @p sys (128-byte lines) and attaches itself
	 *  as the system's device side. @p banks: both channels with BANK_LINES
	 *  data lines per bank, FEATURES = FEAT_RX_BANKS | FEAT_TX_BANKS |
	 *  BANK_LINES << FEAT_LINES_SHIFT; without, FEATURES = 0 and every
	 *  message moves line by line (the images before the banks). */
	explicit eci_nic_model(eci::system &sys, bool banks = true);
	~eci_nic_model() override;

	/** Builds both engines again, with or without banks (tests of both
	 *  modes on one opened device): before a driver opens, as the engines'
	 *  state starts afresh. */
	void set_banks(bool on) { set_banks(on, on); }
	/** RX and TX separately (rtl:nic_eci has RX banks only). */
	void set_banks(bool rx, bool tx);
	/** The FEATURES word this image answers. */
	std::uint64_t features() const noexcept { return features_; }
	/** For tests: an image whose FEATURES line says @p word whatever its
	 *  engines do (the driver must refuse an inconsistent one). */
	void set_features_word(std::uint64_t word) noexcept { features_ = word; }

	void on_request(eci::engine_ctx &ctx, std::uint64_t addr, bool exclusive) override;
	void on_victim(eci::engine_ctx &ctx, std::uint64_t addr, bool dirty) override;
	bool plain_read(std::uint64_t addr) const override;
	/** The engines' plain grants; CYCLES and FEATURES are answered with
	 *  what they hold now (not at once in the batch's sense). */
	bool grants_at_once(std::uint64_t addr, bool exclusive) const override;
	/** The module's pipeline in front of its engines (pipeline_ns); none for
	 *  CYCLES and FEATURES, answered beside the engines. */
	double request_pipeline_ns(std::uint64_t addr) const override;

	/** The RX engine loses its state as after a device reset (the 5b
	 *  receiver must resync; queued frames stay). */
	void restart_rx() { rx_->restart(); }
	const eci::engine_stats &rx_stats() const noexcept { return rx_->stats(); }
	const eci::engine_stats &tx_stats() const noexcept { return tx_->stats(); }
	const mac_model &mac() const noexcept { return mac_; }

	/** The first core cycle starting at or after @p t_ns. */
	static std::uint64_t cycle_from(double t_ns) noexcept;
	static double ns_at(std::uint64_t cycle) noexcept;

private:
	std::size_t transmit(const std::uint8_t *frame, std::size_t n, std::uint8_t *resp, std::size_t cap);
	eci::proto_engine &route(std::uint64_t addr) const;
	/** The module's pipeline a read or write-back of @p addr passes (the RTL's cycles). */
	double pipeline_ns(std::uint64_t addr) const;

	eci::system &sys_;
	mac_model mac_;
	std::uint64_t tx_free_ = 0; ///< first cycle the TX stream is free
	std::uint64_t features_ = 0;
	std::unique_ptr<eci::proto_engine> rx_, tx_;
};

} // namespace pioc::sim::nic
