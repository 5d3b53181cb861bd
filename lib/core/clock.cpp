// Calibration of the cycle counter against CLOCK_MONOTONIC_RAW.
#include <pioc/clock.hpp>

#include <ctime>

namespace pioc {

namespace {
std::uint64_t mono_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

double calibrate()
{
#if defined(__aarch64__)
	// The generic timer states its frequency; no need to measure.
	std::uint64_t f;
	asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
	if (f)
		return 1e9 / double(f);
#endif
	std::uint64_t n0 = mono_ns(), t0 = read_ticks();
	std::uint64_t n1;
	do
		n1 = mono_ns();
	while (n1 - n0 < 20000000); // 20 ms
	std::uint64_t t1 = read_ticks();
	return double(n1 - n0) / double(t1 - t0);
}
} // namespace

double hw_clock::ns_per_tick() noexcept
{
	static const double f = calibrate();
	return f;
}

} // namespace pioc
