/** @file
 * rtl:nic_eci: the Verilated ECI NIC image (fpga/rtl/nic/nic_eci_top.sv
 * through nic_eci_ports) as the device side of the ECI model
 * (pioc::sim::eci::device_engine), in place of the behavioural
 * sim::nic::eci_nic_model. The driver (pioc::nic::eci_nic over
 * eci_sim_lines) runs unchanged against it.
 *
 * The simulator plays the Enzian directory controller as for rtl:coh
 * (coh_rtl_engine.hpp): a CPU miss becomes a read request, a dirty victim a
 * write-back; the image's LCI becomes ctx.clean_invalidate() (the pulled data
 * goes back as a write-back before the LCIA), UL ctx.unlock(). The core clock
 * (nic_eci clock_mhz, 250 MHz) ticks edge by edge while the image has work
 * in flight (a held read, a frame in the bridges or the MAC); of those edges
 * the ones in which it only waits (for the CPU's LCIA or next read, a frame
 * in the RX bridge for the CPU's signal: nic_eci_top's quiet) are not
 * evaluated, the counter and timers are advanced instead. While it is idle
 * the clock stops and only the cycle counter is advanced to the simulated
 * time when it starts again, so CYCLES and the MAC stamps count the same
 * cycles as the model's cycle_from(now).
 */
#pragma once

#include "nic_eci_rtl.hpp"

#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace pioc::rtl {

class nic_eci_rtl_engine final : public sim::eci::device_engine {
public:
	struct options {
		unsigned stall_percent = 0; ///< random idle/backpressure on the image's DC ports
		std::uint64_t seed = 1;
		/** The image's rx_banks pin (nic_eci_ports::options): FEATURES says
		 *  RX banks and the driver uses them (the Enzian build ties it on).
		 *  Off in "rtl:nic_eci_lines", where every message goes line by line. */
		bool rx_banks = true;
		/** Leave out the edges in which the image only waits (nic_eci_ports
		 *  options::skip_quiet): the clock still ticks at every edge of a
		 *  busy stretch, in the same order with every other event, so no
		 *  value or time changes; only the evaluation is saved. */
		bool skip_idle = true;
		/** The image's tx_banks pin (nic_eci_ports::options): TX requests
		 *  may come whole with data banks, FEATURES says FEAT_TX_BANKS (the
		 *  Enzian build ties it on). Off in "rtl:nic_eci_lines". */
		bool tx_banks = true;
		/** One evaluation per edge (nic_eci_ports::options::one_eval). */
		bool one_eval = true;
	};
	/** Attaches itself to @p sys. Throws errc::invalid_argument unless the
	 *  simulated CPU has 128-byte lines, the window fits the device-homed
	 *  range and the not-ready timeout comes before the machine check. */
	nic_eci_rtl_engine(sim::eci::system &sys, options o);
	explicit nic_eci_rtl_engine(sim::eci::system &sys) : nic_eci_rtl_engine(sys, options{}) {}
	~nic_eci_rtl_engine() override;
	nic_eci_rtl_engine(const nic_eci_rtl_engine &) = delete;
	nic_eci_rtl_engine &operator=(const nic_eci_rtl_engine &) = delete;

	void on_request(sim::eci::engine_ctx &ctx, std::uint64_t addr, bool exclusive) override;
	void on_victim(sim::eci::engine_ctx &ctx, std::uint64_t addr, bool dirty) override;

	/** Core-clock cycles simulated, and of those evaluated edge by edge. */
	std::uint64_t cycles() const noexcept;
	std::uint64_t evaluated_cycles() const noexcept;
	const nic_eci_ports &ports() const noexcept { return *rtl_; }

private:
	struct read_req { std::uint64_t addr; bool excl; };
	struct write_req { std::uint64_t addr; bool then_lcia; };
	[[noreturn]] void fail(errc c, const std::string &what) const;
	void kick();
	void tick();
	void handle(const coh_event &e);
	void lcia(std::uint64_t addr);
	void write_back(std::uint64_t addr, bool then_lcia);
	std::uint32_t alloc_id(bool read) const;

	sim::eci::system &sys_;
	sim::eci::engine_ctx ctx_;
	std::unique_ptr<nic_eci_ports> rtl_;
	double period_;
	bool ticking_ = false;
	std::uint64_t evaluated_ = 0;
	std::map<std::uint32_t, read_req> reads_;   // id -> read the image has not answered
	std::map<std::uint32_t, write_req> writes_; // id -> write-back not acknowledged
	std::set<std::uint64_t> lci_out_, locked_;  // LCI sent / LCIA given, UL not yet
	std::map<std::uint64_t, line> known_;        // the image's copy of lines, as last seen
};

} // namespace pioc::rtl
