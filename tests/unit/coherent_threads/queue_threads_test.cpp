// CNI cachable queue and FastForward between real threads: every message
// arrives once, in order, intact, under contention (both ends busy, small
// rings so the sender keeps hitting "full" and re-reads the lazy head).
#include <pioc/coherent/queue.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace pioc::coherent;

namespace {
struct aligned_mem {
	void *p;
	explicit aligned_mem(std::size_t n, std::size_t a) : p(std::aligned_alloc(a, (n + a - 1) / a * a))
	{
		std::memset(p, 0, (n + a - 1) / a * a);
	}
	~aligned_mem() { std::free(p); }
};

template <class Send, class Recv> void run_pair(unsigned msgs, std::uint32_t payload, Send send, Recv recv)
{
	std::vector<unsigned> bad;
	std::thread rx([&] {
		std::vector<std::uint8_t> buf(payload);
		for (unsigned i = 0; i < msgs; ++i) {
			std::size_t n = recv(buf.data(), buf.size());
			unsigned got;
			std::memcpy(&got, buf.data(), 4);
			if (n != 4 + i % (payload - 3) || got != i || (n > 4 && buf[n - 1] != std::uint8_t(i)))
				bad.push_back(i);
		}
	});
	std::vector<std::uint8_t> m(payload);
	for (unsigned i = 0; i < msgs; ++i) {
		std::size_t n = 4 + i % (payload - 3);
		std::memcpy(m.data(), &i, 4);
		if (n > 4)
			m[n - 1] = std::uint8_t(i);
		send(m.data(), n);
	}
	rx.join();
	CHECK(bad.empty());
}
} // namespace

TEST_CASE("CNI cachable queue between two threads: in order, exactly once", "[native]")
{
	for (std::uint32_t line : {64u, 128u}) {
		for (std::uint32_t entries : {2u, 8u, 64u}) {
			aligned_mem mem(cq::bytes(entries, line), line);
			cq q(mem.p, entries, line);
			cq::sender s(q);
			cq::receiver r(q);
			INFO("line " << line << " entries " << entries);
			run_pair(20000, q.payload_max(), [&](const void *p, std::size_t n) { s.send(p, n); },
				 [&](void *p, std::size_t c) { return r.receive(p, c); });
		}
	}
}

TEST_CASE("FastForward queue between two threads: in order, exactly once", "[native]")
{
	for (std::uint32_t entries : {2u, 32u}) {
		std::uint32_t line = host_line_size();
		aligned_mem mem(ff_queue::bytes(entries, line), line);
		ff_queue q(mem.p, entries, line);
		run_pair(20000, q.payload_max(), [&](const void *p, std::size_t n) { q.send(p, n); },
			 [&](void *p, std::size_t c) { return q.receive(p, c); });
	}
}

TEST_CASE("queues reject bad memory")
{
	alignas(128) static std::uint8_t buf[1024];
	CHECK_THROWS_AS(cq(buf + 8, 4, 128), pioc::error);
	CHECK_THROWS_AS(cq(buf, 1, 128), pioc::error);
	CHECK_THROWS_AS(ff_queue(buf, 4, 96), pioc::error);
	cq q(buf, 2, 128);
	cq::sender s(q);
	std::uint8_t m[8] = {};
	CHECK(s.try_send(m, 8));
	CHECK(s.try_send(m, 8));
	CHECK_FALSE(s.try_send(m, 8)); // full: the lazy head was re-read and still says full
}

TEST_CASE("CNI queue layout: the head's line, then one line per entry (the device model's memory map too)")
{
	for (std::uint32_t line : {64u, 128u}) {
		CHECK(cq::bytes(8, line) == 9u * line);
		aligned_mem mem(cq::bytes(8, line) * 3, line);
		cq q(mem.p, 8, line);
		CHECK(q.head_off() == 0);
		for (std::uint32_t i = 0; i < 16; ++i)
			CHECK(q.entry_off(i) == std::uint64_t(1 + i % 8) * line);
		CHECK(cq_ring<eci_sim_lines>::bytes(8, line) == 9u * line);
		// Spaced (bench/queue_pingpong): the head's stride, then one per entry.
		CHECK(cq_ring<mem_lines>::bytes(8, line, 3) == 27u * line);
		cq_ring<mem_lines> spaced(mem_lines(mem.p, line), 0, 8, 3);
		for (std::uint32_t i = 0; i < 8; ++i)
			CHECK(spaced.entry_off(i) == std::uint64_t(1 + i) * 3 * line);
		CHECK_THROWS_WITH(cq_ring<mem_lines>(mem_lines(mem.p, line), 0, 8, 17), Catch::Contains("entry_lines 17"));
		CHECK_THROWS_WITH(ff_queue(mem.p, 8, line, 0), Catch::Contains("slot_lines 0"));
	}
}

TEST_CASE("The spaced queues carry every message, ring wraps and full rings included", "[native]")
{
	// Two threads, a ring of 4 spaced entries: wraps every 4 messages and
	// is full often; every message arrives once, in order.
	const std::uint32_t line = 64, entries = 4;
	aligned_mem m(cq_ring<mem_lines>::bytes(entries, line, 3), line);
	cq_ring<mem_lines> q(mem_lines(m.p, line), 0, entries, 3);
	aligned_mem fm(ff_queue::bytes(entries, line, 3), line);
	ff_queue f(fm.p, entries, line, 3);
	constexpr std::uint64_t n = 20000;
	std::thread t([&] {
		cq_ring<mem_lines>::sender s(q);
		for (std::uint64_t i = 0; i < n; ++i) {
			s.send(&i, 8);
			f.send(&i, 8);
		}
	});
	cq_ring<mem_lines>::receiver r(q);
	std::uint64_t bad = 0;
	for (std::uint64_t i = 0; i < n; ++i) {
		std::uint64_t a = ~0ull, b = ~0ull;
		CHECK(r.receive(&a, 8) == 8);
		CHECK(f.receive(&b, 8) == 8);
		bad += (a != i) + (b != i);
	}
	t.join();
	CHECK(bad == 0);
}

TEST_CASE("Queue ends kept side by side do not share a line (false sharing doubled the round trip)")
{
	// What each end writes on every message (tail, head, ring position) must
	// sit alone in its 128-byte pair even when a caller declares the ends
	// next to each other, as ecibench and bench/queue_pingpong do.
	struct ends {
		cq::sender s;
		cq::receiver r;
	};
	alignas(128) std::uint8_t ring[1024] = {};
	cq q(ring, 4, 64);
	ends e{cq::sender(q), cq::receiver(q)};
	const auto gap = reinterpret_cast<std::uintptr_t>(&e.r) - reinterpret_cast<std::uintptr_t>(&e.s);
	CHECK(gap >= 128);
	CHECK(reinterpret_cast<std::uintptr_t>(&e.s) % 128 == 0);
	CHECK(alignof(cq) >= 128); // both ends read it on every message
	// FastForward keeps both positions in one object: each in its own pair
	// after the read-only fields.
	CHECK(alignof(ff_queue) >= 128);
	CHECK(sizeof(ff_queue) >= 3 * 128);
}
