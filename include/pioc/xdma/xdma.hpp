/** @file
 * A user-space XDMA (PG195) descriptor DMA driver.
 *
 *  pioc::device dev = pioc::device::open("sim:xdma");
 *  pioc::xdma::dma x(dev);                       // finds the config BAR, enumerates engines
 *  auto buf = dev.alloc_dma(1 << 20);             // registered once: bus address known
 *  auto &h2c = x.h2c(0);
 *  h2c.set_completion(pioc::xdma::completion::writeback);
 *  auto &req = h2c.prepare(buf, 0, 4096, 0x0);    // descriptors written once, reused
 *  x.config().visit([&](const auto &io) {         // backend picked once, above the loop
 *      auto ops = h2c.ops(io);
 *      for (int i = 0; i < n; ++i) { ops.submit(req); ops.wait(req); }
 *  });
 *
 * Everything that touches registers in the timed path is a template over the
 * I/O view (pioc::mmio_io or pioc::sim_io): no virtual call, lock or branch on
 * the backend inside the loop. Completion by poll-mode write-back, by the
 * completed-descriptor count register, or by MSI-X interrupt through an
 * eventfd; several requests in flight per channel (queued requests are
 * chained into the next run). Errors are decoded from the status bits; a hung
 * engine is detected by timeout, stopped, reset and reported.
 */
#pragma once

#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/io.hpp>
#include <pioc/regs/xdma.hpp>
#include <pioc/xdma/descriptor.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace pioc::xdma {

/** How a channel learns that a run finished. */
enum class completion : std::uint8_t {
	writeback, ///< the engine writes the completed count to host memory; the CPU polls it (no MMIO read)
	count,     ///< the CPU polls the completed-descriptor count register (one MMIO read per poll)
	interrupt, ///< MSI-X vector -> eventfd; the CPU sleeps in read()
};
std::string_view to_string(completion c) noexcept;
/** "writeback"/"wb"/"poll", "count", "interrupt"/"irq"; throws otherwise. */
completion completion_from(std::string_view s);

/** One DMA engine as the identifier and alignment registers describe it. */
struct engine_info {
	bool c2h = false;
	unsigned channel = 0;
	bool stream = false;
	unsigned version = 0;
	unsigned addr_align = 1, len_granularity = 1, addr_bits = 64;
	std::uint32_t id = 0;
};

/** Decodes the status bits of an H2C (@p c2h false) or C2H engine as PG195
 *  defines them per direction: "read_error (unsupported request): ...". */
std::string decode_status(std::uint32_t status, bool c2h);

struct options {
	int config_bar = -1;               ///< -1: find it by its identifier registers
	unsigned ring_descriptors = 4096;  ///< descriptor slots per channel (32 B each)
	std::uint32_t max_segment = 1u << 20; ///< bytes per descriptor
	std::uint64_t timeout_ns = 100'000'000; ///< a run taking longer is a hung engine (simulated ns in sim)
	/** Card (AXI) address space the engines reach: prepare() refuses a
	 *  transfer that does not fit, naming device, address, size and limit.
	 *  0: what the transport reports (transport::card_memory_size(): a
	 *  simulated device's card memory), unchecked
	 *  on hardware; UINT64_MAX: never checked (the engine reports it). */
	std::uint64_t card_size = 0;
	/** Delivers MSI-X vector -> eventfd, for a caller that binds interrupts
	 *  itself. Default: the transport's (transport::interrupt(): the pioc
	 *  module's PIOC_IOC_IRQ_SET, a simulated model's vector). */
	std::function<void(unsigned vector, int fd)> bind_irq;
};

class channel;
class dma;
template <class IO> class channel_ops;
template <class IO> class prepared_run;

/** A transfer prepared once: its descriptors stay in the channel's ring. */
class request {
public:
	enum class state : std::uint8_t { idle, queued, running, done, failed };
	state status() const noexcept { return st_; }
	bool done() const noexcept { return st_ == state::done; }
	bool failed() const noexcept { return st_ == state::failed; }
	const std::string &error_message() const noexcept { return err_; }
	std::uint64_t size() const noexcept { return len_; }
	std::uint64_t host_bus() const noexcept { return host_bus_; }
	std::uint64_t card_addr() const noexcept { return card_; }
	std::size_t descriptors() const noexcept { return head_.count; }
	const chain_head &head() const noexcept { return head_; }

private:
	friend class channel;
	template <class IO> friend class channel_ops;
	template <class IO> friend class prepared_run;
	chain_head head_;
	descriptor *last_ = nullptr;
	std::uint64_t host_bus_ = 0, card_ = 0, len_ = 0;
	state st_ = state::idle;
	errc code_ = errc::device_error; ///< what a failed request throws
	std::string err_;
};

