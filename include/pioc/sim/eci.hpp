/** @file
 * A model of Enzian's coherence interface (ECI) for the coherent protocols:
 * one ThunderX-1-like CPU L2 (128-byte lines by default, MOESI-like stable
 * states, TAD units with bounded transactions), the ECI link with a request
 * and a response virtual channel, the FPGA's home directory for lines homed
 * on the device, and a pluggable device-side protocol engine.
 *
 * It is a discrete-event model with one simulated clock. The CPU side is
 * the calling thread: cpu_load()/cpu_store() on a line that misses send a
 * request over the link and run the event queue until the answer arrives,
 * so the device engine (and the directory) act "while the CPU is blocked",
 * exactly as on Enzian where the device delays the answer to a load.
 *
 * Every time here is modelled, never measured. Every message that crosses
 * the link is counted by name (the vocabulary of reference/eci.md); local
 * operations between the device engine and its directory (LC, LCI, LCA,
 * LCIA, UL) are counted separately.
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/sim/event_queue.hpp>
#include <pioc/sim/line_bytes.hpp>
#include <pioc/sim/line_table.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <deque>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pioc::sim::eci {

/** Message names (reference/eci.md). How the model uses each one:
 *  RLDD/RLDX: CPU load / load-exclusive miss to the home (request VC);
 *  RC2D_S: CPU upgrade of a Shared line to Modified (request VC);
 *  PSHA/PEMD: home answer with data, granting Shared / Exclusive (response VC);
 *  HAKD: home grants an upgrade (no data);
 *  FEVX_EH: home asks the CPU to give a line back (the device's LCI);
 *  SINV_H: home invalidates a Shared copy at the CPU;
 *  VICD/VICC: the CPU's answer or voluntary eviction, with dirty data / clean;
 *  HAKI: home acknowledges a voluntary eviction;
 *  GSYNC/GSDN: CPU barrier broadcast and its completion. */
enum class msg : std::uint8_t {
	RLDD, RLDX, RC2D_S, PSHA, PEMD, HAKD, FEVX_EH, SINV_H, VICD, VICC, HAKI, GSYNC, GSDN,
	// local to the FPGA (device engine <-> directory controller), not on the link
	LC, LCI, LCA, LCIA, UL,
	count_
};
std::string_view to_string(msg m) noexcept;
constexpr bool on_link(msg m) noexcept { return m < msg::LC; }

/** Stable state of a line in one cache. */
enum class line_state : std::uint8_t { I, S, E, O, M };
std::string_view to_string(line_state s) noexcept;

/** Where a line is homed. */
enum class home : std::uint8_t { device, cpu };

/** Modelled costs and sizes. Defaults: Enzian as in the paper, Sec. 3, 6.1. */
struct config {
	std::uint32_t line_size = 128;     ///< bytes per cache line (128 on ThunderX-1)
	double link_ns = 150;              ///< one-way ECI link latency
	double dir_msg_ns = 65;            ///< directory controller latency per message it handles.
	                                   ///< FITTED: 4 per Fig. 5a call make the paper's ~900 ns
	                                   ///< (its Sec. 6.1: ~300 ns of directory processing)
	double dir_occupancy_ns = 65;      ///< a directory slice takes its next message this long after
	                                   ///< the last (its throughput). ASSUMED equal to dir_msg_ns: a
	                                   ///< slice handles one message at a time; the paper gives no
	                                   ///< throughput figure. 0 = unlimited (the model before issue 12)
	std::uint32_t dir_slices = 2;      ///< independent directory slices, by line index parity:
	                                   ///< Enzian's directory controller has an even and an odd slice
	                                   ///< (public ECI code: dcs_even / dcs_odd)
	double link_gib_s = 30;            ///< link bandwidth (serialises data messages)
	double l2_hit_ns = 10;             ///< CPU load/store that hits in the L2
	double cpu_fwd_ns = 10;            ///< CPU L2 answering a forward (FEVX_EH, SINV_H)
	double dram_ns = 90;               ///< CPU-homed miss served from the CPU's DRAM
	double barrier_ns = 5;             ///< dmb
	double timeout_ns = 40e6;          ///< a load not answered by then is a machine check
	std::uint32_t tads = 8;            ///< L2 TAD units (line index modulo tads)
	std::uint32_t tad_tx = 16;         ///< transactions in flight per TAD
	bool tad_in_order = false;         ///< a TAD serves one miss at a time and holds
	                                   ///< forwards for its lines behind it (models the
	                                   ///< deadlock the paper's Sec. 5 warns about)
	std::uint64_t device_bytes = 4u << 20;  ///< device-homed window [0, device_bytes)
	std::uint64_t cpu_bytes = 4u << 20;     ///< CPU-homed window [cpu_base(), +cpu_bytes)
	std::uint64_t cpu_capacity_lines = 0;   ///< >0: L2 capacity; LRU evictions beyond it
};

