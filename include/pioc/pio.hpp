/** @file
 * PIO invocation over PCIe (paper Sec. 4, Fig. 3) and raw PIO streams, for
 * the pioc PIO test image (fpga/regmap/pio_dev.toml).
 *
 * An invocation:
 *  1. the request (1..8192 bytes) is stored into the REQ window (copy_to:
 *     scalar head, wide stores, scalar tail);
 *  2. ordering: on WC mappings an sfence / dsb st (wc_flush) drains the
 *     write-combining buffers so the request reaches the device before the
 *     doorbell; on UC/WT a store_store barrier (compiler-only on x86);
 *  3. one 64-bit store to DOORBELL (length | op << 32), flushed on WC;
 *  4. one 64-bit load of INVOKE_STATUS: the device holds the read until the
 *     result is ready (a non-posted read cannot pass the posted writes before
 *     it), or answers NOT_READY after INVOKE_TIMEOUT cycles; NOT_READY is
 *     retried a bounded number of times, then pioc::error(errc::timeout);
 *  5. the response (as long as the status says) is loaded from RESP.
 *
 * Two layers:
 *  - templates over an I/O view (pioc::mmio_io, pioc::sim_io) with the memory
 *    type as a template parameter: nothing is decided at run time inside them,
 *    so timed loops call them from inside region::visit();
 *  - pioc::pio::invoker, a checked convenience API over a pioc::region.
 */
#pragma once

#include <pioc/enum_names.hpp>
#include <pioc/error.hpp>
#include <pioc/io.hpp>
#include <pioc/mem_type.hpp>
#include <pioc/pio_ops.hpp>
#include <pioc/region.hpp>
#include <pioc/regs/pio_dev.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pioc::pio {

namespace regs = pioc::regs::pio_dev;

/** The names of the device functions (enum_names.hpp). */
inline constexpr enum_name<op> op_names[] = {
	{op::echo, "echo"}, {op::bit_not, "not"}, {op::add1, "add1"}, {op::bloom, "bloom"},
};

/** "echo", "not", "add1", "bloom". */
std::string_view to_string(op o) noexcept;
/** Parses a name of op_names (case-insensitive); nullopt otherwise. */
std::optional<op> parse_op(std::string_view s) noexcept;

/** Largest request (and response) in bytes. */
inline constexpr std::size_t max_payload = regs::MAX_PAYLOAD;

/** The DOORBELL value that starts @p o on @p n request bytes. */
constexpr std::uint64_t doorbell_value(op o, std::size_t n) noexcept
{
	return (std::uint64_t(o) << 32) | std::uint64_t(n);
}

/** What an invocation loop carries from one call to the next. */
struct invoke_state {
	std::uint32_t next_seq = 1;   ///< sequence number the next completion must carry
	unsigned not_ready_retries = 3; ///< NOT_READY answers tolerated per invocation
	std::uint64_t not_ready_seen = 0; ///< NOT_READY answers so far (all invocations)
	const char *device = "device"; ///< names the device in errors (must outlive the state)
};

namespace detail {

/** Error paths, out of line so the hot path stays small. */
[[noreturn, gnu::cold]] void throw_not_ready(const invoke_state &st, unsigned reads);
[[noreturn, gnu::cold]] void throw_bad_status(const invoke_state &st, std::uint64_t status);

/** Drops cached copies of device lines before a WT read (Tide-style): on a
 *  real WT mapping loads are served from the cache after the first one. The
 *  simulator has no cache, so nothing is modelled there. */
template <io_view IO> inline void invalidate_lines(const IO &io, std::uint64_t off, std::size_t n) noexcept
{
	if constexpr (!IO::simulated) {
		const std::uint64_t line = 64; // a multiple of every line size pioc runs on divides this range
		for (std::uint64_t a = off & ~(line - 1); a < off + n; a += line) {
#if defined(__x86_64__)
			_mm_clflush(io.base() + a);
#elif defined(__aarch64__)
			asm volatile("dc civac, %0" ::"r"(io.base() + a) : "memory");
#endif
		}
		io.full();
	} else {
		(void)io, (void)off, (void)n;
	}
}

template <io_view IO> [[gnu::noinline, gnu::cold]] std::uint64_t retry_not_ready(const IO &io, invoke_state &st)
{
	for (unsigned i = 0; i < st.not_ready_retries; ++i) {
		++st.not_ready_seen;
		const auto s = io.template load<std::uint64_t>(regs::INVOKE_STATUS.offset);
		if (s != regs::NOT_READY)
			return s;
	}
	++st.not_ready_seen;
	throw_not_ready(st, st.not_ready_retries + 1);
}

} // namespace detail