/** Times of the last run (ns of the I/O view's clock), for phase breakdowns. */
struct phases {
	std::uint64_t build_ns = 0;    ///< linking the queued chains
	std::uint64_t doorbell_ns = 0; ///< SGDMA registers + run bit
	std::uint64_t complete_ns = 0; ///< doorbell done -> completion seen
};

class channel {
public:
	channel(const channel &) = delete;
	channel &operator=(const channel &) = delete;
	~channel();

	const engine_info &info() const noexcept { return info_; }
	/** "sim:xdma H2C0". */
	const std::string &name() const noexcept { return name_; }
	bool c2h() const noexcept { return info_.c2h; }

	/** Chooses how completions are detected (programs control and interrupt registers). */
	void set_completion(completion c);
	completion mode() const noexcept { return mode_; }

	/** Prepares a transfer between [off, off+len) of @p buf and card (AXI)
	 *  address @p card: checks it, writes its descriptors into the ring once.
	 *  Throws pioc::error naming device, channel, offset, size and rule. */
	request &prepare(const dma_buffer &buf, std::uint64_t off, std::uint64_t len, std::uint64_t card);
	/** Forgets every prepared request (none may be in flight) and frees the ring. */
	void release_all();
	std::size_t ring_free() const noexcept { return ring_slots_ - ring_used_; }

	/** The timed-path operations on I/O view @p io (the config BAR's view). */
	template <class IO> channel_ops<IO> ops(const IO &io) { return channel_ops<IO>(*this, io); }

	/** Convenience (not for timed loops): one blocking transfer, prepared
	 *  requests cached by (buffer, offset, length, card address). */
	void transfer(const dma_buffer &buf, std::uint64_t off, std::uint64_t len, std::uint64_t card);

	/** Times the phases of each run (three clock reads at the doorbell, one
	 *  at completion). Off by default: a timed loop pays for no clock it
	 *  did not ask for. */
	void time_phases(bool on) noexcept { time_phases_ = on; }
	bool phases_timed() const noexcept { return time_phases_; }
	/** The last run's phases; zeros unless time_phases(true). */
	const phases &last_phases() const noexcept { return phases_; }
	/** Runs started / hung engines recovered / error runs, since open. */
	std::uint64_t runs() const noexcept { return runs_; }
	std::uint64_t recoveries() const noexcept { return recoveries_; }
	/** Runs whose every descriptor completed without their write-back or
	 *  interrupt arriving: finished from the completed count at the timeout. */
	std::uint64_t lost_signals() const noexcept { return lost_signals_; }
	int eventfd() const noexcept { return efd_; }
	unsigned vector() const noexcept { return vector_; }

private:
	friend class dma;
	friend class stream_ring;
	template <class IO> friend class channel_ops;
	template <class IO> friend class prepared_run;
	channel(dma &d, const engine_info &e, unsigned irq_bit);
	void program();                 // (re)writes wb address, control, irq mask
	std::string describe(const request &r) const;
	/** Stops the engine (clearing run, waiting for busy to drop), clears its
	 *  status and returns the full message for a run that failed with
	 *  @p status because of @p why. Instantiated for mmio_io and sim_io. */
	template <class IO> std::string recover(const IO &io, std::uint32_t status, const std::string &why);
	/** A register read all-ones while a run was in flight: the function is
	 *  gone (hot-unplugged, reset under us, or its vfio-user server died).
	 *  Fails the running and queued requests with errc::device_gone and
	 *  throws it; nothing is written to a device that is not there. */
	[[noreturn, gnu::cold]] void lost_device(const std::string &why);

