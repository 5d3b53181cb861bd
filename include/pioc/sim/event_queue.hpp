/** @file
 * The pending events of a discrete-event model (sim:eci's system, sim:xdma's
 * engines): callbacks leave in order of their time, events of equal time in
 * the order they were scheduled -- exactly the order a
 * std::priority_queue of (time, sequence number) gives, at less cost:
 *  - the earliest event leaves by move, never by copy (copying a
 *    std::function clones its captures: an allocation per event);
 *  - an event no earlier than every event still waiting joins a sorted run
 *    at its end, O(1) in and out. Far deadlines scheduled in time order
 *    (sim:eci's 20 ms "not ready" timer, one per held load: tens of
 *    thousands waiting) stay there, so the heap keeps only the few events
 *    scheduled out of order and its pushes and pops walk a few levels, not
 *    log2 of everything pending (Documentation/benchmarking.md, model speed);
 *  - the heap and the run order keys of 24 bytes (time, sequence number,
 *    slot); the callbacks (64 bytes each) wait in a slab of recycled slots
 *    and move twice, in and out, not at every step of a heap sift.
 * Single-threaded, like the models.
 */
#pragma once

#include <pioc/sim/inline_function.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace pioc::sim {

class event_queue {
public:
	/** Move-only, 56 bytes inline: the models' events do not allocate. */
	using callback = inline_function<void()>;
	/** Names one scheduled event for cancel(); stays valid (and harmless)
	 *  after the event ran or was cancelled. */
	struct handle {
		std::uint32_t slot = 0;
		std::uint64_t seq = ~std::uint64_t(0);
	};

	/** Schedules @p f (a callback, or a callable to build one from) at
	 *  simulated time @p t. A callable is built in its slot: it is not
	 *  moved on its way in. */
	template <class F> handle push(double t, F &&f)
	{
		next_ = std::min(next_, t);
		key e{t, seq_++, store(std::forward<F>(f))};
		slot_seq_[e.slot] = e.seq;
		++live_;
		// Its sequence number is the largest yet: no earlier in time than
		// the run's last entry, it is later in the order than all of it.
		if (run_.empty() || t >= run_.back().t)
			run_.push_back(e);
		else {
			heap_.push_back(e);
			std::push_heap(heap_.begin(), heap_.end(), later);
		}
		return {e.slot, e.seq};
	}

	/** Drops the event @p h names if it is still pending (else nothing):
	 *  for a timer its owner knows will find nothing to do, so that it
	 *  neither runs nor stands in next_time() as something due. Its key
	 *  stays where it is, dead, and is dropped when it comes first. */
	void cancel(handle h) noexcept
	{
		if (h.seq == dead_seq || h.slot >= slot_seq_.size() || slot_seq_[h.slot] != h.seq)
			return; // none, or it ran or was cancelled
		slab_[h.slot] = callback();
		release(h.slot);
		++dead_keys_;
		drop_dead_fronts();
	}

	bool empty() const noexcept { return live_ == 0; }
	/** Pending events (cancelled ones not counted). */
	std::size_t size() const noexcept { return live_; }

	/** Time of the earliest event; the queue must not be empty. */
	double next_time() const noexcept { return next_; }

	/** Whether an event is due at or before @p t (a simulated CPU polls
	 *  this every few simulated ns: one compare). */
	bool due(double t) const noexcept { return next_ <= t; }

	/** Removes the earliest event (the queue must not be empty): its time
	 *  in @p t, its callback returned. */
	callback pop(double &t)
	{
		key e;
		if (run_first()) {
			e = run_.front();
			run_.pop_front();
		} else {
			std::pop_heap(heap_.begin(), heap_.end(), later);
			e = heap_.back();
			heap_.pop_back();
		}
		t = e.t;
		callback f = std::move(slab_[e.slot]);
		release(e.slot);
		drop_dead_fronts();
		return f;
	}

