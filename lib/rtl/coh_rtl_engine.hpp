/** @file
 * The Verilated coherent invocation engine (fpga/rtl/coh, through
 * pioc::rtl::coh_engine_rtl) behind the ECI simulator's device side
 * (pioc::sim::eci::device_engine), in place of the behavioral model
 * pioc::sim::eci::proto_engine. The library's CPU side (pioc::coherent::
 * invoker / receiver over eci_sim_lines) runs unchanged against it.
 *
 * The simulator plays the Enzian directory controller: a CPU miss on a
 * device-homed line becomes a read request of the engine, a dirty victim a
 * write-back; the engine's LCI becomes ctx.clean_invalidate() (the pulled
 * data goes back to the engine as a write-back before the LCIA), UL
 * ctx.unlock(), line data ctx.answer(). The engine's clock (coh_dev clock_mhz,
 * 300 MHz) advances with simulated time while it has work in flight and stops
 * while it is idle.
 *
 * Limits of the RTL (Documentation/fpga.md): channels 0..CPU_CHANNELS-1
 * follow Fig. 5a, channel CPU_CHANNELS Fig. 5b, all device-homed. Fig. 5a
 * requests and responses of up to MESSAGE_MAX (16 KiB) bytes in PAYLOAD_MAX
 * (120) byte chunks (ACK / MORE), as the behavioral model; pipelined requests
 * (data banks) are rejected with errc::not_supported. Fig. 5b messages of at
 * most PAYLOAD_MAX bytes (one line; longer ones: errc::not_supported).
 */
#pragma once

#include "coh_rtl.hpp"

#include <pioc/coherent/proto.hpp>
#include <pioc/regs/coh_dev.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_engine.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace pioc::rtl {

class coh_rtl_engine : public sim::eci::device_engine {
public:
	/** The control block (coh_dev.toml), written at construction and by the setters. */
	struct options {
		std::uint32_t op = 0;                 ///< OP: pio_dev OP_ECHO / OP_NOT / OP_ADD1 / OP_BLOOM
		bool exclusive = true;                ///< CONFIG.EXCLUSIVE: answer lines Exclusive
		std::uint32_t timeout_cycles = static_cast<std::uint32_t>(regs::coh_dev::DEFAULT_TIMEOUT_CYCLES);
		std::uint32_t delay_cycles = 0;       ///< DELAY: extra compute cycles per invocation
		unsigned stall_percent = 0;           ///< random idle/backpressure on the engine's ports
		std::uint64_t seed = 1;
		bool skip_idle = true;                ///< coh_engine_rtl::options::skip_idle
	};
	static constexpr std::uint32_t cpu_channels = static_cast<std::uint32_t>(regs::coh_dev::CPU_CHANNELS);
	static constexpr std::uint32_t max_payload = static_cast<std::uint32_t>(regs::coh_dev::PAYLOAD_MAX);
	static constexpr std::uint32_t max_message = static_cast<std::uint32_t>(regs::coh_dev::MESSAGE_MAX);
	static constexpr std::uint64_t window_bytes = 1u << 20; ///< the engine's 20-bit line address space

	/** Attaches itself to @p sys. Throws errc::invalid_argument unless the
	 *  simulated CPU has 128-byte lines, the timeout is before the CPU's
	 *  machine check and the device window holds the engine's. */
	coh_rtl_engine(sim::eci::system &sys, options o);
	explicit coh_rtl_engine(sim::eci::system &sys) : coh_rtl_engine(sys, options{}) {}
	~coh_rtl_engine() override;
	coh_rtl_engine(const coh_rtl_engine &) = delete;
	coh_rtl_engine &operator=(const coh_rtl_engine &) = delete;

	/** Device-homed: the window starts at simulated address 0. */
	std::uint64_t window_base() const noexcept { return 0; }
	/** CPU-initiated channels, as the engine's CHANNELS register reports
	 *  them (read at power-up); channel channels() is its Fig. 5b one. */
	std::uint32_t channels() const noexcept { return channels_; }
	/** Lines of CPU-initiated channel @p ch (< channels(), Fig. 5a). */
	coherent::layout channel_layout(std::uint32_t ch) const;
	/** Lines of the device-initiated channel (Fig. 5b). */
	coherent::layout message_layout() const;

	/** Fig. 5b: queue a message (1..max_payload bytes; longer ones throw
	 *  errc::not_supported) that reaches the engine at simulated time @p at
	 *  (now if negative). */
	void post(std::vector<std::uint8_t> m, double at = -1);

