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
 * part in coherence. Publication is a release store (stlr) of the entry's
 * header word after the payload, consumption an acquire load (ldar) before
 * it (tests/herd/queue-payload-before-valid.litmus); handing a slot back
 * (cq head, FastForward flag 0) is a release store after the payload is
 * copied out, so the sender cannot overwrite it early
 * (tests/herd/queue-read-before-reuse.litmus). On x86 all four are plain
 * moves (tests/herd/x86-payload-before-flag.litmus).
 * Line size is a run-time parameter (128 on ThunderX-1, 64 on x86). What
 * each end writes privately is aligned to 128 bytes (detail::private_align).
 * Entries are on adjacent lines (the ECI device's layout); cq_ring and
 * ff_queue take a spacing for experiments (bench/queue_pingpong compares
 * both: on AMD Zen 4, 3 lines apart was 10-40% faster in some runs and the
 * same in others, for both queues; benchmarking.md, session 17).
 */
#pragma once

#include <pioc/coherent/lines.hpp>
#include <pioc/error.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

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
/** Bytes within which a write by one core disturbs another core's data:
 *  a 128-byte prefetch pair on x86, a line on ThunderX-1. Each end's private
 *  state (tail, head, ring position) is aligned to it, so that two ends kept
 *  side by side (on one stack, in one object) never share a line. */
inline constexpr std::size_t private_align = 128;

inline void check_ring(std::uintptr_t mem, std::uint32_t entries, std::uint32_t line)
{
	if (line < 16 || (line & (line - 1)))
		throw error(errc::invalid_argument, "coherent queue: line size must be a power of two >= 16");
	if (mem % line)
		throw error(errc::misaligned, "coherent queue: memory is not aligned to a cache line");
	if (entries < 2)
		throw error(errc::invalid_argument, "coherent queue: needs at least 2 entries");
}
} // namespace detail

/** A CNI cachable queue over a line-access policy (pioc/coherent/lines.hpp):
 *  mem_lines on ordinary memory or the module's ECI window, eci_sim_lines
 *  in the ECI model (where the other end can be the device: sim::eci::
 *  cq_engine). Layout from @p base, in strides of entry_lines lines (1
 *  unless asked: the device's layout): the head in the first, entry i in
 *  stride 1 + i. (Padding entries to 128-byte pairs made round trips 2-8%
 *  slower on AMD Zen 4, 3 lines changed them within the noise; see
 *  benchmarking.md.) Entry header: bit 0 valid (sense), bits 16-31 length.
 *  The code is the same for every policy; the policy is a template
 *  argument, so the hardware loop has no backend branch. */
/** The entry format of a cachable queue, shared by every end (the device
 *  model of sim::eci::cq_engine too): header word = valid bit (sense) |
 *  length << 16, payload after it. */
struct cq_entry {
	/** Valid value at ring position @p i: 1 on pass 0, 0 on pass 1, ... */
	static constexpr std::uint64_t sense(std::uint64_t i, std::uint32_t entries) noexcept
	{
		return ((i / entries) & 1) ^ 1;
	}
	static constexpr std::uint64_t header(std::uint64_t sense, std::size_t n) noexcept
	{
		return sense | (std::uint64_t(n) << 16);
	}
	static constexpr bool valid(std::uint64_t h, std::uint64_t sense) noexcept { return (h & 1) == sense; }
	static constexpr std::size_t length(std::uint64_t h) noexcept { return (h >> 16) & 0xffff; }
};

