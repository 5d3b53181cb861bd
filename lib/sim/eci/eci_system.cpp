// The ECI model: CPU L2 + TADs, link with two virtual channels, the device's
// home directory, the CPU's home for CPU-homed lines, and the event queue.
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include "sim/eci/batch_order.hpp"
#include "sim/eci/dir_entry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace pioc::sim::eci {

std::string_view to_string(msg m) noexcept
{
	static constexpr std::string_view names[] = {"RLDD", "RLDX", "RC2D_S", "PSHA", "PEMD", "HAKD",
						     "FEVX_EH", "SINV_H", "VICD", "VICC", "HAKI", "GSYNC",
						     "GSDN", "LC", "LCI", "LCA", "LCIA", "UL"};
	auto i = static_cast<std::size_t>(m);
	return i < std::size(names) ? names[i] : "?";
}

std::string_view to_string(line_state s) noexcept
{
	static constexpr std::string_view names[] = {"I", "S", "E", "O", "M"};
	return names[static_cast<std::size_t>(s)];
}

std::uint64_t counters::link_messages() const noexcept
{
	std::uint64_t n = 0;
	for (std::size_t i = 0; i < static_cast<std::size_t>(msg::LC); ++i)
		n += by_msg[i];
	return n;
}

counters counters::operator-(const counters &o) const noexcept
{
	counters r;
	for (std::size_t i = 0; i < by_msg.size(); ++i)
		r.by_msg[i] = by_msg[i] - o.by_msg[i];
	r.round_trips = round_trips - o.round_trips;
	r.cpu_hits = cpu_hits - o.cpu_hits;
	r.cpu_misses = cpu_misses - o.cpu_misses;
	r.dram_accesses = dram_accesses - o.dram_accesses;
	r.silent_evictions = silent_evictions - o.silent_evictions;
	r.machine_checks = machine_checks - o.machine_checks;
	r.events = events - o.events;
	return r;
}

system::system(config c) : cfg_(c), ctx_(*this)
{
	if (cfg_.line_size < 16 || (cfg_.line_size & (cfg_.line_size - 1)))
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci: line size {} is not a power of two >= 16", cfg_.line_size));
	if (cfg_.tads == 0 || cfg_.tad_tx == 0)
		throw error(errc::invalid_argument, "sim:eci: need at least one TAD with one transaction");
	if (cfg_.device_bytes % cfg_.line_size || cfg_.cpu_bytes % cfg_.line_size)
		throw error(errc::invalid_argument, "sim:eci: windows must be whole lines");
	if (cfg_.dir_slices == 0 || cfg_.dir_occupancy_ns < 0)
		throw error(errc::invalid_argument, "sim:eci: need at least one directory slice and occupancy >= 0");
	while ((1u << line_shift_) < cfg_.line_size)
		++line_shift_;
	ser_ctrl_ns_ = 16.0 / (cfg_.link_gib_s * 1.073741824);
	ser_data_ns_ = (cfg_.line_size + 16.0) / (cfg_.link_gib_s * 1.073741824);
	dir_free_.assign(cfg_.dir_slices, 0);
	tad_busy_.assign(cfg_.tads, 0);
	tad_wait_.resize(cfg_.tads);
	tad_fwd_wait_.resize(cfg_.tads);
	line_size_ = cfg_.line_size;
	line_mask_ = line_size_ - 1;
	mem_end_ = cfg_.device_bytes + cfg_.cpu_bytes;
	refresh_plain();
}

system::~system() = default;

std::unique_ptr<system::cline> &system::cline_slot(std::uint64_t line) { return cpu_cache_[line >> line_shift_]; }
std::unique_ptr<system::dir_entry> &system::dir_slot(std::uint64_t line) { return dir_[line >> line_shift_]; }

void system::access_error(std::uint64_t addr, std::size_t n, const char *what) const
{
	if (n == 0 || n > cfg_.line_size - (addr & line_mask_))
		throw error(errc::misaligned, fmt::format("sim:eci: {}-byte {} at {:#x} crosses a {}-byte line",
							  n, what, addr, cfg_.line_size));
	throw error(errc::out_of_range,
		    fmt::format("sim:eci: {} at {:#x} is outside the modelled memory ({:#x} bytes)", what, addr,
				cfg_.device_bytes + cfg_.cpu_bytes));
}