	void set_op(std::uint32_t op);
	void set_exclusive(bool on);
	void set_timeout_cycles(std::uint32_t c);
	void set_delay_cycles(std::uint32_t c);
	const options &config() const noexcept { return o_; }
	/** Control-block access (AXI4-Lite; advances the engine's clock by a few cycles). */
	std::uint32_t ctrl_read(std::uint32_t off);
	void ctrl_write(std::uint32_t off, std::uint32_t v);

	/** Reset of the FPGA: a fresh engine (no answered line, no session:
	 *  nothing runs before the CPU's SYNC; counters 0) with the same
	 *  configuration, whose line storage keeps its content (written back
	 *  into it first, as block RAM keeps it over a reset). Reads the
	 *  directory still holds are then presented to it again; lines it had
	 *  locked are unlocked. Device messages (post()) the engine has not
	 *  taken stay queued: their producer is not reset with it. */
	void restart();

	/** Clock cycles simulated (over restarts) and the clock. */
	std::uint64_t cycles() const noexcept;
	/** Of cycles(), those evaluated one by one (the rest left out while the
	 *  engine only waited: options::skip_idle). */
	std::uint64_t evaluated_cycles() const noexcept;
	double clock_mhz() const noexcept;
	double cycle_ns() const noexcept { return period_; }

	struct stats_t {
		std::uint64_t reads = 0, write_backs = 0, lcis = 0, unlocks = 0, answers = 0, ticks = 0;
	};
	const stats_t &stats() const noexcept { return st_; }

	/** The behavioral model set up like this engine for variant @p v: the
	 *  same function (op), Exclusive answers and not-ready timeout, and a
	 *  compute time calibrated to the RTL's cycles (Documentation/fpga.md). */
	static sim::eci::engine_config model_config(const options &o, coherent::variant v);
	/** The op as the model's handler (the RTL's function on @p n payload bytes). */
	static sim::eci::handler_fn op_handler(std::uint32_t op);

	void on_request(sim::eci::engine_ctx &ctx, std::uint64_t addr, bool exclusive) override;
	void on_victim(sim::eci::engine_ctx &ctx, std::uint64_t addr, bool dirty) override;

private:
	struct read_req { std::uint64_t addr; bool excl; };
	struct write_req { std::uint64_t addr; bool then_lcia; };
	[[noreturn]] void fail(errc c, const std::string &what) const;
	void make_engine();
	void configure(); // the control block: CONFIG, OP, TIMEOUT, DELAY (after power-up and reset)
	void kick();
	void tick();
	void handle(const coh_event &e);
	void check_pulled(std::uint64_t addr);
	void lcia(std::uint64_t addr); ///< the LCIA to the engine: the line stays locked until its UL
	void restored();               ///< after restart(): the lines are back, present the held reads
	/** Removes and returns the pending entry @p id; an unknown id is an engine error. */
	template <class T> T take(std::map<std::uint32_t, T> &m, std::uint32_t id, const char *what) const;
	/** The home's copy of @p addr to the engine; @p then_lcia: an LCI's data, LCIA after the ack. */
	void write_back(std::uint64_t addr, bool then_lcia);
	std::uint32_t alloc_id(std::map<std::uint32_t, read_req> *r, std::map<std::uint32_t, write_req> *w,
			       const char *what);

	sim::eci::system &sys_;
	sim::eci::engine_ctx ctx_;
	options o_;
	std::unique_ptr<coh_engine_rtl> rtl_;
	double period_;
	bool ticking_ = false;
	bool restoring_ = false;           // restart(): line content going back, reads wait
	std::uint64_t gen_ = 0;            // restarts: callbacks of an older engine are stale
	std::uint32_t channels_ = 0;       // the CHANNELS register
	std::uint64_t cycles_before_ = 0;  // cycles of engines before the last restart
	std::uint64_t evaluated_before_ = 0; // of those, evaluated
	std::map<std::uint32_t, read_req> reads_;   // id -> read the engine has not answered
	std::map<std::uint32_t, write_req> writes_; // id -> write-back not acknowledged
	std::set<std::uint64_t> lci_out_, locked_;  // LCI sent / LCIA given, UL not yet
	std::map<std::uint64_t, line> known_;        // the engine's copy of lines, as last seen
	stats_t st_;
};

} // namespace pioc::rtl