/** Message and round-trip counters. */
struct counters {
	std::array<std::uint64_t, static_cast<std::size_t>(msg::count_)> by_msg{};
	std::uint64_t round_trips = 0;     ///< request/answer pairs that crossed the link twice
	std::uint64_t cpu_hits = 0, cpu_misses = 0, dram_accesses = 0;
	std::uint64_t silent_evictions = 0, machine_checks = 0;
	/** Events the model ran: what a simulation costs (its speed is about
	 *  events per simulated line, Documentation/benchmarking.md). */
	std::uint64_t events = 0;

	std::uint64_t operator[](msg m) const noexcept { return by_msg[static_cast<std::size_t>(m)]; }
	/** Messages that crossed the link (both virtual channels, both directions). */
	std::uint64_t link_messages() const noexcept;
	counters operator-(const counters &o) const noexcept;
};

class system;

/** What a device engine may do. Only valid inside engine callbacks or
 *  timers (the simulator is single threaded). */
class engine_ctx {
public:
	explicit engine_ctx(system &s) : sys_(s) {}
	double now() const noexcept;
	std::uint32_t line_size() const noexcept;
	/** The device's copy of a line (device-homed: the home memory;
	 *  CPU-homed: the device's cached copy, valid while it holds the line). */
	std::uint8_t *data(std::uint64_t addr);
	/** Answers the CPU's pending load of device-homed @p addr with the
	 *  device's data, granting Exclusive (PEMD) or Shared (PSHA); unlocks it. */
	void answer(std::uint64_t addr, bool exclusive);
	/** LCI: takes device-homed @p addr back from the CPU (the CPU's dirty
	 *  data lands in data(addr)); @p done runs when LCIA arrives. The line
	 *  stays locked at the home until answer() or unlock(). */
	void clean_invalidate(std::uint64_t addr, event_queue::callback done);
	/** clean_invalidate() of every line of @p lines (device-homed, none
	 *  locked) in one step, when nothing else can happen until the last
	 *  LCIA: the CPU waits in a miss (the engine's event answers it later),
	 *  no event is due before then, a plain CPU, no trace, TADs that take
	 *  forwards at once (system::set_miss_batching's rule, the same
	 *  switch). The messages, the L2's answers and the dirty bytes coming
	 *  home are taken in the order their events would run, at their times;
	 *  @p each runs for every line at its LCIA's time, in that order (it
	 *  must schedule nothing; the line is still locked, as in
	 *  clean_invalidate's callback), and @p done runs as an event at the
	 *  last LCIA's time. Returns false, with nothing done (@p done not
	 *  taken), when the lines must go one by one. The caller's event must
	 *  schedule nothing after it: that would run while the lines are, for
	 *  everyone but the CPU, already back. */
	bool clean_invalidate_all(const std::vector<std::uint64_t> &lines, inline_function<void(std::uint64_t)> each,
				  event_queue::callback &&done);
	/** UL without an answer. */
	void unlock(std::uint64_t addr);
	/** Device as a caching agent of CPU-homed @p addr: RLDX to the CPU's
	 *  home; @p done runs when the line (and its data) arrived. */
	void acquire_cpu_line(std::uint64_t addr, event_queue::callback done);
	/** Answers the CPU home's pending forward on CPU-homed @p addr that the
	 *  device held back: gives the line (data(addr)) to the CPU. */
	void release_cpu_line(std::uint64_t addr);
	/** Runs @p f at simulated time @p t (>= now); the handle cancels it. */
	event_queue::handle at(double t, event_queue::callback f);
	/** Drops a timer at() set that the engine knows will find nothing to
	 *  do (a stale one: it would only stand in the way as something due,
	 *  e.g. of system::set_miss_batching); nothing if it ran already. */
	void cancel(event_queue::handle h) noexcept;

private:
	system &sys_;
};

/** The device side: receives the CPU's requests and decides when and how to
 *  answer. The RTL of the coherent invocation engine can stand in here. */
