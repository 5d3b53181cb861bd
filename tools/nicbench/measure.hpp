// The timed loops of nicbench, written once against pioc::nic::driver.
// Latency as the paper defines it (Sec. 6.3), with the MAC's stamps mapped
// to the host clock: RX from the last beat at the MAC to poll_rx() having
// copied the whole frame, TX from the frame ready before send() to its last
// beat at the MAC. Every frame is checked byte-exact, in order, exactly once.
#pragma once

#include <pioc/bench/histogram.hpp>
#include <pioc/error.hpp>
#include <pioc/nic/nic.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace nicbench {

/** Frames that differ from each other: the sequence number first, then a
 *  slice of random bytes drawn once, starting at a random offset (one draw
 *  per frame). Drawing every byte afresh (mt19937_64, eight bytes a draw)
 *  was two thirds of a sim:nic_dma run's CPU time at 9600 B (perf), counted
 *  in the simulator's speed; and in stream() it is inside the timed loop.
 *  A frame is not built in a buffer of its own either (an allocation and a
 *  copy per frame, a fifth of the bytes a 9600-byte sim:nic_dma frame moved,
 *  and 600 KiB of in-flight copies that pushed the rings out of the cache):
 *  it is its slice of the pool with the sequence number over the slice's
 *  first eight bytes while it is sent (send()), and it is checked against
 *  the same (check()). A frame left over from another one in a buffer still
 *  differs in its sequence number and, almost always, its slice. */
struct frame_source {
	static constexpr std::size_t pool_bytes = std::size_t(1) << 16;
	std::mt19937_64 rng{42};
	std::vector<std::byte> pool = random_bytes(rng, pool_bytes + pioc::nic::mtu);
	std::uint64_t seq = 0;

	/** One frame: its sequence number and its slice of the pool. */
	struct frame {
		std::uint64_t seq = 0;
		std::size_t off = 0, len = 0;
	};

	/** The next frame, of @p len bytes (8 .. pioc::nic::mtu). */
	frame next(std::size_t len)
	{
		const std::size_t off = std::size_t(rng() % pool_bytes);
		return {seq++, off, len};
	}

	/** Calls @p f with frame @p fr's bytes (valid during the call only) and
	 *  returns what it returns: nic.send(bytes) copies them. */
	template <class F> decltype(auto) with_bytes(const frame &fr, F &&f)
	{
		std::byte *p = pool.data() + fr.off;
		struct restore {
			std::byte *p;
			std::byte saved[sizeof(std::uint64_t)];
			~restore() { std::memcpy(p, saved, sizeof saved); }
		} r{p, {}};
		std::memcpy(r.saved, p, sizeof r.saved);
		std::memcpy(p, &fr.seq, sizeof fr.seq);
		return f(std::span<const std::byte>(p, fr.len));
	}

	/** Whether @p got is frame @p fr, byte for byte. */
	bool same(std::span<const std::byte> got, const frame &fr) const
	{
		constexpr std::size_t s = sizeof fr.seq;
		return got.size() == fr.len && std::memcmp(got.data(), &fr.seq, s) == 0 &&
		       std::memcmp(got.data() + s, pool.data() + fr.off + s, fr.len - s) == 0;
	}

	/** @p n random bytes: splitmix64 from one draw of @p rng (a draw of
	 *  the Mersenne twister per 8 bytes was 0.45 M instructions, a fifth
	 *  of sim:nic_dma's open). */
	static std::vector<std::byte> random_bytes(std::mt19937_64 &rng, std::size_t n)
	{
		std::vector<std::byte> b(n);
		std::uint64_t x = rng();
		for (std::size_t i = 0; i < n; i += 8) {
			std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			z ^= z >> 31;
			std::memcpy(b.data() + i, &z, std::min<std::size_t>(8, n - i));
		}
		return b;
	}
};

[[noreturn]] inline void mismatch(std::uint64_t i, const std::string &what)
{
	throw pioc::error(pioc::errc::device_error, "nicbench: frame " + std::to_string(i) + " " + what);
}

inline void check_same(std::uint64_t i, std::span<const std::byte> got, const frame_source &src,
		       const frame_source::frame &want)
{
	if (got.size() != want.len)
		mismatch(i, "came back with " + std::to_string(got.size()) + " bytes, sent " +
				    std::to_string(want.len));
	if (!src.same(got, want))
		mismatch(i, "came back with different bytes (or out of order)");
}

