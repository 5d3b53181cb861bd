// Behavioral model of an XDMA (PG195) design: BAR0 user BAR (the PIO image),
// BAR1 the XDMA config BAR, and the card side the engines move data to/from
// (card memory in sim:xdma; the Verilated user side in rtl:xdma).
#pragma once

#include "sim/xdma/card_port.hpp"

#include <pioc/regs/xdma.hpp>
#include <pioc/sim/event_queue.hpp>
#include <pioc/sim/target.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

namespace pioc::sim {

/** What the model looks like and how fast it is. */
struct xdma_config {
	std::string name = "xdma";            ///< target::name()
	std::string label = "sim:xdma";       ///< device spec in messages
	unsigned h2c_channels = 2, c2h_channels = 2;
	bool stream = false;                  ///< AXI-Stream engines instead of memory-mapped
	std::uint64_t card_memory = 64ull << 20; ///< size of the default card memory
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
	/** BUSY still reads 1 this long after DESC_STOPPED is logged (and its
	 *  interrupt sent): the race of older IP versions that Xilinx's driver
	 *  tolerates. Longer than the interrupt path by default, so a driver
	 *  that trusts BUSY after the interrupt is caught. 0: no stale window. */
	double stale_busy_ns = 3000;
};

/** A model whose BAR0 is another target (rtl:xdma: the Verilated user side).
 *  Header-only, so a dynamic_cast to it needs nothing linked from the model. */
class user_bar_host {
public:
	virtual ~user_bar_host() = default;
	/** The user BAR's target (BAR0). */
	virtual const target &user() const noexcept = 0;
};

class xdma_dev final : public target, public xdma::sim_control, public user_bar_host {
public:
	/** BAR0 the PIO image model, card memory of c.card_memory bytes. */
	explicit xdma_dev(xdma_config c = {});
	/** BAR0 @p user (its BAR 0), the engines addressing @p card. */
	xdma_dev(xdma_config c, std::unique_ptr<target> user, std::unique_ptr<card_port> card);
	~xdma_dev() override;

	// target
	std::string name() const override { return cfg_.name; }
	std::uint64_t bar_size(unsigned bar) const override;
	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override;
	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns) override;
	void advance(std::uint64_t t_ns) override;
	bool has_event_clock() const noexcept override { return true; }
	bool delivers_msix() const noexcept override { return true; }

	// sim_control (the first, fourth and last below override target's too)
	std::uint64_t next_event_ns() const noexcept override;
	void bind_vector(unsigned vector, int fd) override;
	void inject(bool c2h, unsigned channel, xdma::fault f) override;
	void card_read(std::uint64_t addr, void *out, std::size_t len) override;
	void card_write(std::uint64_t addr, const void *data, std::size_t len) override;
	std::uint64_t card_memory_size() const noexcept override { return card_->size(); }
	std::uint64_t card_data_base() const noexcept override { return card_->data_base(); }
	void function_reset() override;

	/** What the host enabled in the function's config space (MSI, MSI-X),
	 *  as the config block's read-only 0x14 reports it. MSI-X on by default;
	 *  only MSI-X is delivered (to the eventfds of bind_vector). */
	void set_interrupt_enables(bool msi, bool msix) noexcept;

	const xdma_config &config() const noexcept { return cfg_; }
	const target &user() const noexcept override { return *user_; }

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
		double stale_busy_until = 0; ///< BUSY reads 1 until then although the run ended
		bool irq_line = false;       ///< (status & irq_mask) and the channel enable: edges send MSI-X
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

