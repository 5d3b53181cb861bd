// The MAC stand-in's behavioural model: line timing at 100 Gb/s, the finite
// store stalling the TX side, runts and oversize frames counted and dropped.
// (Its cycle-exact agreement with the RTL is checked in
// fpga/tb/test_mac_loopback.cpp.)
#include "sim/nic/mac_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using pioc::sim::nic::mac_model;
using pioc::sim::nic::mac_timing;

TEST_CASE("mac model: one frame is stored, sent on the line, streamed back")
{
	mac_model m;
	// 1536 bytes: 1560 wire bytes from byte-time 101*50 -> ends at 6610,
	// off the line in cycle 133 (ceil(6610/50)), 24 beats of 64 bytes.
	auto r = m.transmit(100, 1536);
	REQUIRE(r.delivered);
	REQUIRE(r.tx_stamp == 100);
	REQUIRE(r.rx_first == 133);
	REQUIRE(r.rx_stamp == 133 + 24 - 1);
}

TEST_CASE("mac model: back-to-back minimum frames are limited by the line")
{
	mac_model m;
	std::uint64_t first = 0, last = 0;
	for (unsigned i = 0; i < 1000; ++i) {
		auto r = m.transmit(i, 60); // one 60-byte frame per cycle offered
		if (i == 0)
			first = r.rx_stamp;
		last = r.rx_stamp;
	}
	// 84 byte-times per frame at 50 per cycle: 1.68 cycles per frame,
	// i.e. 148.8 Mframes/s, the 100G line rate for 60-byte frames.
	const double per_frame = double(last - first) / 999.0;
	REQUIRE(per_frame == Approx(84.0 / 50.0).epsilon(0.01));
}

TEST_CASE("mac model: runts and oversize frames are counted, not delivered")
{
	mac_model m;
	REQUIRE_FALSE(m.transmit(10, 59).delivered);
	REQUIRE_FALSE(m.transmit(11, 9601).delivered);
	REQUIRE(m.transmit(12, 60).delivered);
	REQUIRE(m.transmit(13, 9600).delivered);
	REQUIRE(m.runts() == 1);
	REQUIRE(m.oversized() == 1);
}

TEST_CASE("mac model: a full store stalls the TX side (second MTU frame)")
{
	mac_model m;
	// Frame 0: beats in cycles 0..149, on the line from byte-time 150*50 =
	// 7500 to 7500 + 9624 = 17124, first RX beat in cycle 343 (ceil of
	// 342.48), its beats read in 343..492.
	auto f0 = m.transmit(149, 9600);
	REQUIRE(f0.tx_stamp == 149);
	REQUIRE(f0.rx_first == 343);
	// Frame 1 offered from cycle 150: 106 beats fill the 256-beat store
	// (cycles 150..255); beat 106 waits for frame 0's beat 0 to be read
	// (cycle 343, room from 344), the other 43 follow one a cycle as frame 0
	// drains: the last is taken in 344 + 43 = 387, not 299.
	static_assert(mac_timing::store_beats == 256 && mac_timing::beats(9600) == 150);
	auto f1 = m.transmit(299, 9600);
	REQUIRE(f1.tx_stamp == 387);
	// store and forward: the line takes frame 1 only once it is stored whole,
	// from byte-time 388 * 50 = 19400 to 29024: first RX beat in cycle 581
	REQUIRE(f1.rx_first == 581);
}

TEST_CASE("mac model: MTU frames offered back to back wait for the store")
{
	mac_model m;
	const std::uint64_t beats = mac_timing::beats(9600);
	std::uint64_t offer = beats - 1, last = 0;
	for (unsigned i = 0; i < 200; ++i) {
		const auto r = m.transmit(offer, 9600);
		REQUIRE(r.tx_stamp >= offer);
		last = r.tx_stamp;
		offer = r.tx_stamp + beats; // the next frame right after this one
	}
	// Two MTU frames do not fit in 256 beats: frame k+1's last beat waits
	// for frame k's beat 150 + 149 - 256 = 43 to be read (rx_first + 44),
	// goes on the line a cycle later and off it ceil(9624 / 50) = 193 cycles
	// after that: 238 cycles per frame (81 Gb/s), not the stream's 150 or
	// the line's 192.48. Frame 1 is taken in 387 (see above).
	REQUIRE(last == 387 + 238 * 198);
}

