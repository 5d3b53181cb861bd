/** @file
 * The NIC driver interface (issue 15): what every NIC path (PIO, DMA, ECI)
 * offers its user, whether the device is a behavioural model, Verilated RTL
 * or the FPGA.
 *
 * The hot path is a concrete class per path: `send`, `poll_rx` and friends
 * are ordinary member functions, never virtual, and code that works with any
 * path (nicbench) is a template constrained by pioc::nic::driver, chosen once
 * above its timed loop.
 *
 * Frames: the MAC stand-in (fpga/rtl/nic/mac_loopback.sv) carries frames of
 * min_frame..mtu bytes without FCS (the MAC adds it). A frame outside that
 * range is refused by send() with a pioc::error naming its size and the rule,
 * before anything reaches the device.
 */
#pragma once

#include <pioc/error.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace pioc::nic {

inline constexpr std::size_t min_frame = 60;   ///< bytes, without FCS
inline constexpr std::size_t mtu = 9600;       ///< bytes, jumbo frames
inline constexpr double core_clock_hz = 250e6; ///< the MAC side's clock

/** Ring sizes, in descriptors, chosen when a NIC is opened (powers of two). */
struct ring_sizes {
	std::uint32_t rx = 64;
	std::uint32_t tx = 64;
};

/** Throws pioc::error (invalid_argument) if @p ring is not a power of two in
 *  [2, max]; @p who names the device and ring in the message. */
void check_ring_size(std::uint32_t ring, std::uint32_t max, std::string_view who);

/** Throws pioc::error (invalid_argument) for a frame the MAC would drop:
 *  "sim:nic_pio send: 40-byte frame is below the 60-byte minimum". */
void check_frame(std::size_t len, std::string_view who);

/** Throws pioc::error (out_of_range): a received @p len-byte frame does not
 *  fit the @p room bytes given to poll_rx (the driver keeps it queued). */
[[noreturn, gnu::cold]] void rx_too_small(std::string_view who, std::size_t len, std::size_t room);

/** One received frame: its length and the MAC cycle at which its last beat
 *  entered the NIC (RX latency starts there). */
struct rx_info {
	std::size_t len = 0;
	std::uint64_t mac_cycle = 0;
};

/** One transmitted frame as the MAC saw it: the cycle its last beat reached
 *  the MAC (TX latency ends there) and the length it counted. */
struct tx_info {
	std::uint64_t mac_cycle = 0;
	std::uint32_t len = 0;
};

/** Maps device cycles to host nanoseconds: two samples of (device counter,
 *  host clock) give offset and rate. Simulated devices: the model's clock;
 *  hardware: the NIC's cycle register sampled against the TSC/CNTVCT. */
struct clock_map {
	std::uint64_t cycle0 = 0;
	std::int64_t host_ns0 = 0;
	double ns_per_cycle = 1e9 / core_clock_hz;

	std::int64_t to_host_ns(std::uint64_t cycle) const noexcept
	{
		const double d = static_cast<double>(static_cast<std::int64_t>(cycle - cycle0));
		return host_ns0 + static_cast<std::int64_t>(d * ns_per_cycle);
	}
	/** From two samples (c0, h0), (c1, h1) with c1 != c0. */
	static clock_map from_samples(std::uint64_t c0, std::int64_t h0, std::uint64_t c1, std::int64_t h1);
};

/** The clock map of a NIC whose cycle counter is @p now() and whose driver's
 *  clock is @p host_ns(). Simulated: the model's clock is the link's,
 *  exactly @p clock_mhz, cycle 0 at time 0 (a sampled rate would be off by
 *  the counter's rounding, which drifts by tens of microseconds over a long
 *  run). Hardware: two (cycles, host ns) samples some microseconds apart. */
template <bool simulated, class Now, class Host> clock_map sample_clock(double clock_mhz, Now now, Host host_ns)
{
	if constexpr (simulated) {
		clock_map m;
		m.ns_per_cycle = 1000.0 / clock_mhz;
		return m;
	}
	const std::uint64_t c0 = now();
	const auto h0 = static_cast<std::int64_t>(host_ns());
	std::uint64_t c1 = c0;
	std::int64_t h1 = h0;
	for (int i = 0; i < 1000 && (c1 - c0 < 2500 || h1 == h0); ++i) {
		c1 = now();
		h1 = static_cast<std::int64_t>(host_ns());
	}
	return clock_map::from_samples(c0, h0, c1, h1);
}

/** What a NIC path offers; nicbench and the shared tests are written
 *  against this concept only.
 *  - send(frame): queue one frame for TX; false if the TX ring is full
 *    (nothing queued), pioc::error if the frame breaks a rule.
 *  - send_batch(frames): queue a prefix of @p frames; returns how many.
 *  - poll_rx(out): copy the next received frame into @p out and return its
 *    length, 0 if none is waiting; pioc::error if @p out is too small (the
 *    frame stays queued).
 *  - last_rx(): MAC timestamp of the frame poll_rx returned last.
 *  - poll_tx(info): next TX completion (MAC timestamp), false if none.
 *  - reclaim_tx(): takes back the TX slots of every frame the NIC is done
 *    with, without reading their MAC stamps or checking that the MAC took
 *    them (a frame it dropped shows up as missing on RX); returns how many.
 *    For loops that want the rate, not the stamps: poll_tx() after it
 *    reports the frames sent later. Costs at most one uncached read, where
 *    poll_tx() costs one per frame on the PCIe NICs.
 *  - now(): the device's cycle counter (a register of each NIC's map).
 *  - host_ns(): the host clock the driver's accesses run on (simulated ns
 *    on a simulated link, the TSC/CNTVCT in ns on hardware).
 *  - clock(): device cycles -> host ns. */
template <class N>
concept driver = requires(N n, std::span<const std::byte> frame,
			  std::span<const std::span<const std::byte>> frames,
			  std::span<std::byte> out, tx_info &ti) {
	{ n.send(frame) } -> std::same_as<bool>;
	{ n.send_batch(frames) } -> std::same_as<std::size_t>;
	{ n.poll_rx(out) } -> std::same_as<std::size_t>;
	{ n.last_rx() } -> std::same_as<rx_info>;
	{ n.poll_tx(ti) } -> std::same_as<bool>;
	{ n.reclaim_tx() } -> std::same_as<std::size_t>;
	{ n.now() } -> std::same_as<std::uint64_t>;
	{ n.host_ns() } -> std::same_as<std::uint64_t>;
	{ n.clock() } -> std::convertible_to<clock_map>;
	{ n.rings() } -> std::same_as<ring_sizes>;
};

} // namespace pioc::nic
