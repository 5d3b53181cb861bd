/** @file
 * The CPU side of the Fig. 5 protocols, written once over a line-access
 * policy (pioc/coherent/lines.hpp): pioc::coherent::mem_lines on a real
 * cacheable mapping, eci_sim_lines in the ECI model.
 *
 *  - invoker: CPU-initiated (Fig. 5a, 5c): write the request into line 1-p
 *    (the line the device answered last), barrier, load line p; the device
 *    delays that load until it has pulled the request and computed the
 *    answer. The CPU code is identical for device-homed and CPU-homed
 *    lines; the device differs.
 *  - receiver: device-initiated (Fig. 5b, 5d): write an ACK word into line
 *    1-p (it acknowledges the message read there), barrier, load line p; the
 *    device answers when it has a message.
 *
 * The signal is "a load of p while line 1-p holds a CPU word the device has
 * not consumed": the device answers every other read (re-reads after an
 * eviction, prefetches, speculative loads) without running anything, and
 * every read of the answered line with the same answer. So the CPU checks
 * each answer against the word it sent (kind, sequence, chunk); a "not
 * ready" or anything else (a stale or speculative copy) is dropped from the
 * cache (evict) and the same line loaded again. Parity flips only on the
 * answer to the CPU's word. Opening a channel is a SYNC with a fresh session
 * number (see Documentation/protocols.md). Nothing here spins on a line
 * without the device's knowledge: each load that misses blocks in the cache
 * until the device answers it.
 */
#pragma once

#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/proto.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

