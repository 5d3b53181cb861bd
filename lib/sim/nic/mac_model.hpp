// Behavioural model of the MAC stand-in (fpga/rtl/nic/mac_loopback.sv), in
// core-clock cycles. The NIC models (PIO, DMA, ECI) hand it frames and read
// back when each frame reached the MAC (TX stamp) and when it is offered to
// the NIC's RX stream again.
//
// Charged: the finite store-and-forward buffer (store_frames frames /
// store_beats beats: while it is full the RTL holds s_tready low, so a NIC
// feeding frames faster than the line drains them gets its TX beats taken
// later), the line time of max(len, 60) + 24 bytes at 50 bytes per cycle
// (100 Gb/s at 250 MHz) with the leftover budget of a cycle carried into the
// next frame, one beat of 64 bytes per cycle on the RX stream. Left out:
// backpressure from the NIC's RX side (the model's receiver takes a beat
// every cycle, so the store drains as fast as the line allows).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pioc::sim::nic {

/** The constants of mac_loopback.sv; one place for the model and its tests. */
struct mac_timing {
	static constexpr unsigned beat_bytes = 64;
	static constexpr unsigned line_bytes_per_cycle = 50;
	static constexpr unsigned wire_overhead = 24; // FCS 4 + preamble 8 + IFG 12
	static constexpr std::size_t min_frame = 60;
	static constexpr std::size_t mtu = 9600;
	static constexpr unsigned store_beats = 256; // FIFO_BEATS: 16 KiB, an MTU frame always fits
	static constexpr unsigned store_frames = 16; // PKTS
	/** Beats of an oversize frame the store holds until its last beat drops it. */
	static constexpr unsigned oversize_stored_beats = mtu / beat_bytes;

	static constexpr std::uint64_t beats(std::size_t len) { return (len + beat_bytes - 1) / beat_bytes; }
	static constexpr std::uint64_t wire_bytes(std::size_t len)
	{
		return (len < min_frame ? min_frame : len) + wire_overhead;
	}
};

/** What the MAC did with one frame. */
struct mac_result {
	bool delivered = false;     ///< false: runt or oversize, counted and dropped
	std::uint64_t tx_stamp = 0; ///< cycle of the last TX beat (TX latency ends)
	std::uint64_t rx_first = 0; ///< cycle the first beat is offered to the NIC
	std::uint64_t rx_stamp = 0; ///< cycle of the last RX beat (RX latency starts)
};

class mac_model {
public:
	/** The NIC's TX stream offers the beats of a @p len-byte frame back to
	 *  back, the last one in cycle @p last_beat_cycle (frames in order). The
	 *  MAC takes each beat when its store has room: tx_stamp is the cycle it
	 *  took the last one, later than @p last_beat_cycle when the store is
	 *  full. */
	mac_result transmit(std::uint64_t last_beat_cycle, std::size_t len);

	std::uint64_t runts() const { return runts_; }
	std::uint64_t oversized() const { return oversized_; }

private:
	/** A delivered frame still (possibly) in the store: its beats are read
	 *  out on the RX stream in cycles rx_first .. rx_first + beats - 1. */
	struct stored_frame {
		std::uint64_t first_beat; ///< index of its first beat among all stored beats
		std::uint64_t beats;
		std::uint64_t rx_first;
	};

	std::int64_t accept_last_beat(std::int64_t last_beat_cycle, std::size_t len) const;

	stored_frame store_[mac_timing::store_frames] = {}; ///< the last delivered frames, a ring
	std::uint64_t frames_ = 0;       ///< delivered frames so far (store_ index: frames_ % store_frames)
	std::uint64_t beats_ = 0;        ///< beats of delivered frames so far
	std::int64_t tx_taken_ = -1;     ///< cycle the MAC took the last TX beat
	std::uint64_t line_free_bt_ = 0; ///< end of the last frame on the line, byte-times
	std::uint64_t rx_free_ = 0;      ///< first cycle the RX stream is free
	std::uint64_t runts_ = 0, oversized_ = 0;
};

} // namespace pioc::sim::nic