	dma *dma_;
	engine_info info_;
	std::string name_;
	std::uint64_t eng_, sg_;        // register block offsets in the config BAR
	unsigned irq_bit_, vector_ = 0;
	dma_buffer ring_;
	descriptor *ring_cpu_ = nullptr;
	std::size_t ring_slots_ = 0, ring_used_ = 0;
	volatile std::uint32_t *wb_ = nullptr;
	std::uint64_t wb_bus_ = 0;
	completion mode_ = completion::writeback;
	std::uint32_t ctrl_ = 0;        // control value without RUN
	int efd_ = -1;
	std::shared_ptr<void> irq_owner_; // the pioc module's eventfd for our vector, when used
	std::deque<request> reqs_;
	std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>, request *>
		cache_; // bus, buffer size, off, len, card
	// The run in flight.
	std::vector<request *> pending_, running_;
	std::uint32_t expected_ = 0;
	bool busy_ = false;
	const request *held_ = nullptr; // a prepared_run owns the channel for this request
	bool stream_ring_ = false;      // a stream_ring owns the engine
	/** run_start_ before the run's first unfinished poll read the clock. */
	static constexpr std::uint64_t not_started = ~0ull;
	std::uint64_t run_start_ = 0;
	bool time_phases_ = false;
	std::uint64_t next_status_check_ = 0;
	std::uint64_t sg_bus_ = ~0ull;  // SGDMA registers as last written
	unsigned sg_adj_ = ~0u;
	phases phases_;
	std::uint64_t runs_ = 0, recoveries_ = 0, lost_signals_ = 0;
	std::uint64_t polls_ = 0;
};

/** The XDMA function: config BAR, engines, rings. Not copyable or movable. */
class dma {
public:
	explicit dma(device &dev, options o = {});
	~dma();
	dma(const dma &) = delete;
	dma &operator=(const dma &) = delete;

	const std::string &name() const noexcept { return name_; }
	unsigned config_bar() const noexcept { return bar_; }
	const region &config() const noexcept { return cfg_; }
	const options &opts() const noexcept { return opt_; }
	/** Negotiated MPS / MRRS in bytes, from the config block. */
	unsigned mps() const noexcept { return mps_; }
	unsigned mrrs() const noexcept { return mrrs_; }
	const std::vector<engine_info> &engines() const noexcept { return engines_; }
	unsigned h2c_count() const noexcept { return unsigned(h2c_.size()); }
	unsigned c2h_count() const noexcept { return unsigned(c2h_.size()); }
	channel &h2c(unsigned ch);
	channel &c2h(unsigned ch);
	device &dev() noexcept { return *dev_; }
	bool simulated() const noexcept { return dev_->simulated(); }
	/** The card address space transfers are checked against: options::card_size,
	 *  else what the transport knows (transport::card_memory_size()); 0: unchecked. */
	std::uint64_t card_size() const noexcept { return card_limit_; }
	/** A function-level reset (sim: the model's; hardware: sysfs reset), then
	 *  every channel reprogrammed. For an engine that ignores being stopped. */
	void function_reset();

private:
	friend class channel;
	friend class stream_ring; // its interrupt: whether vectors are delivered (opt_.bind_irq)
	template <class IO> friend class channel_ops;
	device *dev_;
	options opt_;
	std::string name_;
	unsigned bar_ = 0;
	region cfg_;
	unsigned mps_ = 0, mrrs_ = 0;
	std::vector<engine_info> engines_;
	std::vector<std::unique_ptr<channel>> h2c_, c2h_;
	std::uint64_t card_limit_ = 0; // options::card_size, else what the transport knows
};

/** Finds the XDMA config BAR of @p dev by its identifier registers (IRQ block
 *  0x1FC2 at +0x2000, config block 0x1FC3 at +0x3000) among BARs of at least
 *  32 KiB; -1 if none. Probing can upset some user BARs: pass the number
 *  (options::config_bar) when known. */
int find_config_bar(device &dev);

/** The BAR of an XDMA design's user logic, found by its ID register
 *  (pioc::find_bar). PG195 orders the IP's BARs AXI-Lite master, DMA
 *  (config), bypass: when the user logic answers on two BARs (the PIO image
 *  on the VCU118: its AXI-Lite BAR0, 32-bit accesses only, and its bypass
 *  BAR2, which takes bursts and write-combined stores), the one after the
 *  config BAR is taken; without a config BAR, or none after it, the first. */