class device_engine {
public:
	virtual ~device_engine() = default;
	/** The CPU missed on device-homed @p addr (RLDD, or RLDX if @p exclusive,
	 *  or an upgrade RC2D_S). The home has locked the line; the engine must
	 *  eventually call ctx.answer(addr, ...). */
	virtual void on_request(engine_ctx &ctx, std::uint64_t addr, bool exclusive) = 0;
	/** The CPU evicted device-homed @p addr (VICD with data, or VICC). */
	virtual void on_victim(engine_ctx &, std::uint64_t, bool /*dirty*/) {}
	/** The CPU's home forwards a CPU request for CPU-homed @p addr that the
	 *  device holds; the engine must eventually call release_cpu_line(). */
	virtual void on_forward(engine_ctx &ctx, std::uint64_t addr) { ctx.release_cpu_line(addr); }
	/** Whether the engine answers a CPU read of @p addr at once with the
	 *  line's data, as plain memory does (not a signal, never held). Then a
	 *  load the CPU issued early would have read the data as it was then:
	 *  the load-order adversary (system::load_order) may answer a later
	 *  load with it. Default no: any read may be a signal the engine
	 *  answers in its own time. */
	virtual bool plain_read(std::uint64_t /*addr*/) const { return false; }
	/** The device's own pipeline in front of its engine, in ns: the home
	 *  takes a CPU request for @p addr (locks the line, calls on_request)
	 *  this long after the directory handled its message. Default none. A
	 *  model states it here rather than scheduling its own event per
	 *  request: the simulator's cost is its events. */
	virtual double request_pipeline_ns(std::uint64_t /*addr*/) const { return 0; }
	/** Whether on_request(ctx, @p addr, @p exclusive) would be a plain
	 *  grant: it calls ctx.answer(addr, ...) before it returns, schedules
	 *  nothing, and neither it nor its effect on the engine depends on
	 *  ctx.now(). Then the system may take a CPU's batch of such misses in
	 *  one step, with the times the events would give (system::
	 *  set_miss_batching): it calls on_request at each request's time,
	 *  in the order the events would have, but before the answers'
	 *  messages are timed. Default no (every request an event). */
	virtual bool grants_at_once(std::uint64_t /*addr*/, bool /*exclusive*/) const { return false; }
};

/** The whole modelled machine: one CPU core + L2, the link, the device. */
class system {
public:
	explicit system(config c = {});
	~system();
	system(const system &) = delete;
	system &operator=(const system &) = delete;

	const config &cfg() const noexcept { return cfg_; }
	/** First address of the CPU-homed window (after the device-homed one). */
	std::uint64_t cpu_base() const noexcept { return cfg_.device_bytes; }
	home home_of(std::uint64_t addr) const noexcept { return addr < cfg_.device_bytes ? home::device : home::cpu; }
	std::uint32_t tad_of(std::uint64_t addr) const noexcept
	{
		return slice_of(addr >> line_shift_, cfg_.tads);
	}

	void attach(device_engine *e) noexcept { engine_ = e; }
	device_engine *engine() const noexcept { return engine_; }

