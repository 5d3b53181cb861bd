// The device-side engine of the Fig. 5 protocols (model). Per channel it
// holds the CPU's load (or the CPU home's forward) of the current control
// line, takes the other line (and its data bank) back, computes, and answers.
#include <pioc/error.hpp>
#include <pioc/sim/eci_engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>

namespace pioc::sim::eci {

using coherent::ctrl;
using coherent::kind;

constexpr std::uint32_t pipelined_mark = coherent::pipelined_chunk;

proto_engine::proto_engine(system &sys, engine_config cfg) : sys_(sys), ctx_(sys), cfg_(std::move(cfg))
{
	if (std::find(cfg_.supported.begin(), cfg_.supported.end(), cfg_.v) == cfg_.supported.end())
		throw error(errc::not_supported,
			    fmt::format("sim:eci device: protocol variant {} is not implemented by this device",
					coherent::to_string(cfg_.v)));
	if (!cfg_.handler)
		cfg_.handler = [](const std::uint8_t *req, std::size_t n, std::uint8_t *resp, std::size_t cap) {
			std::size_t k = std::min(n, cap);
			std::memcpy(resp, req, k);
			return k;
		};
	if (cfg_.not_ready_ns >= sys.cfg().timeout_ns)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci device: 'not ready' after {:.0f} ns is not before the CPU's timeout "
					"({:.0f} ns)",
					cfg_.not_ready_ns, sys.cfg().timeout_ns));
	const bool dev = coherent::device_homed(cfg_.v);
	if (cfg_.v == coherent::variant::dev_cpu && cfg_.data_lines)
		throw error(errc::not_supported,
			    fmt::format("sim:eci device: data banks ({} lines) on 5d: the banks need the device as "
					"their home (it takes back only the lines it lent); use 5b",
					cfg_.data_lines));
	base_ = dev ? 0 : sys.cpu_base();
	line_shift_ = static_cast<unsigned>(std::countr_zero(sys.cfg().line_size)); // a power of two (system checks)
	if (std::has_single_bit(cfg_.stride))
		stride_shift_ = std::countr_zero(cfg_.stride);
	std::uint64_t window = dev ? sys.cfg().device_bytes : sys.cfg().cpu_bytes;
	ch_.resize(cfg_.channels);
	for (std::uint32_t i = 0; i < cfg_.channels; ++i) {
		ch_[i].lay = coherent::layout::for_channel(window, sys.cfg().line_size, i, cfg_.stride, cfg_.data_lines);
		ch_[i].lay.base += base_;
		ch_[i].lay.check_tads(sys.cfg().tads);
		// After a reset every data line counts as lent: the device cannot
		// know what the CPU kept from before it (the RTL's rule, coh_banks.sv),
		// so the first use of each bank takes all its lines back once.
		ch_[i].lent.resize(2 * std::size_t(cfg_.data_lines));
		set_all_lent(ch_[i], dev);
	}
	sys_.attach(this);
	if (!dev) { // start state: the device holds line A and both banks
		for (auto &c : ch_) {
			reclaim(c.lay.ctrl_off(0), [] {});
			for (std::uint32_t i = 0; i < c.lay.data_lines; ++i)
				for (unsigned b = 0; b < 2; ++b)
					reclaim(c.lay.data_off(b, i), [] {});
		}
	}
}

proto_engine::~proto_engine()
{
	if (sys_.engine() == this)
		sys_.attach(nullptr);
}

coherent::layout proto_engine::channel_layout(std::uint32_t ch) const
{
	auto l = ch_.at(ch).lay;
	l.base -= base_;
	return l;
}

bool proto_engine::locate(std::uint64_t addr, std::uint32_t &ch, int &ctrl_line) const
{
	if (addr < base_)
		return false;
	const std::uint64_t rel = addr - base_;
	const bool shift = stride_shift_ >= 0;
	ch = static_cast<std::uint32_t>(shift ? rel >> stride_shift_ : rel / cfg_.stride);
	if (ch >= ch_.size())
		return false;
	const std::uint64_t idx = (shift ? rel & (cfg_.stride - 1) : rel % cfg_.stride) >> line_shift_;
	if (idx >= 2 + 2 * std::uint64_t(cfg_.data_lines))
		return false;
	ctrl_line = idx < 2 ? static_cast<int>(idx) : -1;
	return true;
}