template <line_policy Lines>
class alignas(detail::private_align) cq_ring { // read by both ends: nothing written may share its line
public:
	static std::size_t bytes(std::uint32_t entries, std::uint32_t line, std::uint32_t entry_lines = 1) noexcept
	{
		return std::size_t(entries + 1) * line * entry_lines;
	}
	/** The ring starts at offset @p base of @p lines' window (line-aligned);
	 *  its memory must read as zeros before the first use. Entries are
	 *  @p entry_lines lines apart (1 to 16). */
	cq_ring(Lines lines, std::uint64_t base, std::uint32_t entries, std::uint32_t entry_lines = 1)
	    : L_(lines), base_(base), n_(entries), stride_(lines.line_size() * entry_lines)
	{
		detail::check_ring(base, entries, L_.line_size());
		if (entry_lines < 1 || entry_lines > 16)
			throw error(errc::invalid_argument,
				    "coherent queue: entry_lines " + std::to_string(entry_lines) + ": must be 1 .. 16");
	}
	std::uint32_t payload_max() const noexcept { return L_.line_size() - 8; }
	std::uint32_t entries() const noexcept { return n_; }
	std::uint64_t head_off() const noexcept { return base_; }
	std::uint64_t entry_off(std::uint64_t i) const noexcept { return slot_off(i % n_); }
	/** Offset of entry @p slot (0 <= slot < entries()). */
	std::uint64_t slot_off(std::uint32_t slot) const noexcept { return base_ + std::uint64_t(1 + slot) * stride_; }

	/** Where an end is in the ring: slot and the sense it expects there,
	 *  advanced by one step (cq_entry::sense without a division). */
	struct position {
		std::uint32_t slot = 0;
		std::uint64_t sense = cq_entry::sense(0, 1);
		void next(std::uint32_t entries) noexcept
		{
			if (++slot == entries) {
				slot = 0;
				sense ^= 1;
			}
		}
	};

	class alignas(detail::private_align) sender {
	public:
		explicit sender(cq_ring &q) noexcept : q_(q) {}
		/** Enqueues up to payload_max() bytes; false if the ring is full. */
		bool try_send(const void *p, std::size_t n)
		{
			if (tail_ - shadow_head_ == q_.n_) {
				++head_reads_;
				shadow_head_ = q_.L_.load_acquire(q_.head_off()); // lazy pointer: read only now
				if (tail_ - shadow_head_ == q_.n_)
					return false;
			}
			const std::uint64_t e = q_.slot_off(pos_.slot);
			q_.L_.store_bytes(e + 8, p, n);
			q_.L_.store_release(e, cq_entry::header(pos_.sense, n));
			++tail_;
			pos_.next(q_.n_);
			return true;
		}
		void send(const void *p, std::size_t n)
		{
			for (backoff b; !try_send(p, n);)
				q_.L_.relax(b);
		}
		/** Loads of the receiver's head (the ring looked full); on a cached
		 *  copy, repeated loads cost no traffic until the receiver moves it. */
		std::uint64_t head_reads() const noexcept { return head_reads_; }
		std::uint64_t sent() const noexcept { return tail_; }

	private:
		cq_ring &q_;
		std::uint64_t tail_ = 0, shadow_head_ = 0, head_reads_ = 0;
		position pos_;
	};

	class alignas(detail::private_align) receiver {
	public:
		explicit receiver(cq_ring &q) noexcept : q_(q) {}
		/** Dequeues into @p p; returns the length, or -1 if empty. */
		long try_receive(void *p, std::size_t cap)
		{
			const std::uint64_t e = q_.slot_off(pos_.slot);
			const std::uint64_t h = q_.L_.load_acquire(e);
			if (!cq_entry::valid(h, pos_.sense))
				return -1; // message valid bit: no tail pointer to read
			std::size_t n = cq_entry::length(h);
			if (n > q_.payload_max())
				n = q_.payload_max(); // a corrupt length never reads past the line
			q_.L_.load_bytes(e + 8, p, n < cap ? n : cap);
			++head_;
			pos_.next(q_.n_);
			q_.L_.store_release(q_.head_off(), head_); // the sender reads it lazily
			return static_cast<long>(n);
		}
		std::size_t receive(void *p, std::size_t cap)
		{
			long n;
			for (backoff b; (n = try_receive(p, cap)) < 0;)
				q_.L_.relax_poll(b, q_.slot_off(pos_.slot), std::numeric_limits<double>::infinity());
			return static_cast<std::size_t>(n);
		}
		/** As receive(), but gives up after @p timeout_ns of the policy's
		 *  clock (simulated time in the model); -1 then. */
		long receive_for(void *p, std::size_t cap, double timeout_ns)
		{
			double end = q_.L_.now_ns() + timeout_ns;
			long n;
			// The clock check after the pause: the simulator's
			// relax_poll spends polls up to it, and the check then ends
			// the loop where polling one by one ends it.
			for (backoff b; (n = try_receive(p, cap)) < 0;) {
				q_.L_.relax_poll(b, q_.slot_off(pos_.slot), end);
				if (q_.L_.now_ns() > end)
					return -1;
			}
			return n;
		}
		std::uint64_t received() const noexcept { return head_; }

