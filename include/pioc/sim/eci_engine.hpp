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
	std::uint32_t data_lines = 0;      ///< data lines per bank (pipelined mode); device-homed or 5c only
	/** Device-initiated (5b) with data lines: each message of up to
	 *  layout::max_pipelined() bytes goes whole in one exchange (chunk
	 *  0x7ff), its rest in the answered line's bank ("data banks",
	 *  Documentation/protocols.md). false: line by line (chunks 0, 1, ...)
	 *  although the banks exist. Longer messages go line by line either way. */
	bool bank_messages = true;
	/** A device's own pipeline around a whole (banked) 5b delivery, in ns
	 *  (0: none, the generic model). From the delivery's start (a held
	 *  signal with the ACK consumed and a message there): filling the bank
	 *  takes bank_fill_ns plus bank_chunk_ns per 120-byte chunk of the
	 *  message, the take-back of lent lines starts after bank_lci_ns, and
	 *  the answer leaves no earlier than bank_answer_ns after the last line
	 *  came back. The ECI NIC model sets them from the RTL (coh_banks.sv). */
	double bank_fill_ns = 0, bank_chunk_ns = 0, bank_lci_ns = 0, bank_answer_ns = 0;
	bool answer_exclusive = true;      ///< grant Exclusive although the CPU asked for Shared
	double compute_ns = 10;            ///< the function's time per message
	double not_ready_ns = 20e6;        ///< answer "not ready" after holding a load this long
	handler_fn handler;                ///< default: echo
	/** Fault injection for the tests that must catch it: the engine before
	 *  idempotent reads, taking any read of a control line as the next
	 *  signal and running whatever CPU word the other line holds. */
	bool fault_reread_is_signal = false;
	/** Fault injection: the engine before the epoch, forgetting at its
	 *  restart which SYNC it consumed last (see chan::last_sync). */
	bool fault_no_epoch = false;
	/** Fault injection: an engine that forgets the lent lines of a bank:
	 *  it writes bank data and answers without taking back the copies the
	 *  CPU holds (which then read stale data). */
	bool fault_no_take_back = false;
	/** Variants this device implements (a real device may lack some). */
	std::vector<coherent::variant> supported = {coherent::variant::cpu_dev, coherent::variant::dev_dev,
						    coherent::variant::cpu_cpu, coherent::variant::dev_cpu};
};

struct engine_stats {
	std::uint64_t signals = 0, requests = 0, not_ready = 0, resyncs = 0, delivered = 0, acked = 0, grants = 0;
	/** Reads of the answered line served again with the same answer. */
	std::uint64_t rereads = 0;
	/** Reads of the signal line while the other line held no new CPU word
	 *  (speculative or early reads): answered "not ready", nothing run. */
	std::uint64_t spurious = 0;
	/** CPU words refused because the engine restarted and has not seen a SYNC. */
	std::uint64_t out_of_step = 0;
	/** 5b/5d: messages delivered but never acknowledged when a SYNC opened a
	 *  new session (the previous owner may or may not have read them). */
	std::uint64_t unacked_at_sync = 0;
	/** Data lines taken back from the CPU (LCI issued; device-homed: only
	 *  lines it had lent). */
	std::uint64_t data_taken_back = 0;
	/** Messages (5b) and responses (5a) delivered whole with a data bank. */
	std::uint64_t banked = 0;
};

class proto_engine : public device_engine {
public:
	/** Attaches itself to @p sys. Throws errc::not_supported if cfg.v is not
	 *  among cfg.supported, errc::out_of_range if the channels do not fit
	 *  the variant's window, errc::invalid_argument on a bad layout,
	 *  errc::not_supported for data lines on 5d (the banks' lent-bit rule
	 *  needs the device as their home). */
	proto_engine(system &sys, engine_config cfg);
	~proto_engine() override;

	/** Simulated physical address where the variant's window starts
	 *  (0: device-homed; sys.cpu_base(): CPU-homed). */
	std::uint64_t window_base() const noexcept { return base_; }
	coherent::layout channel_layout(std::uint32_t ch) const;

	void on_request(engine_ctx &ctx, std::uint64_t addr, bool exclusive) override;
	void on_forward(engine_ctx &ctx, std::uint64_t addr) override;
	/** Data lines and lines outside the channels: plain grants. */
	bool plain_read(std::uint64_t addr) const override;
	/** Those, and every exclusive request (a store's RLDX or upgrade):
	 *  on_request answers them at once. */
	bool grants_at_once(std::uint64_t addr, bool exclusive) const override;

