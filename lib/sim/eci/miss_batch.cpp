// A CPU's batch of misses in one step (system::set_miss_batching). When the
// CPU issues many independent misses at once (a bank of lines read or
// claimed) and nothing else can happen until the last answer arrives, the
// events of each miss -- the request's arrival at the home, the engine's
// grant, the answer's arrival -- only book the link and the directory and
// change the line's state. This file makes those bookings and changes in
// the order the events would run them, with the same arithmetic, so the
// times and counters are those of the events; the model's cost per line
// is then a few additions instead of two events (a bank of 75 lines was
// most of a sim:nic_eci run, Documentation/benchmarking.md, session 28).
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include "sim/eci/batch_order.hpp"
#include "sim/eci/dir_entry.hpp"

#include <fmt/format.h>

namespace pioc::sim::eci {

void system::direct_answered(std::uint64_t line, bool exclusive)
{
	if (line != direct_.line || direct_.answered)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci: the device answered line {:#x} while granting line {:#x} at once "
					"(grants_at_once promised one answer, for that line)",
					line, direct_.line));
	direct_.answered = true;
	direct_.exclusive = exclusive;
}

bool system::batch_misses(const std::uint64_t *lines, std::size_t count, bool exclusive)
{
	// ---- what the events would do, on copies (nothing changes on a refusal)
	const std::uint32_t cap = cfg_.tad_in_order ? 1 : cfg_.tad_tx;
	batch_.clear();
	batch_tad_.assign(cfg_.tads, 0);
	batch_dir_free_ = dir_free_;
	double link_out = link_free_[0], link_back = link_free_[1];
	std::uint64_t prev = 0;
	for (std::size_t i = 0; i < count; ++i) {
		if (lines[i] >= mem_end_) // check_access() refuses it: as events, which throw at that line
			return false;
		const std::uint64_t line = line_of(lines[i]);
		if (i && line <= prev) // a line twice (the second would hit the first's miss): as events
			return false;
		prev = line;
		const cline *c = cached(line);
		if (c && c->pending) // a miss in flight since before: it ends at another event
			return false;
		if (c && (exclusive ? c->st == line_state::E || c->st == line_state::M : c->st != line_state::I))
			continue; // a hit
		if (home_of(line) != home::device || !engine_->grants_at_once(line, exclusive))
			return false;
		if (const dir_entry *d = dir_find(line); d && (d->locked || d->pending_done))
			return false; // it would wait at the home for another event
		const std::uint32_t t = tad_of(line);
		if (tad_busy_[t] + ++batch_tad_[t] > cap || !tad_fwd_wait_[t].empty())
			return false; // it would wait for its TAD (tad_acquire), or free a waiting forward
		// start_miss(): the request leaves now, behind the batch's earlier
		// ones (send()); the home takes it when its slice has handled it
		// and the device's pipeline has passed (dir_request()'s event).
		const double depart = std::max(now_, link_out);
		link_out = depart + ser_ctrl_ns_;
		const double at_home = std::max(dir_handle_in(batch_dir_free_, line, link_out + cfg_.link_ns) +
							engine_->request_pipeline_ns(line),
						now_);
		batch_.push_back({line, exclusive && c && c->st == line_state::S, at_home, nullptr});
	}
	if (batch_.empty()) { // all hits
		stats_.cpu_hits += count;
		return true;
	}
	// The home takes the requests in the order their events run: by time,
	// then as scheduled (the batch's order).
	event_order(batch_order_, batch_.size(),
		    [this](std::uint32_t a, std::uint32_t b) { return batch_[a].at_home > batch_[b].at_home; });
	// engine_ctx::answer() at each request's time: the directory, then the
	// link back (with the line's data unless an upgrade); its arrival is
	// an event at that time (schedule() keeps it no earlier than now).
	double last = now_;
	for (const std::uint32_t i : batch_order_) {
		const batched_miss &m = batch_[i];
		const double depart = std::max(dir_handle_in(batch_dir_free_, m.line, m.at_home), link_back);
		link_back = depart + (m.upgrade ? ser_ctrl_ns_ : ser_data_ns_);
		last = std::max(last, std::max(link_back + cfg_.link_ns, m.at_home));
	}
	// Exact only if no other event runs before the last arrival (an event
	// at that very time was scheduled first and would run before it), and
	// run_until() would not call it a machine check.
	if (!(last < events_.next_time()) || last > now_ + cfg_.timeout_ns)
		return false;

	// ---- the same, for real
	link_free_[0] = link_out;
	link_free_[1] = link_back;
	dir_free_.swap(batch_dir_free_);
	const msg request = exclusive ? msg::RLDX : msg::RLDD;
	stats_.cpu_hits += count - batch_.size();
	for (auto &m : batch_) { // start_miss(), in the batch's order
		auto &c = cline_slot(m.line);
		if (!c) {
			c = std::make_unique<cline>();
			cline_lines_.push_back(m.line);
		}
		m.c = c.get(); // entries are never freed
		++stats_.cpu_misses;
	}
	for (const std::uint32_t i : batch_order_) { // dir_request(), the engine's grant, the answer's arrival
		const batched_miss &m = batch_[i];
		now_ = m.at_home; // as the event would run (the engine must not read it; grants_at_once)
		++stats_.by_msg[static_cast<std::size_t>(m.upgrade ? msg::RC2D_S : request)];
		auto &dp = dir_slot(m.line);
		if (!dp)
			dp = std::make_unique<dir_entry>();
		auto &d = *dp;
		d.locked = true;
		d.pending_excl = exclusive;
		d.pending_upgrade = m.upgrade;
		direct_ = {m.line, true, false, false};
		const std::size_t pending = events_.size();
		{
			flag_scope scope{direct_.on};
			engine_->on_request(ctx_, m.line, exclusive);
		}
		if (!direct_.answered || events_.size() != pending)
			throw error(errc::invalid_argument,
				    fmt::format("sim:eci: the device said it grants line {:#x} at once, but its "
						"on_request {} (grants_at_once promised one answer and no event)",
						m.line, direct_.answered ? "scheduled an event" : "did not answer"));
		const bool excl = direct_.exclusive || exclusive;
		++stats_.by_msg[static_cast<std::size_t>(msg::UL)];
		++stats_.by_msg[static_cast<std::size_t>(m.upgrade ? msg::HAKD : excl ? msg::PEMD : msg::PSHA)];
		d.cpu = excl ? line_state::E : line_state::S;
		d.locked = false;
		cline &c = *m.c;
		++stats_.round_trips;
		const line_bytes &home_copy = home_mem(m.line);
		if (!m.upgrade)
			c.data = home_copy;
		c.st = excl ? line_state::E : line_state::S;
	}
	now_ = last;
	batched_misses_ += batch_.size();
	return true;
}

} // namespace pioc::sim::eci