system::line_bytes &system::home_mem(std::uint64_t line)
{
	auto &m = mem_[line >> line_shift_];
	if (m.empty())
		m.assign(cfg_.line_size, 0);
	return m;
}

std::uint8_t *system::home_data(std::uint64_t addr) { return home_mem(line_of(addr)).data(); }

double system::send(bool to_device, msg m, std::uint64_t line, bool data, double t)
{
	int d = to_device ? 0 : 1;
	double ser = data ? ser_data_ns_ : ser_ctrl_ns_;
	double depart = std::max(t, link_free_[d]);
	link_free_[d] = depart + ser;
	++stats_.by_msg[static_cast<std::size_t>(m)];
	if (trace_on_)
		log_.push_back(fmt::format("t={:.0f}ns {} {} {:#x}", depart, to_device ? "CPU->DEV" : "DEV->CPU",
					   to_string(m), line));
	return depart + ser + cfg_.link_ns;
}

// Occupancy is booked when the message is scheduled, in the order the model
// schedules messages, not strictly in arrival order: a later booking with an
// earlier arrival waits behind it. Exact for the serial protocols (one
// message at a time); a slight overestimate under heavy overlap.
double system::dir_handle(std::uint64_t line, double arrive) { return dir_handle_in(dir_free_, line, arrive); }

void system::count_local(msg m, std::uint64_t line)
{
	++stats_.by_msg[static_cast<std::size_t>(m)];
	if (trace_on_)
		log_.push_back(fmt::format("t={:.0f}ns DEV local {} {:#x}", now_, to_string(m), line));
}

template <class F>
void system::tad_acquire(std::uint64_t line, F &&go)
{
	auto t = tad_of(line);
	std::uint32_t cap = cfg_.tad_in_order ? 1 : cfg_.tad_tx;
	if (tad_busy_[t] < cap) {
		++tad_busy_[t];
		go();
	} else {
		tad_wait_[t].push_back([this, t, go = std::forward<F>(go)] {
			++tad_busy_[t];
			go();
		});
	}
}

void system::tad_release(std::uint64_t line)
{
	auto t = tad_of(line);
	--tad_busy_[t];
	if (!tad_wait_[t].empty() && tad_busy_[t] < (cfg_.tad_in_order ? 1 : cfg_.tad_tx)) {
		auto f = std::move(tad_wait_[t].front());
		tad_wait_[t].erase(tad_wait_[t].begin());
		f();
	}
	if (tad_busy_[t] == 0 && !tad_fwd_wait_[t].empty()) {
		auto fw = std::move(tad_fwd_wait_[t]);
		tad_fwd_wait_[t].clear();
		for (auto &f : fw)
			f();
	}
}

void system::touch_lru_slow(std::uint64_t line)
{
	auto &c = cline_slot(line);
	// Every CPU access lands here (a poll loop many times per line): the
	// most recent line stays where it is, and a line that moves takes its
	// map node along instead of freeing it and allocating another.
	if (c->stamp && c->stamp == lru_stamp_)
		return;
	auto node = c->stamp ? lru_.extract(c->stamp) : decltype(lru_)::node_type();
	c->stamp = ++lru_stamp_;
	if (node.empty()) {
		lru_[c->stamp] = line;
		return;
	}
	node.key() = c->stamp;
	lru_.insert(std::move(node));
}

void system::capacity_evict(std::uint64_t keep)
{
	std::uint64_t valid = 0;
	for (auto l : cline_lines_)
		valid += cached(l)->st != line_state::I;
	for (auto it = lru_.begin(); valid > cfg_.cpu_capacity_lines && it != lru_.end();) {
		auto line = it->second;
		++it;
		auto &c = cline_slot(line);
		if (line == keep || c->pending || c->st == line_state::I)
			continue;
		hw_evicting_ = true; // the hardware's, not the code's: orders no load
		cpu_evict(line);
		hw_evicting_ = false;
		--valid;
	}
}

