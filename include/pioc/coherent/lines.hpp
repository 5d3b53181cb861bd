/** @file
 * Line-access policies: how the CPU-side protocol code touches a line.
 *
 * The protocols are templates over one of these; the backend is chosen once
 * above the timed loop, so the hardware path is plain loads, stores and
 * barrier instructions with no virtual call or branch on a backend.
 *
 *  - mem_lines: a real cacheable (wb) mapping: the module's ECI window on
 *    Enzian, or ordinary memory. Offsets are relative to the mapping.
 *  - eci_sim_lines (<pioc/sim/eci_lines.hpp>, the simulator's): every access
 *    goes through the ECI model's CPU cache; time is simulated. The
 *    protocols here include nothing of the simulator.
 *
 * Interface (all offsets relative to the window, accesses within one line):
 *   static constexpr bool simulated;
 *   std::uint32_t line_size() const;
 *   std::uint64_t load64(off); void store64(off, v);
 *   void load_bytes(off, dst, n); void store_bytes(off, src, n);
 *   void load_lines(const std::uint64_t *offs, n);  // independent loads, all in flight
 *   void claim_lines(const std::uint64_t *offs, n); // ownership of each line for the stores
 *                                                   // that follow, all in flight
 *   std::uint64_t load_acquire(off); void store_release(off, v); // control words, queue publication
 *   void store_load(); void full();                  // the barriers the protocol needs
 *   void relax(backoff &);                           // between two polls that found nothing
 *   void relax_poll(backoff &, off, until);          // the same, in a spin of load_acquire(off)
 *                                                    // alone whose clock check follows it
 *   void evict(off);                                 // clean+invalidate one line
 *   double now_ns();
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/clock.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

namespace pioc::coherent {

struct backoff;

/** The interface above as a concept: the seam between the coherent
 *  protocols and the memory behind them. mem_lines below satisfies it (checked
 *  at the end of this file), eci_sim_lines too (checked in its header). */
template <class L>
concept line_policy = std::copyable<L> && requires(const L &l, std::uint64_t off, std::uint64_t v, void *dst,
						   const void *src, std::size_t n, const std::uint64_t *offs,
						   backoff &b) {
	{ L::simulated } -> std::convertible_to<bool>;
	{ l.line_size() } -> std::same_as<std::uint32_t>;
	{ l.load64(off) } -> std::same_as<std::uint64_t>;
	l.store64(off, v);
	l.load_bytes(off, dst, n);
	l.store_bytes(off, src, n);
	l.load_lines(offs, n);
	l.claim_lines(offs, n);
	{ l.load_acquire(off) } -> std::same_as<std::uint64_t>;
	l.store_release(off, v);
	l.store_load();
	l.full();
	l.relax(b);
	l.relax_poll(b, off, 0.0);
	l.evict(off);
	{ l.now_ns() } -> std::same_as<double>;
};

/** Backs off politely: spin a little, then yield (bounded busy-waiting on
 *  shared cores, under TSan and under user-mode emulation). */
struct backoff {
	unsigned n = 0;
	void operator()() noexcept
	{
		if (++n < 256) {
#if defined(__x86_64__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			asm volatile("yield");
#endif
		} else {
			std::this_thread::yield();
		}
	}
};

namespace detail {
/** One byte or word of a line the other side may read or write meanwhile:
 *  a relaxed atomic access, a plain load or store on x86-64 and arm64. */
template <class T>
inline T line_load(const std::uint8_t *p) noexcept
{
	return __atomic_load_n(reinterpret_cast<const T *>(p), __ATOMIC_RELAXED);
}
template <class T>
inline void line_store(std::uint8_t *p, T v) noexcept
{
	__atomic_store_n(reinterpret_cast<T *>(p), v, __ATOMIC_RELAXED);
}
} // namespace detail

/** Copies @p n bytes (at most a few lines) from a caller's buffer into a
 *  line at @p line, inline: 8-byte words, then the tail. A libc memcpy call
 *  with a run-time length costs more than the message on a round trip
 *  between two cores, and so does `rep movsq`, which GCC 12 made of a plain
 *  loop of 8-byte copies (about 30 cycles to start on AMD Zen 4; on both
 *  ends' critical path of a queue round trip). The accesses to the line
 *  are atomic, which the compiler does not turn into either. @p line
 *  should be 8-byte aligned (every entry and invocation payload is);
 *  otherwise bytes are copied one by one. */
inline void copy_to_line(std::uint8_t *line, const std::uint8_t *src, std::size_t n) noexcept
{
	if ((reinterpret_cast<std::uintptr_t>(line) & 7) == 0) {
		for (; n >= 8; line += 8, src += 8, n -= 8) {
			std::uint64_t w;
			std::memcpy(&w, src, 8);
			detail::line_store(line, w);
		}
	}
	for (; n; --n)
		detail::line_store(line++, *src++);
}

