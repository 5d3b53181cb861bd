// The device end of two CNI cachable queues in the ECI model (eci_cq.hpp).
// Everything the device does goes through engine_ctx: answers to the CPU's
// requests, LCI to take a line back, UL to release it.
#include <pioc/error.hpp>
#include <pioc/sim/eci_cq.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace pioc::sim::eci {

cq_engine::cq_engine(system &sys, cq_config cfg)
    : sys_(sys), ctx_(sys), cfg_(std::move(cfg)), line_(sys.cfg().line_size)
{
	if (cfg_.entries < 2)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci cq: {} entries per ring; a cachable queue needs at least 2",
					cfg_.entries));
	if (line_ > 65536)
		throw error(errc::invalid_argument,
			    fmt::format("sim:eci cq: {}-byte lines; the entry header's 16-bit length needs <= 64 KiB",
					line_));
	if (cfg_.base % line_)
		throw error(errc::misaligned,
			    fmt::format("sim:eci cq: ring base {:#x} is not aligned to the {}-byte line", cfg_.base,
					line_));
	const std::uint64_t ring = std::uint64_t(cfg_.entries + 1) * line_;
	to_ = cfg_.base;
	from_ = to_ + ring;
	granted_.assign(cfg_.entries, not_granted);
	resp_.resize(line_ - 8);
	if (from_ + ring > sys.cfg().device_bytes)
		throw error(errc::out_of_range,
			    fmt::format("sim:eci cq: two rings of {} entries need {} bytes from {:#x}; the "
					"device-homed window has {:#x} bytes",
					cfg_.entries, 2 * ring, cfg_.base, sys.cfg().device_bytes));
	sys_.attach(this);
}

cq_engine::~cq_engine()
{
	if (sys_.engine() == this)
		sys_.attach(nullptr);
}

std::uint64_t cq_engine::entry(std::uint64_t ring, std::uint64_t i) const noexcept
{
	return ring + (1 + i % cfg_.entries) * line_;
}

line_bytes cq_engine::bytes_of(const std::uint8_t *p, std::size_t n)
{
	line_bytes b;
	if (n) {
		b.assign(n, 0);
		std::memcpy(b.data(), p, n);
	}
	return b;
}

bool cq_engine::is_entry(std::uint64_t ring, std::uint64_t line) const noexcept
{
	return line >= ring + line_ && line < ring + std::uint64_t(cfg_.entries + 1) * line_;
}

void cq_engine::post(std::vector<std::uint8_t> m, double at)
{
	if (m.size() > line_ - 8)
		throw error(errc::out_of_range,
			    fmt::format("sim:eci cq: a {}-byte message does not fit a {}-byte entry ({} bytes of payload)",
					m.size(), line_, line_ - 8));
	outbox_.emplace_back(at < 0 ? ctx_.now() : std::max(at, ctx_.now()), bytes_of(m.data(), m.size()));
	pump_out();
}

void cq_engine::on_request(engine_ctx &ctx, std::uint64_t addr, bool exclusive)
{
	std::uint64_t line = addr - addr % line_;
	if (is_entry(to_, line)) {
		// The CPU is about to write this entry: grant it, look later.
		ctx.answer(line, true);
		granted(line) = ctx.now();
		poll_in();
		return;
	}
	// Entries of the device's ring and the CPU -> device head are only read
	// by the CPU (Shared unless it asked for more); the CPU's own head of
	// the device's ring it writes (Exclusive).
	ctx.answer(line, exclusive);
}

bool cq_engine::plain_read(std::uint64_t addr) const { return !is_entry(to_, addr - addr % line_); }

void cq_engine::on_victim(engine_ctx &, std::uint64_t addr, bool)
{
	// An entry the CPU evicted is back in the device's memory: the next
	// look at it costs no link message.
	if (is_entry(to_, addr - addr % line_))
		poll_in();
}

// ---------------------------------------------------------------- CPU -> device