TEST_CASE("mac model: at most 16 frames are stored")
{
	mac_model m;
	// 60-byte frames, one offered per cycle: the line drains one per 1.68
	// cycles, so the 16-frame store fills and the TX side follows the line.
	std::uint64_t taken = 0;
	for (unsigned i = 0; i < 1000; ++i) {
		const auto r = m.transmit(i == 0 ? 0 : std::max<std::uint64_t>(i, taken + 1), 60);
		if (i == 0)
			REQUIRE(r.tx_stamp == 0);
		else
			REQUIRE(r.tx_stamp > taken);
		taken = r.tx_stamp;
	}
	REQUIRE(double(taken) / 999.0 == Approx(84.0 / 50.0).epsilon(0.02));
}

namespace {

/** The store's rule walked beat by beat, with every delivered frame's RX
 *  beats remembered (no ring): the reference for mac_model's closed form. */
class store_walk {
public:
	/** The cycle the MAC takes the last of @p len bytes offered with its last beat in @p last. */
	std::int64_t accept(std::int64_t last, std::size_t len) const
	{
		using t = mac_timing;
		const std::int64_t n = std::int64_t(std::max<std::uint64_t>(1, t::beats(len)));
		std::int64_t taken = 0;
		for (std::int64_t i = 0; i < n; ++i) {
			std::int64_t at = std::max(tx_taken_ + 1, last - (n - 1 - i));
			if (i > 0)
				at = std::max(at, taken + 1);
			if (done_.size() >= t::store_frames) // the frame store_frames back read whole
				at = std::max(at, done_[done_.size() - t::store_frames]);
			const std::uint64_t g = read_.size() + std::min<std::uint64_t>(std::uint64_t(i), t::oversize_stored_beats);
			if (g >= t::store_beats) // the beat store_beats back read
				at = std::max(at, read_[g - t::store_beats] + 1);
			taken = at;
		}
		return taken;
	}
	void taken(std::int64_t c) { tx_taken_ = c; }
	void delivered(std::uint64_t rx_first, std::size_t len)
	{
		const std::uint64_t b = mac_timing::beats(len);
		for (std::uint64_t j = 0; j < b; ++j)
			read_.push_back(std::int64_t(rx_first + j));
		done_.push_back(std::int64_t(rx_first + b));
	}

private:
	std::int64_t tx_taken_ = -1;
	std::vector<std::int64_t> read_; ///< RX read cycle of every stored beat
	std::vector<std::int64_t> done_; ///< cycle after each delivered frame's last RX beat
};

} // namespace

TEST_CASE("mac model: the store's TX stalls agree with the beat-by-beat walk on random frames and gaps")
{
	for (std::uint64_t seed = 1; seed <= 20; ++seed) {
		std::mt19937_64 rng(seed);
		mac_model m;
		store_walk ref;
		std::int64_t last = 0;
		unsigned stalled = 0;
		for (int i = 0; i < 3000; ++i) {
			const unsigned kind = unsigned(rng() % 20);
			const std::size_t len = kind == 0   ? 1 + rng() % 59			// runt
						: kind == 1 ? mac_timing::mtu + 1 + rng() % 3000 // oversize
						: kind < 8  ? mac_timing::mtu - rng() % 200
							    : mac_timing::min_frame + rng() % (mac_timing::mtu - 59);
			// mostly back to back (the store fills), now and then a pause
			last += std::int64_t(rng() % 8 == 0 ? rng() % 3000 : rng() % 4);
			const std::int64_t want = ref.accept(last, len);
			const auto r = m.transmit(std::uint64_t(last), len);
			INFO("seed " << seed << " frame " << i << " len " << len << " last " << last);
			REQUIRE(std::int64_t(r.tx_stamp) == want);
			stalled += want > last;
			ref.taken(want);
			if (r.delivered)
				ref.delivered(r.rx_first, len);
		}
		CHECK(stalled > 100); // the store did stall the TX side
	}
}
