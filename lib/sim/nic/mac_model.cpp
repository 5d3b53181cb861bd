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
std::int64_t mac_model::accept_last_beat(std::int64_t last_beat_cycle, std::size_t len) const
{
	using t = mac_timing;
	const std::uint64_t n = std::max<std::uint64_t>(1, t::beats(len));
	const std::uint64_t oldest = frames_ > t::store_frames ? frames_ - t::store_frames : 0;
	std::int64_t gate = tx_taken_ + 1;
	if (frames_ >= t::store_frames) {
		const stored_frame &f = store_[frames_ % t::store_frames];
		gate = std::max<std::int64_t>(gate, std::int64_t(f.rx_first + f.beats));
	}
	std::int64_t taken = 0;
	std::uint64_t k = oldest; // the kept frame holding the beat this one waits for
	for (std::uint64_t i = 0; i < n; ++i) {
		// a good frame stores every beat before its last; an oversize one
		// stops storing at the MTU (the RTL then drops it at its last beat)
		const std::uint64_t g = beats_ + std::min<std::uint64_t>(i, t::oversize_stored_beats);
		std::int64_t at = std::max<std::int64_t>(gate, last_beat_cycle - std::int64_t(n - 1 - i));
		if (i > 0)
			at = std::max(at, taken + 1);
		if (g >= t::store_beats) {
			const std::uint64_t x = g - t::store_beats;
			while (k < frames_) {
				const stored_frame &f = store_[k % t::store_frames];
				if (x < f.first_beat)
					break; // in a frame older than the kept ones: the frame gate covers it
				if (x < f.first_beat + f.beats) {
					at = std::max<std::int64_t>(at, std::int64_t(f.rx_first + (x - f.first_beat) + 1));
					break;
				}
				++k;
			}
		}
		taken = at;
	}
	return taken;
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
