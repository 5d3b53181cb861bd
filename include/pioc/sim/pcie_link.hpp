/** @file
 * The CPU side of a simulated PCIe link: turns CPU loads, stores and barriers
 * on a simulated mapping into the TLPs real hardware would produce, and keeps
 * simulated time.
 *
 * What is modelled (paper Sec. 4, Fig. 2; pcie-bench):
 *  - UC stores: one posted MWr per store, of the store's size.
 *  - WC stores: merged in write-combining buffers of `wc_line` bytes; a full
 *    line leaves as one MWr, partial lines leave as one MWr per contiguous run
 *    when flushed (wc_flush barrier, buffer eviction, or a read to the line).
 *  - Loads: non-posted MRd, at most `max_read_bytes` per request and one
 *    request outstanding, so a wide load costs one round trip per chunk.
 *  - Ordering: a read never passes an earlier posted write; posted writes
 *    pipeline up to `posted_credits` TLPs, then the CPU stalls.
 *  - Wire time from generation/lanes with the per-TLP overhead of
 *    pcie-model.md (24 B per MWr/MRd, 20 B per CplD with 64-bit addressing).
 * All times are simulated nanoseconds, never wall-clock time.
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/mem_type.hpp>
#include <pioc/sim/target.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace pioc::sim {

/** Timing parameters of a simulated link and CPU. */
struct link_timing {
	std::string preset = "pc-gen3x16"; ///< name shown in reports
	double gts_per_lane = 8.0;     ///< 8 GT/s = Gen3
	unsigned lanes = 16;
	double one_way_ns = 250;       ///< CPU root port to device, one direction
	double device_ns = 16;         ///< device turnaround for an immediate register read
	double uc_store_ns = 8;        ///< CPU issue cost of one uncached store
	double wc_store_ns = 0.5;      ///< CPU cost of a store into a WC buffer
	double load_issue_ns = 4;      ///< CPU cost to issue a load before the bus
	unsigned max_read_bytes = 16;  ///< widest non-posted read (128-bit read bus)
	unsigned wc_line = 64;         ///< write-combining buffer size
	unsigned wc_buffers = 4;       ///< number of WC buffers
	unsigned posted_credits = 32;  ///< posted TLPs in flight before the CPU stalls

	/** Link bytes per nanosecond after encoding. */
	double bytes_per_ns() const noexcept;
	/** PCIe generation of the lane rate: 2.5, 5, 8, 16, 32 GT/s -> 1..5. */
	unsigned generation() const noexcept;
	/** Presets: "pc-gen3x16" (Core i7 + VCU118), "enzian-gen3x8" (ThunderX-1). */
	static link_timing preset_named(std::string_view name);
};

/** Counters of what crossed the link. */
struct link_stats {
	std::uint64_t mwr_tlps = 0, mwr_bytes = 0;
	std::uint64_t mrd_tlps = 0, mrd_bytes = 0;
	std::uint64_t cpu_stores = 0, cpu_loads = 0;
	std::uint64_t wc_flushes = 0, credit_stalls = 0;
	std::uint64_t polls_spent = 0; ///< host-memory polls spent at once (cpu_poll_until)
};

/** A simulated link with one device model behind it. Single-threaded. */
class pcie_link {
public:
	explicit pcie_link(std::unique_ptr<target> dev, link_timing t = {});
	~pcie_link();
	pcie_link(const pcie_link &) = delete;
	pcie_link &operator=(const pcie_link &) = delete;

	/** A CPU store of @p len bytes (1, 2, 4, 8, 16, 32 or 64) to a mapping of type @p mt. */
	void cpu_store(unsigned bar, std::uint64_t off, const void *src, unsigned len, mem_type mt);
	/** A CPU load of @p len bytes; blocks (in simulated time) until data returns. */
	void cpu_load(unsigned bar, std::uint64_t off, void *dst, unsigned len, mem_type mt);
	/** A barrier executed by the CPU. wc_flush/store_load/full drain WC buffers. */
	void cpu_barrier(barrier::kind k);
	/** Simulated CPU time in ns. */
	std::uint64_t now_ns() const noexcept { return static_cast<std::uint64_t>(now_); }
	/** Lets simulated time pass on the CPU (spinning, computing). */
	void cpu_spend(double ns) noexcept { now_ += ns; }

