/** @file
 * Two real threads on two cores (queue, pingpong): where the rings live (the
 * heap or a module's ECI window), the echo thread's core, the timed loop.
 */
#pragma once

#include "devices.hpp"

#include <pioc/bench/histogram.hpp>
#include <pioc/bench/placed.hpp>
#include <pioc/clock.hpp>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ecibench {

/** Line-aligned, zeroed memory for the rings: the heap ("cores"), or a
 *  module's ECI window (opened through device::open, mapped write-back). */
class ring_memory {
public:
	ring_memory(const device_choice &d, std::uint32_t line);
	~ring_memory();
	/** Two areas of @p bytes each (rounded up to lines). */
	std::pair<void *, void *> two(std::size_t bytes);

private:
	struct heap_block;
	std::uint32_t line_;
	std::string spec_;
	std::optional<pioc::device> dev_;
	void *win_ = nullptr;
	std::uint64_t win_size_ = 0;
	std::vector<std::unique_ptr<heap_block>> heap_;
};

/** Moves the echo thread @p t to another core than the caller's; says where. */
std::string pin_peer(std::thread &t);

/** Round trips: @p echo(count) on another core answers @p ping(i), timed
 *  with the CPU's tick counter; the first @p warmup are not recorded. */
template <class Echo, class Ping>
pioc::bench::histogram pingpong(std::uint64_t iters, std::uint64_t warmup, Echo echo, Ping ping, std::string &peer)
{
	(void)pioc::hw_clock::ns_per_tick(); // calibrated now, not inside a round trip
	std::thread t([&] { echo(iters + warmup); });
	peer = pin_peer(t);
	pioc::bench::histogram h;
	for (std::uint64_t i = 0; i < iters + warmup; ++i) {
		auto t0 = pioc::read_ticks();
		ping(i);
		auto t1 = pioc::read_ticks();
		if (i >= warmup)
			h.record(pioc::hw_clock::ticks_to_ns(t1 - t0));
	}
	t.join();
	return h;
}

/** Message round trips over two queues: this core sends on @p to_tx and
 *  waits on @p from_rx; the echo thread takes from @p to_rx and sends back
 *  on @p from_tx (FastForward: a queue is both ends; CNI: sender/receiver).
 *  The queues and ends should be pioc::bench::placed, as the buffers here
 *  are: what both threads touch stays off the stacks and out of each
 *  other's 128-byte pairs (pioc/bench/placed.hpp). */
template <class ToTx, class ToRx, class FromTx, class FromRx>
pioc::bench::histogram queue_pingpong(ToTx &to_tx, ToRx &to_rx, FromTx &from_tx, FromRx &from_rx, std::size_t n,
				      std::uint32_t line, const bench_options &o, std::string &peer)
{
	const pioc::bench::placed_buffer msg(n), echo_buf(line), ping_buf(4096);
	std::memset(msg.get(), 1, n);
	return pingpong(
		o.iterations, o.warmup,
		[&from_tx, &to_rx, buf = echo_buf.get(), line](std::uint64_t k) {
			for (std::uint64_t i = 0; i < k; ++i)
				from_tx.send(buf, to_rx.receive(buf, line));
		},
		[&to_tx, &from_rx, m = msg.get(), n, buf = ping_buf.get()](std::uint64_t) {
			to_tx.send(m, n);
			from_rx.receive(buf, 4096);
		},
		peer);
}

/** The report header of a run between two cores (@p d: cores or a window). */
pioc::bench::report two_core_report(const std::string &tool, const device_choice &d, const bench_options &o,
				    std::uint32_t line);

} // namespace ecibench