namespace detail {
/** Orders the request before the doorbell and rings it with @p doorbell
 *  (doorbell_value(), steps 2-3). */
template <mem_type MT, class IO> [[gnu::always_inline]] inline void ring(const IO &io, std::uint64_t doorbell)
{
	if constexpr (MT == mem_type::wc)
		io.wc_flush();
	else
		io.store_store();
	io.template store<std::uint64_t>(regs::DOORBELL.offset, doorbell);
	if constexpr (MT == mem_type::wc)
		io.wc_flush();
}
} // namespace detail

/** Stores the request and rings the doorbell (steps 1-3). */
template <mem_type MT, class IO>
[[gnu::always_inline]] inline void post(const IO &io, op o, const void *req, std::size_t n)
{
	io.copy_to(regs::REQ.offset, req, n);
	detail::ring<MT>(io, doorbell_value(o, n));
}

/** The high word of the INVOKE_STATUS that completes invocation @p seq:
 *  STATUS_DONE | seq. One compare of it checks done and sequence at once;
 *  NOT_READY (done clear) never matches it. */
constexpr std::uint32_t expected_status_hi(std::uint32_t seq) noexcept
{
	static_assert(regs::STATUS_SEQ_SHIFT == 32 && regs::STATUS_DONE >> 32 == 0x80000000u &&
		      regs::STATUS_SEQ_MASK == 0x7fffffffu && regs::STATUS_LEN_MASK == 0xffffffffu,
		      "status layout: done | seq in the high word, the length in the low one");
	return seq | 0x80000000u;
}

namespace detail {
/** The status did not complete the expected invocation: NOT_READY is
 *  retried (bounded), anything else throws. Returns the good status. */
template <io_view IO> [[gnu::noinline, gnu::cold]] std::uint64_t slow_status(const IO &io, invoke_state &st, std::uint64_t s)
{
	if (s == regs::NOT_READY)
		s = retry_not_ready(io, st);
	if (static_cast<std::uint32_t>(s >> 32) != expected_status_hi(st.next_seq))
		throw_bad_status(st, s);
	return s;
}
} // namespace detail

/** Waits for the completion (step 4); returns the response length. Throws
 *  errc::timeout after too many NOT_READY answers, errc::device_gone on an
 *  all-ones answer, errc::device_error on a stale or malformed status. */
template <io_view IO> [[gnu::always_inline]] inline std::size_t wait(const IO &io, invoke_state &st)
{
	std::uint64_t s = io.template load<std::uint64_t>(regs::INVOKE_STATUS.offset);
	if (static_cast<std::uint32_t>(s >> 32) != expected_status_hi(st.next_seq)) [[unlikely]]
		s = detail::slow_status(io, st, s);
	st.next_seq = (st.next_seq + 1) & static_cast<std::uint32_t>(regs::STATUS_SEQ_MASK);
	return static_cast<std::uint32_t>(s); // STATUS_LEN_MASK
}

/** Reads @p n response bytes (step 5). */
template <mem_type MT, class IO>
[[gnu::always_inline]] inline void fetch(const IO &io, void *resp, std::size_t n)
{
	if constexpr (MT == mem_type::wt)
		detail::invalidate_lines(io, regs::RESP.offset, n);
	io.copy_from(regs::RESP.offset, resp, n);
}

