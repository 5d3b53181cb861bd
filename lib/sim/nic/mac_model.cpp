// The line and RX-stream timing of mac_loopback.sv; see mac_model.hpp for
// what it charges. The RTL's testbench (fpga/tb/test_mac_loopback.cpp)
// compares every frame's cycles against the same formula.
#include "sim/nic/mac_model.hpp"

#include <algorithm>

namespace pioc::sim::nic {

mac_result mac_model::transmit(std::uint64_t last_beat_cycle, std::size_t len)
{
	using t = mac_timing;
	mac_result r;
	r.tx_stamp = last_beat_cycle;
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
	const std::uint64_t start_bt = std::max((last_beat_cycle + 1) * bpc, line_free_bt_);
	line_free_bt_ = start_bt + t::wire_bytes(len);
	const std::uint64_t off_line = (line_free_bt_ + bpc - 1) / bpc;
	r.delivered = true;
	r.rx_first = std::max(off_line, rx_free_);
	r.rx_stamp = r.rx_first + t::beats(len) - 1;
	rx_free_ = r.rx_stamp + 1;
	return r;
}

} // namespace pioc::sim::nic