	/** Device-initiated variants: queue a message for channel @p ch that
	 *  becomes available at simulated time @p at (now if negative). */
	void post(std::uint32_t ch, std::vector<std::uint8_t> m, double at = -1);
	/** The engine loses its state (answered line, last CPU word, partial
	 *  messages), as after a device reset; the directory keeps the requests
	 *  it holds. Until the CPU's next SYNC it runs nothing: every new CPU
	 *  word is answered SYNC_ACK ("out of step"). Queued 5b messages stay. */
	void restart();
	void set_compute_ns(double ns) noexcept { cfg_.compute_ns = ns; }
	void set_answer_exclusive(bool on) noexcept { cfg_.answer_exclusive = on; }
	/** The control line the engine takes as the next signal (the one the
	 *  CPU must load next), or -1 after a restart until a SYNC. */
	int parity(std::uint32_t ch) const { return ch_.at(ch).ans < 0 ? -1 : ch_.at(ch).ans ^ 1; }
	const engine_stats &stats() const noexcept { return st_; }

private:
	struct chan {
		coherent::layout lay;
		int ans = 1;              // answered line: reads of it get the same answer; the CPU
		                          // writes its next word there and signals by loading ans^1
		                          // (-1: unknown after a restart)
		std::uint64_t taken = 0;  // the last CPU word consumed (a new word differs from it)
		std::uint64_t last_sync = 0; // the last SYNC consumed: kept across restart() (block
		                          // RAM, as the line storage), so a session's SYNC still in
		                          // a line is never consumed twice, however late a read comes
		bool synced = true;       // false after restart() until a SYNC
		bool pending = false;     // a CPU word was consumed; its answer goes on ans^1
		int held = -1;            // control line whose load/forward the engine holds
		bool reclaimed = false;   // the other control line (and bank) is back at the device
		std::uint64_t token = 0;  // invalidates stale timers
		event_queue::handle not_ready; // the last "not ready" timer (cancelled with its token)
		double not_ready_at = -1;      // when that timer fires next (-1: none armed)
		bool not_ready_parked = false; // its event is out while the bank is in use (park_not_ready)
		bool busy = false;        // computing the current request
		double ready_at = 0;
		std::uint32_t cur_seq = 0, next_chunk = 0;
		std::vector<std::uint8_t> req, resp;
		std::vector<std::uint8_t> resp_buf; // the handler's output, max_message bytes
		std::size_t resp_sent = 0;
		bool resp_pending = false;
		bool bank_busy = false;   // taking lent lines of a bank back for an answer
		double fill_done = -1;    // banked 5b: when the bank is filled (-1: no delivery started)
		double back_at = -1;      // banked 5b: when the last lent line came back (-1: none taken)
		std::vector<std::uint8_t> lent;	   // per data line (index 2 i + bank), 0/1: granted to the CPU and
						   // not taken back since (device-homed only)
		std::uint32_t lent_in[2] = {0, 0}; // lent lines per bank (set_lent keeps them): a bank
		                          // with none is not scanned
		std::deque<std::pair<double, std::vector<std::uint8_t>>> outbox;
		std::size_t out_sent = 0;
		std::uint32_t out_seq = 0;
		bool delivered_unacked = false;
	};
	bool locate(std::uint64_t addr, std::uint32_t &ch, int &ctrl_line) const;
	void signal(std::uint32_t ch, unsigned x);
	void examine(std::uint32_t ch, unsigned x);
	void give(std::uint64_t addr);
	void transient(std::uint32_t ch, unsigned x, coherent::ctrl w);
	bool cpu_word(coherent::ctrl w) const noexcept;
	void reclaim(std::uint64_t addr, event_queue::callback done);
	void reclaim_other(std::uint32_t ch, unsigned x, bool with_bank);
	bool take_back_all(const std::vector<std::uint64_t> &lines, event_queue::callback done);
	/** Marks data line @p addr of @p c lent or taken back. */
	void set_lent(chan &c, std::uint64_t addr, bool on);
	/** Every data line of @p c lent (@p on: after a reset) or none. */
	static void set_all_lent(chan &c, bool on);
	std::vector<std::uint64_t> lent_lines(const chan &c, unsigned bank, std::uint32_t upto) const;
	bool bank_lent(std::uint32_t ch, unsigned bank, std::uint32_t upto, void (proto_engine::*resume)(std::uint32_t));
	void bank_back(std::uint32_t ch, void (proto_engine::*resume)(std::uint32_t));
	void send_whole(std::uint32_t ch);
	void pulled(std::uint32_t ch, unsigned x);
	void deliver(std::uint32_t ch, unsigned x, coherent::ctrl c, const std::uint8_t *data, std::size_t n,
		     const std::uint8_t *bank_data = nullptr, std::size_t bank_n = 0);
	void try_finish(std::uint32_t ch);
	void try_send(std::uint32_t ch);
	void arm_not_ready(std::uint32_t ch);
	void queue_not_ready(std::uint32_t ch);
	void park_not_ready(chan &c);
	void unpark_not_ready(std::uint32_t ch);
	void new_token(chan &c);

	system &sys_;
	engine_ctx ctx_;
	engine_config cfg_;
	std::uint64_t base_ = 0;
	// Shifts for the line size and (when a power of two, as always so far)
	// the channel stride: locate() and set_lent() run for every line a
	// message moves, and a 64-bit division is tens of cycles.
	unsigned line_shift_ = 0;
	int stride_shift_ = -1; // -1: the stride is not a power of two
	std::vector<chan> ch_;
	engine_stats st_;
};

} // namespace pioc::sim::eci