namespace detail {
/** True if wide_isa::none is 0 and every other family (wide_isa_names) has
 *  one of its low three bits set: then (n | isa) & 7 is zero exactly for
 *  whole 8-byte words on the 8-byte view. */
constexpr bool wide_isa_in_low_bits() noexcept
{
	for (const auto &e : wide_isa_names)
		if ((e.value == wide_isa::none) != ((static_cast<unsigned>(e.value) & 7) == 0))
			return false;
	return true;
}
/** invoke() for any view, width and length: out of line. */
template <mem_type MT, class IO>
[[gnu::noinline]] std::size_t invoke_any(const IO &io, invoke_state &st, op o, const void *req, std::size_t n,
					 void *resp)
{
	post<MT>(io, o, req, n);
	const std::size_t len = wait(io, st);
	fetch<MT>(io, resp, len);
	return len;
}
/** The rest of an invocation whose first status read was not its
 *  completion (NOT_READY, or an error to throw). */
template <mem_type MT, class IO>
[[gnu::noinline, gnu::cold]] std::size_t finish_slow(const IO &io, invoke_state &st, std::uint64_t s, void *resp)
{
	s = slow_status(io, st, s);
	st.next_seq = (st.next_seq + 1) & static_cast<std::uint32_t>(regs::STATUS_SEQ_MASK);
	const std::size_t len = static_cast<std::uint32_t>(s);
	fetch<MT>(io, resp, len);
	return len;
}
/** Step 5 of a response that is not whole 8-byte words. */
template <mem_type MT, class IO> [[gnu::noinline]] std::size_t fetch_any(const IO &io, void *resp, std::size_t len)
{
	fetch<MT>(io, resp, len);
	return len;
}
} // namespace detail

/** One whole invocation, unchecked (1 <= n <= max_payload, @p resp has room
 *  for max(n, response length) bytes). Returns the response length.
 *  On the hardware view with 8-byte accesses and whole words each way, the
 *  path is Fig. 3's own instructions plus one compare of the status: every
 *  other case leaves through a tail call, so this path needs no frame. */
template <mem_type MT, class IO>
[[gnu::always_inline]] inline std::size_t invoke(const IO &io, invoke_state &st, op o, const void *req,
						 std::size_t n, void *resp)
{
	if constexpr (IO::simulated) {
		return detail::invoke_any<MT>(io, st, o, req, n, resp);
	} else {
		// One test for both conditions of the 8-byte path: the view's
		// family is or-ed into the length and the low three bits tested
		// (every family but none has one of them set, checked below), so
		// the length needs no copy of its own: 45 instructions at 8 B
		// instead of 47 for (n & 7) | isa (bench.pio_instructions).
		static_assert(detail::wide_isa_in_low_bits());
		if ((n | static_cast<std::size_t>(io.isa())) & 7) [[unlikely]]
			return detail::invoke_any<MT>(io, st, o, req, n, resp);
		// 1 <= n (the contract) and whole words: the loops need no zero test.
		if (n < 8)
			__builtin_unreachable();
		// Both loops are do-whiles over pointers (at least one word each
		// way): store_words()/load_words() cost a zero test and a rounding
		// of the length each here (bench.pio_instructions: 49 -> 47 at 8 B).
		{
			auto *d = reinterpret_cast<volatile std::uint64_t *>(io.base() + regs::REQ.offset);
			const auto *p = static_cast<const std::uint8_t *>(req);
			const auto *const end = p + n;
			do {
				std::uint64_t w;
				std::memcpy(&w, p, 8);
				*d = w;
				++d;
			} while ((p += 8) != end);
		}
		detail::ring<MT>(io, doorbell_value(o, n));
		const auto s = io.template load<std::uint64_t>(regs::INVOKE_STATUS.offset);
		// One 64-bit compare checks done, sequence and a response as long
		// as the request (every op but bloom): that length is whole words
		// already. Anything else (NOT_READY, errors, bloom's shorter answer,
		// WT's invalidation) finishes out of line with the same checks.
		const std::uint32_t seq = st.next_seq;
		if (s != (std::uint64_t(expected_status_hi(seq)) << 32 | n) || MT == mem_type::wt) [[unlikely]]
			return detail::finish_slow<MT>(io, st, s, resp);
		st.next_seq = (seq + 1) & static_cast<std::uint32_t>(regs::STATUS_SEQ_MASK);
		const std::size_t len = static_cast<std::uint32_t>(s); // == n here
		{
			const auto *p = reinterpret_cast<const volatile std::uint64_t *>(io.base() + regs::RESP.offset);
			auto *d = static_cast<std::uint8_t *>(resp);
			const auto *const end = p + len / 8;
			do {
				const std::uint64_t w = *p;
				std::memcpy(d, &w, 8);
				d += 8;
			} while (++p != end);
		}
		return len;
	}
}

