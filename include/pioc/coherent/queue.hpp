/** @file
 * Queues over coherent memory between two agents that only load and store:
 *
 *  - cq: a CNI cachable queue (Mukherjee et al., ISCA '96): a ring of
 *    line-sized entries, each carrying a message valid bit encoded by sense
 *    reverse (1 on odd passes, 0 on even ones, so nobody clears it), a head
 *    pointer in its own line written only by the receiver, and the sender's
 *    lazy copy of it (shadow head) read again only when the ring looks full.
 *    The tail is private to the sender.
 *  - ff_queue: FastForward (Giacomoni et al., PPoPP '08), the software
 *    baseline of the paper's Fig. 6: a slot is empty when its flag word is
 *    0; the sender waits for empty, writes, sets the flag; the receiver
 *    waits for non-zero, reads, clears it.
 *
 * Both work between two cores (two threads over ordinary memory) and, since
 * they are plain cache-line traffic, between a core and a device that takes
 * part in coherence. Publication is a release store of the entry's header
 * word after the payload; consumption an acquire load (dmb on arm64).
 * Line size is a run-time parameter (128 on ThunderX-1, 64 on x86).
 */
#pragma once

#include <pioc/error.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

namespace pioc::coherent {

namespace detail {
inline std::uint64_t ld_acq(const std::uint8_t *p) noexcept
{
	return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t *>(const_cast<std::uint8_t *>(p)))
		.load(std::memory_order_acquire);
}
inline void st_rel(std::uint8_t *p, std::uint64_t v) noexcept
{
	std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t *>(p)).store(v, std::memory_order_release);
}
inline void check_ring(const void *mem, std::uint32_t entries, std::uint32_t line)
{
	if (line < 16 || (line & (line - 1)))
		throw error(errc::invalid_argument, "coherent queue: line size must be a power of two >= 16");
	if (reinterpret_cast<std::uintptr_t>(mem) % line)
		throw error(errc::misaligned, "coherent queue: memory is not aligned to a cache line");
	if (entries < 2)
		throw error(errc::invalid_argument, "coherent queue: needs at least 2 entries");
}
} // namespace detail

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

/** A CNI cachable queue in @p mem: line 0 holds head, then @p entries lines.
 *  Entry header: bit 0 valid (sense), bits 16-31 length. */
class cq {
public:
	static std::size_t bytes(std::uint32_t entries, std::uint32_t line) noexcept
	{
		return std::size_t(entries + 1) * line;
	}
	/** @p mem: bytes(entries, line) bytes, line-aligned, zeroed by the creator. */
	cq(void *mem, std::uint32_t entries, std::uint32_t line)
	    : mem_(static_cast<std::uint8_t *>(mem)), n_(entries), line_(line)
	{
		detail::check_ring(mem, entries, line);
	}
	std::uint32_t payload_max() const noexcept { return line_ - 8; }

	class sender {
	public:
		explicit sender(cq &q) noexcept : q_(q) {}
		/** Enqueues up to payload_max() bytes; false if the ring is full. */
		bool try_send(const void *p, std::size_t n) noexcept
		{
			if (tail_ - shadow_head_ == q_.n_) {
				shadow_head_ = detail::ld_acq(q_.mem_); // lazy pointer: read only now
				if (tail_ - shadow_head_ == q_.n_)
					return false;
			}
			std::uint8_t *e = q_.entry(tail_);
			std::memcpy(e + 8, p, n);
			std::uint64_t sense = ((tail_ / q_.n_) & 1) ^ 1; // 1 on pass 0, 0 on pass 1, ...
			detail::st_rel(e, sense | (std::uint64_t(n) << 16));
			++tail_;
			return true;
		}
		void send(const void *p, std::size_t n) noexcept
		{
			for (backoff b; !try_send(p, n);)
				b();
		}
		std::uint64_t head_reads() const noexcept { return head_reads_; }

	private:
		cq &q_;
		std::uint64_t tail_ = 0, shadow_head_ = 0, head_reads_ = 0;
	};

	class receiver {
	public:
		explicit receiver(cq &q) noexcept : q_(q) {}
		/** Dequeues into @p p; returns the length, or -1 if empty. */
		long try_receive(void *p, std::size_t cap) noexcept
		{
			const std::uint8_t *e = q_.entry(head_);
			std::uint64_t h = detail::ld_acq(e);
			std::uint64_t sense = ((head_ / q_.n_) & 1) ^ 1;
			if ((h & 1) != sense)
				return -1; // message valid bit: no tail pointer to read
			std::size_t n = (h >> 16) & 0xffff;
			std::memcpy(p, e + 8, n < cap ? n : cap);
			++head_;
			detail::st_rel(q_.mem_, head_); // the sender reads it lazily
			return static_cast<long>(n);
		}
		std::size_t receive(void *p, std::size_t cap) noexcept
		{
			long n;
			for (backoff b; (n = try_receive(p, cap)) < 0;)
				b();
			return static_cast<std::size_t>(n);
		}

	private:
		cq &q_;
		std::uint64_t head_ = 0;
	};

private:
	std::uint8_t *entry(std::uint64_t i) const noexcept { return mem_ + std::size_t(1 + i % n_) * line_; }
	std::uint8_t *mem_;
	std::uint32_t n_, line_;
};

/** FastForward: @p entries line-sized slots in @p mem (zeroed, aligned). */
class ff_queue {
public:
	static std::size_t bytes(std::uint32_t entries, std::uint32_t line) noexcept { return std::size_t(entries) * line; }
	ff_queue(void *mem, std::uint32_t entries, std::uint32_t line)
	    : mem_(static_cast<std::uint8_t *>(mem)), n_(entries), line_(line)
	{
		detail::check_ring(mem, entries, line);
	}
	std::uint32_t payload_max() const noexcept { return line_ - 8; }

	bool try_send(const void *p, std::size_t n) noexcept
	{
		std::uint8_t *s = mem_ + std::size_t(tail_ % n_) * line_;
		if (detail::ld_acq(s) != 0)
			return false;
		std::memcpy(s + 8, p, n);
		detail::st_rel(s, 1 | (std::uint64_t(n) << 16));
		++tail_;
		return true;
	}
	void send(const void *p, std::size_t n) noexcept
	{
		for (backoff b; !try_send(p, n);)
			b();
	}
	long try_receive(void *p, std::size_t cap) noexcept
	{
		std::uint8_t *s = mem_ + std::size_t(head_ % n_) * line_;
		std::uint64_t h = detail::ld_acq(s);
		if (h == 0)
			return -1;
		std::size_t n = (h >> 16) & 0xffff;
		std::memcpy(p, s + 8, n < cap ? n : cap);
		detail::st_rel(s, 0);
		++head_;
		return static_cast<long>(n);
	}
	std::size_t receive(void *p, std::size_t cap) noexcept
	{
		long n;
		for (backoff b; (n = try_receive(p, cap)) < 0;)
			b();
		return static_cast<std::size_t>(n);
	}

private:
	std::uint8_t *mem_;
	std::uint32_t n_, line_;
	std::uint64_t tail_ = 0, head_ = 0; // each used by one side only
};

/** Cache-line size of this machine (sysconf; 64 if unknown). */
std::uint32_t host_line_size() noexcept;

} // namespace pioc::coherent