unsigned user_bar(device &dev, std::uint64_t min_size, std::uint64_t id_off, std::uint32_t id,
		  std::string_view what);
/** user_bar() of the PIO image (pio_dev.toml's ID). */
unsigned pio_image_bar(device &dev);

// ---- the timed path ----------------------------------------------------------

namespace detail {
/** Time passes while the CPU polls host memory: hardware spins; in simulation
 *  the CPU spends @p ns and the device runs up to the CPU's time. */
template <io_view IO> inline void idle(const IO &io, std::uint64_t ns) { io.idle(ns); }
/** The hardware spin-loop hint (pause / yield), for a hand-written loop. */
inline void cpu_relax() noexcept { mmio_io::idle(0); }
/** Host-memory poll cost in simulation: a load that hits the cache until the
 *  device's write invalidates the line. */
constexpr std::uint64_t sim_poll_ns = 30;
using pioc::detail::try_read_eventfd;
} // namespace detail

template <class IO> class channel_ops {
public:
	/** Write-back mode: how often a long run also reads the status register. */
	static constexpr std::uint64_t writeback_status_period_ns = 20'000;

	channel_ops(channel &c, const IO &io) : c_(c), io_(io) {}

	/** Queues @p r; starts a run at once if the engine is idle. */
	void submit(request &r)
	{
		if (in_flight(r)) [[unlikely]]
			throw_in_flight(r);
		// The common case inline, everything else out of line so that
		// this path needs no stack frame: an idle engine (so nothing is
		// pending: a finished run starts the pending ones) and a request
		// whose chain still ends in STOP is the whole run, nothing to chain.
		if (c_.busy_ || c_.time_phases_ || !(r.last_->control & regs::xdma::DESC_STOP)) [[unlikely]]
			return submit_other(r);
		r.st_ = request::state::running;
		ring(r.head_, std::uint32_t(r.head_.count));
		append(c_.running_, &r); // last, a tail call: no register is needed after it
	}

	/** Checks the run in flight once; on completion marks its requests done
	 *  and starts the queued ones. Returns how many requests completed.
	 *  Throws on an engine error (after recovering the engine). */
	std::size_t poll() { return poll_as(false); }

	/** Polls until @p r has completed; throws pioc::error if it failed. */
	void wait(request &r)
	{
		// A write-back run done at the first look finishes inline; anything
		// else polls out of line, so this path needs no stack frame.
		if (in_flight(r)) {
			if (!c_.busy_ || c_.mode_ != completion::writeback || c_.time_phases_ || !writeback_done(false))
				[[unlikely]]
				return wait_polling(r);
			io_.load_load(); // data and write-back seen before what the caller reads next
			end_run();
			// Nothing queued meanwhile: r was this run (finish() otherwise).
			if (!c_.pending_.empty()) [[unlikely]]
				return start_pending_and_wait(r);
		}
		if (r.st_ == request::state::failed) [[unlikely]]
			throw_failed(r);
	}

	/** Polls until nothing is in flight. */
	void drain()
	{
		while (c_.busy_)
			poll();
	}

private:
	/** poll(); @p alone: the caller waits on this channel and does nothing
	 *  else meanwhile (wait()), so in simulation the polls before this
	 *  channel's next timed check may be spent at once. */
	[[gnu::always_inline]] std::size_t poll_as(bool alone)
	{
		if (!c_.busy_)
			return 0;
		namespace r = regs::xdma;
		// Write-back inline, the other modes out of line: the mode timed
		// loops use needs no stack frame.
		if (c_.mode_ != completion::writeback) [[unlikely]]
			return poll_signal();
		if (!writeback_done(alone))
			return writeback_unfinished();
		io_.load_load(); // data and write-back seen before what the caller reads next
		return finish();
	}

	/** push_back with the growth out of line: inlined, it would make
	 *  submit() save registers. */
	static void append(std::vector<request *> &v, request *r)
	{
		if (v.size() == v.capacity()) [[unlikely]]
			return append_growing(v, r);
		v.push_back(r);
	}
	[[gnu::noinline]] static void append_growing(std::vector<request *> &v, request *r) { v.push_back(r); }
	static bool in_flight(const request &r) noexcept
	{
		return r.st_ == request::state::queued || r.st_ == request::state::running;
	}
	[[gnu::noinline]] void wait_polling(request &r)
	{
		while (in_flight(r))
			poll_as(true);
		if (r.st_ == request::state::failed) [[unlikely]]
			throw_failed(r);
	}
	/** One look at the write-back: true once it counts every descriptor of
	 *  the run; its error flag fails the run (PG195 poll mode). @p alone:
	 *  as poll_as(). */
	[[gnu::always_inline]] bool writeback_done(bool alone)
	{
		namespace r = regs::xdma;
		if constexpr (IO::simulated) {
			// Waiting on this channel alone, until its next status look
			// or its timeout a poll that finds the write-back unchanged
			// does nothing else: the simulator spends such polls at once
			// (sim_io::idle_polls). A caller polling several channels
			// has their checks too, so it gets plain polls.
			const std::uint64_t until =
				!alone || c_.run_start_ == channel::not_started
					? 0
					: std::min(c_.next_status_check_, c_.run_start_ + c_.dma_->opt_.timeout_ns);
			io_.idle_polls(detail::sim_poll_ns, until);
		} else {
			detail::idle(io_, detail::sim_poll_ns);
		}
		const std::uint32_t w = *c_.wb_;
		if (w & r::WB_ERROR) [[unlikely]]
			fail_at(r::ENG_STATUS_RC, "error flagged in write-back");
		return (w & r::WB_COUNT_MASK) >= c_.expected_;
	}

	/** poll() in count and interrupt modes. */
	[[gnu::noinline]] std::size_t poll_signal()
	{
		namespace r = regs::xdma;
		switch (c_.mode_) {
		case completion::writeback:
			break; // not here: poll()
		case completion::count: {
			const std::uint32_t n = io_.template load<std::uint32_t>(c_.eng_ + r::ENG_COMPLETED);
			if (n < c_.expected_) {
				if ((++c_.polls_ & 15) == 0) {
					const std::uint32_t st = io_.template load<std::uint32_t>(c_.eng_ + r::ENG_STATUS);
					if (st & r::ST_ERRORS)
						fail(io_.template load<std::uint32_t>(c_.eng_ + r::ENG_STATUS_RC),
							    "error seen while polling the completed count");
				}
				return check_timeout();
			}
			// All-ones counts past any run: a vanished function, not a
			// finished one (finishing here would pass off unmoved data).
			if (n == ~std::uint32_t(0)) [[unlikely]]
				c_.lost_device("the completed count read all-ones");
			break;
		}
		case completion::interrupt: {
			ensure_started();
			if (!io_.wait_interrupt(c_.efd_, c_.run_start_ + c_.dma_->opt_.timeout_ns))
				return check_timeout();
			// The read clears the interrupt source, so any later event is a
			// new edge and a new MSI-X; it comes before the count so that a
			// completion landing between the two reads is not swallowed.
			const std::uint32_t st = io_.template load<std::uint32_t>(c_.eng_ + r::ENG_STATUS_RC);
			if (st & r::ST_ERRORS)
				fail(st, "error reported by interrupt");
			// BUSY may still read 1 here (older IP versions): ignore it.
			// DESC_STOPPED (status resets at each run start; STOP is on the
			// run's last descriptor only) proves the run done; without it
			// the completed count decides, at one more round trip.
			if (!(st & r::ST_DESC_STOPPED) &&
			    io_.template load<std::uint32_t>(c_.eng_ + r::ENG_COMPLETED) < c_.expected_)
				return 0; // an earlier event's interrupt: the stop raises its own
			break;
		}
		}
		io_.load_load(); // data and write-back seen before what the caller reads next
		return finish();
	}

	/** The write-back does not yet count every descriptor of the run. A
	 *  run that fails before any descriptor completes writes nothing back
	 *  (PG195 documents no write-back for it): look at the status now and
	 *  then, never in a short run. */
	[[gnu::noinline]] std::size_t writeback_unfinished()
	{
		namespace r = regs::xdma;
		ensure_started();
		if (io_.now_ns() >= c_.next_status_check_) {
			c_.next_status_check_ += writeback_status_period_ns;
			const std::uint32_t st = io_.template load<std::uint32_t>(c_.eng_ + r::ENG_STATUS);
			if (st & r::ST_ERRORS)
				fail(io_.template load<std::uint32_t>(c_.eng_ + r::ENG_STATUS_RC),
				     "error seen in the status register (no write-back)");
		}
		return check_timeout();
	}
	/** fail() with the status read from register @p status_reg; out of line. */
	[[noreturn, gnu::noinline, gnu::cold]] void fail_at(std::uint64_t status_reg, const char *why)
	{
		fail(io_.template load<std::uint32_t>(c_.eng_ + status_reg), why);
	}
	[[noreturn, gnu::noinline, gnu::cold]] static void throw_failed(const request &r)
	{
		throw error(r.code_, r.err_);
	}
	[[noreturn, gnu::noinline, gnu::cold]] void throw_in_flight(const request &r) const
	{
		throw error(errc::invalid_argument, c_.name_ + ": request already in flight: " + c_.describe(r));
	}

	/** Starts the queued requests as one run. */
	[[gnu::noinline]] void start()
	{
		c_.running_.swap(c_.pending_);
		c_.pending_.clear();
		launch();
	}

	/** Chains the requests of running_ and rings the doorbell; the phase
	 *  times only when asked for (channel::time_phases): a timed loop that
	 *  does not want them reads no clock. */
	void launch()
	{
		if (c_.time_phases_) [[unlikely]]
			launch_timed();
		else
			launch_run<false>();
	}
	/** Out of line: its clock calls would make every run save registers. */
	[[gnu::noinline]] void launch_timed() { launch_run<true>(); }

	template <bool Timed> [[gnu::always_inline]] void launch_run()
	{
		namespace r = regs::xdma;
		const std::uint64_t t0 = Timed ? io_.now_ns() : 0;
		auto &run = c_.running_;
		std::uint32_t total = 0;
		request *const *const end = run.data() + run.size();
		for (request *const *p = run.data(); p != end; ++p) {
			request &q = **p;
			if (p + 1 != end)
				link(*q.last_, p[1]->head_);
			else if (!(q.last_->control & r::DESC_STOP))
				unlink(*q.last_);
			q.st_ = request::state::running;
			total += std::uint32_t(q.head_.count);
		}
		const std::uint64_t t1 = Timed ? io_.now_ns() : 0;
		ring(run.front()->head_, total);
		if constexpr (Timed) {
			const std::uint64_t t2 = io_.now_ns();
			c_.phases_.build_ns = t1 - t0;
			c_.phases_.doorbell_ns = t2 - t1;
			started(t2);
		}
	}

	/** submit() with the engine busy (queue it), phase times wanted or
	 *  the request's STOP to restore (an earlier run chained past it). */
	[[gnu::noinline]] void submit_other(request &r)
	{
		if (c_.held_) [[unlikely]]
			throw error(errc::invalid_argument, c_.name_ + ": held by a prepared_run; destroy it before submitting " +
							c_.describe(r));
		if (c_.busy_) {
			r.st_ = request::state::queued;
			c_.pending_.push_back(&r);
			return;
		}
		r.st_ = request::state::queued;
		c_.running_.push_back(&r);
		launch();
	}

	/** Starts the run whose first descriptor @p h names and whose
	 *  completion is @p descriptors descriptors (PG195): write-back slot
	 *  cleared and ordered before the doorbell, SGDMA registers where they
	 *  changed, run bit. Without phase times the deadlines start at the
	 *  first poll that finds the run unfinished, so a run finished by then
	 *  never reads the clock. */
	[[gnu::always_inline]] void ring(const chain_head &h, std::uint32_t descriptors)
	{
		namespace r = regs::xdma;
		c_.expected_ = descriptors;
		if (c_.mode_ == completion::writeback)
			*c_.wb_ = 0;
		io_.store_store(); // descriptors and write-back slot before the doorbell
		if (h.bus != c_.sg_bus_) {
			io_.template store<std::uint32_t>(c_.sg_ + r::SG_DESC_LO, std::uint32_t(h.bus));
			io_.template store<std::uint32_t>(c_.sg_ + r::SG_DESC_HI, std::uint32_t(h.bus >> 32));
			c_.sg_bus_ = h.bus;
		}
		if (h.adj != c_.sg_adj_) {
			io_.template store<std::uint32_t>(c_.sg_ + r::SG_DESC_ADJ, h.adj);
			c_.sg_adj_ = h.adj;
		}
		io_.template store<std::uint32_t>(c_.eng_ + r::ENG_CTRL, c_.ctrl_ | r::CTRL_RUN);
		c_.run_start_ = channel::not_started;
		c_.busy_ = true;
		++c_.runs_;
	}

	/** The run counts as started at @p t: timeout and status-check deadlines. */
	void started(std::uint64_t t)
	{
		c_.run_start_ = t;
		c_.next_status_check_ = t + writeback_status_period_ns;
	}
	/** Before any deadline is compared: the run's start, from the clock now
	 *  if the doorbell did not read it. */
	void ensure_started()
	{
		if (c_.run_start_ == channel::not_started)
			started(io_.now_ns());
	}

	std::size_t finish()
	{
		const std::size_t n = c_.running_.size();
		end_run();
		if (c_.time_phases_) [[unlikely]]
			time_completion();
		if (!c_.pending_.empty()) [[unlikely]]
			return start_pending(n);
		return n;
	}
	/** The run ended well: run bit back to 0 so the next doorbell is a
	 *  rising edge, its requests done. */
	[[gnu::always_inline]] void end_run()
	{
		io_.template store<std::uint32_t>(c_.eng_ + regs::xdma::ENG_CTRL, c_.ctrl_);
		for (request *q : c_.running_)
			q->st_ = request::state::done;
		c_.running_.clear();
		c_.busy_ = false;
	}
	[[gnu::noinline]] void start_pending_and_wait(request &r)
	{
		start();
		wait_polling(r);
	}
	[[gnu::noinline]] void time_completion() { c_.phases_.complete_ns = io_.now_ns() - c_.run_start_; }
	/** finish() with requests queued meanwhile: they run next. */
	[[gnu::noinline]] std::size_t start_pending(std::size_t finished)
	{
		start();
		return finished;
	}

	[[noreturn]] void fail(std::uint32_t status, const std::string &why)
	{
		// All-ones is no engine's status (it would set reserved bits): a
		// read that no function answered. Recovering would spin on BUSY.
		if (status == ~std::uint32_t(0)) [[unlikely]]
			c_.lost_device(why);
		const std::string msg = c_.recover(io_, status, why);
		const errc code = why.rfind("hung", 0) == 0 ? errc::timeout : errc::device_error;
		for (request *q : c_.running_) {
			q->st_ = request::state::failed;
			q->code_ = code;
			q->err_ = msg;
		}
		c_.running_.clear();
		c_.busy_ = false;
		if (!c_.pending_.empty())
			start();
		throw error(code, msg);
	}

	std::size_t check_timeout()
	{
		ensure_started();
		if (io_.now_ns() - c_.run_start_ < c_.dma_->opt_.timeout_ns)
			return 0;
		namespace r = regs::xdma;
		const std::uint32_t st = io_.template load<std::uint32_t>(c_.eng_ + r::ENG_STATUS);
		const std::uint32_t done = io_.template load<std::uint32_t>(c_.eng_ + r::ENG_COMPLETED);
		if (done >= c_.expected_ && !(st & r::ST_ERRORS)) {
			// Every descriptor completed but its signal never came (a lost
			// write-back or interrupt): the count is the truth.
			++c_.lost_signals_;
			io_.load_load();
			return finish();
		}
		fail(st,
			    "hung engine: no completion after " + std::to_string(c_.dma_->opt_.timeout_ns) + " ns (" +
				    std::to_string(done) + " of " + std::to_string(c_.expected_) +
				    " descriptors completed)");
	}

	channel &c_;
	IO io_;
};

/** Waits on the interrupts of several channels at once through io_uring
 *  (one read per eventfd in flight). Hardware and simulation alike. */
class irq_group {
public:
	explicit irq_group(dma &d, std::vector<channel *> chans);
	~irq_group();
	irq_group(const irq_group &) = delete;
	irq_group &operator=(const irq_group &) = delete;
	/** Blocks until at least one channel's eventfd fires (or @p timeout_ns of
	 *  the device clock passes); returns the channels that fired (their counter consumed). */
	std::vector<channel *> wait(std::uint64_t timeout_ns);

private:
	struct impl;
	std::unique_ptr<impl> p_;
};

} // namespace pioc::xdma
