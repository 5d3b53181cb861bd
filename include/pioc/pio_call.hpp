/** @file
 * A PIO invocation prepared once for a timed loop (issue 13: a library that
 * costs nothing).
 *
 *  pioc::pio::call<MT, IO> c(io, st, pioc::pio::op::echo, 64); // checks once
 *  for (...) len = c(req, resp);                              // Fig. 3's work
 *
 * pio::invoke() checks on every call what a loop never changes: the view's
 * access width, that the request is whole 8-byte words, and it builds the
 * doorbell from op and length. A call does those once, when it is built: the
 * length (1..max_payload, throwing like invoker::invoke), the view (8-byte
 * accesses) and the answer the device owes (response_len()). Each call then
 * stores the request words, rings the precomputed doorbell, loads the status
 * and compares all 64 bits of it with the one status that completes this
 * invocation (done, sequence and the expected response length at once), and
 * loads the response words. Anything else (NOT_READY, a bad or stale status,
 * a response of another length) leaves through the same cold tail calls as
 * invoke(), with the same errors. A wide ISA, a request that is not whole
 * words, and the simulated view take invoke()'s general path, decided when
 * the call was built (the simulated and hardware views run the same code:
 * only the I/O view differs, at compile time).
 */
#pragma once

#include <pioc/error.hpp>
#include <pioc/pio.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pioc::pio {

/** The INVOKE_STATUS that completes invocation @p seq with a response of
 *  @p len bytes: STATUS_DONE | seq << 32 | len. */
constexpr std::uint64_t expected_status(std::uint32_t seq, std::uint32_t len) noexcept
{
	return std::uint64_t(expected_status_hi(seq)) << 32 | len;
}

namespace detail {
/** Refuses a request length no invocation can have (invoker::invoke's rule). */
void check_request_len(const invoke_state &st, op o, std::size_t n);
} // namespace detail

/** One invocation of @p o on requests of a fixed length, over view @p IO
 *  with memory type @p MT. Holds @p st by reference: calls and invoke() may
 *  be mixed on one state. Copyable; the view must outlive it. */
template <mem_type MT, class IO> class call {
public:
	/** Checks @p n (1..max_payload; throws errc::invalid_argument or
	 *  errc::out_of_range, naming st.device) and picks the path. */
	call(const IO &io, invoke_state &st, op o, std::size_t n)
		: io_(io), st_(&st), doorbell_(doorbell_value(o, n)), n_(static_cast<std::uint32_t>(n)),
		  rlen_(static_cast<std::uint32_t>(pio::response_len(o, n))), o_(o)
	{
		detail::check_request_len(st, o, n);
		if constexpr (!IO::simulated)
			words_ = io.isa() == wide_isa::none && n % 8 == 0 && rlen_ % 8 == 0;
	}

	/** The response length the device owes (what a call returns unless the
	 *  device answers otherwise). */
	std::size_t response_len() const noexcept { return rlen_; }
	std::size_t request_len() const noexcept { return n_; }
	op function() const noexcept { return o_; }
	/** True when calls take the 8-byte word path (hardware view only). */
	bool words() const noexcept { return words_; }

	/** One invocation: @p req holds request_len() bytes, @p resp room for
	 *  max(request_len(), the device's answer) bytes. Returns the response
	 *  length; throws as pio::invoke() does. */
	[[gnu::always_inline]] std::size_t operator()(const void *req, void *resp) const
	{
		if constexpr (IO::simulated) {
			return detail::invoke_any<MT>(io_, *st_, o_, req, n_, resp);
		} else {
			if (!words_) [[unlikely]]
				return detail::invoke_any<MT>(io_, *st_, o_, req, n_, resp);
			// Both are at least one word (checked when built): the loops
			// need no test for zero.
			const std::size_t req_words = n_ / 8, resp_words = rlen_ / 8;
			if (req_words == 0 || resp_words == 0)
				__builtin_unreachable();
			io_.store_words(regs::REQ.offset, static_cast<const std::uint8_t *>(req), req_words);
			detail::ring<MT>(io_, doorbell_);
			const auto s = io_.template load<std::uint64_t>(regs::INVOKE_STATUS.offset);
			const std::uint32_t seq = st_->next_seq;
			if (s != expected_status(seq, rlen_)) [[unlikely]]
				return detail::finish_slow<MT>(io_, *st_, s, resp);
			st_->next_seq = (seq + 1) & static_cast<std::uint32_t>(regs::STATUS_SEQ_MASK);
			if constexpr (MT == mem_type::wt)
				detail::invalidate_lines(io_, regs::RESP.offset, rlen_);
			io_.load_words(regs::RESP.offset, static_cast<std::uint8_t *>(resp), resp_words);
			return rlen_;
		}
	}

private:
	IO io_;
	invoke_state *st_;
	std::uint64_t doorbell_;
	std::uint32_t n_, rlen_;
	op o_;
	bool words_ = false;
};

} // namespace pioc::pio