namespace pioc::coherent {

namespace detail {
inline std::uint32_t chunks(std::size_t n, std::uint32_t cap) noexcept
{
	return n == 0 ? 1 : static_cast<std::uint32_t>((n + cap - 1) / cap);
}
/** A session number no earlier owner of the channel is likely to have used
 *  (2^-32 per open), so a SYNC and the words after it are new to the device
 *  whatever a previous process or the device's reset left behind. */
inline std::uint32_t fresh_session(std::uint32_t forced)
{
	if (forced)
		return forced;
	std::random_device rd;
	std::uint32_t s;
	do
		s = rd();
	while (s == 0);
	return s;
}

/** Opens a session: SYNC(++nonce) into the line opposite the one loaded,
 *  until the load comes back SYNC_ACK(nonce); @p nonce ends as the session
 *  number. The CPU does not know which
 *  line the device answered last; a load of that line returns its old
 *  answer (stale), so the other orientation is tried; "not ready" keeps the
 *  orientation (the device is busy or has not seen the word yet). Returns
 *  the parity after it (the line to load next). */
template <class Lines>
unsigned open_session(Lines &L, const layout &lay, std::uint32_t &nonce, std::uint32_t max_tries, cpu_stats &st)
{
	L.evict(lay.ctrl_off(0));
	L.evict(lay.ctrl_off(1));
	unsigned x = 0;
	for (std::uint32_t t = 0; t < max_tries; ++t) {
		// A new number per try: a SYNC that a speculative read made the
		// device consume, its answer then overwritten by our next store,
		// would otherwise look old to the device forever.
		const ctrl sync = ctrl::make(kind::sync, true, 0, ++nonce);
		L.evict(lay.ctrl_off(x)); // it may hold our SYNC of the try before: the load must reach the device
		L.store_release(lay.ctrl_off(x ^ 1), sync.w);
		L.store_load(); // the SYNC is visible before the load that signals it
		ctrl a{L.load64(lay.ctrl_off(x))};
		if (a.valid() && a.k() == kind::sync_ack && a.seq() == nonce)
			return x ^ 1;
		++st.not_ready;
		if (a.valid())
			x ^= 1;
	}
	throw error(errc::timeout, fmt::format("coherent: no SYNC_ACK after {} tries", max_tries));
}

/** Hands the offsets of bank @p b's first @p nlines lines to @p op, up to
 *  128 at a time (load_lines / claim_lines: all of them in flight). */
template <class Op> void bank_lines(const layout &lay, unsigned b, std::uint32_t nlines, Op op)
{
	std::uint64_t offs[128];
	for (std::uint32_t i = 0; i < nlines;) {
		const std::uint32_t k = std::min<std::uint32_t>(128, nlines - i);
		for (std::uint32_t j = 0; j < k; ++j)
			offs[j] = lay.data_off(b, i + j);
		op(offs, k);
		i += k;
	}
}

/** Copies a message of @p total bytes that came whole (chunk 0x7ff) on
 *  control line @p x, at most @p cap of them: the inline bytes, then bank x.
 *  Every bank line it uses is loaded first, all in flight together; the
 *  caller loaded the control word with acquire, so none of these loads is
 *  satisfied before it (tests/herd/invoke-control-before-data.litmus). */
template <class Lines>
void copy_whole(Lines &L, const layout &lay, unsigned x, std::uint8_t *dst, std::size_t total, std::size_t cap)
{
	const std::uint32_t line = lay.line;
	const std::size_t head = std::min<std::size_t>(total, lay.inline_bytes());
	bank_lines(lay, x, static_cast<std::uint32_t>((total - head + line - 1) / line),
		   [&L](const std::uint64_t *offs, std::uint32_t k) { L.load_lines(offs, k); });
	const std::size_t upto = std::min(total, cap);
	L.load_bytes(lay.ctrl_off(x) + ctrl_bytes, dst, std::min(head, upto));
	for (std::size_t off = head, i = 0; off < upto; off += line, ++i)
		L.load_bytes(lay.data_off(x, static_cast<std::uint32_t>(i)), dst + off,
			     std::min<std::size_t>(line, upto - off));
}
} // namespace detail

template <line_policy Lines>
class invoker {
public:
	/** @p lay must describe lines of the window @p lines maps. Opens a
	 *  session (resync()): whatever the channel's previous owner or a device
	 *  reset left in the caches and the device, no answer from before can be
	 *  taken for an answer to this invoker. */
	invoker(Lines lines, layout lay, cpu_options o = {}) : L_(lines), lay_(lay), opt_(o)
	{
		if (lay_.line != L_.line_size())
			throw error(errc::invalid_argument,
				    fmt::format("coherent: layout line size {} differs from the mapping's {}", lay_.line,
						L_.line_size()));
		if (opt_.pipelined && lay_.data_lines == 0)
			throw error(errc::invalid_argument, "coherent: pipelined mode needs data lines in the layout");
		resync();
	}

	/** One synchronous invocation: sends @p req (up to 16 KiB), returns the
	 *  response length written to @p resp. Throws errc::out_of_range if the
	 *  request is too large or the response does not fit @p cap,
	 *  errc::timeout after max_not_ready "not ready" (or stale) answers in a
	 *  row, errc::device_error if the device answers out of step (it
	 *  restarted: then resync(); whether the request ran before the restart
	 *  is unknown, it never runs twice). */
	std::size_t call(const void *req, std::size_t n, void *resp, std::size_t cap)
	{
		auto *src = static_cast<const std::uint8_t *>(req);
		auto *dst = static_cast<std::uint8_t *>(resp);
		if (n > max_message)
			throw error(errc::out_of_range,
				    fmt::format("coherent: request of {} bytes exceeds the {}-byte message limit", n,
						max_message));
		std::uint32_t seq = ++seq_;
		++st_.calls;
		return opt_.pipelined ? call_pipelined(src, n, dst, cap, seq) : call_lines(src, n, dst, cap, seq);
	}

	/** Opens a new session: cleans both control lines out of the cache and
	 *  exchanges SYNC / SYNC_ACK with a fresh session number (the base of
	 *  the sequence numbers that follow). */
	void resync()
	{
		++st_.resyncs;
		session_ = detail::fresh_session(opt_.session);
		p_ = detail::open_session(L_, lay_, session_, opt_.max_not_ready, st_);
		seq_ = session_;
	}

