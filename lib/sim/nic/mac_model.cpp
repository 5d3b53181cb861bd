// The store, line and RX-stream timing of mac_loopback.sv; see mac_model.hpp
// for what it charges. The RTL's testbench (fpga/tb/test_mac_loopback.cpp)
// compares every frame's cycles against the same formulas.
#include "sim/nic/mac_model.hpp"

#include <algorithm>

namespace pioc::sim::nic {

// The RTL takes a beat in cycle c when fewer than store_frames delivered
// frames are stored and fewer than store_beats beats are (s_tready); both
// counts drop the cycle after the RX stream read the frame's last beat / the
// beat. So beat i of this frame waits for the beat store_beats places before
// it (among stored beats) to have been read, and every beat waits for the
// frame store_frames before it to have been read whole.
//
// Without walking the beats (that walk was a tenth of a sim:nic_dma run at
// 9600 B, perf): beat i is taken at the latest of the gate, last - (n-1-i),
// beat i-1's cycle + 1 and its slot's read + 1. All but the slot's bound grow
// by one a beat, so the last beat's cycle is n-1 plus the largest of the
// gate, last - (n-1) and, over i, slot_i - i. For stored beat x in kept frame
// f the slot frees in cycle f.rx_first + (x - f.first_beat) + 1, and beat i
// waits for x = beats_ + i - store_beats, so slot_i - i = f.rx_first -
// f.first_beat + const: never smaller for a newer frame (a frame's RX beats
// start no earlier than the previous frame's end). The newest stored beat of
// this frame (beat i_max; an oversize frame's later beats wait for the same
// slot) binds. A slot in a frame older than the kept ones: the gate covers it.
// tests/unit/nic/mac_model_test.cpp checks this against the beat-by-beat walk.
std::int64_t mac_model::accept_last_beat(std::int64_t last_beat_cycle, std::size_t len) const
{
	using t = mac_timing;
	const std::uint64_t n = std::max<std::uint64_t>(1, t::beats(len));
	std::int64_t gate = tx_taken_ + 1;
	if (frames_ >= t::store_frames) {
		const stored_frame &f = store_[frames_ % t::store_frames];
		gate = std::max<std::int64_t>(gate, std::int64_t(f.rx_first + f.beats));
	}
	std::int64_t first = std::max<std::int64_t>(gate, last_beat_cycle - std::int64_t(n - 1)); // beat 0's bound
	const std::uint64_t i_max = std::min<std::uint64_t>(n - 1, t::oversize_stored_beats);
	if (beats_ + i_max >= t::store_beats) {
		const std::uint64_t x = beats_ + i_max - t::store_beats;
		const std::uint64_t oldest = frames_ > t::store_frames ? frames_ - t::store_frames : 0;
		// The slot is usually older than every kept frame (small frames:
		// store_beats beats back is many frames back): then none binds.
		const bool kept = frames_ != 0 && x >= store_[oldest % t::store_frames].first_beat;
		for (std::uint64_t k = frames_; kept && k-- > oldest;) {
			const stored_frame &f = store_[k % t::store_frames];
			if (x < f.first_beat)
				continue;
			if (x < f.first_beat + f.beats)
				first = std::max<std::int64_t>(
					first, std::int64_t(f.rx_first + (x - f.first_beat) + 1) - std::int64_t(i_max));
			break;
		}
	}
	return first + std::int64_t(n - 1);
}

mac_result mac_model::transmit(std::uint64_t last_beat_cycle, std::size_t len)
{
	using t = mac_timing;
	mac_result r;
	tx_taken_ = accept_last_beat(std::int64_t(last_beat_cycle), len);
	r.tx_stamp = std::uint64_t(tx_taken_);
	if (len < t::min_frame) {
		++runts_;
		return r;
	}
	if (len > t::mtu) {
		++oversized_;
		return r;
	}
	// The frame is committed at the end of its last-beat cycle; the line sees
	// it one cycle later and sends it after the frame before it.
	const std::uint64_t bpc = t::line_bytes_per_cycle;
	const std::uint64_t start_bt = std::max((r.tx_stamp + 1) * bpc, line_free_bt_);
	line_free_bt_ = start_bt + t::wire_bytes(len);
	const std::uint64_t off_line = (line_free_bt_ + bpc - 1) / bpc;
	r.delivered = true;
	r.rx_first = std::max(off_line, rx_free_);
	r.rx_stamp = r.rx_first + t::beats(len) - 1;
	rx_free_ = r.rx_stamp + 1;
	store_[frames_ % t::store_frames] = {beats_, t::beats(len), r.rx_first};
	++frames_;
	beats_ += t::beats(len);
	return r;
}

} // namespace pioc::sim::nic