	// ---- the CPU core (the calling thread) ----
	/** Load of @p n bytes at @p addr (within one line). Blocks (runs the
	 *  model) until the line is present. Throws pioc::error(errc::timeout)
	 *  on a machine check (not answered within timeout_ns) or a deadlock. */
	void cpu_load(std::uint64_t addr, void *dst, std::size_t n)
	{
		// A hit on a plain CPU (the default runs' polls: 40 of them a
		// queue round trip) is the copy and the time, inline; everything
		// else, and every check's error, goes through cpu_load_other().
		if (const cline *c = plain_hit(addr, n, "load"); c && c->st != line_state::I) [[likely]] {
			++stats_.cpu_hits;
			copy_bytes(dst, c->data.data() + (addr & line_mask_), n);
			cpu_spend(cfg_.l2_hit_ns);
			return;
		}
		cpu_load_other(addr, dst, n);
	}
	/** cpu_load(), then cpu_barrier(barrier::kind::load_load): arm64's
	 *  ldar, every poll of the coherent protocols. When the hit and the
	 *  barrier have no event due in their time, both are one step (the
	 *  same times and counts as the two calls, which it makes otherwise). */
	void cpu_load_acquire(std::uint64_t addr, void *dst, std::size_t n)
	{
		if (const cline *c = plain_hit(addr, n, "load");
		    c && c->st != line_state::I && !(ignored_barriers_ & 1u << unsigned(barrier::kind::load_load))) [[likely]] {
			const double t2 = acquire_hit_end();
			if (!events_.due(t2)) [[likely]] {
				++stats_.cpu_hits;
				copy_bytes(dst, c->data.data() + (addr & line_mask_), n);
				now_ = t2; // plain_: both times are >= 0, so the two max()es give t2
				lo_order_point(barrier::kind::load_load);
				return;
			}
		}
		cpu_load(addr, dst, n);
		cpu_barrier(barrier::kind::load_load);
	}
	/** The polls of a spin on the line at @p addr (cpu_load_acquire of
	 *  @p n bytes, nothing else in the loop, which checks its clock after
	 *  each: "past @p until" ends it) that cannot find anything new, spent
	 *  at once. Call it after such a poll found nothing. While the CPU
	 *  holds the line on a plain CPU and no event is due by the end of the
	 *  next poll, nothing can change the line, so that poll reads what the
	 *  last one read: its time passes, by the same additions
	 *  cpu_load_acquire() makes (the same times), and it counts as the hit
	 *  it is. Stops before the poll whose time has an event due (the loop
	 *  makes that one) and once the CPU's time is past @p until (the loop's
	 *  check then ends it). Returns the polls spent; none with
	 *  set_poll_skipping(false). */
	std::uint64_t cpu_spend_polls(std::uint64_t addr, std::size_t n, double until)
	{
		const cline *c = skip_polls_ ? plain_hit(addr, n, "load") : nullptr;
		if (!c || c->st == line_state::I || ignored_barriers_ & 1u << unsigned(barrier::kind::load_load))
			return 0;
		std::uint64_t k = 0;
		for (;;) {
			const double t2 = acquire_hit_end();
			if (now_ > until || events_.due(t2))
				break;
			now_ = t2;
			++k;
		}
		stats_.cpu_hits += k;
		lo_epoch_ += k; // a load barrier each (lo_order_point)
		polls_spent_ += k;
		return k;
	}
	/** Whether cpu_spend_polls() spends polls (default on; off to check
	 *  that it changes no simulated time). */
	void set_poll_skipping(bool on) noexcept { skip_polls_ = on; }
	/** Polls cpu_spend_polls() has spent so far. */
	std::uint64_t polls_spent() const noexcept { return polls_spent_; }
	/** Store (needs the line Exclusive/Modified: RLDX or RC2D_S on a miss). */
	void cpu_store(std::uint64_t addr, const void *src, std::size_t n)
	{
		if (cline *c = plain_hit(addr, n, "store"); c && (c->st == line_state::E || c->st == line_state::M)) [[likely]] {
			++stats_.cpu_hits;
			copy_bytes(c->data.data() + (addr & line_mask_), src, n);
			c->st = line_state::M;
			cpu_spend(cfg_.l2_hit_ns);
			return;
		}
		cpu_store_other(addr, src, n);
	}
	/** Issues loads to all @p lines at once (independent loads in flight,
	 *  bounded by TAD transactions) and waits for all of them. */
	void cpu_load_lines(const std::uint64_t *lines, std::size_t count);
	/** Whether cpu_load_lines() and cpu_claim_lines() take a batch of
	 *  misses in one step when they can (default on; off to check that it
	 *  changes no simulated time): every missed line device-homed, idle at
	 *  the home, granted at once by the engine (grants_at_once), room for
	 *  all in their TADs, a plain CPU, no trace, and no event due before
	 *  the last answer arrives. Then nothing else can happen while they
	 *  are in flight: the requests, the directory's and the link's
	 *  bookings, the engine's grants and the answers are taken in the
	 *  order their events would run, at the times they would run, and the
	 *  CPU's clock goes to the last arrival, as run_until() would take it;
	 *  the counters are the same but events (none ran). The same switch
	 *  governs the device's batched take-backs (engine_ctx::
	 *  clean_invalidate_all). */
	void set_miss_batching(bool on) noexcept { batch_misses_on_ = on; }
	/** Misses taken in such batches so far. */
	std::uint64_t batched_misses() const noexcept { return batched_misses_; }
	/** Lines the device took back in batches (clean_invalidate_all) so far. */
	std::uint64_t batched_take_backs() const noexcept { return batched_take_backs_; }
	/** Prefetch for store: requests ownership (RLDX, or RC2D_S for a Shared
	 *  line) of all @p lines at once, bounded by TAD transactions as loads,
	 *  and waits for all of them; the stores that follow hit. Orders
	 *  nothing (the store buffer keeps its stores). */
	void cpu_claim_lines(const std::uint64_t *lines, std::size_t count);
	/** A barrier instruction: its modelled cost, and the ordering it gives
	 *  when the store buffer or weak load order is on (store_buffer(),
	 *  load_order(): which kinds order stores, which order loads). */
	void cpu_barrier(barrier::kind k)
	{
		// dmb ld, every acquire's (a poll's), drains no store and sends
		// nothing: inline; the other kinds out of line.
		if (k == barrier::kind::load_load && !(ignored_barriers_ & 1u << unsigned(k))) {
			cpu_spend(cfg_.barrier_ns);
			lo_order_point(k);
			return;
		}
		cpu_barrier_other(k);
	}
	/** Evicts the line at @p addr from the CPU's L2 (dc civac / clflush, or a
	 *  capacity eviction): VICD/VICC to a device home; silent (no message)
	 *  for a CPU-homed line, dirty data written to DRAM. */
	void cpu_evict(std::uint64_t addr);
	/** Advances the CPU's clock by @p ns of computation, running the
	 *  events due meanwhile. Inline: every simulated access and barrier
	 *  spends time, and in a poll loop nearly none has an event due. */
	void cpu_spend(double ns)
	{
		const double target = now_ + ns;
		if (events_.due(target)) [[unlikely]]
			run_due(target);
		now_ = std::max(now_, target);
	}
	line_state cpu_state(std::uint64_t addr) const;
	line_state device_state(std::uint64_t addr) const; ///< the device's copy of a CPU-homed line

