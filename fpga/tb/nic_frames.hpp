// Random frames for the NIC testbenches (test_nic_pio_top, test_nic_dma_top).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pioc::tb::nic {

using bytes = std::vector<std::uint8_t>;

/** @p len random bytes. */
inline bytes random_frame(std::mt19937_64 &rng, std::size_t len)
{
	bytes b(len);
	for (auto &x : b)
		x = static_cast<std::uint8_t>(rng());
	return b;
}

/** A legal frame length (60..9600): a quarter near the minimum, a quarter
 *  near the MTU, the rest anywhere, so both edges are hit often. */
inline std::size_t pick_len(std::mt19937_64 &rng)
{
	switch (rng() % 4) {
	case 0: return 60 + rng() % 8;
	case 1: return 9600 - rng() % 8;
	default: return 60 + rng() % (9600 - 60 + 1);
	}
}

} // namespace pioc::tb::nic
