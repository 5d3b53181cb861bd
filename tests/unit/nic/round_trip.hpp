// One frame through a NIC driver and back, checked: shared by the DMA NIC's
// reset tests (unit: the model; rtl: the model and the Verilated image).
#pragma once

#include <pioc/nic/nic.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace nic_test {

/** Sends @p f, polls until it is back (byte-exact), then until its TX
 *  completion is reaped with its length. */
template <class Nic> void round_trip(Nic &nic, const std::vector<std::byte> &f)
{
	std::vector<std::byte> buf(pioc::nic::mtu);
	REQUIRE(nic.send(f));
	std::size_t n = 0;
	for (int k = 0; k < 100000 && !(n = nic.poll_rx(buf)); ++k) {}
	REQUIRE(n == f.size());
	REQUIRE(std::equal(f.begin(), f.end(), buf.begin()));
	pioc::nic::tx_info ti;
	bool reaped = false;
	for (int k = 0; k < 100000 && !(reaped = nic.poll_tx(ti)); ++k) {}
	REQUIRE(reaped);
	CHECK(ti.len == f.size());
}

} // namespace nic_test