	/** Simulated time in ns. */
	double now() const noexcept { return now_; }
	const counters &stats() const noexcept { return stats_; }
	/** Message log (off by default): "t=..ns CPU->DEV RLDD 0x100". */
	void trace(bool on) noexcept { trace_on_ = on; }
	const std::vector<std::string> &trace_log() const noexcept { return log_; }

	/** Whether the CPU holds @p addr (what the home directory knows). */
	bool cpu_holds(std::uint64_t addr) const { return cpu_state(addr) != line_state::I; }

	/** Adversarial CPU: before each CPU load, store or batch of loads, with
	 *  probability @p rate, evicts one of @p lines or loads 8 bytes of it
	 *  speculatively (the value is dropped, as a prefetch's would be) --
	 *  evictions, re-reads and speculative reads at any point of a
	 *  protocol. Drawn from a generator seeded with @p seed: the same seed
	 *  and program give the same run. rate 0 turns it off. */
	void adversary(std::uint64_t seed, double rate, std::vector<std::uint64_t> lines);
	/** Weak store order (ARMv8 allows it): CPU stores wait in a store
	 *  buffer instead of reaching the L2 at once. Before each CPU access,
	 *  with probability @p drain_rate, one buffered store (any one: stores
	 *  to different lines leave in any order; to one line, in program
	 *  order) is performed. A load sees the CPU's own buffered stores to
	 *  its line (they are performed first); store_store, store_load and
	 *  full barriers perform every buffered store before going on; the
	 *  device sees a store only once it is performed. So a missing store
	 *  barrier in the protocol code changes what the device reads. Seeded
	 *  with @p seed; drain_rate 0 (the default) performs every store at
	 *  once. */
	void store_buffer(std::uint64_t seed, double drain_rate);
	/** Stores performed out of program order so far (store buffer on). */
	std::uint64_t store_buffer_reorders() const noexcept { return sb_reorders_; }
	/** Weak load order (ARMv8 allows it): a load not ordered by a barrier
	 *  may be satisfied early, anywhere after the CPU's last ordering
	 *  point for loads (load_load, store_load, full; an acquire load is a
	 *  load then load_load in eci_sim_lines). The model keeps, per line,
	 *  the value a load issued at that point could have read (the CPU's
	 *  copy then, or, for a line the engine answers plainly, the device's
	 *  data before its first change) and, with probability @p rate, answers
	 *  a program load with it instead of the current value. Never older
	 *  than: the last ordering point; the CPU's own stores to the line
	 *  (they drop the line's old value); an earlier load of the same bytes
	 *  that read a newer value (their old value becomes the one it read:
	 *  same-address loads stay in order; other bytes of the line keep
	 *  theirs); the code's eviction of the line (dc civac is ordered with
	 *  loads of its line). Seeded with @p seed; rate 0 (the
	 *  default) performs every load in program order. See
	 *  Documentation/protocols.md (the load side of the adversary). */
	void load_order(std::uint64_t seed, double rate);
	/** Program loads answered with an older value (load_order on). */
	std::uint64_t load_order_early() const noexcept { return lo_early_; }
	/** Of those, the ones whose bytes differed from what an in-order load
	 *  would have read (where the model knows that without asking). */
	std::uint64_t load_order_stale() const noexcept { return lo_stale_; }
	/** For tests that must fail: the CPU acts as if the code issued no
	 *  barrier of kind @p k (what deleting those barriers from the code
	 *  does on this model; load and store side alike), until called again
	 *  with @p on false. */
	void ignore_barrier(barrier::kind k, bool on = true) noexcept;

	/** Evictions and speculative loads the adversary made so far. */
	std::uint64_t adversary_evictions() const noexcept { return adv_evictions_; }
	std::uint64_t adversary_reads() const noexcept { return adv_reads_; }

