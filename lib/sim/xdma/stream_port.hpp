// The user side of the XDMA model's AXI4-Stream engines (PG195 "DMA H2C
// Stream", "DMA C2H Stream"): what an H2C engine hands to the user logic, and
// the packets the user logic offers a C2H engine. The DMA NIC model connects
// its MAC here; without a sink the model loops each H2C channel back into the
// C2H channel of the same number, as PG195's AXI4-Stream example design does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pioc::sim {

/** Beats of the user-side stream: 512 bits at the 250 MHz AXI clock. */
inline constexpr unsigned stream_beat_bytes = 64;
inline constexpr double stream_beat_ns = 4;

/** Where an H2C stream engine's data goes. */
class stream_sink {
public:
	virtual ~stream_sink() = default;
	/** H2C channel @p ch moves one descriptor's @p len bytes: its first
	 *  beat can leave at @p first_ns, its last at @p last_ns (data from the
	 *  host arrives in between). @p eop: the last beat carries tlast. The
	 *  engine packs data per descriptor, so a descriptor without EOP whose
	 *  length is not a multiple of the beat leaves a partial beat inside the
	 *  packet; the sink decides what that does to the packet. Returns the
	 *  time the last beat was taken (backpressure delays it). */
	virtual double h2c_stream(unsigned ch, const std::uint8_t *data, std::size_t len, bool eop, double first_ns,
				  double last_ns) = 0;
	/** The user logic's reset, which a function reset asserts with the
	 *  engines' (the XDMA IP's user_reset): counters, FIFOs and a packet in
	 *  assembly back to their reset values. Default: the sink holds none. */
	virtual void user_reset() {}
};

/** A packet offered to a C2H stream engine, beat by beat. */
struct stream_packet {
	std::vector<std::uint8_t> bytes;
	double last_ns = 0;		 ///< the packet's last beat is on the stream
	double beat_ns = stream_beat_ns; ///< one beat per this, before the last
	std::size_t taken = 0;		 ///< bytes already written to descriptors
	/** When the beat holding byte @p end - 1 was on the stream. */
	double ready_ns(std::size_t end) const noexcept
	{
		const std::size_t beats = (bytes.size() + stream_beat_bytes - 1) / stream_beat_bytes;
		const std::size_t upto = (end + stream_beat_bytes - 1) / stream_beat_bytes;
		return last_ns - double(beats - upto) * beat_ns;
	}
};

} // namespace pioc::sim