void proto_engine::on_request(engine_ctx &ctx, std::uint64_t addr, bool exclusive)
{
	std::uint32_t ch = 0;
	int x = -1;
	const bool ours = locate(addr, ch, x);
	if (!ours || x < 0 || exclusive) {
		// Data lines, stores (RLDX / upgrade) and other lines: plain grants.
		// A data line granted is lent: it must come back before the engine
		// reads it for a request or writes it for an answer.
		if (ours && x < 0)
			set_lent(ch_[ch], addr, true);
		++st_.grants;
		ctx.answer(addr, x < 0 ? cfg_.answer_exclusive : true);
		return;
	}
	signal(ch, static_cast<unsigned>(x));
}

void proto_engine::on_forward(engine_ctx &ctx, std::uint64_t addr)
{
	std::uint32_t ch;
	int x;
	if (!locate(addr, ch, x) || x < 0) {
		++st_.grants;
		ctx.release_cpu_line(addr);
		return;
	}
	signal(ch, static_cast<unsigned>(x));
}

bool proto_engine::plain_read(std::uint64_t addr) const
{
	std::uint32_t ch;
	int x;
	return !locate(addr, ch, x) || x < 0; // control lines are signals
}

bool proto_engine::grants_at_once(std::uint64_t addr, bool exclusive) const
{
	return exclusive || plain_read(addr); // on_request's first branch
}

void proto_engine::reclaim(std::uint64_t addr, event_queue::callback done)
{
	if (coherent::device_homed(cfg_.v)) {
		ctx_.clean_invalidate(addr, [this, addr, done = std::move(done)] {
			std::uint32_t ch;
			int x;
			// Back before the unlock: a read waiting behind the LCI is granted
			// at the unlock and must leave the line lent again.
			if (locate(addr, ch, x) && x < 0)
				set_lent(ch_[ch], addr, false);
			ctx_.unlock(addr);
			done();
		});
	} else if (sys_.device_state(addr) != line_state::I) {
		ctx_.at(ctx_.now(), std::move(done));
	} else {
		ctx_.acquire_cpu_line(addr, std::move(done));
	}
}

void proto_engine::set_lent(chan &c, std::uint64_t addr, bool on)
{
	const std::size_t i = ((addr - c.lay.base) >> line_shift_) - 2; // c.lay.line is the system's line
	if (bool(c.lent[i]) == on) // bytes, not std::vector<bool>'s bits: a grant's test and set
		return;
	c.lent[i] = on;
	if (on)
		++c.lent_in[i % 2];
	else
		--c.lent_in[i % 2];
}

void proto_engine::set_all_lent(chan &c, bool on)
{
	c.lent.assign(c.lent.size(), std::uint8_t(on));
	c.lent_in[0] = c.lent_in[1] = on ? static_cast<std::uint32_t>(c.lent.size() / 2) : 0;
}

// The data lines of @p bank (of the first @p upto) the CPU may hold: lent
// and not taken back (device-homed), not at the device (CPU-homed).
std::vector<std::uint64_t> proto_engine::lent_lines(const chan &c, unsigned bank, std::uint32_t upto) const
{
	const bool dev = coherent::device_homed(cfg_.v);
	std::vector<std::uint64_t> v;
	if (dev && c.lent_in[bank] == 0) // nothing of the bank at the CPU: no scan
		return v;
	for (std::uint32_t i = 0; i < upto; ++i) {
		const std::uint64_t a = c.lay.data_off(bank, i);
		if (dev ? c.lent[2 * std::size_t(i) + bank] : sys_.device_state(a) == line_state::I)
			v.push_back(a);
	}
	return v;
}

// Before an answer with data in @p bank: takes every line of it the CPU may
// hold back, all in flight, and returns true (the caller returns; @p resume
// runs when they are back and checks again, so a line lent again meanwhile
// is taken back again); false when none is out: answer in this event.
bool proto_engine::bank_lent(std::uint32_t ch, unsigned bank, std::uint32_t upto,
			     void (proto_engine::*resume)(std::uint32_t))
{
	auto &c = ch_[ch];
	if (c.bank_busy) // the take-back under way resumes the answer
		return true;
	if (cfg_.fault_no_take_back)
		return false;
	auto lines = lent_lines(c, bank, upto);
	if (lines.empty())
		return false;
	c.bank_busy = true;
	park_not_ready(c);
	st_.data_taken_back += lines.size();
	auto left = std::make_shared<std::size_t>(lines.size());
	auto take = [this, ch, lines = std::move(lines), left, resume] {
		if (take_back_all(lines, [this, ch, resume] { bank_back(ch, resume); }))
			return;
		for (std::uint64_t a : lines)
			reclaim(a, [this, ch, left, resume] {
				if (--*left)
					return;
				bank_back(ch, resume);
			});
	};
	// A device pipeline's first LCI comes a few cycles after the delivery
	// started (cfg_.bank_lci_ns); a line lent again meanwhile is found at
	// the next check.
	if (c.fill_done >= 0 && cfg_.bank_lci_ns > 0 && c.back_at < 0)
		ctx_.at(ctx_.now() + cfg_.bank_lci_ns, std::move(take));
	else
		take();
	return true;
}