void cq_engine::poll_in()
{
	// A device has finite buffers: with a ring's worth of answers waiting
	// for room in its own ring it stops taking requests (backpressure).
	if (recalling_ || busy_ || outbox_.size() >= cfg_.entries)
		return;
	std::uint64_t line = entry(to_, in_head_);
	const double got = granted(line);
	if (got == not_granted)
		return; // the CPU has not asked for the next entry: nothing new can be there
	double when = got + cfg_.recall_ns;
	if (ctx_.now() < when) {
		if (!poll_armed_) {
			poll_armed_ = true;
			ctx_.at(when, [this] {
				poll_armed_ = false;
				poll_in();
			});
		}
		return;
	}
	recalling_ = true;
	++st_.recalls;
	ctx_.clean_invalidate(line, [this, line] {
		recalling_ = false;
		granted(line) = not_granted;
		std::uint64_t h;
		std::memcpy(&h, ctx_.data(line), 8);
		if (!coherent::cq_entry::valid(h, coherent::cq_entry::sense(in_head_, cfg_.entries))) {
			// Taken back before the CPU wrote it: the CPU asks again (RLDX)
			// when it stores, and the device looks again after that.
			++st_.empty_recalls;
			ctx_.unlock(line);
			return;
		}
		consume(line);
	});
}

void cq_engine::consume(std::uint64_t line)
{
	const std::uint8_t *d = ctx_.data(line);
	std::uint64_t h;
	std::memcpy(&h, d, 8);
	std::size_t n = std::min<std::size_t>(coherent::cq_entry::length(h), line_ - 8);
	req_.assign(d + 8, d + 8 + n);
	ctx_.unlock(line);
	++in_head_;
	++st_.received;
	write_head();
	busy_ = true;
	ctx_.at(ctx_.now() + cfg_.compute_ns, [this] {
		busy_ = false;
		std::fill(resp_.begin(), resp_.end(), 0); // the handler sees zeros where it writes nothing
		std::size_t r = req_.size();
		if (cfg_.handler) {
			r = cfg_.handler(req_.data(), req_.size(), resp_.data(), resp_.size());
			if (r > resp_.size())
				throw error(errc::out_of_range,
					    fmt::format("sim:eci cq: the device's handler returned {} bytes; an entry "
							"carries {}",
							r, resp_.size()));
		} else {
			std::copy(req_.begin(), req_.end(), resp_.begin());
		}
		if (r) {
			outbox_.emplace_back(ctx_.now(), bytes_of(resp_.data(), r));
			pump_out();
		}
		poll_in();
	});
}

void cq_engine::write_head()
{
	if (head_busy_) {
		head_dirty_ = true; // one more update once this one is done
		return;
	}
	head_busy_ = true;
	head_dirty_ = false;
	++st_.head_writes;
	// The CPU may hold a Shared copy from a lazy read: take it back first
	// (only the directory's local operations if it holds none).
	ctx_.clean_invalidate(to_, [this] {
		std::uint64_t v = in_head_;
		std::memcpy(ctx_.data(to_), &v, 8);
		ctx_.unlock(to_);
		head_busy_ = false;
		if (head_dirty_)
			write_head();
	});
}

// ---------------------------------------------------------------- device -> CPU

void cq_engine::pump_out()
{
	if (sending_ || outbox_.empty())
		return;
	auto later = [this](double t) {
		if (pump_armed_)
			return;
		pump_armed_ = true;
		ctx_.at(t, [this] {
			pump_armed_ = false;
			pump_out();
		});
	};
	if (outbox_.front().first > ctx_.now())
		return later(outbox_.front().first);
	if (out_tail_ - out_shadow_head_ == cfg_.entries) {
		// Looks full: read the CPU's head (lazy pointer), taking its line.
		sending_ = true;
		++st_.head_reads;
		ctx_.clean_invalidate(from_, [this, later] {
			std::memcpy(&out_shadow_head_, ctx_.data(from_), 8);
			ctx_.unlock(from_);
			sending_ = false;
			if (out_tail_ - out_shadow_head_ >= cfg_.entries) {
				++st_.full_waits;
				later(ctx_.now() + cfg_.retry_ns);
			} else {
				pump_out();
			}
		});
		return;
	}
	std::uint64_t line = entry(from_, out_tail_);
	sending_ = true;
	// Invalidate the CPU's polled copy, write the entry, unlock: the CPU's
	// next poll misses and finds the message.
	ctx_.clean_invalidate(line, [this, line] {
		auto &m = outbox_.front().second;
		std::uint8_t *d = ctx_.data(line);
		if (m.size())
			std::memcpy(d + 8, m.data(), m.size());
		std::uint64_t h = coherent::cq_entry::header(coherent::cq_entry::sense(out_tail_, cfg_.entries), m.size());
		std::memcpy(d, &h, 8);
		ctx_.unlock(line);
		++out_tail_;
		++st_.sent;
		outbox_.pop_front();
		sending_ = false;
		pump_out();
		poll_in(); // room in the outbox again
	});
}

} // namespace pioc::sim::eci