	/** Backdoor for tests and engine setup: the home's copy of a line. */
	std::uint8_t *home_data(std::uint64_t addr);

private:
	friend class engine_ctx;
	/** A line's bytes (one copy per message that carries data). */
	using line_bytes = sim::line_bytes;
	/** The CPU's copy of a line (its L2's tag and data). */
	struct cline {
		line_state st = line_state::I;
		line_bytes data;
		bool pending = false;
		std::uint64_t stamp = 0;
	};
	struct dir_entry;
	/** When a hit and its dmb ld end, from now: the one-step acquire's
	 *  time and each spent poll's, by the same two additions, so the two
	 *  cannot drift apart in the last bit. */
	double acquire_hit_end() const noexcept { return now_ + cfg_.l2_hit_ns + cfg_.barrier_ns; }
	/** Nothing but the access itself to model on a hit: no adversary, no
	 *  store buffer, no weak load order, no capacity, no machine check.
	 *  refresh_plain() keeps it; every setter of those calls it. */
	void refresh_plain() noexcept
	{
		plain_ = !dead_ && adv_rate_ <= 0 && sb_rate_ <= 0 && lo_rate_ <= 0 && !cfg_.cpu_capacity_lines &&
			 cfg_.l2_hit_ns >= 0 && cfg_.barrier_ns >= 0;
	}
	/** On a plain CPU, the CPU's entry for the line of a checked access
	 *  (its state not read yet), nullptr otherwise: the fast paths' common
	 *  part. The last line looked up is remembered (a poll loop asks for
	 *  one line again and again); entries are never freed, so the pointer
	 *  stays good, and only entries that exist are remembered. */
	cline *plain_hit(std::uint64_t addr, std::size_t n, const char *what)
	{
		if (!plain_) [[unlikely]]
			return nullptr;
		const std::uint64_t off = addr & line_mask_, line = addr - off;
		// The remembered line lies wholly inside the modelled memory, so
		// an access to it is checked once it is 1 to (the line's bytes
		// from off) bytes long: check_access()'s other two compares are
		// known to pass.
		if (line == memo_line_ && n - 1 < line_size_ - off) [[likely]]
			return memo_;
		check_access(addr, n, what);
		cline *c = cached(line);
		if (c && mem_end_ - line >= line_size_) {
			memo_line_ = line;
			memo_ = c;
		}
		return c;
	}
	void cpu_load_other(std::uint64_t addr, void *dst, std::size_t n);
	void cpu_store_other(std::uint64_t addr, const void *src, std::size_t n);
	/** A poll's 8 bytes as one move, not a call into libc. */
	static void copy_bytes(void *dst, const void *src, std::size_t n) noexcept
	{
		if (n == 8)
			std::memcpy(dst, src, 8);
		else
			std::memcpy(dst, src, n);
	}
	// line_size is a power of two (the constructor checks): masks and shifts.
	std::uint64_t line_of(std::uint64_t addr) const noexcept { return addr & ~line_mask_; }
	// The per-line state, by line number (line_table.hpp); a line's entry
	// exists once made, as an unordered_map's did.
	cline *cached(std::uint64_t line) const noexcept
	{
		auto *p = cpu_cache_.find(line >> line_shift_);
		return p ? p->get() : nullptr;
	}
	std::unique_ptr<cline> &cline_slot(std::uint64_t line); // made if needed (eci_system.cpp)
	dir_entry *dir_find(std::uint64_t line) const noexcept
	{
		auto *p = dir_.find(line >> line_shift_);
		return p ? p->get() : nullptr;
	}
	std::unique_ptr<dir_entry> &dir_slot(std::uint64_t line);
	/** Throws unless @p n bytes at @p addr are inside one line of the
	 *  modelled memory: on every CPU access, so the checks inline and the
	 *  error out of line. */
	void check_access(std::uint64_t addr, std::size_t n, const char *what) const
	{
		// n - 1 < the bytes left in the line: 1 <= n and no crossing (n
		// == 0 wraps to the largest value). The end is compared without
		// forming addr + n, which wraps for an address near 2^64.
		if (n - 1 >= line_size_ - (addr & line_mask_) || addr >= mem_end_ || mem_end_ - addr < n) [[unlikely]]
			access_error(addr, n, what);
	}
	[[noreturn]] void access_error(std::uint64_t addr, std::size_t n, const char *what) const;
	void check_alive() const
	{
		if (dead_) [[unlikely]]
			throw_dead();
	}
	[[noreturn]] void throw_dead() const;
	void cpu_barrier_other(barrier::kind k);
	/** The events due by @p target, in order (cpu_spend's slow path). */
	void run_due(double target);
	// The hooks every CPU access passes: when off (the default runs), one
	// predictable branch here, no call.
	void adversary_step()
	{
		if (adv_rate_ > 0)
			adversary_act();
	}
	void adversary_act();
	void lines_in_flight(const std::uint64_t *lines, std::size_t count, bool exclusive);
	/** lines_in_flight's misses in one step when nothing else can happen
	 *  meanwhile (set_miss_batching); false, with nothing changed, when
	 *  they must go as events (miss_batch.cpp). */
	bool batch_misses(const std::uint64_t *lines, std::size_t count, bool exclusive);
	/** One miss of a batch: its line, whether it upgrades a Shared copy,
	 *  when the home takes it, and its L2 entry. */
	struct batched_miss {
		std::uint64_t line;
		bool upgrade;
		double at_home;
		cline *c; // its L2 entry, once made
	};
	std::vector<batched_miss> batch_;	 // batch_misses()'s scratch: the misses in order,
	std::vector<std::uint32_t> batch_order_; // and as the home takes them
	std::vector<double> batch_dir_free_;	 // dir_free_ as the batch books it
	std::vector<std::uint32_t> batch_tad_;	 // misses of the batch per TAD
	/** One line of clean_invalidate_all(): its line, whether the CPU
	 *  holds it, when the L2 answers (if it does) and when the LCIA comes,
	 *  the scheduling rank of that LCIA's event, and what comes home. */
	struct batched_lci {
		std::uint64_t line;
		bool held;
		double answer_at, lcia_at;
		std::uint64_t rank;
		bool dirty;
	};
	std::vector<batched_lci> lci_batch_;
	std::vector<std::uint32_t> lci_order_;
	std::vector<std::uint64_t> lci_lines_; // repeats_a_line()'s sorted copy
	bool repeats_a_line(const std::vector<std::uint64_t> &lines);
	bool batch_misses_on_ = true;
	bool cpu_waiting_ = false; // the CPU is in run_until(): it does nothing until an event ends its wait
	bool batch_lcis(const std::vector<std::uint64_t> &lines, inline_function<void(std::uint64_t)> &each,
			event_queue::callback &done);
	std::uint64_t batched_misses_ = 0, batched_take_backs_ = 0;
	/** While batch_misses() calls an engine's on_request: the line it must
	 *  answer, and what ctx.answer() said (no message is timed there). */
	struct direct_answer {
		std::uint64_t line = 0;
		bool on = false, answered = false, exclusive = false;
	} direct_;
	void direct_answered(std::uint64_t line, bool exclusive);
	// The store buffer (store_buffer.cpp).
	struct buffered_store {
		std::uint64_t addr;
		std::vector<std::uint8_t> bytes;
	};
	void sb_step()
	{
		if (sb_rate_ > 0)
			sb_act();
	}
	void sb_act();
	void sb_perform(std::size_t i);
	void sb_drain_line(std::uint64_t line)
	{
		if (!sb_.empty())
			sb_drain_line_of(line);
	}
	void sb_drain_line_of(std::uint64_t line);
	void sb_drain_all();
	// Load order (load_order.cpp): per line, the oldest value a load after
	// the last ordering point and after the last load of the same bytes
	// could read.
	struct lo_snapshot {
		std::uint64_t epoch = 0;
		std::vector<std::uint8_t> data;
	};
	lo_snapshot *lo_find(std::uint64_t line);
	void lo_capture(std::uint64_t line, const std::uint8_t *now);
	bool lo_early(std::uint64_t addr, void *dst, std::size_t n);
	void lo_read_current(std::uint64_t addr, std::size_t n, const std::uint8_t *line_now);
	/** dmb ld (load_load; the acquire), dmb sy (store_load) and dsb sy;
	 *  isb (full) keep later loads behind everything before them. dmb st
	 *  (store_store, the release), dsb st (wc_flush) and the compiler
	 *  barrier order no load. */
	void lo_order_point(barrier::kind k) noexcept
	{
		if (k == barrier::kind::load_load || k == barrier::kind::store_load || k == barrier::kind::full)
			++lo_epoch_;
	}
	void lo_forget(std::uint64_t line);
	void lo_device_access(std::uint64_t line);
	/** What the line holds now: the CPU's valid copy or (none, and none on
	 *  its way home) the device-side copy; with @p device_side_only only
	 *  the latter. nullptr if neither is known. */
	const std::uint8_t *readable_now(std::uint64_t line, bool device_side_only) const;
	/** Runs @p f at @p t (now, if @p t has passed). */
	template <class F> event_queue::handle schedule(double t, F &&f)
	{
		return events_.push(std::max(t, now_), std::forward<F>(f));
	}
	double send(bool to_device, msg m, std::uint64_t line, bool data, double t);
	/** A message about @p line reaches the directory at @p arrive: returns
	 *  when the directory has handled it (queueing behind its slice's
	 *  earlier messages, then dir_msg_ns) and books the slice. */
	double dir_handle(std::uint64_t line, double arrive);
	/** The same on @p slices_free (dir_free_, or a batch's copy of it);
	 *  inline: every message passes it. */
	double dir_handle_in(std::vector<double> &slices_free, std::uint64_t line, double arrive) const
	{
		double &free = slices_free[slice_of(line >> line_shift_, cfg_.dir_slices)];
		const double start = std::max(arrive, free);
		free = start + cfg_.dir_occupancy_ns;
		return start + cfg_.dir_msg_ns;
	}
	void count_local(msg m, std::uint64_t line);
	void run_until(const bool &done, std::uint64_t line, const char *what);
	void start_miss(std::uint64_t line, bool exclusive, bool *done);
	void dir_request(std::uint64_t line, bool exclusive, bool upgrade, bool *done);
	void home_cpu_request(std::uint64_t line, bool exclusive, bool *done);
	/** What a forward's answer carries on: dirty, and the CPU's data (empty: it held no copy). */
	using forward_done = inline_function<void(bool, line_bytes)>;
	/** A forward (LCI's FEVX_EH or SINV_H, a CPU-homed line's RLDX) that
	 *  reaches the CPU's L2 at @p arrive (not before now): the L2 answers
	 *  cpu_fwd_ns later, unless its TAD serves misses in order and holds
	 *  it behind one (tad_in_order, decided when it arrives). */
	void cpu_forward(double arrive, std::uint64_t line, msg m, forward_done after);
	/** Marks @p line most recently used. Without a capacity nothing reads
	 *  the order (maybe_capacity_evict returns at once): keep none. */
	void touch_lru(std::uint64_t line)
	{
		if (cfg_.cpu_capacity_lines)
			touch_lru_slow(line);
	}
	void touch_lru_slow(std::uint64_t line);
	void maybe_capacity_evict(std::uint64_t keep)
	{
		if (cfg_.cpu_capacity_lines)
			capacity_evict(keep);
	}
	void capacity_evict(std::uint64_t keep);
	/** Runs @p go when the TAD of @p line has room for one more miss (at
	 *  once if it has: no callback is built then). */
	template <class F>
	void tad_acquire(std::uint64_t line, F &&go);
	void tad_release(std::uint64_t line);
	line_bytes &home_mem(std::uint64_t line);

