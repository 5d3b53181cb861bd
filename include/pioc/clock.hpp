/** @file
 * The wall clock used to time real hardware: the CPU's cycle counter
 * (TSC on x86-64, CNTVCT_EL0 on arm64) converted to nanoseconds with a
 * factor calibrated once against CLOCK_MONOTONIC_RAW.
 */
#pragma once

#include <cstdint>

namespace pioc {

/** Ticks of the CPU cycle counter; cheap, monotonic on one core. */
inline std::uint64_t read_ticks() noexcept
{
#if defined(__x86_64__)
	std::uint32_t lo, hi;
	// lfence keeps rdtsc from executing before earlier loads complete, so a
	// timestamp taken after a device read includes that read.
	asm volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (std::uint64_t(hi) << 32) | lo;
#elif defined(__aarch64__)
	std::uint64_t v;
	asm volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
#endif
}

/** Converts ticks to nanoseconds. Calibrated on first use (about 20 ms). */
class hw_clock {
public:
	static constexpr bool simulated = false;
	/** Nanoseconds since an arbitrary epoch. */
	std::uint64_t now_ns() const noexcept { return ticks_to_ns(read_ticks()); }
	/** ns per tick as calibrated. */
	static double ns_per_tick() noexcept;
	static std::uint64_t ticks_to_ns(std::uint64_t t) noexcept
	{
		return static_cast<std::uint64_t>(static_cast<double>(t) * ns_per_tick());
	}
};

} // namespace pioc