	/** Drops every pending event (the sequence continues). */
	void clear() noexcept
	{
		heap_.clear();
		run_.clear();
		slab_.clear();
		slot_seq_.clear();
		free_.clear();
		live_ = dead_keys_ = 0;
		next_ = never;
	}

private:
	struct key {
		double t;
		std::uint64_t seq;
		std::uint32_t slot; // its callback in slab_
	};
	static constexpr double never = std::numeric_limits<double>::infinity();
	/** An object, not a function: std::push_heap/pop_heap given a function
	 *  pointer called it out of line at every step of a sift (a tenth of
	 *  a sim:nic_dma run, perf); a function object's call is inlined. */
	struct later_fn {
		bool operator()(const key &a, const key &b) const noexcept
		{
			return a.t != b.t ? a.t > b.t : a.seq > b.seq;
		}
	};
	static constexpr later_fn later{};
	/** The earliest event heads the run (not the heap); not empty. */
	bool run_first() const noexcept { return heap_.empty() || (!run_.empty() && later(heap_.front(), run_.front())); }

	bool dead(const key &e) const noexcept { return slot_seq_[e.slot] != e.seq; }
	/** The slot of an event that ran or was cancelled, free again. */
	void release(std::uint32_t slot)
	{
		slot_seq_[slot] = dead_seq;
		free_.push_back(slot);
		--live_;
	}
	/** Keeps both fronts live (cancelled keys leave when they come first)
	 *  and next_ the time of the earliest live event. Without a cancelled
	 *  key waiting (most models never cancel) no front can be dead: no
	 *  look at the slots, and this inlines into pop(). */
	void drop_dead_fronts() noexcept
	{
		if (dead_keys_) [[unlikely]]
			drop_dead_keys();
		next_ = heap_.empty() && run_.empty() ? never : run_first() ? run_.front().t : heap_.front().t;
	}
	void drop_dead_keys() noexcept
	{
		while (!run_.empty() && dead(run_.front())) {
			run_.pop_front();
			--dead_keys_;
		}
		while (!heap_.empty() && dead(heap_.front())) {
			std::pop_heap(heap_.begin(), heap_.end(), later);
			heap_.pop_back();
			--dead_keys_;
		}
	}

	/** @p f in a free slot of the slab (one left by an earlier event, else
	 *  a new one). A free slot holds an empty callback (moved from). */
	template <class F>
	std::uint32_t store(F &&f)
	{
		if (free_.empty()) {
			slab_.emplace_back(std::forward<F>(f));
			slot_seq_.push_back(dead_seq);
			return static_cast<std::uint32_t>(slab_.size() - 1);
		}
		const std::uint32_t s = free_.back();
		free_.pop_back();
		callback *slot = &slab_[s];
		std::destroy_at(slot);
		try {
			std::construct_at(slot, std::forward<F>(f));
		} catch (...) { // a large callable's block could not be had
			std::construct_at(slot);
			free_.push_back(s);
			throw;
		}
		return s;
	}

	std::vector<key> heap_;  ///< min-heap by later(): the events scheduled out of order
	std::deque<key> run_;    ///< sorted by (t, seq)
	std::vector<callback> slab_;        ///< the pending events' callbacks (empty: a free slot)
	std::vector<std::uint32_t> free_;   ///< free slots of slab_
	/** Per slot: the sequence number of the event it holds (dead_seq:
	 *  none). A key whose number differs is dead: its event ran or was
	 *  cancelled, and the slot may hold a newer one. */
	std::vector<std::uint64_t> slot_seq_;
	static constexpr std::uint64_t dead_seq = ~std::uint64_t(0);
	std::size_t live_ = 0;
	std::size_t dead_keys_ = 0; ///< keys of cancelled events still in heap_ or run_
	std::uint64_t seq_ = 0;
	double next_ = never;     ///< time of the earliest event (never: none)
};

} // namespace pioc::sim