	unsigned parity() const noexcept { return p_; }
	/** The session number of the last resync(). */
	std::uint32_t session() const noexcept { return session_; }
	const cpu_stats &stats() const noexcept { return st_; }
	const layout &lay() const noexcept { return lay_; }
	Lines &lines() noexcept { return L_; }

private:
	/** Loads line p until the device's answer to @p c arrives (kind @p want,
	 *  c's sequence number, chunk @p chunk); flips parity then. "Not ready"
	 *  and any other content (a stale or speculatively fetched copy) are
	 *  evicted and p loaded again: the device runs nothing on those loads. */
	ctrl await(ctrl c, kind want, std::uint32_t chunk, unsigned &answered)
	{
		for (std::uint32_t nr = 0;;) {
			// Acquire (LDAR on arm64): the caller copies the payload and the
			// data lines after this returns, and a branch on the control word
			// does not keep those loads behind it on ARMv8
			// (tests/herd/invoke-control-before-data.litmus).
			ctrl a{L_.load_acquire(lay_.ctrl_off(p_))};
			++st_.exchanges;
			if (a.valid() && a.seq() == c.seq() && a.k() == want && a.chunk() == chunk) {
				answered = p_;
				p_ ^= 1;
				return a;
			}
			// SYNC_ACK for our word: the device restarted. Another answer on a
			// load that reached the device (we evicted the line before it):
			// the device answered p already, so the sides disagree on parity.
			if (a.valid() && ((a.seq() == c.seq() && a.k() == kind::sync_ack) || (nr > 0 && !own_word(a))))
				throw error(errc::device_error,
					    fmt::format("coherent: the device answered message {} out of step (it "
							"restarted): call resync()",
							c.seq()));
			++st_.not_ready;
			if (++nr > opt_.max_not_ready)
				throw error(errc::timeout,
					    fmt::format("coherent: device answered 'not ready' (or stale) {} times in a row",
							nr));
			L_.evict(lay_.ctrl_off(p_)); // the next load must reach the device
		}
	}

	ctrl exchange(ctrl c, const std::uint8_t *data, std::size_t n, kind want, std::uint32_t chunk,
		      unsigned &answered)
	{
		unsigned r = p_ ^ 1;
		L_.store_bytes(lay_.ctrl_off(r) + ctrl_bytes, data, n);
		// Release (STLR on arm64): the payload and data lines stored before
		// are visible no later than the control word, so whenever the device
		// looks (a speculative read may make it look at any time) a new word
		// comes with its payload (tests/herd/invoke-request-before-signal.litmus).
		L_.store_release(lay_.ctrl_off(r), c.w);
		// DMB SY / MFENCE: the request leaves the store buffer before the
		// signalling load goes out, so the device finds it and the first
		// answer is not "not ready". Latency, not correctness: correctness
		// rests on the release above and the answer check in await()
		// (tests/herd/x86-store-then-signal.litmus shows the reordering).
		L_.store_load();
		return await(c, want, chunk, answered);
	}

	std::size_t call_lines(const std::uint8_t *src, std::size_t n, std::uint8_t *dst, std::size_t cap,
			       std::uint32_t seq)
	{
		const std::uint32_t in = lay_.inline_bytes();
		const std::uint32_t nreq = detail::chunks(n, in);
		unsigned ans = 0;
		ctrl a;
		for (std::uint32_t k = 0; k < nreq; ++k) {
			std::size_t off = std::size_t(k) * in;
			auto len = static_cast<std::uint32_t>(std::min<std::size_t>(in, n - off));
			bool last = k + 1 == nreq;
			a = exchange(ctrl::make(kind::request, last, len, seq, k), src + off, len,
				     last ? kind::response : kind::ack, last ? 0 : k, ans);
		}
		std::size_t got = 0;
		for (std::uint32_t k = 1;; ++k) {
			std::size_t take = std::min<std::size_t>(a.len(), cap - std::min(cap, got));
			// May miss (the line was evicted since the control load): the
			// device serves the answered line again, unchanged.
			L_.load_bytes(lay_.ctrl_off(ans) + ctrl_bytes, dst + got, take);
			got += a.len();
			if (a.last())
				break;
			a = exchange(ctrl::make(kind::more, true, 0, seq, k), nullptr, 0, kind::response, k, ans);
		}
		if (got > cap)
			throw error(errc::out_of_range,
				    fmt::format("coherent: response of {} bytes does not fit the {}-byte buffer", got, cap));
		return got;
	}