void system::run_until(const bool &done, std::uint64_t line, const char *what)
{
	flag_scope waiting{cpu_waiting_};
	cpu_waiting_ = true;
	double t0 = now_;
	while (!done) {
		if (events_.empty()) {
			++stats_.machine_checks;
			now_ = t0 + cfg_.timeout_ns;
			dead_ = true;
			refresh_plain();
			events_.clear();
			throw error(errc::timeout,
				    fmt::format("sim:eci: deadlock: the CPU's {} of line {:#x} (TAD {}) can never be "
						"answered (nothing in flight); machine check after {:.0f} ms",
						what, line, tad_of(line), cfg_.timeout_ns / 1e6));
		}
		if (events_.next_time() > t0 + cfg_.timeout_ns) {
			++stats_.machine_checks;
			now_ = t0 + cfg_.timeout_ns;
			dead_ = true;
			refresh_plain();
			events_.clear();
			throw error(errc::timeout,
				    fmt::format("sim:eci: machine check: the CPU's {} of line {:#x} was not answered "
						"within {:.0f} ms (the device must answer 'not ready' before the timeout)",
						what, line, cfg_.timeout_ns / 1e6));
		}
		double t;
		auto f = events_.pop(t);
		now_ = std::max(now_, t);
		++stats_.events;
		f();
	}
}

void system::run_due(double target)
{
	while (events_.due(target)) {
		double t;
		auto f = events_.pop(t);
		now_ = std::max(now_, t);
		++stats_.events;
		f();
	}
}

void system::start_miss(std::uint64_t line, bool exclusive, bool *done)
{
	auto &c = cline_slot(line);
	if (!c) {
		c = std::make_unique<cline>();
		cline_lines_.push_back(line);
	}
	c->pending = true;
	++stats_.cpu_misses;
	bool upgrade = exclusive && c->st == line_state::S;
	tad_acquire(line, [this, line, exclusive, upgrade, done] {
		if (home_of(line) == home::device) {
			msg m = upgrade ? msg::RC2D_S : exclusive ? msg::RLDX : msg::RLDD;
			double t = send(true, m, line, false, now_);
			const double pipe = engine_ ? engine_->request_pipeline_ns(line) : 0;
			schedule(dir_handle(line, t) + pipe,
				 [this, line, exclusive, upgrade, done] { dir_request(line, exclusive, upgrade, done); });
		} else {
			home_cpu_request(line, exclusive, done);
		}
	});
}

void system::dir_request(std::uint64_t line, bool exclusive, bool upgrade, bool *done)
{
	auto &dp = dir_slot(line);
	if (!dp)
		dp = std::make_unique<dir_entry>();
	auto &d = *dp;
	if (d.locked) { // the engine holds the line (LCI in progress): wait for UL
		d.waiting.push_back([this, line, exclusive, upgrade, done] { dir_request(line, exclusive, upgrade, done); });
		return;
	}
	d.locked = true;
	d.pending_done = done;
	d.pending_excl = exclusive;
	d.pending_upgrade = upgrade;
	if (engine_)
		engine_->on_request(ctx_, line, exclusive);
	else
		ctx_.answer(line, true); // plain memory home: Exclusive, no other sharer
}

void system::home_cpu_request(std::uint64_t line, bool exclusive, bool *done)
{
	auto &dp = dir_slot(line);
	if (!dp)
		dp = std::make_unique<dir_entry>();
	auto &d = *dp;
	if (d.dev == line_state::I) {
		++stats_.dram_accesses;
		schedule(now_ + cfg_.dram_ns, [this, line, done] {
			auto &c = cline_slot(line);
			c->data = home_mem(line);
			c->st = line_state::E;
			c->pending = false;
			*done = true;
			tad_release(line);
		});
		return;
	}
	// The device holds the line: the CPU's home forwards the request.
	double t = send(true, msg::FEVX_EH, line, false, now_);
	schedule(dir_handle(line, t), [this, line, exclusive, done] {
		auto &e = *dir_slot(line);
		e.pending_done = done;
		e.pending_excl = exclusive;
		if (engine_)
			engine_->on_forward(ctx_, line);
		else
			ctx_.release_cpu_line(line);
	});
}