// The last line bank_lent() took back is home: the answer it held goes on
// (@p resume), and the "not ready" timer comes back if it is still owed.
void proto_engine::bank_back(std::uint32_t ch, void (proto_engine::*resume)(std::uint32_t))
{
	ch_[ch].bank_busy = false;
	ch_[ch].back_at = ctx_.now();
	(this->*resume)(ch);
	unpark_not_ready(ch);
}

// A signal on x: the other control line and (a request may use it) every
// line of its bank the CPU may hold come back, then the word is examined.
void proto_engine::reclaim_other(std::uint32_t ch, unsigned x, bool with_bank)
{
	auto &c = ch_[ch];
	unsigned r = x ^ 1;
	std::uint64_t tok = c.token;
	const auto bank = with_bank ? lent_lines(c, r, c.lay.data_lines) : std::vector<std::uint64_t>{};
	st_.data_taken_back += bank.size();
	auto left = std::make_shared<std::size_t>(1 + bank.size());
	auto one = [this, ch, x, tok, left] {
		auto &c = ch_[ch];
		if (--*left || c.token != tok || c.held != int(x))
			return;
		c.reclaimed = true;
		examine(ch, x);
	};
	if (!bank.empty()) { // the bank and the line in one step, if nothing else can happen meanwhile
		auto all = bank;
		all.push_back(c.lay.ctrl_off(r));
		if (take_back_all(all, [one, left]() mutable {
			    *left = 1;
			    one();
		    }))
			return;
	}
	for (std::uint64_t a : bank)
		reclaim(a, one);
	reclaim(c.lay.ctrl_off(r), one);
}

// The take-back of reclaim() for each of @p lines, all in one step when the
// system can (engine_ctx::clean_invalidate_all; device-homed only): each
// line's lent bit and lock as reclaim()'s callback leaves them, then @p done
// once, when the last is back. false: reclaim() them one by one.
bool proto_engine::take_back_all(const std::vector<std::uint64_t> &lines, event_queue::callback done)
{
	if (!coherent::device_homed(cfg_.v))
		return false;
	return ctx_.clean_invalidate_all(
		lines,
		[this](std::uint64_t addr) {
			std::uint32_t ch;
			int x;
			if (locate(addr, ch, x) && x < 0)
				set_lent(ch_[ch], addr, false);
			ctx_.unlock(addr);
		},
		std::move(done));
}

bool proto_engine::cpu_word(ctrl w) const noexcept
{
	if (!w.valid())
		return false;
	if (w.k() == kind::sync)
		return true;
	return coherent::cpu_initiated(cfg_.v) ? w.k() == kind::request || w.k() == kind::more : w.k() == kind::ack;
}

void proto_engine::give(std::uint64_t addr)
{
	if (coherent::device_homed(cfg_.v))
		ctx_.answer(addr, cfg_.answer_exclusive);
	else
		ctx_.release_cpu_line(addr);
}

// A read (or, CPU-homed, a forwarded access) of control line x. Only a read
// of the line opposite the answered one can be a signal, and only if the
// answered line then holds a CPU word the engine has not consumed yet
// (examine()); everything else is served without a state change.
void proto_engine::signal(std::uint32_t ch, unsigned x)
{
	auto &c = ch_[ch];
	if (c.ans == int(x) && !cfg_.fault_reread_is_signal) { // the answered line (or the consumed word's line): same data again
		++st_.rereads;
		give(c.lay.ctrl_off(x));
		return;
	}
	if (c.ans < 0) { // restarted: a line that holds an answer may be one the CPU is still copying
		ctrl w;
		std::memcpy(&w.w, ctx_.data(c.lay.ctrl_off(x)), 8);
		if (w.valid() && !cpu_word(w)) {
			++st_.rereads;
			give(c.lay.ctrl_off(x));
			return;
		}
	}
	++st_.signals;
	c.held = static_cast<int>(x);
	new_token(c);
	if (c.pending && !(cfg_.fault_reread_is_signal && c.ans == int(x))) { // its answer goes here: hold
		arm_not_ready(ch);
		if (coherent::cpu_initiated(cfg_.v))
			try_finish(ch);
		else
			try_send(ch);
		return;
	}
	c.reclaimed = false;
	// A new request may use the other line's data bank.
	reclaim_other(ch, x, coherent::cpu_initiated(cfg_.v) && c.lay.data_lines > 0);
}

