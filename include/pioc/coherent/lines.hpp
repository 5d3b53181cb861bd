/** @file
 * Line-access policies: how the CPU-side protocol code touches a line.
 *
 * The protocols are templates over one of these; the backend is chosen once
 * above the timed loop, so the hardware path is plain loads, stores and
 * barrier instructions with no virtual call or branch on a backend.
 *
 *  - mem_lines: a real cacheable (wb) mapping: the module's ECI window on
 *    Enzian, or ordinary memory. Offsets are relative to the mapping.
 *  - eci_sim_lines: every access goes through the ECI model's CPU cache;
 *    time is simulated.
 *
 * Interface (all offsets relative to the window, accesses within one line):
 *   static constexpr bool simulated;
 *   std::uint32_t line_size() const;
 *   std::uint64_t load64(off); void store64(off, v);
 *   void load_bytes(off, dst, n); void store_bytes(off, src, n);
 *   void load_lines(const std::uint64_t *offs, n);  // independent loads, all in flight
 *   std::uint64_t load_acquire(off); void store_release(off, v); // control words, queue publication
 *   void store_load(); void full();                  // the barriers the protocol needs
 *   void relax(backoff &);                           // between two polls that found nothing
 *   void evict(off);                                 // clean+invalidate one line
 *   double now_ns();
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/clock.hpp>
#include <pioc/sim/eci.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

namespace pioc::coherent {

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

/** Copies @p n bytes of a queue entry's payload (at most a line) inline:
 *  8-byte words, then the tail. A libc memcpy call with a run-time length
 *  costs more than the message itself on a round trip between two cores. */
inline void copy_payload(std::uint8_t *d, const std::uint8_t *s, std::size_t n) noexcept
{
	for (; n >= 8; d += 8, s += 8, n -= 8)
		std::memcpy(d, s, 8);
	for (; n; --n)
		*d++ = *s++;
}

/** Plain loads and stores on a cacheable mapping. */
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
		copy_payload(static_cast<std::uint8_t *>(dst), base_ + off, n);
		barrier::compiler();
	}
	void store_bytes(std::uint64_t off, const void *src, std::size_t n) const noexcept
	{
		barrier::compiler();
		copy_payload(base_ + off, static_cast<const std::uint8_t *>(src), n);
		barrier::compiler();
	}
	/** Independent loads of the first word of each line: the core keeps them
	 *  in flight together (memory-level parallelism). */
	void load_lines(const std::uint64_t *offs, std::size_t n) const noexcept
	{
		std::uint64_t sink = 0;
		for (std::size_t i = 0; i < n; ++i)
			sink ^= load64(offs[i]);
		asm volatile("" ::"r"(sink));
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

/** Every access through the ECI model (pioc::sim::eci::system). */
class eci_sim_lines {
public:
	static constexpr bool simulated = true;
	/** The window starts at simulated physical address @p base. */
	eci_sim_lines(sim::eci::system &sys, std::uint64_t base) noexcept : sys_(&sys), base_(base) {}

	std::uint32_t line_size() const noexcept { return sys_->cfg().line_size; }
	std::uint64_t load64(std::uint64_t off) const
	{
		std::uint64_t v;
		sys_->cpu_load(base_ + off, &v, 8);
		return v;
	}
	void store64(std::uint64_t off, std::uint64_t v) const { sys_->cpu_store(base_ + off, &v, 8); }
	void load_bytes(std::uint64_t off, void *dst, std::size_t n) const
	{
		if (n)
			sys_->cpu_load(base_ + off, dst, n);
	}
	void store_bytes(std::uint64_t off, const void *src, std::size_t n) const
	{
		if (n)
			sys_->cpu_store(base_ + off, src, n);
	}
	void load_lines(const std::uint64_t *offs, std::size_t n) const
	{
		std::uint64_t buf[64];
		while (n) {
			std::size_t k = n < 64 ? n : 64;
			for (std::size_t i = 0; i < k; ++i)
				buf[i] = base_ + offs[i];
			sys_->cpu_load_lines(buf, k);
			offs += k, n -= k;
		}
	}
	/** The load, then a load barrier: the ordering arm64's ldar gives (later
	 *  loads stay behind it), priced as one barrier. */
	std::uint64_t load_acquire(std::uint64_t off) const
	{
		std::uint64_t v = load64(off);
		sys_->cpu_barrier(barrier::kind::load_load);
		return v;
	}
	/** A store barrier, then the store: the ordering arm64's stlr gives
	 *  (earlier stores become visible first). */
	void store_release(std::uint64_t off, std::uint64_t v) const
	{
		sys_->cpu_barrier(barrier::kind::store_store);
		store64(off, v);
	}
	void store_load() const { sys_->cpu_barrier(barrier::kind::store_load); }
	void full() const { sys_->cpu_barrier(barrier::kind::full); }
	/** Nothing: each poll was a modelled load that already advanced time. */
	void relax(backoff &) const noexcept {}
	void evict(std::uint64_t off) const { sys_->cpu_evict(base_ + off); }
	double now_ns() const noexcept { return sys_->now(); }
	sim::eci::system &system() const noexcept { return *sys_; }

private:
	sim::eci::system *sys_;
	std::uint64_t base_;
};

} // namespace pioc::coherent