void system::cpu_forward(double arrive, std::uint64_t line, msg m, forward_done after)
{
	if (cfg_.tad_in_order) { // whether its TAD holds it is known only when it arrives
		if (arrive > now_) {
			schedule(arrive, [this, line, m, after = std::move(after)]() mutable {
				cpu_forward(now_, line, m, std::move(after));
			});
			return;
		}
		auto t = tad_of(line);
		if (tad_busy_[t] > 0) { // held behind this TAD's miss
			tad_fwd_wait_[t].push_back([this, line, m, after = std::move(after)]() mutable {
				cpu_forward(now_, line, m, std::move(after));
			});
			return;
		}
	}
	// An L2 that takes every forward at once: the answer is one event,
	// cpu_fwd_ns after the arrival (not an event for the arrival too: a
	// take-back of a bank's 75 lines is 75 events fewer).
	schedule(arrive + cfg_.cpu_fwd_ns, [this, line, after = std::move(after)] {
		bool dirty = false;
		line_bytes data;
		cline *cp = cached(line);
		if (cp && cp->st != line_state::I) {
			auto &c = *cp;
			dirty = c.st == line_state::M || c.st == line_state::O;
			data = c.data;
			lo_capture(line, c.data.data()); // an early load could have hit it
			c.st = line_state::I;
		}
		after(dirty, std::move(data));
	});
}

// ---------------------------------------------------------------- CPU ops

void system::throw_dead() const
{
	throw error(errc::device_gone, "sim:eci: the modelled machine took a machine check; start a new one");
}

void system::adversary(std::uint64_t seed, double rate, std::vector<std::uint64_t> lines)
{
	adv_rng_.seed(seed);
	adv_rate_ = rate;
	adv_lines_ = std::move(lines);
	refresh_plain();
}

void system::adversary_act()
{
	if (adv_rate_ <= 0 || in_adv_ || adv_lines_.empty())
		return;
	if (std::uniform_real_distribution<double>(0, 1)(adv_rng_) >= adv_rate_)
		return;
	const std::uint64_t line = adv_lines_[adv_rng_() % adv_lines_.size()];
	const bool evict = adv_rng_() & 1;
	struct guard {
		bool &b;
		~guard() { b = false; }
	} g{in_adv_ = true};
	if (evict) {
		++adv_evictions_;
		cpu_evict(line);
	} else {
		++adv_reads_;
		std::uint64_t sink;
		cpu_load(line, &sink, 8);
	}
}

void system::cpu_load_other(std::uint64_t addr, void *dst, std::size_t n)
{
	check_alive();
	adversary_step();
	check_access(addr, n, "load");
	auto line = line_of(addr);
	if (!in_adv_) { // a speculative read does not wait for the store buffer
		sb_step();
		sb_drain_line(line); // the CPU reads its own buffered stores
		if (lo_rate_ > 0 && lo_early(addr, dst, n)) { // satisfied before loads it was not ordered behind
			cpu_spend(cfg_.l2_hit_ns);
			return;
		}
	}
	cline *cp = cached(line);
	if (!cp || cp->st == line_state::I) {
		bool done = false;
		start_miss(line, false, &done);
		run_until(done, line, "load");
	} else {
		++stats_.cpu_hits;
	}
	// The access is performed while the line is present; only then does
	// time pass (a forward arriving meanwhile must see this store or load).
	auto &c = *cached(line); // made by the miss if it was not there
	copy_bytes(dst, c.data.data() + (addr - line), n);
	if (lo_rate_ > 0 && !in_adv_)
		lo_read_current(addr, n, c.data.data());
	touch_lru(line);
	cpu_spend(cfg_.l2_hit_ns);
	maybe_capacity_evict(line);
}

void system::cpu_store_other(std::uint64_t addr, const void *src, std::size_t n)
{
	check_alive();
	if (sb_rate_ > 0 && !in_sb_) {
		check_access(addr, n, "store");
		const auto *b = static_cast<const std::uint8_t *>(src);
		sb_.push_back({addr, std::vector<std::uint8_t>(b, b + n)});
		cpu_spend(cfg_.l2_hit_ns);
		sb_step();
		return;
	}
	adversary_step();
	check_access(addr, n, "store");
	auto line = line_of(addr);
	cline *cp = cached(line);
	bool have = cp && (cp->st == line_state::E || cp->st == line_state::M);
	if (!have) {
		bool done = false;
		start_miss(line, true, &done);
		run_until(done, line, "store");
	} else {
		++stats_.cpu_hits;
	}
	auto &c = *cached(line); // made by the miss if it was not there
	copy_bytes(c.data.data() + (addr - line), src, n);
	c.st = line_state::M;
	lo_forget(line); // later loads of the line read this store or newer
	touch_lru(line);
	cpu_spend(cfg_.l2_hit_ns);
	maybe_capacity_evict(line);
}

