/** @file
 * I/O views: the two ways an access reaches a device, as concrete types.
 *
 * Protocol and benchmark code is written once as a template over an I/O view
 * and instantiated for each:
 *  - pioc::mmio_io: a real mapping. load/store compile to single volatile
 *    accesses; barriers are the CPU's instructions; time is the cycle counter.
 *  - pioc::sim_io: a simulated mapping. Every access becomes a transaction on
 *    the simulator's PCIe link; time is simulated. Declared here as a handle
 *    only (the region holds either view); its accesses are defined in the
 *    simulator, so nothing here or in a driver includes a simulator header.
 * A region holds one of them; pioc::region::visit() picks the view once,
 * above the timed loop, so the hardware path pays nothing for simulation.
 *
 * Views are unchecked: offsets are trusted. Use region's checked accessors
 * outside hot loops.
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/clock.hpp>
#include <pioc/mem_type.hpp>
#include <pioc/wide.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pioc {

namespace sim {
class pcie_link; // the simulator's; only sim_io's handle names it
}

/** What protocol and benchmark code may ask of an I/O view: the one seam
 *  between a driver and the device behind it. Both views below satisfy it
 *  (checked at the end of this file); a driver template constrained on it
 *  cannot reach for anything a hardware mapping does not offer. */
template <class IO>
concept io_view = std::copyable<IO> && requires(const IO &io, std::uint64_t off, std::uint8_t *dst,
						  const std::uint8_t *src, std::size_t n, unsigned u) {
	{ IO::simulated } -> std::convertible_to<bool>;
	{ io.size() } -> std::same_as<std::uint64_t>;
	{ io.type() } -> std::same_as<mem_type>;
	{ io.sub(off, n) } -> std::same_as<IO>;
	{ io.template load<std::uint64_t>(off) } -> std::same_as<std::uint64_t>;
	{ io.template load<std::uint32_t>(off) } -> std::same_as<std::uint32_t>;
	io.template store<std::uint64_t>(off, std::uint64_t{});
	io.template store<std::uint32_t>(off, std::uint32_t{});
	io.store_bytes(off, src, u);
	io.load_bytes(off, dst, u);
	io.copy_to(off, src, n);
	io.copy_from(off, dst, n);
	io.wc_flush();
	io.store_store();
	io.store_load();
	io.load_load();
	io.full();
	{ io.now_ns() } -> std::same_as<std::uint64_t>;
	io.idle(std::uint64_t{});
	{ io.wait_interrupt(int{}, std::uint64_t{}) } -> std::same_as<bool>;
};

namespace detail {

/** The largest naturally aligned power-of-two unit (1..8) that fits at
 *  @p off with @p n bytes left. */
constexpr unsigned scalar_unit(std::uint64_t off, std::size_t n) noexcept
{
	unsigned u = 8;
	while (u > 1 && ((off & (u - 1)) || n < u))
		u >>= 1;
	return u;
}

/** Copies host -> device through @p io: scalar stores up to W-byte alignment
 *  of the device address, then W-byte wide stores, then a scalar tail. The
 *  same sequence of accesses is issued on hardware and in simulation. */
template <class IO, class WideStore>
inline void copy_to(const IO &io, std::uint64_t off, const std::uint8_t *src,
		    std::size_t n, unsigned w, WideStore wide_store) noexcept
{
	while (n && (off & (w - 1))) {
		unsigned u = scalar_unit(off, n);
		io.store_bytes(off, src, u);
		off += u, src += u, n -= u;
	}
	for (; n >= w; off += w, src += w, n -= w)
		wide_store(off, src);
	while (n) {
		unsigned u = scalar_unit(off, n);
		io.store_bytes(off, src, u);
		off += u, src += u, n -= u;
	}
}

/** Device -> host, the mirror of copy_to(). */
template <class IO, class WideLoad>
inline void copy_from(const IO &io, std::uint64_t off, std::uint8_t *dst,
		      std::size_t n, unsigned w, WideLoad wide_load) noexcept
{
	while (n && (off & (w - 1))) {
		unsigned u = scalar_unit(off, n);
		io.load_bytes(off, dst, u);
		off += u, dst += u, n -= u;
	}
	for (; n >= w; off += w, dst += w, n -= w)
		wide_load(off, dst);
	while (n) {
		unsigned u = scalar_unit(off, n);
		io.load_bytes(off, dst, u);
		off += u, dst += u, n -= u;
	}
}

/** Consumes eventfd @p fd's counter if it is non-zero; never blocks. */
bool try_read_eventfd(int fd);

} // namespace detail

/** A real mapping of device (or coherent) memory. Copyable, non-owning. */
class mmio_io {
public:
	static constexpr bool simulated = false;

	mmio_io() = default;
	mmio_io(std::uint8_t *base, std::uint64_t size, mem_type t, wide_isa w) noexcept
		: base_(base), size_(size), type_(t), isa_(w) {}