/** Raw write stream: @p n bytes to @p off (BRAM window), drained on WC. */
template <mem_type MT, class IO>
[[gnu::always_inline]] inline void write_stream(const IO &io, std::uint64_t off, const void *src, std::size_t n)
{
	io.copy_to(off, src, n);
	if constexpr (MT == mem_type::wc)
		io.wc_flush();
}

/** Raw read stream: @p n bytes from @p off. */
template <mem_type MT, class IO>
[[gnu::always_inline]] inline void read_stream(const IO &io, std::uint64_t off, void *dst, std::size_t n)
{
	if constexpr (MT == mem_type::wt)
		detail::invalidate_lines(io, off, n);
	io.copy_from(off, dst, n);
}

/** Calls @p f with std::integral_constant<mem_type, t> so the memory type
 *  becomes a template parameter. uc, wc and wt; wb throws not_supported. */
template <class F> decltype(auto) with_mem_type(mem_type t, F &&f)
{
	switch (t) {
	case mem_type::uc: return f(std::integral_constant<mem_type, mem_type::uc>{});
	case mem_type::wc: return f(std::integral_constant<mem_type, mem_type::wc>{});
	case mem_type::wt: return f(std::integral_constant<mem_type, mem_type::wt>{});
	default: break;
	}
	throw error(errc::not_supported, "PIO over PCIe: memory type wb is not allowed on device memory (use uc, wc or wt)");
}

/** Reads the invoke unit's sequence state: the seq the next completion will
 *  carry (INVOKE_COUNT + 1). Call once before an invocation loop. */
std::uint32_t next_sequence(const region &bar0);

/** Checked invocations and streams on BAR0 of a PIO image. Each call picks
 *  the I/O view once; for timed loops use the templates inside visit(). */
class invoker {
public:
	/** Checks that @p bar0 is a PIO image (ID, version 1.x, invoke capability)
	 *  and reads its sequence state. Throws errc::not_supported otherwise. */
	explicit invoker(region bar0);

	const region &bar() const noexcept { return bar_; }
	invoke_state &state() noexcept { return st_; }

	/** Invokes @p o on @p req (1..8192 bytes) and writes the response into
	 *  @p resp; returns its length. Errors name the device, size and rule. */
	std::size_t invoke(op o, std::span<const std::uint8_t> req, std::span<std::uint8_t> resp);
	/** Same, returning the response. */
	std::vector<std::uint8_t> invoke(op o, std::span<const std::uint8_t> req);

	/** Raw write stream of @p data to offset @p off inside the BRAM window. */
	void write(std::uint64_t off, std::span<const std::uint8_t> data);
	/** Raw read stream from offset @p off inside the BRAM window. */
	void read(std::uint64_t off, std::span<std::uint8_t> data);

	/** Sets INVOKE_TIMEOUT (cycles a status read may stall before NOT_READY). */
	void set_timeout_cycles(std::uint32_t cycles);
	/** Sets INVOKE_DELAY (extra compute cycles per invocation). */
	void set_delay_cycles(std::uint32_t cycles);

private:
	void check_bram(std::uint64_t off, std::size_t n, const char *what) const;

	region bar_;
	std::shared_ptr<const std::string> name_; ///< stable for st_.device across moves
	invoke_state st_;
};

} // namespace pioc::pio
