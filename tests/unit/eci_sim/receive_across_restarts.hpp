// A 5b receiver that keeps receiving across device restarts: on the
// out-of-step answer (errc::device_error) it resyncs and goes on, as an
// application would. Shared by the model's and the RTL engine's tests.
#pragma once

#include <pioc/coherent/invoke.hpp>
#include <pioc/error.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace fx {

struct received_stream {
	std::vector<std::uint32_t> ids; ///< first 4 bytes of each message, in arrival order
	unsigned refused = 0;           ///< out-of-step answers (one per restart noticed)
	unsigned wrong = 0;             ///< messages whose bytes are not what @p expected gives
};

/** Receives until @p count messages came; each must equal expected(id) for
 *  the id in its first 4 bytes. A receive() that gives up (@p max_not_ready
 *  "not ready" answers in a row) fails the test: a message was lost. */
template <class Rx, class Expected>
received_stream receive_across_restarts(Rx &rx, std::uint32_t count, std::uint32_t max_not_ready, Expected expected)
{
	received_stream r;
	std::vector<std::uint8_t> buf(pioc::coherent::max_message);
	while (r.ids.size() < count && r.refused < 1000) {
		std::size_t got = 0;
		try {
			got = rx.receive(buf.data(), buf.size(), max_not_ready);
		} catch (const pioc::error &x) {
			INFO(x.what());
			REQUIRE(x.code() == pioc::errc::device_error);
			++r.refused;
			rx.resync();
			continue;
		}
		REQUIRE(got > 0); // the stream stalled: a message was lost
		std::uint32_t id = 0;
		std::memcpy(&id, buf.data(), 4);
		const auto want = expected(id);
		if (got != want.size() || !std::equal(want.begin(), want.end(), buf.begin()))
			++r.wrong;
		r.ids.push_back(id);
	}
	return r;
}

} // namespace fx
