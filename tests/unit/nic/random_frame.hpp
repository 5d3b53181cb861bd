// Frames of random bytes for the NIC driver tests.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace nic_test {

inline std::vector<std::byte> random_frame(std::mt19937_64 &rng, std::size_t len)
{
	std::vector<std::byte> f(len);
	for (auto &b : f)
		b = std::byte(rng());
	return f;
}

} // namespace nic_test
