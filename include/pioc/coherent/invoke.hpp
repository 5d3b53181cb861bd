/** @file
 * The CPU side of the Fig. 5 protocols, written once over a line-access
 * policy (pioc/coherent/lines.hpp): pioc::coherent::mem_lines on a real
 * cacheable mapping, eci_sim_lines in the ECI model.
 *
 *  - invoker: CPU-initiated (Fig. 5a, 5c): write the request into line 1-p,
 *    barrier, load line p; the device delays that load until it has pulled
 *    the request and computed the answer. The CPU code is identical for
 *    device-homed and CPU-homed lines; the device differs.
 *  - receiver: device-initiated (Fig. 5b, 5d): load line p; the device
 *    answers when it has a message; the next load (on 1-p) acknowledges it.
 *
 * A "not ready" answer (valid = 0) flips parity like any answer; software
 * then loads the other line. Nothing here spins on a line: each load blocks
 * in the cache until the device answers it.
 */
#pragma once

#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/proto.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace pioc::coherent {

namespace detail {
inline std::uint32_t chunks(std::size_t n, std::uint32_t cap) noexcept
{
	return n == 0 ? 1 : static_cast<std::uint32_t>((n + cap - 1) / cap);
}
} // namespace detail

template <line_policy Lines>
class invoker {
public:
	/** @p lay must describe lines of the window @p lines maps; parity starts
	 *  at 0 (load A, request in B), the state after the device's reset. */
	invoker(Lines lines, layout lay, cpu_options o = {}) : L_(lines), lay_(lay), opt_(o)
	{
		if (lay_.line != L_.line_size())
			throw error(errc::invalid_argument,
				    fmt::format("coherent: layout line size {} differs from the mapping's {}", lay_.line,
						L_.line_size()));
		if (opt_.pipelined && lay_.data_lines == 0)
			throw error(errc::invalid_argument, "coherent: pipelined mode needs data lines in the layout");
	}

	/** One synchronous invocation: sends @p req (up to 16 KiB), returns the
	 *  response length written to @p resp. Throws errc::out_of_range if the
	 *  request is too large or the response does not fit @p cap,
	 *  errc::timeout after max_not_ready "not ready" answers in a row,
	 *  errc::device_error if the device answers out of step (then resync()). */
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

	/** Brings parity back in step after either side restarted: cleans both
	 *  control lines out of the cache, writes a SYNC into B and loads A.
	 *  Afterwards parity is 1 on both sides. */
	void resync()
	{
		++st_.resyncs;
		L_.evict(lay_.ctrl_off(0));
		L_.evict(lay_.ctrl_off(1));
		std::uint32_t seq = ++seq_;
		// No payload goes with a SYNC, so a plain store; the barrier only
		// gets it out before the load (as in exchange()).
		L_.store64(lay_.ctrl_off(1), ctrl::make(kind::sync, true, 0, seq).w);
		L_.store_load();
		p_ = 0;
		unsigned ans;
		ctrl a = await(seq, ans);
		if (a.k() != kind::sync_ack)
			throw error(errc::device_error, "coherent: device did not acknowledge SYNC");
	}

	unsigned parity() const noexcept { return p_; }
	const cpu_stats &stats() const noexcept { return st_; }
	const layout &lay() const noexcept { return lay_; }
	Lines &lines() noexcept { return L_; }

private:
	/** Loads line p until a valid answer arrives; flips parity each time. */
	ctrl await(std::uint32_t seq, unsigned &answered)
	{
		for (std::uint32_t nr = 0;;) {
			// Acquire (LDAR on arm64): the caller copies the payload and the
			// data lines after this returns, and a branch on the control word
			// does not keep those loads behind it on ARMv8
			// (tests/herd/invoke-control-before-data.litmus).
			ctrl a{L_.load_acquire(lay_.ctrl_off(p_))};
			answered = p_;
			p_ ^= 1;
			++st_.exchanges;
			if (!a.valid()) {
				++st_.not_ready;
				if (++nr > opt_.max_not_ready)
					throw error(errc::timeout,
						    fmt::format("coherent: device answered 'not ready' {} times in a row",
								nr));
				continue; // retry on the other line
			}
			if (a.seq() != seq)
				throw error(errc::device_error,
					    fmt::format("coherent: answer for message {} while waiting for {}: parity "
							"out of step with the device (call resync())",
							a.seq(), seq));
			return a;
		}
	}

