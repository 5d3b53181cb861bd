// sim::event_queue (the models' pending events) runs callbacks in exactly
// the order of the std::priority_queue of (time, sequence number) it
// replaced: the models' simulated times and values must not change.
#include <pioc/sim/event_queue.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <vector>

namespace {

/** The order the models had: a min-heap of (t, seq). */
class reference_queue {
public:
	void push(double t, int id) { q_.push({t, seq_++, id}); }
	bool empty() const { return q_.empty(); }
	std::size_t size() const { return q_.size(); }
	double next_time() const { return q_.top().t; }
	int pop(double &t)
	{
		const auto e = q_.top();
		q_.pop();
		t = e.t;
		return e.id;
	}
	void clear() { q_ = {}; }

private:
	struct ev {
		double t;
		std::uint64_t seq;
		int id;
		bool operator>(const ev &o) const { return t != o.t ? t > o.t : seq > o.seq; }
	};
	std::priority_queue<ev, std::vector<ev>, std::greater<ev>> q_;
	std::uint64_t seq_ = 0;
};

/** Both queues fed the same random program: pushes near and far (few
 *  distinct times, so ties are common), callbacks that push more, pops,
 *  due() probes and clears; every popped id and time must match. */
void run_program(std::uint64_t seed, int steps)
{
	std::mt19937_64 rng(seed);
	pioc::sim::event_queue q;
	reference_queue ref;
	double now = 0;
	int next_id = 0, popped = 0;
	std::vector<int> order;
	auto push = [&](double t) {
		const int id = next_id++;
		ref.push(t, id);
		q.push(t, [&order, id] { order.push_back(id); });
	};
	for (int step = 0; step < steps; ++step) {
		const auto r = rng() % 100;
		if (r < 45) {
			// Near: a few ns ahead, on a coarse grid (ties).
			push(now + double(rng() % 8));
		} else if (r < 55) {
			// Far and in time order, like sim:eci's not-ready timers.
			push(now + 20e6);
		} else if (r < 58) {
			push(now + double(rng() % 3) * 1e7); // far and out of order
		} else if (r < 99) {
			REQUIRE(q.empty() == ref.empty());
			if (ref.empty())
				continue;
			REQUIRE(q.next_time() == ref.next_time());
			REQUIRE(q.due(ref.next_time()));
			REQUIRE_FALSE(q.due(ref.next_time() - 0.5));
			double t_ref, t;
			const int id = ref.pop(t_ref);
			order.clear();
			auto f = q.pop(t);
			f();
			REQUIRE(order == std::vector<int>{id});
			REQUIRE(t == t_ref);
			now = t;
			++popped;
			// A callback schedules more (as the models' events do).
			if (rng() % 2)
				push(now + double(rng() % 4));
		} else {
			q.clear();
			ref.clear();
			REQUIRE(q.empty());
			REQUIRE_FALSE(q.due(1e300));
		}
		REQUIRE(q.size() == ref.size());
	}
	CHECK(popped > steps / 4);
}

} // namespace

TEST_CASE("event_queue pops in (time, scheduling order) like the priority queue it replaced", "[sim][event_queue]")
{
	for (std::uint64_t seed = 1; seed <= 8; ++seed) {
		INFO("seed " << seed);
		run_program(seed, 20000);
	}
}

TEST_CASE("event_queue: equal times leave in scheduling order, run and heap alike", "[sim][event_queue]")
{
	pioc::sim::event_queue q;
	std::vector<int> order;
	auto at = [&](double t, int id) { q.push(t, [&order, id] { order.push_back(id); }); };
	at(10, 0); // the run
	at(30, 1); // the run
	at(10, 2); // earlier than the run's end: the heap, after 0 in the order
	at(30, 3); // the run again (no earlier than its end)
	at(20, 4); // the heap
	at(10, 5); // the heap
	CHECK(q.size() == 6);
	CHECK(q.next_time() == 10);
	while (!q.empty()) {
		double t;
		q.pop(t)();
	}
	CHECK(order == std::vector<int>{0, 2, 5, 4, 1, 3});
	CHECK_FALSE(q.due(1e300));
}

TEST_CASE("event_queue: a cancelled event never runs nor counts as due; a stale handle cancels nothing",
	  "[sim][event_queue]")
{
	pioc::sim::event_queue q;
	std::vector<int> order;
	auto at = [&](double t, int id) { return q.push(t, [&order, id] { order.push_back(id); }); };
	const auto first = at(10, 0);
	at(20, 1);
	const auto in_heap = at(15, 2); // earlier than the run's end: the heap
	at(30, 3);
	q.cancel(first); // the run's front: the next event is now the heap's
	CHECK(q.size() == 3);
	CHECK(q.next_time() == 15);
	q.cancel(in_heap);
	CHECK(q.next_time() == 20);
	CHECK_FALSE(q.due(19));
	q.cancel(in_heap); // twice: nothing
	CHECK(q.size() == 2);
	double t;
	q.pop(t)();
	CHECK(t == 20);
	// The slot of the event that ran holds a newer one: the old handle
	// must not cancel it.
	const auto ran = at(25, 4);
	q.cancel(first);
	q.cancel(ran);
	const auto kept = at(26, 5);
	q.cancel(first);
	q.cancel(pioc::sim::event_queue::handle{}); // none
	CHECK(q.size() == 2);
	while (!q.empty())
		q.pop(t)();
	CHECK(order == std::vector<int>{1, 5, 3});
	CHECK_FALSE(q.due(1e300));
	q.cancel(kept); // ran: nothing
	CHECK(q.empty());
}