	std::size_t call_pipelined(const std::uint8_t *src, std::size_t n, std::uint8_t *dst, std::size_t cap,
				   std::uint32_t seq)
	{
		if (n > lay_.max_pipelined())
			throw error(errc::out_of_range,
				    fmt::format("coherent: request of {} bytes exceeds the channel's {} bytes ({} data "
						"lines per bank)",
						n, lay_.max_pipelined(), lay_.data_lines));
		const std::uint32_t in = lay_.inline_bytes(), line = lay_.line;
		unsigned r = p_ ^ 1;
		std::size_t head = std::min<std::size_t>(n, in);
		// Ownership of every bank line the request uses, all requested at
		// once (prfm pstl1keep): the stores below hit instead of missing
		// one after another.
		detail::bank_lines(lay_, r, static_cast<std::uint32_t>((n - head + line - 1) / line),
				   [this](const std::uint64_t *offs, std::uint32_t k) { L_.claim_lines(offs, k); });
		for (std::size_t off = head, i = 0; off < n; off += line, ++i)
			L_.store_bytes(lay_.data_off(r, static_cast<std::uint32_t>(i)), src + off,
				       std::min<std::size_t>(line, n - off));
		unsigned ans;
		ctrl a = exchange(ctrl::make(kind::request, true, static_cast<std::uint32_t>(n), seq, pipelined_chunk), src,
				  head, kind::response, pipelined_chunk, ans);
		std::size_t total = a.len();
		if (total > cap)
			throw error(errc::out_of_range,
				    fmt::format("coherent: response of {} bytes does not fit the {}-byte buffer", total,
						cap));
		++st_.banked;
		detail::copy_whole(L_, lay_, ans, dst, total, cap);
		return total;
	}

	/** A word the CPU writes (its own request line read back). */
	static bool own_word(ctrl a) noexcept
	{
		return a.k() == kind::request || a.k() == kind::more || a.k() == kind::sync;
	}

	Lines L_;
	layout lay_;
	cpu_options opt_;
	unsigned p_ = 0;
	std::uint32_t seq_ = 0, session_ = 0;
	cpu_stats st_;
};

template <line_policy Lines>
class receiver {
public:
	/** Opens a session (resync()): message numbers start after its number. */
	receiver(Lines lines, layout lay, cpu_options o = {}) : L_(lines), lay_(lay), opt_(o) { resync(); }

