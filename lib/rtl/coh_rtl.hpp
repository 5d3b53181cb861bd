/** @file
 * The Verilated coherent invocation engine (fpga/rtl/coh/coh_top.sv) behind
 * the interface the Enzian directory controller (DC) gives an application.
 * A coherent-protocol simulator (lib/sim/eci, lib/coherent) plays the DC and
 * the CPU caches: it calls the DC -> engine functions when the CPU's cache
 * sends a read request or a write-back, or the DC acknowledges a local
 * operation, and handles the engine's events (line data, write acks, LC/LCI
 * requests, unlocks). Time is the engine's clock (coh_dev clock_mhz).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pioc::rtl {

using line = std::array<std::uint8_t, 128>;

/** Something the engine sends to the directory controller. */
struct coh_event {
	enum class kind : std::uint8_t {
		read_data,   ///< answer to read_request(id): data, excl = granted Exclusive
		write_ack,   ///< write_back(id) is done
		local_op,    ///< LC (inv = false) or LCI (inv = true) of addr
		unlock,      ///< UL of addr
	} type;
	std::uint32_t id = 0;
	std::uint64_t addr = 0;
	bool flag = false;       ///< excl for read_data, inv for local_op
	line data{};
	std::uint64_t cycle = 0; ///< engine cycle at which it left the engine
};

class coh_engine_rtl {
public:
	struct options {
		std::uint64_t seed = 1;
		unsigned stall_percent = 0;  ///< random idle / not-ready cycles on every DC channel
		/** Leave out the edges in which the engine only waits (an LCIA, the
		 *  CPU's next read, a device message: coh_engine.sv's quiet), its
		 *  held reads' timers and the cycle counter advanced as if they
		 *  ran; false: every edge is evaluated. Values and cycles are the
		 *  same either way (tests/rtl/test_rtl_speed.cpp); with stalls the
		 *  random draws of the edges left out are not made. */
		bool skip_idle = true;
	};
	explicit coh_engine_rtl(options o);
	coh_engine_rtl() : coh_engine_rtl(options{}) {}
	~coh_engine_rtl();
	coh_engine_rtl(const coh_engine_rtl &) = delete;
	coh_engine_rtl &operator=(const coh_engine_rtl &) = delete;

	// ---- directory controller -> engine (queued; delivered in order per channel)
	void read_request(std::uint32_t id, std::uint64_t addr, bool excl);
	void write_back(std::uint32_t id, std::uint64_t addr, const line &data,
			const std::array<bool, 128> *byte_enable = nullptr);
	void local_ack(std::uint64_t addr, bool inv);
	/** Queue a device-initiated message (Fig. 5b channel), up to PAYLOAD_MAX (120) bytes. */
	void push_message(const void *data, std::size_t len);

	// ---- engine -> directory controller
	std::optional<coh_event> next_event();

	// ---- time
	void step(std::uint64_t cycles = 1);
	/** The engine's reset (rst_n low for a few cycles) on the same design:
	 *  state registers return to their reset values, what the RTL does not
	 *  reset (line storage, the last SYNC consumed: block RAM) keeps its
	 *  content. Queued port traffic is dropped. */
	void reset();
	std::uint64_t cycle() const;
	/** Of cycle(), the edges evaluated (the rest were left out as quiet). */
	std::uint64_t evaluated() const;
	/** Work in flight: queued inputs, undelivered events, or the engine's
	 *  busy output (held reads, LC/LCI/UL, invocations). While false, the
	 *  clock may stop: nothing changes until the next input. */
	bool busy() const;
	double clock_mhz() const;

	// ---- control block (coh_dev.toml), blocking AXI4-Lite accesses
	std::uint32_t ctrl_read(std::uint32_t off);
	void ctrl_write(std::uint32_t off, std::uint32_t value);

	/** Handshake-protocol violations seen on the engine's ports (empty = fine). */
	const std::vector<std::string> &protocol_errors() const;
	/** Line address of line @p k (0/1) of channel @p ch. */
	static std::uint64_t line_addr(unsigned ch, unsigned k);

private:
	struct impl;
	std::unique_ptr<impl> p_;
};

} // namespace pioc::rtl