struct latencies {
	pioc::bench::histogram rx, tx;
};

/** How ping() waits for the frame: spinning on poll_rx, or asleep in the
 *  driver's wait_rx until the NIC's RX interrupt (chosen once, above the
 *  timed loop). */
enum class rx_wait { poll, irq };

/** By default, a frame that does not come back within this long (host or
 *  simulated ns) ends an interrupt-driven ping with an error instead of
 *  hanging (nicbench --rx-timeout changes it: a guest under TCG may take
 *  longer than hardware ever would). */
inline constexpr std::uint64_t irq_wait_limit_ns = 1'000'000'000;

/** The error of an interrupt-driven wait for frame @p i that ran out after
 *  @p limit_ns: @p arrived says whether the frame was in the ring after
 *  all (its interrupt never woke the wait: lost, or never raised) or not
 *  (the frame itself is late or lost). */
[[noreturn, gnu::cold]] inline void irq_wait_expired(std::uint64_t i, std::uint64_t limit_ns, bool arrived)
{
	const std::string after = "within " + std::to_string(limit_ns / 1'000'000) + " ms";
	if (arrived)
		throw pioc::error(pioc::errc::timeout, "nicbench: frame " + std::to_string(i) +
							       " came back, but no RX interrupt woke the wait " + after +
							       " (an interrupt lost or never raised)");
	throw pioc::error(pioc::errc::timeout, "nicbench: frame " + std::to_string(i) + " did not come back " + after +
						       " (--rx-timeout to wait longer)");
}

/** One poll of ping()'s receive spin, which does nothing else between its
 *  polls and has no deadline: the driver's poll_rx_spin() where it has one
 *  (the DMA NIC: the simulator spends the polls that cannot see the frame
 *  at once, at the same simulated times), else poll_rx(). */
template <pioc::nic::driver N> std::size_t spin_poll_rx(N &nic, std::span<std::byte> buf)
{
	if constexpr (requires { nic.poll_rx_spin(buf); })
		return nic.poll_rx_spin(buf);
	else
		return nic.poll_rx(buf);
}

/** One frame at a time: send, reap its TX stamp, wait until it is back. */
template <rx_wait W = rx_wait::poll, pioc::nic::driver N>
latencies ping(N &nic, std::size_t len, std::uint64_t iterations, frame_source &src,
	       std::uint64_t irq_limit_ns = irq_wait_limit_ns)
{
	latencies l;
	std::vector<std::byte> buf(pioc::nic::mtu);
	const pioc::nic::clock_map cm = nic.clock();
	for (std::uint64_t i = 0; i < iterations; ++i) {
		const auto f = src.next(len);
		const std::uint64_t t_ready = nic.host_ns();
		src.with_bytes(f, [&](std::span<const std::byte> b) {
			while (!nic.send(b)) {
			}
		});
		std::size_t n = 0;
		if constexpr (W == rx_wait::irq) {
			if ((n = nic.wait_rx(buf, nic.host_ns() + irq_limit_ns)) == 0)
				irq_wait_expired(i, irq_limit_ns, nic.poll_rx(buf) != 0);
		} else {
			while ((n = spin_poll_rx(nic, buf)) == 0) {}
		}
		const std::uint64_t t_rx = nic.host_ns();
		pioc::nic::tx_info ti;
		while (!nic.poll_tx(ti)) {
		}
		check_same(i, std::span(buf.data(), n), src, f);
		l.rx.record(std::uint64_t(std::max<std::int64_t>(0, std::int64_t(t_rx) - cm.to_host_ns(nic.last_rx().mac_cycle))));
		l.tx.record(std::uint64_t(std::max<std::int64_t>(0, cm.to_host_ns(ti.mac_cycle) - std::int64_t(t_ready))));
	}
	if (nic.poll_rx(buf) != 0)
		mismatch(iterations, "arrived twice or unsent");
	return l;
}

/** ping() asleep in wait_rx, for the drivers that have it; the others (the
 *  ECI NIC has no receive interrupt) throw not_supported. */