void system::cpu_load_lines(const std::uint64_t *lines, std::size_t count)
{
	lines_in_flight(lines, count, false);
}

void system::cpu_claim_lines(const std::uint64_t *lines, std::size_t count)
{
	lines_in_flight(lines, count, true);
}

void system::lines_in_flight(const std::uint64_t *lines, std::size_t count, bool exclusive)
{
	check_alive();
	adversary_step();
	sb_step();
	if (!exclusive) // a load sees the CPU's own buffered stores to its line
		for (std::size_t i = 0; i < count; ++i)
			sb_drain_line(line_of(lines[i]));
	if (batch_misses_on_ && plain_ && !trace_on_ && engine_ && batch_misses(lines, count, exclusive)) {
		cpu_spend(cfg_.l2_hit_ns); // touch_lru: nothing to mark on a plain CPU (no capacity)
		return;
	}
	std::vector<char> flags(count, 1);
	auto *f = reinterpret_cast<bool *>(flags.data());
	static_assert(sizeof(bool) == sizeof(char));
	for (std::size_t i = 0; i < count; ++i) {
		check_access(lines[i], 1, exclusive ? "store" : "load");
		auto line = line_of(lines[i]);
		cline *cp = cached(line);
		const bool have = cp && (cp->pending || (exclusive ? cp->st == line_state::E || cp->st == line_state::M
								    : cp->st != line_state::I));
		if (!have) {
			f[i] = false;
			start_miss(line, exclusive, &f[i]);
		} else {
			++stats_.cpu_hits;
		}
	}
	for (std::size_t i = 0; i < count; ++i)
		run_until(f[i], line_of(lines[i]), "load");
	cpu_spend(cfg_.l2_hit_ns);
	for (std::size_t i = 0; i < count; ++i)
		touch_lru(line_of(lines[i]));
}

void system::cpu_barrier_other(barrier::kind k)
{
	if (ignored_barriers_ & 1u << unsigned(k))
		return; // as if the code had not issued it
	if (k == barrier::kind::store_store || k == barrier::kind::store_load || k == barrier::kind::full)
		sb_drain_all(); // earlier stores performed before anything after the barrier
	if (k != barrier::kind::full) {
		cpu_spend(k == barrier::kind::compiler ? 0 : cfg_.barrier_ns);
		lo_order_point(k);
		return;
	}
	// dsb sy: the model lets ThunderX-1 broadcast a GSYNC; the device answers GSDN.
	bool done = false;
	double t = send(true, msg::GSYNC, 0, false, now_);
	schedule(dir_handle(0, t), [this, &done] {
		double t2 = send(false, msg::GSDN, 0, false, dir_handle(0, now_));
		schedule(t2, [this, &done] {
			++stats_.round_trips;
			done = true;
		});
	});
	run_until(done, 0, "GSYNC");
	lo_order_point(k);
}

void system::cpu_evict(std::uint64_t addr)
{
	check_access(addr, 1, "eviction");
	auto line = line_of(addr);
	const bool code = !in_adv_ && !hw_evicting_;
	if (code)
		lo_forget(line); // dc civac: later loads of the line go past it, to the home
	cline *cp = cached(line);
	if (!cp || cp->st == line_state::I || cp->pending)
		return;
	auto &c = *cp;
	bool dirty = c.st == line_state::M || c.st == line_state::O;
	auto data = c.data;
	if (!code)
		lo_capture(line, c.data.data()); // an early load could have hit it
	c.st = line_state::I;
	if (c.stamp) {
		lru_.erase(c.stamp);
		c.stamp = 0;
	}
	if (home_of(line) == home::cpu) { // silent: the device never hears of it
		++stats_.silent_evictions;
		if (dirty)
			home_mem(line) = std::move(data);
		return;
	}
	double t = send(true, dirty ? msg::VICD : msg::VICC, line, dirty, now_);
	schedule(dir_handle(line, t), [this, line, dirty, data = std::move(data)] {
		auto &dp = dir_slot(line);
		if (!dp)
			dp = std::make_unique<dir_entry>();
		if (dirty)
			home_mem(line) = data;
		dp->cpu = line_state::I;
		double t2 = send(false, msg::HAKI, line, false, dir_handle(line, now_));
		schedule(t2, [this] { ++stats_.round_trips; });
		if (engine_)
			engine_->on_victim(ctx_, line, dirty);
	});
}