	private:
		cq_ring &q_;
		std::uint64_t head_ = 0;
		position pos_;
	};

private:
	Lines L_;
	std::uint64_t base_;
	std::uint32_t n_, stride_;
};

/** The cachable queue on ordinary memory (or any cacheable mapping) @p mem:
 *  bytes(entries, line) bytes, line-aligned, zeroed by the creator. */
class cq : public cq_ring<mem_lines> {
public:
	cq(void *mem, std::uint32_t entries, std::uint32_t line)
	    : cq_ring(checked(mem, entries, line), 0, entries)
	{
	}

private:
	static mem_lines checked(void *mem, std::uint32_t entries, std::uint32_t line)
	{
		detail::check_ring(reinterpret_cast<std::uintptr_t>(mem), entries, line);
		return mem_lines(mem, line);
	}
};

/** FastForward: @p entries line-sized slots in @p mem (zeroed, aligned),
 *  on adjacent lines as published, or @p slot_lines lines apart (1 to 16;
 *  bench/queue_pingpong compares both). */
class ff_queue {
public:
	static std::size_t bytes(std::uint32_t entries, std::uint32_t line, std::uint32_t slot_lines = 1) noexcept
	{
		return std::size_t(entries) * line * slot_lines;
	}
	ff_queue(void *mem, std::uint32_t entries, std::uint32_t line, std::uint32_t slot_lines = 1)
	    : mem_(static_cast<std::uint8_t *>(mem)), n_(entries), line_(line), stride_(line * slot_lines)
	{
		detail::check_ring(reinterpret_cast<std::uintptr_t>(mem), entries, line);
		if (slot_lines < 1 || slot_lines > 16)
			throw error(errc::invalid_argument,
				    "coherent queue: slot_lines " + std::to_string(slot_lines) + ": must be 1 .. 16");
	}
	std::uint32_t payload_max() const noexcept { return line_ - 8; }

	bool try_send(const void *p, std::size_t n) noexcept
	{
		std::uint64_t &tail_ = tx_.i;
		std::uint8_t *s = mem_ + std::size_t(tail_ % n_) * stride_;
		if (detail::ld_acq(s) != 0)
			return false;
		copy_to_line(s + 8, static_cast<const std::uint8_t *>(p), n);
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
		std::uint64_t &head_ = rx_.i;
		std::uint8_t *s = mem_ + std::size_t(head_ % n_) * stride_;
		std::uint64_t h = detail::ld_acq(s);
		if (h == 0)
			return -1;
		std::size_t n = (h >> 16) & 0xffff;
		copy_from_line(static_cast<std::uint8_t *>(p), s + 8, n < cap ? n : cap);
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
	/** A position written by one side only, alone in its prefetch pair:
	 *  sharing a line, the two sides' counters cost a transfer each way. */
	struct alignas(detail::private_align) own {
		std::uint64_t i = 0;
	};
	std::uint8_t *mem_;
	std::uint32_t n_, line_, stride_;
	own tx_, rx_;
};

/** Cache-line size of this machine (sysconf; 64 if unknown). */
std::uint32_t host_line_size() noexcept;

} // namespace pioc::coherent
