// The Fig. 5 protocols against a CPU whose stores reach the L2 out of
// program order (system::store_buffer), on top of the adversary's
// evictions and speculative reads: with the barriers the code issues every
// call is answered right; with the release barrier taken away
// (system::ignore_barrier: the model acts as if the code had none) the
// device reads requests the CPU has not finished writing.
#include "fixture.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace pioc;
using namespace fx;

namespace {

struct outcome {
	unsigned bad = 0;
	std::uint64_t reorders = 0;
};

/** @p calls calls of variant @p v; every answer checked (echo with the
 *  call's id in front); store-order barriers in @p ignored are ignored. */
outcome run_calls(coherent::variant v, bool pipelined, std::uint64_t seed, unsigned calls,
		  std::initializer_list<barrier::kind> ignored)
{
	sim::eci::engine_config e;
	e.v = v;
	e.data_lines = pipelined ? 40 : 0;
	e.handler = [](const std::uint8_t *q, std::size_t n, std::uint8_t *r, std::size_t) {
		std::memcpy(r, q, n);
		return n;
	};
	rig r(e);
	const auto lay = r.eng->channel_layout(0);
	const std::uint64_t base = r.eng->window_base();
	r.sys->adversary(seed, 0.1, {base + lay.ctrl_off(0), base + lay.ctrl_off(1)});
	r.sys->store_buffer(seed * 7 + 1, 0.3);
	for (auto k : ignored)
		r.sys->ignore_barrier(k);
	coherent::cpu_options o;
	o.pipelined = pipelined;
	o.max_not_ready = 1000;
	auto inv = r.invoker(0, o);
	outcome out;
	out.bad = echo_calls(inv, calls, {8, 119, 240, 700, 2000});
	out.reorders = r.sys->store_buffer_reorders();
	return out;
}

} // namespace

TEST_CASE("store buffer: every call right with the code's barriers, stores reordered")
{
	for (auto v : {coherent::variant::cpu_dev, coherent::variant::cpu_cpu}) {
		for (bool pipelined : {false, true}) {
			for (std::uint64_t seed : {1, 2}) {
				INFO(coherent::to_string(v) << (pipelined ? " pipelined" : "") << " seed " << seed);
				const auto o = run_calls(v, pipelined, seed, 300, {});
				CHECK(o.bad == 0);
				// Pipelined calls store several lines before one barrier:
				// the buffer reorders those. Line by line, the barriers
				// leave one store at a time in the buffer; the test below
				// shows that the same calls go wrong without them.
				if (pipelined)
					CHECK(o.reorders > 100);
			}
		}
	}
}

TEST_CASE("store buffer: without the release store's barrier the device reads unfinished requests")
{
	// The control word's store_release orders the payload before it. With
	// that barrier gone, the control word can reach the line first and
	// the device answers a request whose payload is still buffered. (The
	// store_load barrier before the signalling load is not needed for
	// correctness here: without it the device sees the old control word,
	// answers not-ready, and the CPU asks again once the store drained.)
	for (auto v : {coherent::variant::cpu_dev, coherent::variant::cpu_cpu}) {
		INFO(coherent::to_string(v));
		const auto o = run_calls(v, false, 3, 300, {barrier::kind::store_store});
		CHECK(o.bad > 0);
		// The same calls with the store buffer's barriers honoured: none bad.
		CHECK(run_calls(v, false, 3, 300, {}).bad == 0);
	}
}
