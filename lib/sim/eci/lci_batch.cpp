// A device's take-back of many lines in one step (engine_ctx::
// clean_invalidate_all). When the device takes a bank's lent lines back
// while the CPU waits in a miss and nothing else is due, each line's LCI
// was two events (the L2's answer, the LCIA) that only book the link and a
// directory slice, move the CPU's copy home and unlock. This file makes
// them in the order the events would run, with the same arithmetic as
// clean_invalidate(), cpu_forward() and send(), as miss_batch.cpp does for
// the CPU's misses (Documentation/protocols.md, "A bank's misses go in one
// step").
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include "sim/eci/batch_order.hpp"
#include "sim/eci/dir_entry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace pioc::sim::eci {

bool engine_ctx::clean_invalidate_all(const std::vector<std::uint64_t> &lines,
				      inline_function<void(std::uint64_t)> each, event_queue::callback &&done)
{
	return sys_.batch_lcis(lines, each, done);
}

// Whether @p lines holds a line twice. They come as a bank in order,
// perhaps with its control line after it (proto_engine::reclaim_other):
// that needs no sort.
bool system::repeats_a_line(const std::vector<std::uint64_t> &lines)
{
	const auto up = std::adjacent_find(lines.begin(), lines.end(), std::greater_equal<>());
	if (up == lines.end())
		return false;	   // strictly ascending
	if (up + 2 == lines.end()) // all but the last ascending
		return std::binary_search(lines.begin(), up + 1, lines.back());
	lci_lines_.assign(lines.begin(), lines.end());
	std::sort(lci_lines_.begin(), lci_lines_.end());
	return std::adjacent_find(lci_lines_.begin(), lci_lines_.end()) != lci_lines_.end();
}

bool system::batch_lcis(const std::vector<std::uint64_t> &lines, inline_function<void(std::uint64_t)> &each,
			event_queue::callback &done)
{
	if (!batch_misses_on_ || !plain_ || trace_on_ || !cpu_waiting_ || cfg_.tad_in_order || lines.empty())
		return false;
	// ---- what the events would do, on copies (nothing changes on a refusal)
	lci_batch_.clear();
	batch_dir_free_ = dir_free_;
	double link_out = link_free_[0], link_back = link_free_[1];
	// A line twice would be a second LCI behind the first's lock: one by one.
	if (repeats_a_line(lines))
		return false;
	std::uint64_t rank = 0;
	for (std::size_t i = 0; i < lines.size(); ++i) {
		const std::uint64_t line = line_of(lines[i]);
		if (home_of(line) != home::device || line != lines[i])
			return false; // clean_invalidate() refuses it, or not a line's first byte: one by one
		const dir_entry *d = dir_find(line);
		if (d && (d->locked || d->pending_done || !d->waiting.empty()))
			return false;
		const bool held = d && d->cpu != line_state::I;
		batched_lci b{line, held, 0, 0, rank++, false};
		if (!held) { // the directory acks at once (an event at that time)
			b.lcia_at = std::max(dir_handle_in(batch_dir_free_, line, now_), now_);
		} else { // SINV_H or FEVX_EH out, the L2 answers cpu_fwd_ns after it arrives
			const double depart = std::max(dir_handle_in(batch_dir_free_, line, now_), link_back);
			link_back = depart + ser_ctrl_ns_;
			b.answer_at = std::max(link_back + cfg_.link_ns + cfg_.cpu_fwd_ns, now_);
			const cline *c = cached(line);
			b.dirty = c && (c->st == line_state::M || c->st == line_state::O);
		}
		lci_batch_.push_back(b);
	}
	// The L2's answers run in their events' order, which is the lines'
	// order: the forwards leave one by one on the one link (each departs
	// after the one before it), and each answer comes a fixed cpu_fwd_ns
	// after its arrival. Each sends VICD/VICC and books the home's slice
	// for its LCIA, an event scheduled then.
	for (auto &b : lci_batch_) {
		if (!b.held)
			continue;
		const double depart = std::max(b.answer_at, link_out);
		link_out = depart + (b.dirty ? ser_data_ns_ : ser_ctrl_ns_);
		b.lcia_at = std::max(dir_handle_in(batch_dir_free_, b.line, link_out + cfg_.link_ns), b.answer_at);
		b.rank = rank++;
	}
	double last = now_;
	for (const auto &b : lci_batch_)
		last = std::max(last, b.lcia_at);
	if (!(last < events_.next_time()))
		return false; // something else would run meanwhile: one by one

	// ---- the same, for real
	const double t0 = now_;
	link_free_[0] = link_out;
	link_free_[1] = link_back;
	dir_free_.swap(batch_dir_free_);
	for (const auto &b : lci_batch_) { // clean_invalidate() of each, in the lines' order
		auto &dp = dir_slot(b.line);
		if (!dp)
			dp = std::make_unique<dir_entry>();
		++stats_.by_msg[static_cast<std::size_t>(msg::LCI)];
		dp->locked = true;
		if (b.held)
			++stats_.by_msg[static_cast<std::size_t>(dp->cpu == line_state::S ? msg::SINV_H
											  : msg::FEVX_EH)];
	}
	// The LCIAs in their events' order; each brings the CPU's copy home
	// (taken when the L2 answered: nothing touches it in between).
	event_order(lci_order_, lci_batch_.size(), [this](std::uint32_t a, std::uint32_t b) {
		const auto &x = lci_batch_[a], &y = lci_batch_[b];
		return x.lcia_at > y.lcia_at || (x.lcia_at == y.lcia_at && x.rank > y.rank);
	});
	const std::size_t pending = events_.size();
	for (const std::uint32_t i : lci_order_) {
		const auto &b = lci_batch_[i];
		now_ = b.lcia_at;
		auto &d = *dir_slot(b.line);
		if (b.held) {
			cline *c = cached(b.line);
			const bool has = c && c->st != line_state::I;
			const bool dirty = has && b.dirty;
			++stats_.by_msg[static_cast<std::size_t>(dirty ? msg::VICD : msg::VICC)];
			++stats_.round_trips;
			if (dirty)
				home_mem(b.line) = c->data;
			if (has)
				c->st = line_state::I;
			d.cpu = line_state::I;
		}
		++stats_.by_msg[static_cast<std::size_t>(msg::LCIA)];
		each(b.line);
		if (events_.size() != pending)
			throw error(errc::invalid_argument,
				    fmt::format("sim:eci: the device scheduled an event when line {:#x} came back in a "
						"batch (clean_invalidate_all's callback must schedule nothing)",
						b.line));
	}
	batched_take_backs_ += lci_batch_.size();
	now_ = t0; // the engine's event goes on where it was; nothing before `last` can see the difference
	schedule(last, std::move(done));
	return true;
}

} // namespace pioc::sim::eci