template <pioc::nic::driver N>
latencies ping_irq(N &nic, std::size_t len, std::uint64_t iterations, frame_source &src, std::uint64_t limit_ns)
{
	if constexpr (requires(std::span<std::byte> b) { nic.wait_rx(b, std::uint64_t{}); })
		return ping<rx_wait::irq>(nic, len, iterations, src, limit_ns);
	else
		throw pioc::error(pioc::errc::not_supported, "nicbench: this path has no receive interrupt");
}

/** What stream() measured. */
struct stream_result {
	std::uint64_t ns = 0;        ///< first send to last frame back
	std::uint64_t delivered = 0; ///< frames back, each byte-exact and in order
	std::uint64_t lost = 0;      ///< frames the NIC dropped (skipped in the sequence)
};

inline std::uint64_t seq_of(std::span<const std::byte> f)
{
	std::uint64_t s;
	std::memcpy(&s, f.data(), sizeof s);
	return s;
}

/** Frames sent and not yet back, oldest first: a ring of at most @p limit
 *  (the RX ring's size), no allocation per frame. */
class in_flight_frames {
public:
	explicit in_flight_frames(std::size_t limit) : ring_(limit) {}
	bool empty() const noexcept { return n_ == 0; }
	std::size_t size() const noexcept { return n_; }
	const frame_source::frame &front() const noexcept { return ring_[head_]; }
	void push_back(const frame_source::frame &f) noexcept
	{
		ring_[(head_ + n_) % ring_.size()] = f;
		++n_;
	}
	/** Drops the @p k oldest (k <= size()). */
	void pop_front(std::size_t k = 1) noexcept
	{
		head_ = (head_ + k) % ring_.size();
		n_ -= k;
	}

private:
	std::vector<frame_source::frame> ring_;
	std::size_t head_ = 0, n_ = 0;
};

/** Frames back to back, as many in flight as the rings allow. A NIC may
 *  drop under overload (the PCIe NICs' RX side never backpressures the MAC:
 *  a frame that finds its FIFO or ring full is dropped and counted), so a
 *  frame may be missing from the sequence: it is counted as lost. Every
 *  frame that arrives must be byte-exact, in order and sent exactly once. */
template <pioc::nic::driver N> stream_result stream(N &nic, std::size_t len, std::uint64_t count, frame_source &src)
{
	const std::uint64_t limit = nic.rings().rx; // never more than the RX ring holds
	in_flight_frames in_flight(limit);
	std::vector<std::byte> buf(pioc::nic::mtu);
	std::uint64_t sent = 0;
	stream_result r;
	const std::uint64_t t0 = nic.host_ns();
	std::uint64_t idle = 0;
	while (r.delivered + r.lost < count) {
		if (++idle > 10'000'000) {
			if (sent == count && !in_flight.empty()) { // the last frames never came: dropped too
				r.lost += in_flight.size();
				break;
			}
			throw pioc::error(pioc::errc::timeout, "nicbench: frame " + std::to_string(r.delivered + r.lost) +
								       " never came back and nothing else arrives");
		}
		if (sent < count && in_flight.size() < limit) {
			const auto f = src.next(len);
			if (src.with_bytes(f, [&](std::span<const std::byte> b) { return nic.send(b); })) {
				in_flight.push_back(f);
				++sent;
			} else {
				// TX ring full: take the slots back, without the stamps
				// this loop never uses (poll_tx would read one per frame:
				// an uncached read each on the PCIe NICs, which capped
				// small frames at one PCIe round trip each).
				nic.reclaim_tx();
			}
		}
		while (std::size_t n = nic.poll_rx(buf)) {
			const std::span<const std::byte> got(buf.data(), n);
			const std::uint64_t i = r.delivered + r.lost;
			if (in_flight.empty())
				mismatch(i, "arrived but was never sent");
			// Frames before this one in the sequence were dropped by the NIC.
			const std::uint64_t first = in_flight.front().seq, s = n >= 8 ? seq_of(got) : first;
			if (s > first && s - first < in_flight.size()) {
				r.lost += s - first;
				in_flight.pop_front(std::size_t(s - first));
			}
			check_same(r.delivered + r.lost, got, src, in_flight.front());
			in_flight.pop_front();
			++r.delivered;
			idle = 0;
		}
	}
	r.ns = nic.host_ns() - t0;
	nic.reclaim_tx(); // every slot free for the next size
	return r;
}

} // namespace nicbench