	/** One poll of host memory: @p step ns pass on the CPU, then the
	 *  device runs up to the CPU's time (sim_io::idle). The CPU reads the
	 *  polled memory next. */
	void cpu_poll(double step)
	{
		now_ += step;
		dev_->advance(now_ns());
		polled_at_ = accesses_;
	}
	/** cpu_poll(@p step) repeated while the CPU can see nothing new, then
	 *  once more: the polls that end before @p horizon and before the
	 *  device's quiet_before_ns() pass at once, one addition each as
	 *  cpu_poll() makes them (the same rounding, so the same times),
	 *  without the device's catch-up. Only right after a poll whose read
	 *  found nothing new, with no MMIO access or sleep since: such an
	 *  access may have let the device write host memory the CPU has not
	 *  read yet, and then this is one plain cpu_poll(). */
	void cpu_poll_until(double step, double horizon)
	{
		if (skip_polls_ && polled_at_ == accesses_ && now_ + step < horizon) {
			const double until = std::min(dev_->quiet_before_ns(), horizon);
			// Nothing to come and no horizon: one by one (a caller's own
			// limit on its count of polls then ends the wait).
			if (until < std::numeric_limits<double>::infinity())
				while (now_ + step < until) {
					now_ += step;
					++stats_.polls_spent;
				}
		}
		cpu_poll(step);
	}
	/** Whether cpu_poll_until() skips polls (default on; off to check that
	 *  it changes no simulated time). */
	void set_poll_skipping(bool on) noexcept { skip_polls_ = on; }
	/** The device runs up to the CPU's time outside an MMIO access (a
	 *  simulated sleep, the start of a wait). */
	void catch_up_device()
	{
		dev_->advance(now_ns());
		++accesses_;
	}

	const link_timing &timing() const noexcept { return timing_; }
	const link_stats &stats() const noexcept { return stats_; }
	void reset_stats() noexcept { stats_ = {}; }
	target &device() noexcept { return *dev_; }
	/** Every TLP, as it leaves the CPU, goes to this callback (for tests and traces). */
	void set_trace(std::function<void(const tlp &)> fn) { trace_ = std::move(fn); }

private:
	struct wc_buf {
		bool used = false;
		unsigned bar = 0;
		std::uint64_t line = 0; ///< line-aligned offset
		std::uint64_t mask = 0; ///< byte-valid bits (wc_line <= 64)
		std::uint64_t age = 0;
		std::array<std::uint8_t, 64> data{};
	};
	void emit_write(unsigned bar, std::uint64_t off, const void *src, unsigned len);
	void flush_buf(wc_buf &b);
	void flush_all_wc();
	void flush_wc_overlapping(unsigned bar, std::uint64_t off, unsigned len);
	double wire_ns(unsigned payload, unsigned header) const noexcept;

	std::unique_ptr<target> dev_;
	link_timing timing_;
	link_stats stats_;
	double now_ = 0;              ///< CPU time
	std::uint64_t accesses_ = 0;  ///< device accesses by the CPU (MMIO, catch-ups) so far
	std::uint64_t polled_at_ = ~std::uint64_t(0); ///< accesses_ at the last cpu_poll()
	bool skip_polls_ = true;
	double link_free_ = 0;        ///< when the downstream wire is free
	double last_write_arrival_ = 0;
	std::array<double, 256> credit_ring_{}; ///< arrival times of posted writes in flight
	std::uint64_t credit_head_ = 0;
	std::array<wc_buf, 8> wc_{};
	unsigned wc_open_ = 0;        ///< buffers of wc_ in use: a UC/WT load looks at none when 0
	std::uint64_t wc_age_ = 0;
	double bytes_per_ns_ = 0;     ///< timing_.bytes_per_ns(), once
	std::function<void(const tlp &)> trace_;
};

} // namespace pioc::sim