void proto_engine::examine(std::uint32_t ch, unsigned x)
{
	auto &c = ch_[ch];
	const unsigned r = x ^ 1;
	ctrl w;
	std::memcpy(&w.w, ctx_.data(c.lay.ctrl_off(r)), 8);
	// A SYNC already consumed (perhaps before a restart) is as old as any
	// consumed word: after a restart, a read of the line holding the CPU's
	// pending request would otherwise take the session's SYNC, still in the
	// other line, for a new one and overwrite the request with its SYNC_ACK.
	const bool old_sync = w.k() == kind::sync && w.w == c.last_sync && !cfg_.fault_no_epoch;
	if (!cpu_word(w) || (w.w == c.taken && !cfg_.fault_reread_is_signal) || old_sync) { // speculative or early read
		++st_.spurious;
		transient(ch, x, ctrl::make(kind::not_ready, true, 0, c.cur_seq));
		return;
	}
	if (!c.synced && w.k() != kind::sync) {
		// Restarted: run nothing until the CPU's SYNC, and change nothing --
		// the word may be one already run, or (a speculative read of the
		// request line) an older one behind the CPU's pending request.
		++st_.out_of_step;
		transient(ch, x, ctrl::make(kind::sync_ack, true, 0, w.seq()));
		return;
	}
	if (c.ans < 0)
		++st_.resyncs;
	c.taken = w.w;
	if (w.k() == kind::sync)
		c.last_sync = w.w;
	c.ans = static_cast<int>(r);
	c.pending = true;
	if (coherent::cpu_initiated(cfg_.v)) {
		pulled(ch, x);
	} else if (w.k() == kind::sync) { // a new owner: its numbering, nothing half sent
		if (c.delivered_unacked)
			++st_.unacked_at_sync;
		c.delivered_unacked = false;
		c.synced = true;
		c.out_seq = w.seq();
		c.out_sent = 0;
		deliver(ch, x, ctrl::make(kind::sync_ack, true, 0, w.seq()), nullptr, 0);
		return;
	} else {
		if (c.delivered_unacked) {
			++st_.acked; // the CPU's word acknowledges the message on the other line
			c.delivered_unacked = false;
		}
		try_send(ch);
	}
	if (c.pending && c.held == int(x))
		arm_not_ready(ch);
}

// An answer that changes nothing ("not ready", "out of step"): the CPU
// evicts the line and loads it again, or resyncs.
void proto_engine::transient(std::uint32_t ch, unsigned x, ctrl nr)
{
	auto &c = ch_[ch];
	const std::uint64_t off = c.lay.ctrl_off(x);
	std::uint8_t *d = ctx_.data(off);
	std::uint64_t kept;
	std::memcpy(&kept, d, 8);
	std::memcpy(d, &nr.w, 8);
	c.held = -1;
	new_token(c);
	give(off);
	if (coherent::device_homed(cfg_.v)) {
		// Only the answer carries "not ready" (the home sends a snapshot): the
		// line keeps what it held, which after a restart may be an answer
		// the CPU is still copying.
		std::memcpy(d, &kept, 8);
	} else { // take it back so that the CPU's next load reaches us
		ctx_.at(ctx_.now() + 1, [this, off] { reclaim(off, [] {}); });
	}
}

// A new token makes every timer armed before it find nothing to do: the
// "not ready" timer goes at once (it would stay an event for a microsecond
// and stand in the way of a batch of misses, system::set_miss_batching).
void proto_engine::new_token(chan &c)
{
	++c.token;
	ctx_.cancel(c.not_ready);
	c.not_ready_at = -1;
	c.not_ready_parked = false;
}