	void reset_registers();
	void schedule(double t, std::function<void()> fn);
	/** Runs every event due by @p t, in order. */
	[[gnu::noinline]] void run_events(double t);
	std::uint32_t reg_read(std::uint64_t off, double t);
	void reg_write(std::uint64_t off, std::uint32_t v, double t);
	engine *engine_at(std::uint64_t off, bool sgdma);
	void set_ctrl(engine &e, std::uint32_t v, double t);
	void start_run(engine &e, double t);
	void stop_run(engine &e, double t);
	void step(engine &e, std::uint64_t gen);
	/** The engines' frequent events (the next step, a descriptor's
	 *  completion) name their engine and run by one word: with `this` the
	 *  callback fits std::function's inline storage, no allocation per
	 *  event. Bits 0-1 the channel, 2 C2H, 3-4 key_* flags, then the run's
	 *  generation (e.gen: events of an older run find it changed). */
	static constexpr std::uint64_t key_stop = 1u << 3, key_completed = 1u << 4;
	static std::uint64_t run_key(const engine &e, std::uint64_t gen, std::uint64_t flags) noexcept
	{
		static_assert(regs::xdma::max_channels <= 4, "two bits of channel");
		return gen << 5 | flags | std::uint64_t(e.c2h) << 2 | e.ch;
	}
	static std::uint64_t key_gen(std::uint64_t key) noexcept { return key >> 5; }
	engine &engine_of(std::uint64_t key) noexcept { return (key >> 2 & 1 ? c2h_ : h2c_)[key & 3]; }
	/** step(e, e.gen) at @p t. */
	void schedule_step(engine &e, double t);
	/** A descriptor of run key_gen(@p key) completes (key_* flags: its control bits). */
	void complete(std::uint64_t key);
	void fetch_block(engine &e);
	void process(engine &e, const fetched &f);
	void fail(engine &e, std::uint32_t status_bits, double t);
	void finish(engine &e, double t);
	void write_back(engine &e, double t, bool error);
	/** Logs status @p bits where the control register's ie_* bits allow it. */
	void log_status(engine &e, std::uint32_t bits, double t);
	/** Recomputes the engine's interrupt line; a rising edge sends its MSI-X. */
	void update_irq(engine &e, double t);
	void update_all_irqs(double t);
	void send_msix(const engine &e, double t);
	bool irq_source(const engine &e) const noexcept;
	std::uint32_t busy_bit(const engine &e, double t) const noexcept;
	double xfer_ns(bool c2h, std::uint64_t bytes) const;
	bool card_fits(std::uint64_t addr, std::uint64_t len) const noexcept;
	/** Reads host [host, host+len) through the registry into stage_ (host
	 *  memory the model has no pointer to); false if the read failed. */
	bool stage_in(std::uint64_t host, std::uint64_t len);
	void check_card(std::uint64_t addr, std::size_t len, const char *what) const;
	unsigned irq_bit(const engine &e) const;

	xdma_config cfg_;
	std::unique_ptr<target> user_;
	std::unique_ptr<card_port> card_;
	std::vector<engine> h2c_, c2h_;
	// IRQ block
	std::uint32_t user_en_ = 0, chan_en_ = 0;
	std::array<std::uint32_t, 4> user_vec_{};
	std::array<std::uint32_t, 2> chan_vec_{};
	std::array<std::uint8_t, 32 * 16 + 32> msix_{};
	std::array<int, 32> vector_fd_;
	std::uint32_t msi_state_ = regs::xdma::CFG_MSIX_ENABLED; ///< config block 0x14 (read-only)
	event_queue q_;
	bool removed_ = false; ///< fault::removed: the function is gone until function_reset()
	double now_ = 0;
	double bytes_per_ns_read_ = 0, bytes_per_ns_write_ = 0;
	std::vector<std::uint8_t> stage_; ///< data of a transfer to or from host memory without a pointer
};

/** The XDMA design with default configuration. */
std::unique_ptr<target> make_xdma_dev();
/** The behavioral counterpart of rtl:xdma: 1 H2C + 1 C2H engine whose card
 *  side is the PIO image model's address map (BAR0's pio_dev), as on VCU118. */
std::unique_ptr<target> make_xdma_pio_dev();

} // namespace pioc::sim
