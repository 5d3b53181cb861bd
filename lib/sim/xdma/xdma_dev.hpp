// Behavioral model of an XDMA (PG195) design: BAR0 user BAR (the PIO image),
// BAR1 the XDMA config BAR, and the card side the engines move data to/from
// (card memory in sim:xdma; the Verilated user side in rtl:xdma).
#pragma once

#include "sim/xdma/card_port.hpp"
#include "sim/xdma/stream_port.hpp"

#include <pioc/regs/xdma.hpp>
#include <pioc/sim/event_queue.hpp>
#include <pioc/sim/target.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <utility>
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
	/** Where the IP puts its BARs. PG195 ("Target Bridge", BAR tables):
	 *  with an AXI-Lite master BAR it is BAR0, the DMA (config) BAR BAR1
	 *  and the bypass BAR BAR2; without it (the NIC images) the config BAR
	 *  is BAR0 and the bypass BAR BAR1 (32-bit BARs; BAR2 with 64-bit ones).
	 *  The PIO model's default keeps its user BAR at 0: drivers find the
	 *  user BAR by its ID register (pioc::find_bar), the config BAR by the
	 *  IP's identifiers (xdma::find_config_bar). */
	unsigned user_bar = 0, config_bar = 1;
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

/** User logic that drives the IP's user interrupt lines (usr_irq_req):
 *  the model hands it a function to call with the line and the simulated
 *  time the request rises; the IP then sends (PG195 "User Interrupts")
 *  the MSI-X vector the IRQ block's User Vector Number maps the line to,
 *  once the line's bit in the User Interrupt Enable Mask is set. */
class user_irq_source {
public:
	virtual ~user_irq_source() = default;
	virtual void connect_user_irq(std::function<void(unsigned line, double t_ns)> raise) = 0;
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
	/** The engines' DMA takes the link preset's generation, width and one-way
	 *  latency (xdma_config's gen, lanes, one_way_ns). */
	void attach_link(const link_timing &t) override;

	// sim_control (the first, fourth and last below override target's too)
	std::uint64_t next_event_ns() const noexcept override;
	double quiet_before_ns() const noexcept override;
	void bind_vector(unsigned vector, int fd) override;
	std::uint64_t msix_writes() const noexcept override { return msix_writes_; }
	void inject(bool c2h, unsigned channel, xdma::fault f) override;
	void card_read(std::uint64_t addr, void *out, std::size_t len) override;
	void card_write(std::uint64_t addr, const void *data, std::size_t len) override;
	std::uint64_t card_memory_size() const noexcept override { return card_->size(); }
	std::uint64_t card_data_base() const noexcept override { return card_->data_base(); }
	void function_reset() override;
	unsigned config_bar() const noexcept override { return cfg_.config_bar; }

	/** What the host enabled in the function's config space (MSI, MSI-X),
	 *  as the config block's read-only 0x14 reports it. MSI-X on by default;
	 *  only MSI-X is delivered (to the eventfds of bind_vector). */
	void set_interrupt_enables(bool msi, bool msix) noexcept;
	/** User interrupt line @p line (0..15) requested at @p t_ns: latched as
	 *  pending (IRQ block 0x48) and sent as MSI-X when its enable bit (0x04)
	 *  is set, now or at the enable write; then acknowledged (cleared). */
	void user_irq(unsigned line, double t_ns);
	/** User interrupts sent as MSI-X writes so far. */
	std::uint64_t user_irqs_sent() const noexcept { return user_sent_; }

	const xdma_config &config() const noexcept { return cfg_; }
	const target &user() const noexcept override { return *user_; }