	std::uint64_t size() const noexcept { return size_; }
	mem_type type() const noexcept { return type_; }
	wide_isa isa() const noexcept { return isa_; }
	std::uint8_t *base() const noexcept { return base_; }
	/** Same mapping seen from @p off, @p size bytes long. */
	mmio_io sub(std::uint64_t off, std::uint64_t size) const noexcept
	{
		return {base_ + off, size, type_, isa_};
	}

	template <class T> T load(std::uint64_t off) const noexcept
	{
		return *reinterpret_cast<const volatile T *>(base_ + off);
	}
	template <class T> void store(std::uint64_t off, T v) const noexcept
	{
		*reinterpret_cast<volatile T *>(base_ + off) = v;
	}
	/** One naturally aligned access of 1, 2, 4 or 8 bytes. */
	void store_bytes(std::uint64_t off, const std::uint8_t *s, unsigned u) const noexcept
	{
		switch (u) {
		case 1: store<std::uint8_t>(off, *s); break;
		case 2: store<std::uint16_t>(off, unaligned<std::uint16_t>(s)); break;
		case 4: store<std::uint32_t>(off, unaligned<std::uint32_t>(s)); break;
		default: store<std::uint64_t>(off, unaligned<std::uint64_t>(s)); break;
		}
	}
	void load_bytes(std::uint64_t off, std::uint8_t *d, unsigned u) const noexcept
	{
		switch (u) {
		case 1: *d = load<std::uint8_t>(off); break;
		case 2: put(d, load<std::uint16_t>(off)); break;
		case 4: put(d, load<std::uint32_t>(off)); break;
		default: put(d, load<std::uint64_t>(off)); break;
		}
	}

	/** Host -> device copy; never calls memcpy on device memory. With
	 *  8-byte accesses (wide_isa::none) the words are stored inline, as a
	 *  hand-written loop would (the PIO invoke path of small requests);
	 *  the wide families and odd tails go out of line. */
	[[gnu::always_inline]] void copy_to(std::uint64_t off, const void *src, std::size_t n) const noexcept
	{
		if (isa_ == wide_isa::none && !(off & 7)) {
			const auto *s = static_cast<const std::uint8_t *>(src);
			const std::size_t words = n / 8;
			store_words(off, s, words);
			if (n & 7) [[unlikely]]
				copy_to_any(off + 8 * words, s + 8 * words, n & 7);
			return;
		}
		copy_to_any(off, src, n);
	}
	/** Device -> host copy, the mirror of copy_to(). */
	[[gnu::always_inline]] void copy_from(std::uint64_t off, void *dst, std::size_t n) const noexcept
	{
		if (isa_ == wide_isa::none && !(off & 7)) {
			auto *p = static_cast<std::uint8_t *>(dst);
			const std::size_t words = n / 8;
			load_words(off, p, words);
			if (n & 7) [[unlikely]]
				copy_from_any(off + 8 * words, p + 8 * words, n & 7);
			return;
		}
		copy_from_any(off, dst, n);
	}
	/** @p words 8-byte stores from host memory @p src (any alignment) to
	 *  the 8-byte aligned @p off: the loop of the paper's Fig. 3, inline and
	 *  without calls, so a caller's hot path needs no stack frame. */
	[[gnu::always_inline]] void store_words(std::uint64_t off, const std::uint8_t *src, std::size_t words) const noexcept
	{
		auto *d = reinterpret_cast<volatile std::uint64_t *>(base_ + off);
		for (std::size_t i = 0; i < words; ++i)
			d[i] = unaligned<std::uint64_t>(src + 8 * i);
	}
	/** @p words 8-byte loads from the 8-byte aligned @p off into @p dst. */
	[[gnu::always_inline]] void load_words(std::uint64_t off, std::uint8_t *dst, std::size_t words) const noexcept
	{
		const auto *s = reinterpret_cast<const volatile std::uint64_t *>(base_ + off);
		for (std::size_t i = 0; i < words; ++i)
			put(dst + 8 * i, s[i]);
	}
	/** Any width and alignment, out of line (one switch per copy). */
	void copy_to_any(std::uint64_t off, const void *src, std::size_t n) const noexcept;
	void copy_from_any(std::uint64_t off, void *dst, std::size_t n) const noexcept;