	ctrl exchange(ctrl c, const std::uint8_t *data, std::size_t n, unsigned &answered)
	{
		unsigned r = p_ ^ 1;
		L_.store_bytes(lay_.ctrl_off(r) + ctrl_bytes, data, n);
		// Release (STLR on arm64): the payload and data lines stored before
		// are visible no later than the control word, so a device that
		// answers with our sequence number has read our request
		// (tests/herd/invoke-request-before-signal.litmus; its .plain-store
		// twin is the old STR, which the DMB SY below did not order).
		L_.store_release(lay_.ctrl_off(r), c.w);
		// DMB SY / MFENCE: the request leaves the store buffer before the
		// signalling load goes out, so the device finds it and the first
		// answer is not "not ready". Latency, not correctness: correctness
		// rests on the release above and the sequence check in await()
		// (tests/herd/x86-store-then-signal.litmus shows the reordering).
		L_.store_load();
		return await(c.seq(), answered);
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
			a = exchange(ctrl::make(kind::request, last, len, seq, k), src + off, len, ans);
			if (!last && a.k() != kind::ack)
				throw error(errc::device_error, "coherent: device did not acknowledge a request chunk");
		}
		std::size_t got = 0;
		for (std::uint32_t k = 1;; ++k) {
			if (a.k() != kind::response)
				throw error(errc::device_error,
					    fmt::format("coherent: expected a response, device answered kind {}",
							unsigned(a.k())));
			std::size_t take = std::min<std::size_t>(a.len(), cap - std::min(cap, got));
			L_.load_bytes(lay_.ctrl_off(ans) + ctrl_bytes, dst + got, take);
			got += a.len();
			if (a.last())
				break;
			a = exchange(ctrl::make(kind::more, true, 0, seq, k), nullptr, 0, ans);
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
		for (std::size_t off = head, i = 0; off < n; off += line, ++i)
			L_.store_bytes(lay_.data_off(r, static_cast<std::uint32_t>(i)), src + off,
				       std::min<std::size_t>(line, n - off));
		unsigned ans;
		ctrl a = exchange(ctrl::make(kind::request, true, static_cast<std::uint32_t>(n), seq, pipelined_chunk), src, head, ans);
		if (a.k() != kind::response)
			throw error(errc::device_error, "coherent: expected a response");
		std::size_t total = a.len();
		if (total > cap)
			throw error(errc::out_of_range,
				    fmt::format("coherent: response of {} bytes does not fit the {}-byte buffer", total,
						cap));
		std::size_t rhead = std::min<std::size_t>(total, in);
		std::uint64_t offs[128];
		std::uint32_t nlines = static_cast<std::uint32_t>((total - rhead + line - 1) / line);
		for (std::uint32_t i = 0; i < nlines;) { // every data line of the answer in flight at once
			std::uint32_t k = std::min<std::uint32_t>(128, nlines - i);
			for (std::uint32_t j = 0; j < k; ++j)
				offs[j] = lay_.data_off(ans, i + j);
			L_.load_lines(offs, k);
			i += k;
		}
		L_.load_bytes(lay_.ctrl_off(ans) + ctrl_bytes, dst, rhead);
		for (std::size_t off = rhead, i = 0; off < total; off += line, ++i)
			L_.load_bytes(lay_.data_off(ans, static_cast<std::uint32_t>(i)), dst + off,
				      std::min<std::size_t>(line, total - off));
		return total;
	}

	Lines L_;
	layout lay_;
	cpu_options opt_;
	unsigned p_ = 0;
	std::uint32_t seq_ = 0;
	cpu_stats st_;
};

template <line_policy Lines>
class receiver {
public:
	receiver(Lines lines, layout lay, cpu_options o = {}) : L_(lines), lay_(lay), opt_(o) {}

	/** Waits for the device's next message (up to 16 KiB, over as many line
	 *  exchanges as it takes). Returns its length, or 0 if the device
	 *  answered "not ready" @p max_not_ready times in a row. */
	std::size_t receive(void *buf, std::size_t cap, std::uint32_t max_not_ready = 1)
	{
		auto *dst = static_cast<std::uint8_t *>(buf);
		std::size_t got = 0;
		for (std::uint32_t nr = 0;;) {
			// Acquire: the payload is loaded after the control word that
			// announced it (tests/herd/invoke-control-before-data.litmus).
			ctrl a{L_.load_acquire(lay_.ctrl_off(p_))};
			unsigned ans = p_;
			p_ ^= 1;
			++st_.exchanges;
			if (!a.valid()) {
				++st_.not_ready;
				if (got == 0 && ++nr >= max_not_ready)
					return 0;
				continue;
			}
			if (a.k() != kind::message)
				throw error(errc::device_error, "coherent: device sent something other than a message");
			if (got == 0 && seq_ != 0 && a.seq() == seq_) {
				// A line the device does not hold (CPU-homed, read back from
				// DRAM after a silent eviction) shows the old message: move on.
				++st_.not_ready;
				continue;
			}
			if (got == 0)
				seq_ = a.seq();
			else if (a.seq() != seq_ || a.chunk() == 0)
				throw error(errc::device_error, "coherent: message chunks out of order (device restarted?)");
			std::size_t take = std::min<std::size_t>(a.len(), cap - std::min(cap, got));
			L_.load_bytes(lay_.ctrl_off(ans) + ctrl_bytes, dst + got, take);
			got += a.len();
			if (a.last()) {
				++st_.calls;
				if (got > cap)
					throw error(errc::out_of_range,
						    fmt::format("coherent: message of {} bytes does not fit {} bytes", got, cap));
				return got;
			}
		}
	}
	/** Sequence number of the last message received. */
	std::uint32_t last_seq() const noexcept { return seq_; }
	/** After a restart: clean both lines out of the cache and start at A;
	 *  the device adopts the line the CPU loads. */
	void resync()
	{
		++st_.resyncs;
		L_.evict(lay_.ctrl_off(0));
		L_.evict(lay_.ctrl_off(1));
		p_ = 0;
	}
	unsigned parity() const noexcept { return p_; }
	const cpu_stats &stats() const noexcept { return st_; }

private:
	Lines L_;
	layout lay_;
	cpu_options opt_;
	unsigned p_ = 0;
	std::uint32_t seq_ = 0;
	cpu_stats st_;
};

} // namespace pioc::coherent
