// Round trips between two cores, in one run: the two-line floor (each side
// writes its own line and polls the other's: one line transfer each way),
// FastForward and the CNI cachable queue of pioc/coherent/queue.hpp, each
// with its slots on adjacent lines (the library's layout) and 3 lines apart. Prints
// the p50 of each and the ratios issue 13 asks about (MEASURED on this
// machine; Documentation/benchmarking.md). The variants run interleaved in
// rounds so that drift of a shared machine hits all of them alike, and the
// ratios are taken within each round (the 2-vCPU VM moves its vCPUs between
// a near placement, floor ~100 ns, and a far one, ~400-600 ns, within a run).
//
// Everything both threads touch (the rings, the queue objects, each end) is
// on its own 256-byte-aligned heap block, and each thread keeps its own
// pointers in registers: in an earlier version the queue objects lived on
// the main thread's stack and FastForward's round trip moved between 95 and
// 145 ns from one build to the next with the same queue code, as the
// compiler placed the stack.
//
// A sample is the mean of 8 round trips in a row (the VM's cycle counter
// steps by 10 ns); its p50 is what the table calls the round trip.
//
// usage: queue_pingpong [ITERATIONS_PER_ROUND [ROUNDS [ENTRIES[,ENTRIES...]]]]
//        (defaults 20000 10 4,64)
#include <pioc/bench/placed.hpp>
#include <pioc/clock.hpp>
#include <pioc/coherent/queue.hpp>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
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

/** Round trips timed together: this VM's cycle counter reads in steps of
 *  10 ns, a tenth of a round trip; a sample is the mean of this many. */
constexpr std::uint64_t batch = 8;

/** Runs @p iters round trips (a multiple of batch): @p echo on the other
 *  core, @p ping timed here; appends each batch's ticks to @p out. */
template <class Echo, class Ping>
void rounds(std::uint64_t iters, Echo echo, Ping ping, std::vector<std::uint64_t> &out)
{
	const std::uint64_t warm = iters / 10 / batch * batch;
	std::thread t([echo, n = iters + warm] {
		pin(1);
		echo(n);
	});
	for (std::uint64_t i = 0; i < iters + warm; i += batch) {
		const auto t0 = read_ticks();
		for (std::uint64_t j = 0; j < batch; ++j)
			ping(i + j);
		const auto t1 = read_ticks();
		if (i >= warm)
			out.push_back(t1 - t0);
	}
	t.join();
}

using bench::placed;
using bench::placed_buffer;

std::uint64_t ld(const std::uint64_t *w) { return std::atomic_ref(*const_cast<std::uint64_t *>(w)).load(std::memory_order_acquire); }
void st(std::uint64_t *w, std::uint64_t v) { std::atomic_ref(*w).store(v, std::memory_order_release); }

void two_line(std::uint64_t iters, std::vector<std::uint64_t> &out)
{
	placed_buffer m1(8), m2(8); // a: ping writes, b: echo writes, each alone in its block
	auto *a = static_cast<std::uint64_t *>(m1.get()), *b = static_cast<std::uint64_t *>(m2.get());
	rounds(
		iters,
		[a, b](std::uint64_t k) {
			for (std::uint64_t i = 1; i <= k; ++i) {
				for (coherent::backoff bo; ld(a) != i;)
					bo();
				st(b, i);
			}
		},
		[a, b](std::uint64_t i) {
			st(a, i + 1);
			for (coherent::backoff bo; ld(b) != i + 1;)
				bo();
		},
		out);
}

struct message {
	std::uint64_t w[8];
};