	/** Waits for the device's next message (up to 16 KiB, over as many line
	 *  exchanges as it takes). Returns its length, or 0 if the device
	 *  answered "not ready" @p max_not_ready times in a row before its first
	 *  chunk. Throws errc::device_error if the device restarted (then
	 *  resync()). */
	std::size_t receive(void *buf, std::size_t cap, std::uint32_t max_not_ready = 1)
	{
		auto *dst = static_cast<std::uint8_t *>(buf);
		std::size_t got = 0;
		std::uint32_t want_seq = last_ + 1, want_chunk = 0;
		for (std::uint32_t nr = 0, stale = 0;;) {
			if (!sent_) { // ACK word: acknowledges the message on that line, asks for the next
				sent_ = ctrl::make(kind::ack, true, 0, ++ackseq_).w;
				L_.store_release(lay_.ctrl_off(p_ ^ 1), sent_);
				L_.store_load(); // the ACK is visible before the load that signals it
			}
			// Acquire: the payload is loaded after the control word that
			// announced it (tests/herd/invoke-control-before-data.litmus).
			ctrl a{L_.load_acquire(lay_.ctrl_off(p_))};
			++st_.exchanges;
			// Data banks: a message may come whole (chunk 0x7ff) in place of its chunk 0.
			const bool whole = want_chunk == 0 && a.chunk() == pipelined_chunk;
			if (a.valid() && a.k() == kind::message && a.seq() == want_seq && (a.chunk() == want_chunk || whole)) {
				unsigned ans = p_;
				p_ ^= 1;
				sent_ = 0;
				if (whole)
					return receive_whole(a, ans, dst, cap);
				std::size_t take = std::min<std::size_t>(a.len(), cap - std::min(cap, got));
				// May miss after an eviction: the device serves the line again, unchanged.
				L_.load_bytes(lay_.ctrl_off(ans) + ctrl_bytes, dst + got, take);
				got += a.len();
				++want_chunk;
				if (a.last()) {
					++st_.calls;
					last_ = a.seq();
					if (got > cap)
						throw error(errc::out_of_range,
							    fmt::format("coherent: message of {} bytes does not fit {} bytes",
									got, cap));
					return got;
				}
				continue;
			}
			if (a.valid() && a.k() == kind::sync_ack && a.seq() == ctrl{sent_}.seq())
				throw error(errc::device_error,
					    "coherent: the device restarted (answered out of step): call resync()");
			++st_.not_ready;
			L_.evict(lay_.ctrl_off(p_)); // the next load must reach the device
			if (!a.valid() && got == 0 && ++nr >= max_not_ready)
				return 0;
			if (++stale > opt_.max_not_ready)
				throw error(errc::timeout, fmt::format("coherent: no message after {} loads", stale));
		}
	}
	/** Sequence number of the last message received (session() + count). */
	std::uint32_t last_seq() const noexcept { return last_; }
	/** The session number: the device numbers this owner's messages from it + 1. */
	std::uint32_t session() const noexcept { return session_; }
	/** Opens a new session (SYNC with a fresh number; see invoker::resync()).
	 *  Messages the device delivered to the previous owner and that were
	 *  never acknowledged are not sent again (the device counts them). */
	void resync()
	{
		++st_.resyncs;
		session_ = detail::fresh_session(opt_.session);
		sent_ = 0;
		p_ = detail::open_session(L_, lay_, session_, opt_.max_not_ready, st_);
		last_ = ackseq_ = session_;
	}
	unsigned parity() const noexcept { return p_; }
	const cpu_stats &stats() const noexcept { return st_; }

private:
	/** Message @p a came whole on line @p ans: the rest is in bank ans. */
	std::size_t receive_whole(ctrl a, unsigned ans, std::uint8_t *dst, std::size_t cap)
	{
		if (!lay_.data_lines || a.len() > lay_.max_pipelined())
			throw error(errc::device_error,
				    fmt::format("coherent: message {} of {} bytes came whole (chunk {:#x}) on the channel at "
						"{:#x}, which has {} data lines per bank ({} bytes at most): call resync()",
						a.seq(), a.len(), pipelined_chunk, lay_.base, lay_.data_lines,
						lay_.max_pipelined()));
		detail::copy_whole(L_, lay_, ans, dst, a.len(), cap);
		++st_.calls;
		++st_.banked;
		last_ = a.seq();
		if (a.len() > cap)
			throw error(errc::out_of_range,
				    fmt::format("coherent: message of {} bytes does not fit {} bytes", a.len(), cap));
		return a.len();
	}

	Lines L_;
	layout lay_;
	cpu_options opt_;
	unsigned p_ = 0;
	std::uint32_t session_ = 0, last_ = 0, ackseq_ = 0;
	std::uint64_t sent_ = 0; // the ACK word written and not yet answered
	cpu_stats st_;
};

} // namespace pioc::coherent