line_state system::cpu_state(std::uint64_t addr) const
{
	const cline *c = cached(line_of(addr));
	return c ? c->st : line_state::I;
}

line_state system::device_state(std::uint64_t addr) const
{
	const dir_entry *d = dir_find(line_of(addr));
	return d ? d->dev : line_state::I;
}

const std::uint8_t *system::readable_now(std::uint64_t line, bool device_side_only) const
{
	const cline *c = cached(line);
	if (c && c->st != line_state::I)
		return device_side_only ? nullptr : c->data.data();
	const dir_entry *d = dir_find(line);
	const line_bytes *m = mem_.find(line >> line_shift_);
	const std::uint8_t *home = m ? m->data() : nullptr; // nullptr: never written
	if (home_of(line) == home::device) // unless the CPU's copy is still on its way home
		return d && d->cpu != line_state::I ? nullptr : home;
	if (d && d->dev != line_state::I && !d->devdata.empty())
		return d->devdata.data();
	return home;
}

// ---------------------------------------------------------------- engine API

double engine_ctx::now() const noexcept { return sys_.now_; }
std::uint32_t engine_ctx::line_size() const noexcept { return sys_.cfg_.line_size; }

std::uint8_t *engine_ctx::data(std::uint64_t addr)
{
	auto line = sys_.line_of(addr);
	sys_.lo_device_access(line); // before the engine changes it
	if (sys_.home_of(line) == home::device)
		return sys_.home_mem(line).data();
	auto &dp = sys_.dir_slot(line);
	if (!dp)
		dp = std::make_unique<system::dir_entry>();
	if (dp->devdata.empty())
		dp->devdata.assign(sys_.cfg_.line_size, 0);
	return dp->devdata.data();
}