	// AXI4-Stream engines (xdma_config::stream; lib/sim/xdma/xdma_stream.cpp)
	/** Where H2C stream data goes (@p s outlives the model); nullptr: each
	 *  H2C channel loops back into the C2H channel of its number. */
	void set_stream_sink(stream_sink *s) noexcept { sink_ = s; }
	/** The user logic offers C2H channel @p ch a packet (its last beat on
	 *  the stream at p.last_ns). The engine takes it as descriptors allow;
	 *  until then it waits on the stream. */
	void c2h_stream_push(unsigned ch, stream_packet p);
	/** An empty buffer for a stream packet's bytes, with the capacity of
	 *  one given back by recycle() (the engines give back each packet they
	 *  wrote whole): no allocation per packet, for the user logic that
	 *  builds them. */
	std::vector<std::uint8_t> stream_buffer();
	/** Keeps @p b's storage for stream_buffer(). */
	void recycle(std::vector<std::uint8_t> &&b);
	/** Buffers recycle() keeps for stream_buffer(): steady while the user
	 *  logic takes a buffer for each packet it gives (tests). */
	std::size_t spare_stream_buffers() const noexcept { return spare_bytes_.size(); }
	/** Packets offered to C2H channel @p ch and not yet written whole. */
	std::size_t c2h_stream_waiting(unsigned ch) const;
	/** Bytes of those packets not yet written. */
	std::size_t c2h_stream_waiting_bytes(unsigned ch) const;
	/** Looped-back packets dropped because an H2C descriptor inside them
	 *  left a partial beat (tkeep not all ones before tlast: PG195 forbids
	 *  it on the C2H stream). */
	std::uint64_t stream_malformed() const noexcept { return malformed_; }
	/** Runs @p fn (a callable, into the event queue's inline storage) at
	 *  simulated time @p t_ns on the device's event clock: for user logic
	 *  (the DMA NIC's MAC) whose actions are known ahead. */
	template <class F> void schedule_user(double t_ns, F &&fn) { schedule(t_ns, std::forward<F>(fn)); }
	/** Simulated time the device has run to. */
	double now_ns() const noexcept { return now_; }

private:
	/** Our next event, posted write or quiet completion, unrounded. */
	double next_own_ns() const noexcept;
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
		bool parked = false;         ///< stream: waits for credits or C2H data
		std::deque<stream_packet> stream_in; ///< C2H stream: packets offered, oldest first
		/** C2H stream: completions of descriptors without control flags,
		 *  by time (strictly rising: each ends after the one before). Not
		 *  events: such a completion only counts, so the count takes the
		 *  due ones whenever it is looked at (count_completions()). */
		std::deque<double> quiet_done;
		std::vector<std::uint8_t> loop_pkt;  ///< H2C loopback: the packet so far
		bool loop_bad = false;               ///< ... has a partial beat inside it
	};

	void reset_registers();
	/** @p fn at @p t: the callable goes into the event queue's callback as
	 *  it is (a std::function in between cost a second indirect call per
	 *  event and a non-trivial move at every step of the queue). */
	template <class F> void schedule(double t, F &&fn) { q_.push(t, std::forward<F>(fn)); }
	/** Runs every event due by @p t, in order. */
	[[gnu::noinline]] void run_events(double t);
	std::uint32_t reg_read(std::uint64_t off, double t);
	void reg_write(std::uint64_t off, std::uint32_t v, double t);
	engine *engine_at(std::uint64_t off, bool sgdma);
	void set_ctrl(engine &e, std::uint32_t v, double t);
	void start_run(engine &e, double t);
	void stop_run(engine &e, double t);
	void step(engine &e, std::uint64_t gen);
	/** After the last descriptor @p f of a block: the next block is where its
	 *  next pointer and Nxt_adj say; false (the run failed) if there is none. */
	bool follow_next(engine &e, const fetched &f);
	// AXI4-Stream engines (xdma_stream.cpp)
	bool credit_mode(const engine &e) const noexcept;
	void add_credits(engine &e, std::uint32_t n, double t);
	void wake(engine &e, double t);
	void step_stream(engine &e, std::uint64_t gen);
	/** One stream descriptor; false: it waits (C2H without data), not taken. */
	bool process_stream(engine &e, const fetched &f);
	void sgdma_common_write(std::uint64_t off, std::uint32_t v);
	double loop_back(engine &h2c, const std::uint8_t *data, std::size_t len, bool eop, double first_ns,
			 double last_ns);
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
	/** e.completed with the quiet completions due by now_ (every event
	 *  due by then has run); before any look at it. */
	void count_completions(engine &e) noexcept;
	/** A new run generation: pending events go stale, quiet completions
	 *  not yet due with them. */
	void next_generation(engine &e) noexcept;
	void fetch_block(engine &e);
	/** A posted write of the engines to host memory (a poll-mode
	 *  write-back, a C2H result record) on its way. Not an event: the
	 *  writes wait in landing order beside the events and run_events()
	 *  lands each before any event of a later time (at an equal time,
	 *  first); nothing of the model reads the words they write, so only
	 *  their order among themselves and against the CPU's view counts,
	 *  and the CPU sees host memory only between advance() calls. Two
	 *  events fewer per frame of a DMA NIC. */
	struct host_write {
		std::uint64_t bus = 0;
		std::array<std::uint8_t, 32> data{};
		std::uint8_t len = 0;
		bool c2h = false;
		std::uint8_t ch = 0;
		const char *what = ""; ///< for the warning if it hits no host memory
	};
	/** @p w lands in host memory at @p t (after every write posted
	 *  before it that lands no later). */
	void post_host_write(double t, const host_write &w);
	/** The first write of writes_ lands. */
	void land_host_write();
	/** Drops every pending event and host write. */
	void clear_events();
	void process(engine &e, const fetched &f);
	/** The descriptor's completion at @p done (completed count, write-back
	 *  and DESC_COMPLETED where its control asks, the run's end at STOP). */
	void schedule_completion(engine &e, double done, std::uint32_t control);
	void fail(engine &e, std::uint32_t status_bits, double t);
	void finish(engine &e, double t);
	void write_back(engine &e, double t, bool error);
	/** Logs status @p bits where the control register's ie_* bits allow it. */
	void log_status(engine &e, std::uint32_t bits, double t);
	/** Recomputes the engine's interrupt line; a rising edge sends its MSI-X. */
	void update_irq(engine &e, double t);
	void update_all_irqs(double t);
	void send_msix(const engine &e, double t);
	void send_vector(unsigned vec, double t);
	void send_user_irqs(double t);
	bool irq_source(const engine &e) const noexcept;
	std::uint32_t busy_bit(const engine &e, double t) const noexcept;
	double xfer_ns(bool c2h, std::uint64_t bytes) const;
	void set_link_rates(); ///< bytes_per_ns_* from cfg_'s gen, lanes, mps, mrrs
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
	std::uint32_t user_pending_ = 0; ///< user lines requested and not yet sent (IRQ block 0x48)
	std::uint64_t user_sent_ = 0;
	std::uint64_t msix_writes_ = 0; ///< eventfd writes of send_vector() (msix_writes())
	bool irq_user_ = false;          ///< the user logic raises user interrupt lines
	bool user_advances_ = true;      ///< user_->advances(): advance() passes the time on
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
	std::vector<regs::xdma::descriptor> fetch_raw_; ///< fetch_block()'s descriptors as read
	struct timed_write {
		double t;
		host_write w;
	};
	std::deque<timed_write> writes_; ///< post_host_write()'s writes on their way, by landing time
	double next_write_ = std::numeric_limits<double>::infinity(); ///< writes_.front().t, or infinity
	std::uint32_t credit_mode_ = 0;   ///< SGDMA common 0x20
	stream_sink *sink_ = nullptr;     ///< H2C stream data; nullptr: loopback
	std::uint64_t malformed_ = 0;
	std::vector<std::vector<std::uint8_t>> spare_bytes_; ///< recycle()'s buffers for stream_buffer()
	static constexpr std::size_t max_spare_buffers = 512; ///< a full ring's packets (stream rings: 2..512)
};

/** The XDMA design with default configuration. */
std::unique_ptr<target> make_xdma_dev();
/** The behavioral counterpart of rtl:xdma: 1 H2C + 1 C2H engine whose card
 *  side is the PIO image model's address map (BAR0's pio_dev), as on VCU118. */
std::unique_ptr<target> make_xdma_pio_dev();
/** PG195's AXI4-Stream example design: 2 H2C + 2 C2H stream engines, each H2C
 *  channel looped back into the C2H channel of its number (sim:xdma_stream). */
std::unique_ptr<target> make_xdma_stream_dev();

} // namespace pioc::sim
