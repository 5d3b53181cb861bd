// Shared by the NIC interrupt-receive tests: frames sent in bursts and
// received one by one with wait_rx, and the I/O view of a region.
#pragma once

#include "unit/nic/random_frame.hpp"

#include <pioc/nic/nic.hpp>
#include <pioc/region.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <random>
#include <type_traits>
#include <vector>

namespace nic_test {

/** The region's I/O view of type @p IO (default-constructed if it has none). */
template <class IO> IO view_of(const pioc::region &reg)
{
	IO out;
	reg.visit([&](const auto &io) {
		if constexpr (std::is_same_v<std::remove_cvref_t<decltype(io)>, IO>)
			out = io;
	});
	return out;
}

/** @p frames random frames in bursts of 1..4, each burst received frame by
 *  frame with wait_rx: once, in order, byte-exact, each within 1 ms. */
template <class NIC> void receive_by_interrupt(NIC &nic, unsigned frames, std::uint64_t seed)
{
	using namespace pioc::nic;
	std::mt19937_64 rng(seed);
	std::vector<std::byte> buf(mtu);
	std::deque<std::vector<std::byte>> in_flight;
	unsigned got = 0, sent = 0;
	while (got < frames) {
		const unsigned burst = 1 + rng() % 4;
		for (unsigned b = 0; b < burst && sent < frames; ++b) {
			auto f = random_frame(rng, 60 + rng() % (mtu - 59));
			REQUIRE(nic.send(f));
			in_flight.push_back(std::move(f));
			++sent;
		}
		while (!in_flight.empty()) {
			const std::size_t n = nic.wait_rx(buf, nic.host_ns() + 1'000'000);
			REQUIRE(n == in_flight.front().size());
			REQUIRE(std::equal(buf.begin(), buf.begin() + n, in_flight.front().begin()));
			in_flight.pop_front();
			++got;
			tx_info ti;
			while (nic.poll_tx(ti)) {}
		}
	}
	REQUIRE(nic.poll_rx(buf) == 0);
}

} // namespace nic_test