void engine_ctx::answer(std::uint64_t addr, bool exclusive)
{
	auto &s = sys_;
	auto line = s.line_of(addr);
	if (s.direct_.on) [[unlikely]] { // a batched miss (miss_batch.cpp): the batch times the answer
		s.direct_answered(line, exclusive);
		return;
	}
	system::dir_entry *dp = s.dir_find(line);
	if (!dp || !dp->pending_done || s.home_of(line) != home::device)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci: device answered line {:#x} which has no pending CPU request", line));
	auto &d = *dp;
	bool *done = d.pending_done;
	bool upgrade = d.pending_upgrade;
	bool excl = exclusive || d.pending_excl;
	d.pending_done = nullptr;
	msg m = upgrade ? msg::HAKD : excl ? msg::PEMD : msg::PSHA;
	s.count_local(msg::UL, line);
	double t = s.send(false, m, line, !upgrade, s.dir_handle(line, s.now_));
	d.cpu = excl ? line_state::E : line_state::S;
	d.locked = false;
	auto snapshot = s.home_mem(line);
	s.schedule(t, [&s, line, excl, upgrade, done, snapshot = std::move(snapshot)]() mutable {
		++s.stats_.round_trips;
		auto &c = *s.cline_slot(line);
		if (!upgrade)
			c.data = std::move(snapshot);
		c.st = excl ? line_state::E : line_state::S;
		c.pending = false;
		*done = true;
		s.tad_release(line);
	});
	auto waiting = std::move(d.waiting);
	d.waiting.clear();
	for (auto &w : waiting)
		w();
}

void engine_ctx::unlock(std::uint64_t addr)
{
	auto &s = sys_;
	auto line = s.line_of(addr);
	auto &dp = s.dir_slot(line);
	if (!dp)
		return;
	s.count_local(msg::UL, line);
	if (dp->pending_done) // a CPU request is still held: the line stays locked for it
		return;
	dp->locked = false;
	auto waiting = std::move(dp->waiting);
	dp->waiting.clear();
	for (auto &w : waiting)
		w();
}

void engine_ctx::clean_invalidate(std::uint64_t addr, event_queue::callback done)
{
	auto &s = sys_;
	auto line = s.line_of(addr);
	if (s.home_of(line) != home::device)
		throw error(errc::invalid_argument, fmt::format("sim:eci: LCI of CPU-homed line {:#x}", line));
	auto &dp = s.dir_slot(line);
	if (!dp)
		dp = std::make_unique<system::dir_entry>();
	s.count_local(msg::LCI, line);
	dp->locked = true;
	if (dp->cpu == line_state::I) { // nothing at the CPU: the directory acks at once
		s.schedule(s.dir_handle(line, s.now_), [&s, line, done = std::move(done)] {
			s.count_local(msg::LCIA, line);
			done();
		});
		return;
	}
	msg m = dp->cpu == line_state::S ? msg::SINV_H : msg::FEVX_EH;
	double t = s.send(false, m, line, false, s.dir_handle(line, s.now_));
	s.cpu_forward(t, line, msg::FEVX_EH,
		      [&s, line, done = std::move(done)](bool dirty, system::line_bytes data) mutable {
			      double t2 = s.send(true, dirty ? msg::VICD : msg::VICC, line, dirty, s.now_);
			      s.schedule(s.dir_handle(line, t2), [&s, line, dirty, data = std::move(data),
								  done = std::move(done)]() mutable {
				      ++s.stats_.round_trips;
				      if (dirty)
					      s.home_mem(line) = std::move(data);
				      s.dir_slot(line)->cpu = line_state::I;
				      s.count_local(msg::LCIA, line);
				      done();
			      });
		      });
}

void engine_ctx::acquire_cpu_line(std::uint64_t addr, event_queue::callback done)
{
	auto &s = sys_;
	auto line = s.line_of(addr);
	if (s.home_of(line) != home::cpu)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci: acquire of device-homed line {:#x} (use the directory)", line));
	double t = s.send(false, msg::RLDX, line, false, s.dir_handle(line, s.now_));
	s.cpu_forward(t, line, msg::FEVX_EH,
		      [&s, line, done = std::move(done)](bool, system::line_bytes data) mutable {
			      double extra = 0;
			      if (data.empty()) { // not in the L2: the home reads DRAM
				      ++s.stats_.dram_accesses;
				      data = s.home_mem(line);
				      extra = s.cfg_.dram_ns;
			      }
			      double t2 = s.send(true, msg::PEMD, line, true, s.now_ + extra);
			      s.schedule(s.dir_handle(line, t2),
					 [&s, line, data = std::move(data), done = std::move(done)]() mutable {
						 ++s.stats_.round_trips;
						 auto &d = *s.dir_slot(line);
						 d.dev = line_state::E;
						 d.devdata = std::move(data);
						 done();
					 });
		      });
	auto &dp = s.dir_slot(line);
	if (!dp)
		dp = std::make_unique<system::dir_entry>();
}

void engine_ctx::release_cpu_line(std::uint64_t addr)
{
	auto &s = sys_;
	auto line = s.line_of(addr);
	system::dir_entry *dp = s.dir_find(line);
	if (!dp || !dp->pending_done || s.home_of(line) != home::cpu)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci: device released line {:#x} with no forward pending", line));
	auto &d = *dp;
	bool *done = d.pending_done;
	d.pending_done = nullptr;
	d.dev = line_state::I;
	auto data = d.devdata;
	s.home_mem(line) = data;
	double t = s.send(false, msg::VICD, line, true, s.dir_handle(line, s.now_));
	s.schedule(t, [&s, line, done, data = std::move(data)] {
		++s.stats_.round_trips;
		auto &c = *s.cline_slot(line);
		c.data = data;
		c.st = line_state::E;
		c.pending = false;
		*done = true;
		s.tad_release(line);
	});
}

event_queue::handle engine_ctx::at(double t, event_queue::callback f) { return sys_.schedule(t, std::move(f)); }

void engine_ctx::cancel(event_queue::handle h) noexcept { sys_.events_.cancel(h); }

} // namespace pioc::sim::eci
