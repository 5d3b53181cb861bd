// reclaim_tx() on any NIC driver (nic::driver): the TX slots of frames the
// NIC is done with come back without their stamps, once, and poll_tx()
// afterwards reports exactly the frames sent later, in order. Shared by the
// PIO, DMA and ECI NIC driver tests.
#pragma once

#include "unit/nic/random_frame.hpp"

#include <pioc/nic/nic.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

namespace nic_test {

/** Sends @p k frames one at a time and waits until each is back,
 *  byte-exact, never calling poll_tx(); returns their lengths. */
template <class Nic> std::vector<std::size_t> send_back(Nic &nic, std::mt19937_64 &rng, unsigned k)
{
	std::vector<std::size_t> lens;
	std::vector<std::byte> buf(pioc::nic::mtu);
	for (unsigned i = 0; i < k; ++i) {
		const auto f = random_frame(rng, 60 + (rng() % 1500));
		REQUIRE(nic.send(f));
		std::size_t n = 0;
		for (int t = 0; t < 100000 && !(n = nic.poll_rx(buf)); ++t) {}
		REQUIRE(n == f.size());
		REQUIRE(std::equal(f.begin(), f.end(), buf.begin()));
		lens.push_back(n);
	}
	return lens;
}

/** A TX ring's worth sent and back (with @p held, the driver keeps the
 *  slots until poll_tx or reclaim_tx: the ring is full then);
 *  reclaim_tx() takes all of it back (a second call nothing); the next
 *  ring's worth is reported by poll_tx(), each frame once, in order, with
 *  its length and a later stamp. */
template <class Nic> void reclaim_steps(Nic &nic, bool held)
{
	const unsigned ring = nic.rings().tx;
	std::mt19937_64 rng(5);
	send_back(nic, rng, ring);
	if (held)
		CHECK_FALSE(nic.send(random_frame(rng, 60)));
	CHECK(nic.reclaim_tx() == ring);
	CHECK(nic.reclaim_tx() == 0);
	const auto lens = send_back(nic, rng, ring); // needs every slot back
	std::uint64_t last = 0;
	for (unsigned i = 0; i < ring; ++i) {
		pioc::nic::tx_info ti;
		bool got = false;
		for (int t = 0; t < 100000 && !(got = nic.poll_tx(ti)); ++t) {}
		REQUIRE(got);
		CHECK(ti.len == lens[i]);
		CHECK(ti.mac_cycle > last);
		last = ti.mac_cycle;
	}
	pioc::nic::tx_info ti;
	CHECK_FALSE(nic.poll_tx(ti));
	CHECK(nic.reclaim_tx() == 0);
}

} // namespace nic_test
