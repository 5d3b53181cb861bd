// Behavioral model of an XDMA (PG195) design: BAR0 user BAR (the PIO image),
// BAR1 the XDMA config BAR, and card memory the engines move data to/from.
#pragma once

#include "sim/pio_dev.hpp"

#include <pioc/regs/xdma.hpp>
#include <pioc/sim/target.hpp>
#include <pioc/xdma/sim_control.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

namespace pioc::sim {

/** What the model looks like and how fast it is. */
struct xdma_config {
	unsigned h2c_channels = 2, c2h_channels = 2;
	bool stream = false;                  ///< AXI-Stream engines instead of memory-mapped
	std::uint64_t card_memory = 64ull << 20;
	unsigned addr_align = 1, len_granularity = 1, addr_bits = 64; ///< the alignment register
	unsigned mps = 256, mrrs = 512;       ///< negotiated, reported by the config block
	unsigned gen = 3, lanes = 16;         ///< link, for data-transfer time (PCIe model)
	// Timing, simulated ns.
	double one_way_ns = 250;    ///< device <-> host memory, one direction (as the link preset)
	double host_mem_ns = 90;    ///< host memory answering a device read
	double engine_start_ns = 40;///< run bit seen -> first descriptor fetch issued
	double desc_ns = 8;         ///< per-descriptor processing in the engine
	double card_mem_ns = 40;    ///< AXI read latency of card memory
	double irq_ns = 1800;       ///< MSI-X arrival -> eventfd signalled -> waiter running (host)
};

class xdma_dev final : public target, public xdma::sim_control {
public:
	explicit xdma_dev(xdma_config c = {});
	~xdma_dev() override;

	// target
	std::string name() const override { return "xdma"; }
	std::uint64_t bar_size(unsigned bar) const override;
	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override;
	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns) override;
	void advance(std::uint64_t t_ns) override;

	// sim_control
	std::uint64_t next_event_ns() const noexcept override;
	void bind_vector(unsigned vector, int fd) override;
	void inject(bool c2h, unsigned channel, xdma::fault f) override;
	std::uint8_t *card_memory(std::uint64_t addr, std::size_t len) override;
	std::uint64_t card_memory_size() const noexcept override { return cfg_.card_memory; }
	void function_reset() override;

	const xdma_config &config() const noexcept { return cfg_; }

private:
	struct fetched {
		regs::xdma::descriptor d;
		std::uint64_t bus;
	};
	struct engine {
		bool c2h = false;
		unsigned ch = 0;
		std::uint32_t ctrl = 0, status = 0, completed = 0, irq_mask = 0;
		std::uint32_t wb_lo = 0, wb_hi = 0, desc_lo = 0, desc_hi = 0, desc_adj = 0, credits = 0;
		std::uint32_t perf_ctrl = 0;
		double perf_start = 0;
		std::uint64_t perf_bytes = 0;
		bool busy = false;
		std::uint64_t gen = 0;       ///< run generation: stale events check it
		xdma::fault fault = xdma::fault::none;
		bool hard_stuck = false;
		std::uint64_t next_bus = 0;  ///< next block to fetch
		unsigned next_adj = 0;
		std::vector<fetched> block;
		std::size_t block_pos = 0;
		double cursor = 0;           ///< engine free at (device time)
		double last_done = 0;        ///< completion time of the last descriptor issued
	};
	struct event {
		double t;
		std::uint64_t seq;
		std::function<void()> fn;
		bool operator>(const event &o) const { return t != o.t ? t > o.t : seq > o.seq; }
	};

	void reset_registers();
	void schedule(double t, std::function<void()> fn);
	std::uint32_t reg_read(std::uint64_t off, double t);
	void reg_write(std::uint64_t off, std::uint32_t v, double t);
	engine *engine_at(std::uint64_t off, bool sgdma);
	void set_ctrl(engine &e, std::uint32_t v, double t);
	void start_run(engine &e, double t);
	void stop_run(engine &e, double t);
	void step(engine &e, std::uint64_t gen);
	void fetch_block(engine &e);
	void process(engine &e, const fetched &f);
	void fail(engine &e, std::uint32_t status_bits, double t);
	void finish(engine &e, double t);
	void write_back(engine &e, double t, bool error);
	void raise(engine &e, std::uint32_t cause, double t);
	double xfer_ns(bool c2h, std::uint64_t bytes) const;
	unsigned irq_bit(const engine &e) const;

	xdma_config cfg_;
	pio_dev user_;
	std::vector<engine> h2c_, c2h_;
	std::uint8_t *card_ = nullptr;
	// IRQ block
	std::uint32_t user_en_ = 0, chan_en_ = 0, chan_req_ = 0;
	std::array<std::uint32_t, 4> user_vec_{};
	std::array<std::uint32_t, 2> chan_vec_{};
	std::array<std::uint8_t, 32 * 16 + 32> msix_{};
	std::array<int, 32> vector_fd_;
	std::uint32_t msi_en_ = 1;
	std::priority_queue<event, std::vector<event>, std::greater<event>> q_;
	std::uint64_t seq_ = 0;
	double now_ = 0;
	double bytes_per_ns_read_ = 0, bytes_per_ns_write_ = 0;
};

/** The XDMA design with default configuration. */
std::unique_ptr<target> make_xdma_dev();

} // namespace pioc::sim
