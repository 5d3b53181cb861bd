/** @file
 * The device end of two CNI cachable queues (pioc::coherent::cq_ring) in the
 * ECI model: a ring the CPU sends to (CPU -> device) and a ring the device
 * sends to (device -> CPU), both in device-homed memory, as on a CNI whose
 * queues live in the network interface's memory.
 *
 * The device only uses what the Enzian directory controller gives it: it is
 * the home, so it answers the CPU's line requests, and it pulls lines back
 * with LCI (clean-invalidate) and UL (unlock). The CPU side is the library's
 * cq_ring, unchanged, over eci_sim_lines:
 *
 *  - CPU -> device: the CPU asks for an entry line Exclusive (RLDX) to write
 *    it. The device grants it, lets recall_ns pass, then takes the line back
 *    (LCI: FEVX_EH + VICD) and looks at the valid bit. Finding it set, it
 *    consumes the entry and advances the ring's head in its own memory; the
 *    CPU reads that head only when the ring looks full (lazy pointer).
 *  - device -> CPU: the CPU polls the next entry on its cached copy (a
 *    Shared line; no traffic while nothing changes). The device writes an
 *    entry by invalidating the CPU's copy (LCI: SINV_H + VICC), writing its
 *    memory and unlocking; the CPU's next poll misses and gets the message.
 *    The device reads the CPU's head only when its ring looks full.
 *
 * Every time is modelled, never measured.
 */
#pragma once

#include <pioc/coherent/queue.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_engine.hpp>
#include <pioc/sim/line_bytes.hpp>

#include <cstdint>
#include <deque>
#include <vector>

namespace pioc::sim::eci {

struct cq_config {
	std::uint32_t entries = 64;  ///< entries per ring (>= 2)
	std::uint64_t base = 0;      ///< device-homed address of the CPU -> device ring (line-aligned)
	double compute_ns = 10;      ///< the device's time per message it handles
	double recall_ns = 100;      ///< after granting an entry line, when the device takes it back
	double retry_ns = 500;       ///< its ring was full: when the device looks at the CPU's head again
	/** Request in, response out (0 bytes: nothing to send back). Default: echo. */
	handler_fn handler;
};

struct cq_stats {
	std::uint64_t received = 0;      ///< entries the device consumed (CPU -> device)
	std::uint64_t sent = 0;          ///< entries the device published (device -> CPU)
	std::uint64_t recalls = 0;       ///< entry lines taken back from the CPU to look at
	std::uint64_t empty_recalls = 0; ///< ... that held no new message yet
	std::uint64_t head_reads = 0;    ///< lazy reads of the CPU's head (device ring looked full)
	std::uint64_t full_waits = 0;    ///< ... after which it still was full
	std::uint64_t head_writes = 0;   ///< updates of the CPU -> device ring's head
};

class cq_engine : public device_engine {
public:
	/** Attaches itself to @p sys. Throws errc::invalid_argument for fewer
	 *  than 2 entries or a line size of more than 64 KiB, errc::misaligned
	 *  for a base that is not line-aligned, errc::out_of_range if the two
	 *  rings do not fit in the device-homed window. */
	cq_engine(system &sys, cq_config cfg);
	~cq_engine() override;
	cq_engine(const cq_engine &) = delete;
	cq_engine &operator=(const cq_engine &) = delete;

	/** Address of the CPU -> device ring (pass to cq_ring with base 0 lines). */
	std::uint64_t to_device_base() const noexcept { return to_; }
	/** Address of the device -> CPU ring. */
	std::uint64_t from_device_base() const noexcept { return from_; }
	std::uint32_t entries() const noexcept { return cfg_.entries; }

	/** Device-initiated message for the CPU, available at simulated time
	 *  @p at (now if negative). Throws errc::out_of_range above line - 8 bytes. */
	void post(std::vector<std::uint8_t> m, double at = -1);
	void set_compute_ns(double ns) noexcept { cfg_.compute_ns = ns; }
	const cq_stats &stats() const noexcept { return st_; }

	void on_request(engine_ctx &ctx, std::uint64_t addr, bool exclusive) override;
	void on_victim(engine_ctx &ctx, std::uint64_t addr, bool dirty) override;
	/** Everything but the CPU -> device ring (a read there is a store's RLDX). */
	bool plain_read(std::uint64_t addr) const override;

private:
	std::uint64_t entry(std::uint64_t ring, std::uint64_t i) const noexcept;
	bool is_entry(std::uint64_t ring, std::uint64_t line) const noexcept;
	static line_bytes bytes_of(const std::uint8_t *p, std::size_t n);
	void poll_in();
	void consume(std::uint64_t line);
	void write_head();
	void pump_out();

	system &sys_;
	engine_ctx ctx_;
	cq_config cfg_;
	std::uint32_t line_;
	std::uint64_t to_, from_;
	// CPU -> device
	std::uint64_t in_head_ = 0;
	// Per entry of the CPU -> device ring: when the CPU got it Exclusive
	// (not_granted: it has not). A vector, not a map: a node's allocation
	// and free per message was a tenth of the queue run's model cost.
	static constexpr double not_granted = -1;
	std::vector<double> granted_;
	double &granted(std::uint64_t line) noexcept { return granted_[(line - to_) / line_ - 1]; }
	// The request in the device's compute step and its response (one at
	// a time: busy_), kept so that no message allocates.
	std::vector<std::uint8_t> req_, resp_;
	bool recalling_ = false, poll_armed_ = false, busy_ = false;
	bool head_busy_ = false, head_dirty_ = false;
	// device -> CPU
	std::uint64_t out_tail_ = 0, out_shadow_head_ = 0;
	std::deque<std::pair<double, line_bytes>> outbox_; // line_bytes: recycled blocks
	bool sending_ = false, pump_armed_ = false;
	cq_stats st_;
};

} // namespace pioc::sim::eci