template <class Q, class Tx, class Rx>
void queue(std::uint64_t iters, std::uint32_t entries, std::uint32_t line, std::vector<std::uint64_t> &out)
{
	placed_buffer m1(Q::bytes(entries, line)), m2(Q::bytes(entries, line));
	placed<Q> to(m1.get(), entries, line), from(m2.get(), entries, line);
	placed<Tx> ts(*to.get()), fs(*from.get());
	placed<Rx> tr(*to.get()), fr(*from.get());
	placed<message> ping_buf, echo_buf;
	rounds(
		iters,
		[f = fs.get(), t = tr.get(), m = echo_buf.get()](std::uint64_t k) {
			for (std::uint64_t i = 0; i < k; ++i)
				f->send(m->w, t->receive(m->w, sizeof m->w));
		},
		[t = ts.get(), f = fr.get(), m = ping_buf.get()](std::uint64_t) {
			m->w[7] = 0x1234;
			t->send(&m->w[7], 8);
			f->receive(m->w, sizeof m->w);
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

// Both queues again with their slots 3 lines apart (192 bytes on x86):
// never two in one 128-byte prefetch pair, and an odd stride reaches every
// L1 set (a 4-line stride put two 64-entry rings in 16 sets).
constexpr std::uint32_t spaced = 3;
struct ff_spaced : coherent::ff_queue {
	static std::size_t bytes(std::uint32_t e, std::uint32_t l) { return ff_queue::bytes(e, l, spaced); }
	ff_spaced(void *m, std::uint32_t e, std::uint32_t l) : ff_queue(m, e, l, spaced) {}
};
using cq_lines = coherent::cq_ring<coherent::mem_lines>;
struct cq_spaced : cq_lines {
	static std::size_t bytes(std::uint32_t e, std::uint32_t l) { return cq_lines::bytes(e, l, spaced); }
	cq_spaced(void *m, std::uint32_t e, std::uint32_t l) : cq_lines(coherent::mem_lines(m, l), 0, e, spaced) {}
};

double p50_ns(std::vector<std::uint64_t> v)
{
	std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
	return static_cast<double>(hw_clock::ticks_to_ns(v[v.size() / 2] * 1000)) / (1000.0 * batch);
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

std::vector<std::uint32_t> parse_entries(const char *s)
{
	std::vector<std::uint32_t> out;
	for (std::string t; ; ++s) {
		if (*s == ',' || *s == '\0') {
			const unsigned long v = std::strtoul(t.c_str(), nullptr, 0);
			if (v < 2 || v > 65536) {
				std::fprintf(stderr, "queue_pingpong: ENTRIES '%s': each must be 2 .. 65536\n", t.c_str());
				std::exit(2);
			}
			out.push_back(static_cast<std::uint32_t>(v));
			t.clear();
			if (*s == '\0')
				return out;
		} else {
			t += *s;
		}
	}
}

} // namespace

int main(int argc, char **argv)
{
	const std::uint64_t iters = (argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 20000) / batch * batch;
	const unsigned n_rounds = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 10;
	const auto sizes = parse_entries(argc > 3 ? argv[3] : "4,64");
	const std::uint32_t line = coherent::host_line_size();
	if (iters < 10 * batch || n_rounds < 1) {
		std::fprintf(stderr, "queue_pingpong: needs at least %llu iterations and 1 round\n",
			     static_cast<unsigned long long>(10 * batch));
		return 2;
	}
	pin(0);
	// Per round: the floor, then at each size FastForward and the CNI queue
	// on adjacent lines (the library's layout) and spaced.
	struct series {
		std::string name;
		std::uint32_t entries;
		std::vector<std::uint64_t> all;
		std::vector<double> per_floor, per_ff;
	};
	const std::string apart = std::to_string(spaced) + " lines apart";
	std::vector<series> s{{"two-line floor", 0, {}, {}, {}}};
	std::vector<double> floors; // the floor's p50 in each round
	const char *kinds[] = {"FastForward", "FastForward, ", "CNI queue (cq)", "CNI queue, "};
	for (auto e : sizes)
		for (int j = 0; j < 4; ++j)
			s.push_back({std::string(kinds[j]) + (j % 2 ? apart : ""), e, {}, {}, {}});
	for (unsigned r = 0; r < n_rounds; ++r) {
		std::vector<std::uint64_t> v[5];
		two_line(iters, v[0]);
		const double floor = p50_ns(v[0]);
		s[0].all.insert(s[0].all.end(), v[0].begin(), v[0].end());
		for (std::size_t i = 0; i < sizes.size(); ++i) {
			for (int j = 1; j < 5; ++j)
				v[j].clear();
			queue<coherent::ff_queue, ff_end, ff_end>(iters, sizes[i], line, v[1]);
			queue<ff_spaced, ff_end, ff_end>(iters, sizes[i], line, v[2]);
			queue<coherent::cq, coherent::cq::sender, coherent::cq::receiver>(iters, sizes[i], line, v[3]);
			queue<cq_spaced, cq_lines::sender, cq_lines::receiver>(iters, sizes[i], line, v[4]);
			const double ff = p50_ns(v[1]);
			for (int j = 1; j < 5; ++j) {
				auto &x = s[1 + 4 * i + (j - 1)];
				const double p = p50_ns(v[j]);
				x.all.insert(x.all.end(), v[j].begin(), v[j].end());
				x.per_floor.push_back(p / floor);
				x.per_ff.push_back(p / ff);
			}
		}
		floors.push_back(floor);
	}
	std::printf("queue_pingpong: %u rounds x %llu round trips, %u-byte lines, cores 0 and 1 (MEASURED;\n"
		    "p50 of the mean round trip of %llu in a row)\n",
		    n_rounds, static_cast<unsigned long long>(iters), line, static_cast<unsigned long long>(batch));
	std::printf("floor p50 per round, ns:");
	for (double f : floors)
		std::printf(" %.0f", f);
	auto range = [](const std::vector<double> &v) {
		char b[48];
		std::snprintf(b, sizeof b, "%.2f (%.2f-%.2f)", median(v), *std::min_element(v.begin(), v.end()),
			      *std::max_element(v.begin(), v.end()));
		return std::string(b);
	};
	std::printf("\n%-32s %7s %8s %18s %18s\n", "round trip", "entries", "p50 ns", "/floor", "/FastForward");
	std::printf("%-32s %7s %8.1f %18s %18s\n", s[0].name.c_str(), "-", p50_ns(s[0].all), "1.00", "");
	for (std::size_t i = 1; i < s.size(); ++i) {
		auto &x = s[i];
		std::printf("%-32s %7u %8.1f %18s %18s\n", x.name.c_str(), x.entries, p50_ns(x.all),
			    range(x.per_floor).c_str(), range(x.per_ff).c_str());
	}
	std::printf("the library's layout: slots on adjacent lines; the last column is over FastForward's\n");
	std::printf("ratios: median over the rounds of the ratio of p50s within a round (lowest-highest)\n");
	return 0;
}