// The "not ready" timer of the load held on c.held fires every
// not_ready_ns until the answer goes (a new token cancels it); a firing
// while the answer's bank is being filled or taken back only arms the next.
void proto_engine::arm_not_ready(std::uint32_t ch)
{
	auto &c = ch_[ch];
	c.not_ready_at = ctx_.now() + cfg_.not_ready_ns;
	c.not_ready_parked = c.bank_busy || c.fill_done >= 0; // park_not_ready()
	if (!c.not_ready_parked)
		queue_not_ready(ch);
}

void proto_engine::queue_not_ready(std::uint32_t ch)
{
	auto &c = ch_[ch];
	std::uint64_t tok = c.token;
	int x = c.held;
	c.not_ready = ctx_.at(c.not_ready_at, [this, ch, tok, x] {
		auto &c = ch_[ch];
		if (c.token != tok)
			return; // another timer's chain, if any, is not this one's to end
		if (c.held != x || !c.pending) {
			c.not_ready_at = -1;
			return;
		}
		if (c.bank_busy || c.fill_done >= 0) { // the answer is there, its bank being filled or taken back
			arm_not_ready(ch);
			return;
		}
		++st_.not_ready;
		transient(ch, static_cast<unsigned>(x), ctrl::make(kind::not_ready, true, 0, c.cur_seq));
	});
}

// While the bank is filled or taken back, the timer's firings would only
// arm the next one, not_ready_ns later: its event leaves the queue instead
// (it would stand in the way of a batched take-back, engine_ctx::
// clean_invalidate_all) and unpark_not_ready() puts it back at the same
// step of the chain. Usually the answer goes first and its new token ends
// the chain. (A firing at the very time the bank comes free now runs after
// that event; before, the order of their scheduling decided.)
void proto_engine::park_not_ready(chan &c)
{
	if (c.not_ready_at < 0 || c.not_ready_parked)
		return;
	ctx_.cancel(c.not_ready);
	c.not_ready_parked = true;
}

void proto_engine::unpark_not_ready(std::uint32_t ch)
{
	auto &c = ch_[ch];
	if (!c.not_ready_parked || c.bank_busy || c.fill_done >= 0)
		return;
	c.not_ready_parked = false;
	double at = c.not_ready_at;
	while (at < ctx_.now()) // the firings it missed, each not_ready_ns after the one before
		at += cfg_.not_ready_ns;
	c.not_ready_at = at;
	queue_not_ready(ch);
}

void proto_engine::deliver(std::uint32_t ch, unsigned x, ctrl w, const std::uint8_t *data, std::size_t n,
			   const std::uint8_t *bank_data, std::size_t bank_n)
{
	auto &c = ch_[ch];
	const std::uint32_t line = sys_.cfg().line_size;
	std::uint8_t *d = ctx_.data(c.lay.ctrl_off(x));
	std::memcpy(d, &w.w, 8);
	if (n)
		std::memcpy(d + coherent::ctrl_bytes, data, n);
	for (std::size_t off = 0, i = 0; off < bank_n; off += line, ++i)
		std::memcpy(ctx_.data(c.lay.data_off(x, static_cast<std::uint32_t>(i))), bank_data + off,
			    std::min<std::size_t>(line, bank_n - off));
	c.held = -1;
	c.ans = static_cast<int>(x); // from now on every read of x gets exactly this
	c.pending = false;
	new_token(c);
	++st_.delivered;
	give(c.lay.ctrl_off(x));
}

