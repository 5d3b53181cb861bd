// Round trips between two cores, in one run: the two-line floor (each side
// writes its own line and polls the other's: one line transfer each way),
// FastForward and the CNI cachable queue of pioc/coherent/queue.hpp. Prints
// the p50 of each and the ratios issue 13 asks about (MEASURED on this
// machine; Documentation/benchmarking.md). The variants run interleaved in
// rounds so that drift of a shared machine hits all of them alike.
//
// usage: queue_pingpong [ITERATIONS_PER_ROUND [ROUNDS [ENTRIES]]]
#include <pioc/clock.hpp>
#include <pioc/coherent/queue.hpp>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using namespace pioc;

void pin(unsigned cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set); // best effort: one core still works
}

/** Runs @p iters round trips: @p echo on the other core, @p ping timed here;
 *  appends each round trip's ticks to @p out. */
template <class Echo, class Ping>
void rounds(std::uint64_t iters, Echo echo, Ping ping, std::vector<std::uint64_t> &out)
{
	const std::uint64_t warm = iters / 10;
	std::thread t([&] {
		pin(1);
		echo(iters + warm);
	});
	for (std::uint64_t i = 0; i < iters + warm; ++i) {
		const auto t0 = read_ticks();
		ping(i);
		const auto t1 = read_ticks();
		if (i >= warm)
			out.push_back(t1 - t0);
	}
	t.join();
}

constexpr std::size_t pair = 128; // x86 fetches 64-byte lines in 128-byte pairs: keep the two lines apart

struct zeroed {
	void *p;
	explicit zeroed(std::size_t n) : p(std::aligned_alloc(pair, (n + pair - 1) / pair * pair))
	{
		if (!p)
			std::abort();
		std::memset(p, 0, (n + pair - 1) / pair * pair);
	}
	~zeroed() { std::free(p); }
};

std::uint64_t ld(const std::uint64_t *w) { return std::atomic_ref(*const_cast<std::uint64_t *>(w)).load(std::memory_order_acquire); }
void st(std::uint64_t *w, std::uint64_t v) { std::atomic_ref(*w).store(v, std::memory_order_release); }

void two_line(std::uint64_t iters, std::vector<std::uint64_t> &out)
{
	zeroed m(2 * pair);
	auto *a = static_cast<std::uint64_t *>(m.p), *b = a + pair / 8; // a: ping writes, b: echo writes
	rounds(
		iters,
		[&](std::uint64_t k) {
			for (std::uint64_t i = 1; i <= k; ++i) {
				for (coherent::backoff bo; ld(a) != i;)
					bo();
				st(b, i);
			}
		},
		[&](std::uint64_t i) {
			st(a, i + 1);
			for (coherent::backoff bo; ld(b) != i + 1;)
				bo();
		},
		out);
}

template <class Q, class Tx, class Rx>
void queue(std::uint64_t iters, std::uint32_t entries, std::uint32_t line, std::vector<std::uint64_t> &out)
{
	zeroed m1(Q::bytes(entries, line)), m2(Q::bytes(entries, line));
	Q to(m1.p, entries, line), from(m2.p, entries, line);
	Tx ts(to), fs(from);
	Rx tr(to), fr(from);
	std::uint64_t msg = 0x1234;
	rounds(
		iters,
		[&](std::uint64_t k) {
			std::uint64_t buf[8];
			for (std::uint64_t i = 0; i < k; ++i)
				fs.send(buf, tr.receive(buf, sizeof buf));
		},
		[&](std::uint64_t) {
			std::uint64_t buf[8];
			ts.send(&msg, 8);
			fr.receive(buf, sizeof buf);
		},
		out);
}

// FastForward has no separate sender and receiver objects.
struct ff_end {
	coherent::ff_queue &q;
	explicit ff_end(coherent::ff_queue &x) : q(x) {}
	void send(const void *p, std::size_t n) { q.send(p, n); }
	std::size_t receive(void *p, std::size_t cap) { return q.receive(p, cap); }
};

double p50_ns(std::vector<std::uint64_t> &v)
{
	std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
	return static_cast<double>(hw_clock::ticks_to_ns(v[v.size() / 2] * 1000)) / 1000.0;
}

} // namespace

int main(int argc, char **argv)
{
	const std::uint64_t iters = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 20000;
	const unsigned n_rounds = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 10;
	const std::uint32_t line = coherent::host_line_size();
	const auto entries = static_cast<std::uint32_t>(argc > 3 ? std::strtoul(argv[3], nullptr, 0) : 64);
	pin(0);
	std::vector<std::uint64_t> fl, ff, cq;
	for (unsigned r = 0; r < n_rounds; ++r) {
		two_line(iters, fl);
		queue<coherent::ff_queue, ff_end, ff_end>(iters, entries, line, ff);
		queue<coherent::cq, coherent::cq::sender, coherent::cq::receiver>(iters, entries, line, cq);
	}
	const double f = p50_ns(fl), q = p50_ns(cq), s = p50_ns(ff);
	std::printf("queue_pingpong: %u rounds x %llu round trips, %u entries, %u-byte lines, cores 0 and 1 (MEASURED)\n",
		    n_rounds, static_cast<unsigned long long>(iters), entries, line);
	std::printf("%-28s %8s %8s\n", "round trip", "p50 ns", "/floor");
	std::printf("%-28s %8.1f %8.2f\n", "two-line floor", f, 1.0);
	std::printf("%-28s %8.1f %8.2f\n", "FastForward", s, s / f);
	std::printf("%-28s %8.1f %8.2f\n", "CNI cachable queue (cq)", q, q / f);
	std::printf("cq / FastForward: %.2f\n", q / s);
	return 0;
}