/** Copies @p n bytes from a line at @p line into a caller's buffer, as
 *  copy_to_line (the same reasons, the same alignment). */
inline void copy_from_line(std::uint8_t *dst, const std::uint8_t *line, std::size_t n) noexcept
{
	if ((reinterpret_cast<std::uintptr_t>(line) & 7) == 0) {
		for (; n >= 8; line += 8, dst += 8, n -= 8) {
			const auto w = detail::line_load<std::uint64_t>(line);
			std::memcpy(dst, &w, 8);
		}
	}
	for (; n; --n)
		*dst++ = detail::line_load<std::uint8_t>(line++);
}

class mem_lines {
public:
	static constexpr bool simulated = false;
	mem_lines(void *base, std::uint32_t line) noexcept : base_(static_cast<std::uint8_t *>(base)), line_(line) {}

	std::uint32_t line_size() const noexcept { return line_; }
	std::uint8_t *base() const noexcept { return base_; }

	std::uint64_t load64(std::uint64_t off) const noexcept
	{
		return __atomic_load_n(reinterpret_cast<const std::uint64_t *>(base_ + off), __ATOMIC_RELAXED);
	}
	void store64(std::uint64_t off, std::uint64_t v) const noexcept
	{
		__atomic_store_n(reinterpret_cast<std::uint64_t *>(base_ + off), v, __ATOMIC_RELAXED);
	}
	void load_bytes(std::uint64_t off, void *dst, std::size_t n) const noexcept
	{
		barrier::compiler();
		copy_from_line(static_cast<std::uint8_t *>(dst), base_ + off, n);
		barrier::compiler();
	}
	void store_bytes(std::uint64_t off, const void *src, std::size_t n) const noexcept
	{
		barrier::compiler();
		copy_to_line(base_ + off, static_cast<const std::uint8_t *>(src), n);
		barrier::compiler();
	}
	/** Independent loads of the first word of each line: the core keeps them
	 *  in flight together (memory-level parallelism). A prefetch of every
	 *  line goes first (prfm pldl1keep / prefetcht0, plain reads): an
	 *  in-order core (ThunderX-1) stalls at the first use of a load that
	 *  misses, and the XOR below is such a use, so without them only one
	 *  line would be in flight at a time. */
	void load_lines(const std::uint64_t *offs, std::size_t n) const noexcept
	{
		for (std::size_t i = 0; i < n; ++i)
			__builtin_prefetch(base_ + offs[i], 0, 3);
		std::uint64_t sink = 0;
		for (std::size_t i = 0; i < n; ++i)
			sink ^= load64(offs[i]);
		asm volatile("" ::"r"(sink));
	}
	/** A prefetch for store of each line (prfm pstl1keep; x86: prefetchw
	 *  where the target has it, else prefetcht0): the requests for ownership
	 *  go out together, and the stores that follow find their lines owned
	 *  instead of missing one after another. No ordering: a hint. */
	void claim_lines(const std::uint64_t *offs, std::size_t n) const noexcept
	{
		for (std::size_t i = 0; i < n; ++i)
			__builtin_prefetch(base_ + offs[i], 1, 3);
	}
	std::uint64_t load_acquire(std::uint64_t off) const noexcept
	{
		return __atomic_load_n(reinterpret_cast<const std::uint64_t *>(base_ + off), __ATOMIC_ACQUIRE);
	}
	void store_release(std::uint64_t off, std::uint64_t v) const noexcept
	{
		__atomic_store_n(reinterpret_cast<std::uint64_t *>(base_ + off), v, __ATOMIC_RELEASE);
	}
	void store_load() const noexcept { barrier::store_load(); }
	void full() const noexcept { barrier::full(); }
	void relax(backoff &b) const noexcept { b(); }
	/** relax() between two polls of a spin on load_acquire(@p off) alone,
	 *  whose loop checks its clock against @p until after it: the same
	 *  pause here; the simulator's policy spends the polls that cannot see
	 *  anything new at once. */
	void relax_poll(backoff &b, std::uint64_t, double) const noexcept { b(); }
	/** Clean and invalidate one line to the point of coherence. */
	void evict(std::uint64_t off) const noexcept
	{
#if defined(__x86_64__)
		asm volatile("clflush (%0)" ::"r"(base_ + off) : "memory");
#elif defined(__aarch64__)
		asm volatile("dc civac, %0" ::"r"(base_ + off) : "memory");
#endif
	}
	double now_ns() const noexcept { return static_cast<double>(hw_clock{}.now_ns()); }

private:
	std::uint8_t *base_;
	std::uint32_t line_;
};

static_assert(line_policy<mem_lines>);

} // namespace pioc::coherent
