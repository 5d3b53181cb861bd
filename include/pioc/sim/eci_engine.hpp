/** @file
 * The device-side protocol engine of the Fig. 5 protocols, as a model
 * behind pioc::sim::eci::device_engine (requests in; LCI/UL/answers out).
 * The RTL of the coherent invocation engine can replace it: it sees the
 * same events and must take the same actions (Documentation/protocols.md).
 */
#pragma once

#include <pioc/coherent/proto.hpp>
#include <pioc/sim/eci.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace pioc::sim::eci {

/** The device's function: request bytes in, response bytes out (returns its length). */
using handler_fn = std::function<std::size_t(const std::uint8_t *req, std::size_t n, std::uint8_t *resp,
					     std::size_t cap)>;

struct engine_config {
	coherent::variant v = coherent::variant::cpu_dev;
	std::uint32_t channels = 1;
	std::uint64_t stride = 64 * 1024;  ///< bytes between channels (the PIO NIC uses 64 KiB)
	std::uint32_t data_lines = 0;      ///< data lines per bank (pipelined mode)
	bool answer_exclusive = true;      ///< grant Exclusive although the CPU asked for Shared
	double compute_ns = 10;            ///< the function's time per message
	double not_ready_ns = 20e6;        ///< answer "not ready" after holding a load this long
	handler_fn handler;                ///< default: echo
	/** Variants this device implements (a real device may lack some). */
	std::vector<coherent::variant> supported = {coherent::variant::cpu_dev, coherent::variant::dev_dev,
						    coherent::variant::cpu_cpu, coherent::variant::dev_cpu};
};

struct engine_stats {
	std::uint64_t signals = 0, requests = 0, not_ready = 0, resyncs = 0, delivered = 0, acked = 0, grants = 0;
};

class proto_engine : public device_engine {
public:
	/** Attaches itself to @p sys. Throws errc::not_supported if cfg.v is not
	 *  among cfg.supported, errc::out_of_range if the channels do not fit
	 *  the variant's window, errc::invalid_argument on a bad layout. */
	proto_engine(system &sys, engine_config cfg);
	~proto_engine() override;

	/** Simulated physical address where the variant's window starts
	 *  (0: device-homed; sys.cpu_base(): CPU-homed). */
	std::uint64_t window_base() const noexcept { return base_; }
	coherent::layout channel_layout(std::uint32_t ch) const;

	void on_request(engine_ctx &ctx, std::uint64_t addr, bool exclusive) override;
	void on_forward(engine_ctx &ctx, std::uint64_t addr) override;

	/** Device-initiated variants: queue a message for channel @p ch that
	 *  becomes available at simulated time @p at (now if negative). */
	void post(std::uint32_t ch, std::vector<std::uint8_t> m, double at = -1);
	/** The engine loses its state (parity, partial messages), as after a
	 *  device reset; the directory keeps the requests it holds. */
	void restart();
	void set_compute_ns(double ns) noexcept { cfg_.compute_ns = ns; }
	void set_answer_exclusive(bool on) noexcept { cfg_.answer_exclusive = on; }
	unsigned parity(std::uint32_t ch) const { return ch_.at(ch).expect; }
	const engine_stats &stats() const noexcept { return st_; }

private:
	struct chan {
		coherent::layout lay;
		unsigned expect = 0;
		int held = -1;            // control line whose load/forward the engine holds
		bool reclaimed = false;   // the other control line (and bank) is back at the device
		std::uint64_t token = 0;  // invalidates stale timers
		bool busy = false;        // computing the current request
		double ready_at = 0;
		std::uint32_t cur_seq = 0, next_chunk = 0;
		std::vector<std::uint8_t> req, resp;
		std::size_t resp_sent = 0;
		bool resp_pending = false;
		std::deque<std::pair<double, std::vector<std::uint8_t>>> outbox;
		std::size_t out_sent = 0;
		std::uint32_t out_seq = 0;
		bool delivered_unacked = false;
	};
	bool locate(std::uint64_t addr, std::uint32_t &ch, int &ctrl_line) const;
	void signal(std::uint32_t ch, unsigned x);
	void reclaim(std::uint64_t addr, std::function<void()> done);
	void reclaim_other(std::uint32_t ch, unsigned x, bool with_bank);
	void pulled(std::uint32_t ch, unsigned x);
	void deliver(std::uint32_t ch, unsigned x, coherent::ctrl c, const std::uint8_t *data, std::size_t n,
		     const std::uint8_t *bank_data = nullptr, std::size_t bank_n = 0);
	void try_finish(std::uint32_t ch);
	void try_send(std::uint32_t ch);
	void arm_not_ready(std::uint32_t ch);

	system &sys_;
	engine_ctx ctx_;
	engine_config cfg_;
	std::uint64_t base_ = 0;
	std::vector<chan> ch_;
	engine_stats st_;
};

} // namespace pioc::sim::eci