void proto_engine::pulled(std::uint32_t ch, unsigned x)
{
	auto &c = ch_[ch];
	const unsigned r = x ^ 1;
	const std::uint32_t in = c.lay.inline_bytes(), line = sys_.cfg().line_size;
	const std::uint8_t *d = ctx_.data(c.lay.ctrl_off(r));
	ctrl w;
	std::memcpy(&w.w, d, 8);
	auto fail = [&] { // out of step (e.g. the engine restarted mid-message): tell the CPU
		deliver(ch, x, ctrl::make(kind::sync_ack, true, 0, w.seq()), nullptr, 0);
	};
	switch (w.k()) {
	case kind::sync:
		c.busy = c.resp_pending = false;
		c.synced = true;
		c.req.clear();
		c.cur_seq = w.seq();
		deliver(ch, x, ctrl::make(kind::sync_ack, true, 0, w.seq()), nullptr, 0);
		return;
	case kind::request: {
		bool pipelined = w.chunk() == pipelined_mark;
		if (pipelined || w.chunk() == 0) {
			c.cur_seq = w.seq();
			c.req.clear();
			c.next_chunk = 0;
		} else if (w.seq() != c.cur_seq || w.chunk() != c.next_chunk) {
			fail();
			return;
		}
		if (pipelined) {
			std::size_t total = w.len();
			if (total > c.lay.max_pipelined()) {
				fail();
				return;
			}
			c.req.assign(d + coherent::ctrl_bytes, d + coherent::ctrl_bytes + std::min<std::size_t>(total, in));
			for (std::size_t off = c.req.size(), i = 0; off < total; off += line, ++i) {
				const std::uint8_t *b = ctx_.data(c.lay.data_off(r, static_cast<std::uint32_t>(i)));
				c.req.insert(c.req.end(), b, b + std::min<std::size_t>(line, total - off));
			}
		} else {
			c.req.insert(c.req.end(), d + coherent::ctrl_bytes, d + coherent::ctrl_bytes + std::min(w.len(), in));
			++c.next_chunk;
		}
		if (!w.last()) {
			deliver(ch, x, ctrl::make(kind::ack, false, 0, w.seq(), w.chunk()), nullptr, 0);
			return;
		}
		++st_.requests;
		// The handler writes into a buffer of the largest response (kept
		// between requests: not zeroed again; only the bytes it returns count).
		c.resp_buf.resize(coherent::max_message);
		const std::size_t n = std::min(cfg_.handler(c.req.data(), c.req.size(), c.resp_buf.data(), c.resp_buf.size()),
					       c.resp_buf.size());
		c.resp.assign(c.resp_buf.begin(), c.resp_buf.begin() + static_cast<std::ptrdiff_t>(n));
		c.resp_sent = 0;
		c.busy = true;
		c.resp_pending = pipelined; // reuse as "answer pipelined"
		c.ready_at = ctx_.now() + cfg_.compute_ns;
		ctx_.at(c.ready_at, [this, ch] { try_finish(ch); }); // finishes only if held and ready
		return;
	}
	case kind::more: {
		if (w.seq() != c.cur_seq || c.resp_sent >= c.resp.size()) {
			fail();
			return;
		}
		std::size_t len = std::min<std::size_t>(in, c.resp.size() - c.resp_sent);
		bool last = c.resp_sent + len == c.resp.size();
		deliver(ch, x, ctrl::make(kind::response, last, static_cast<std::uint32_t>(len), c.cur_seq, w.chunk()),
			c.resp.data() + c.resp_sent, len);
		c.resp_sent += len;
		return;
	}
	default:
		fail();
	}
}

void proto_engine::try_finish(std::uint32_t ch)
{
	auto &c = ch_[ch];
	if (c.held < 0 || !c.pending || !c.busy || ctx_.now() < c.ready_at)
		return;
	const unsigned x = static_cast<unsigned>(c.held);
	const std::uint32_t in = c.lay.inline_bytes(), line = sys_.cfg().line_size;
	std::size_t head = std::min<std::size_t>(in, c.resp.size());
	const auto nbank = static_cast<std::uint32_t>((c.resp.size() - head + line - 1) / line);
	// A pipelined answer with bank data: the bank's lines the CPU may hold
	// (device-homed: every lent one; CPU-homed: those the answer uses) come
	// back first, then it is written and answered in the same event.
	const std::uint32_t upto = coherent::device_homed(cfg_.v) ? c.lay.data_lines : nbank;
	if (c.resp_pending && nbank && bank_lent(ch, x, upto, &proto_engine::try_finish))
		return;
	c.busy = false;
	if (c.resp_pending) { // pipelined: the whole response at once, the rest in bank x
		c.resp_pending = false;
		++st_.banked;
		c.resp_sent = c.resp.size();
		deliver(ch, x,
			ctrl::make(kind::response, true, static_cast<std::uint32_t>(c.resp.size()), c.cur_seq,
				   pipelined_mark),
			c.resp.data(), head, c.resp.data() + head, c.resp.size() - head);
		return;
	}
	c.resp_sent = head;
	deliver(ch, x,
		ctrl::make(kind::response, head == c.resp.size(), static_cast<std::uint32_t>(head), c.cur_seq, 0),
		c.resp.data(), head);
}