	config cfg_;
	device_engine *engine_ = nullptr;
	engine_ctx ctx_;
	double now_ = 0;
	event_queue events_;
	unsigned line_shift_ = 0; // log2(line_size)
	// A message's time on the link, without (control) and with a line of
	// data: the same quotients send() computed per message.
	double ser_ctrl_ns_ = 0, ser_data_ns_ = 0;
	/** @p index among @p n TADs or directory slices: a mask for the usual
	 *  powers of two (an integer division per message otherwise). */
	static std::uint32_t slice_of(std::uint64_t index, std::uint32_t n) noexcept
	{
		return static_cast<std::uint32_t>((n & (n - 1)) == 0 ? index & (n - 1) : index % n);
	}
	line_table<std::unique_ptr<cline>> cpu_cache_;
	std::vector<std::uint64_t> cline_lines_; // lines with an L2 entry, in the order made
	line_table<std::unique_ptr<dir_entry>> dir_;
	line_table<line_bytes> mem_;          // the home's memory (empty: never written, zeros)
	std::vector<std::uint32_t> tad_busy_;
	std::vector<std::vector<event_queue::callback>> tad_wait_, tad_fwd_wait_;
	std::map<std::uint64_t, std::uint64_t> lru_; // stamp -> line
	std::uint64_t lru_stamp_ = 0;
	double link_free_[2] = {0, 0};
	std::vector<double> dir_free_; // per directory slice: when it takes its next message
	counters stats_;
	bool trace_on_ = false;
	bool dead_ = false;
	bool plain_ = true; // refresh_plain()
	std::uint64_t line_size_ = 0, line_mask_ = 0; // cfg_.line_size, and minus 1
	std::uint64_t mem_end_ = 0;                // device_bytes + cpu_bytes
	std::uint64_t memo_line_ = ~std::uint64_t(0); // plain_hit()'s last line (never this value)
	cline *memo_ = nullptr;
	std::vector<std::string> log_;
	std::mt19937_64 adv_rng_;
	double adv_rate_ = 0;
	std::vector<std::uint64_t> adv_lines_;
	bool in_adv_ = false;
	std::uint64_t adv_evictions_ = 0, adv_reads_ = 0;
	std::deque<buffered_store> sb_;
	std::mt19937_64 sb_rng_;
	double sb_rate_ = 0;
	bool in_sb_ = false;
	std::uint64_t sb_reorders_ = 0;
	unsigned ignored_barriers_ = 0; // bit per barrier::kind
	bool skip_polls_ = true;
	std::uint64_t polls_spent_ = 0;
	std::unordered_map<std::uint64_t, lo_snapshot> lo_snap_;
	std::uint64_t lo_epoch_ = 1;
	std::mt19937_64 lo_rng_;
	double lo_rate_ = 0;
	bool hw_evicting_ = false; // capacity eviction (not the code's dc civac)
	std::uint64_t lo_early_ = 0, lo_stale_ = 0;
};

} // namespace pioc::sim::eci