	static void wc_flush() noexcept { barrier::wc_flush(); }
	static void store_store() noexcept { barrier::store_store(); }
	static void store_load() noexcept { barrier::store_load(); }
	static void load_load() noexcept { barrier::load_load(); }
	static void full() noexcept { barrier::full(); }
	/** Wall-clock nanoseconds (calibrated cycle counter). */
	static std::uint64_t now_ns() noexcept { return hw_clock{}.now_ns(); }
	/** Time passes while the CPU polls host memory: one spin-loop hint. */
	static void idle(std::uint64_t) noexcept
	{
#if defined(__x86_64__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		asm volatile("yield" ::: "memory");
#endif
	}
	/** Blocks in poll() until eventfd @p fd is signalled (true, counter
	 *  consumed) or @p deadline (now_ns() clock) passes. Not for timed loops
	 *  that must not sleep. */
	static bool wait_interrupt(int fd, std::uint64_t deadline);

private:
	template <class T> static T unaligned(const std::uint8_t *p) noexcept
	{
		T v;
		std::memcpy(&v, p, sizeof v); // host memory: memcpy is fine here
		return v;
	}
	template <class T> static void put(std::uint8_t *p, T v) noexcept { std::memcpy(p, &v, sizeof v); }

	std::uint8_t *base_ = nullptr;
	std::uint64_t size_ = 0;
	mem_type type_ = mem_type::uc;
	wide_isa isa_ = wide_isa::none;
};

/** A simulated mapping: BAR @p bar of the device behind a simulated PCIe
 *  link. Only a handle here: the link is an incomplete type and every access
 *  is defined out of line in the simulator (lib/sim/sim_io.cpp), so a driver
 *  written over io_view includes nothing of the simulator and cannot reach
 *  into it. The extra call per access is paid on the simulated path only;
 *  mmio_io above is untouched. */
class sim_io {
public:
	static constexpr bool simulated = true;

	sim_io() = default;
	sim_io(sim::pcie_link *link, unsigned bar, std::uint64_t base, std::uint64_t size,
	       mem_type t, unsigned wide_bytes) noexcept
		: link_(link), bar_(bar), base_(base), size_(size), type_(t), wide_(wide_bytes) {}

	std::uint64_t size() const noexcept { return size_; }
	mem_type type() const noexcept { return type_; }
	unsigned wide_bytes() const noexcept { return wide_; }
	/** The simulator's link (complete type in <pioc/sim/pcie_link.hpp>). */
	sim::pcie_link *link() const noexcept { return link_; }
	unsigned bar() const noexcept { return bar_; }
	std::uint64_t base() const noexcept { return base_; }
	sim_io sub(std::uint64_t off, std::uint64_t size) const noexcept
	{
		return {link_, bar_, base_ + off, size, type_, wide_};
	}

	template <class T> T load(std::uint64_t off) const
	{
		T v;
		load_bytes(off, reinterpret_cast<std::uint8_t *>(&v), sizeof v);
		return v;
	}
	template <class T> void store(std::uint64_t off, T v) const
	{
		store_bytes(off, reinterpret_cast<const std::uint8_t *>(&v), sizeof v);
	}
	/** One access of @p u bytes, as the CPU would issue it. */
	void store_bytes(std::uint64_t off, const std::uint8_t *s, unsigned u) const;
	void load_bytes(std::uint64_t off, std::uint8_t *d, unsigned u) const;
	void copy_to(std::uint64_t off, const void *src, std::size_t n) const;
	void copy_from(std::uint64_t off, void *dst, std::size_t n) const;

	void wc_flush() const;
	void store_store() const;
	void store_load() const;
	void load_load() const;
	void full() const;
	/** Simulated nanoseconds. */
	std::uint64_t now_ns() const noexcept;
	/** The CPU spends @p ns polling host memory; the device runs up to the
	 *  CPU's time. */
	void idle(std::uint64_t ns) const;
	/** idle(@p step) repeated while the CPU, polling host memory, can see
	 *  nothing new: the polls that end before @p horizon (the caller's own
	 *  next timed check, on the now_ns() clock) and before the device's
	 *  quiet_before_ns() are spent at once, then one idle(@p step): the
	 *  same simulated times as calling idle(@p step) in a loop. Call it
	 *  where such a loop would idle, after a read of the polled memory
	 *  found nothing new; an MMIO access since the last idle makes it one
	 *  plain idle (sim::pcie_link::cpu_poll_until). @p horizon
	 *  UINT64_MAX: the caller has no timed check of its own. */
	void idle_polls(std::uint64_t step, std::uint64_t horizon) const;
	/** Until eventfd @p fd is signalled (true) or @p deadline passes: the
	 *  device runs from event to event. */
	bool wait_interrupt(int fd, std::uint64_t deadline) const;
	/** The device catches up with the CPU, then the CPU sleeps until the
	 *  device's next event or @p deadline, whichever is first, and the
	 *  device catches up again (a 100 ns step for a model without an event
	 *  clock). Every simulated wait for an interrupt idles through here. */
	void sleep_until_event(std::uint64_t deadline) const;

private:
	sim::pcie_link *link_ = nullptr;
	unsigned bar_ = 0;
	std::uint64_t base_ = 0, size_ = 0;
	mem_type type_ = mem_type::uc;
	unsigned wide_ = 16;
};

static_assert(io_view<mmio_io>);
static_assert(io_view<sim_io>);

} // namespace pioc