void proto_engine::try_send(std::uint32_t ch)
{
	auto &c = ch_[ch];
	if (c.held < 0 || !c.pending || c.outbox.empty() || c.outbox.front().first > ctx_.now())
		return;
	const std::uint32_t in = c.lay.inline_bytes();
	auto &m = c.outbox.front().second;
	if (cfg_.bank_messages && c.lay.data_lines && c.out_sent == 0 && m.size() <= c.lay.max_pipelined()) {
		send_whole(ch);
		return;
	}
	std::size_t len = std::min<std::size_t>(in, m.size() - c.out_sent);
	bool last = c.out_sent + len == m.size();
	auto chunk = static_cast<std::uint32_t>(c.out_sent / in);
	std::vector<std::uint8_t> tmp(m.begin() + static_cast<std::ptrdiff_t>(c.out_sent),
				      m.begin() + static_cast<std::ptrdiff_t>(c.out_sent + len));
	std::uint32_t seq = c.out_seq + 1;
	if (last) {
		c.outbox.pop_front();
		c.out_sent = 0;
		++c.out_seq;
	} else {
		c.out_sent += len;
	}
	c.delivered_unacked = true;
	deliver(ch, static_cast<unsigned>(c.held), ctrl::make(kind::message, last, static_cast<std::uint32_t>(len), seq, chunk),
		tmp.data(), len);
}

// 5b with data banks: the whole message on the held line x, bytes past the
// inline ones in bank x, once no line of bank x is out at the CPU.
void proto_engine::send_whole(std::uint32_t ch)
{
	auto &c = ch_[ch];
	const auto x = static_cast<unsigned>(c.held);
	const std::size_t n = c.outbox.front().second.size();
	const std::size_t head = std::min<std::size_t>(c.lay.inline_bytes(), n);
	if (c.fill_done < 0) { // the delivery starts: the device fills the bank
		const double chunks = std::ceil(double(n) / c.lay.inline_bytes());
		c.fill_done = ctx_.now() + cfg_.bank_fill_ns + chunks * cfg_.bank_chunk_ns;
		c.back_at = -1;
		park_not_ready(c);
	}
	if (n > head && bank_lent(ch, x, c.lay.data_lines, &proto_engine::try_send))
		return;
	const double at = std::max(c.fill_done, c.back_at < 0 ? 0.0 : c.back_at + cfg_.bank_answer_ns);
	if (at > ctx_.now()) { // the device's own pipeline: the answer leaves later
		ctx_.at(at, [this, ch] { try_send(ch); });
		return;
	}
	c.fill_done = c.back_at = -1;
	const std::vector<std::uint8_t> m = std::move(c.outbox.front().second);
	c.outbox.pop_front();
	const std::uint32_t seq = ++c.out_seq;
	c.delivered_unacked = true;
	++st_.banked;
	deliver(ch, x, ctrl::make(kind::message, true, static_cast<std::uint32_t>(n), seq, pipelined_mark), m.data(),
		head, m.data() + head, n - head);
}

void proto_engine::post(std::uint32_t ch, std::vector<std::uint8_t> m, double at)
{
	if (coherent::cpu_initiated(cfg_.v))
		throw error(errc::invalid_argument, "sim:eci device: post() is for device-initiated variants");
	if (m.empty() || m.size() > coherent::max_message)
		throw error(errc::out_of_range, fmt::format("sim:eci device: message of {} bytes (1..{})", m.size(),
							    coherent::max_message));
	if (at < ctx_.now())
		at = ctx_.now();
	ch_.at(ch).outbox.emplace_back(at, std::move(m));
	ctx_.at(at, [this, ch] { try_send(ch); });
}

void proto_engine::restart()
{
	for (std::uint32_t i = 0; i < ch_.size(); ++i) {
		auto &c = ch_[i];
		int held = c.held;
		c.ans = -1;
		c.taken = 0;
		c.synced = false;
		c.pending = false;
		c.held = -1;
		c.reclaimed = false;
		new_token(c);
		c.busy = c.resp_pending = c.delivered_unacked = false;
		c.cur_seq = c.next_chunk = 0;
		c.req.clear();
		c.resp.clear();
		c.out_sent = 0;
		c.fill_done = c.back_at = -1;
		set_all_lent(c, coherent::device_homed(cfg_.v)); // as at power-on
		if (held >= 0) // the directory still holds that load: handle it afresh
			ctx_.at(ctx_.now(), [this, i, held] { signal(i, static_cast<unsigned>(held)); });
	}
}

} // namespace pioc::sim::eci
