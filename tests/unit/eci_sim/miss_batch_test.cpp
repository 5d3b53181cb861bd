// system::set_miss_batching: a batch of misses taken in one step must give
// what their events give, whatever else the model has pending, and refuse
// (run as events) when anything could happen while they are in flight.
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace pioc;

namespace {

constexpr std::uint64_t line = 128;

/** Plain memory homed on the device, granting every request at once; odd
 *  lines pass a longer pipeline (their requests reach the home out of
 *  the order they were issued). One timer, set by the test, does what a
 *  device does meanwhile: it writes new bytes into every line and takes
 *  one line the CPU holds back (an LCI: messages on the link). */
struct granting_device : sim::eci::device_engine {
	sim::eci::engine_ctx ctx;
	bool answer = true; ///< false: a device that breaks grants_at_once's promise
	explicit granting_device(sim::eci::system &s) : ctx(s) {}

	void on_request(sim::eci::engine_ctx &c, std::uint64_t addr, bool exclusive) override
	{
		if (answer)
			c.answer(addr, exclusive);
	}
	bool plain_read(std::uint64_t) const override { return true; }
	bool grants_at_once(std::uint64_t, bool) const override { return true; }
	double request_pipeline_ns(std::uint64_t addr) const override { return addr / line % 2 ? 170 : 0; }

	void meanwhile(double at, std::uint64_t held, std::uint8_t salt)
	{
		ctx.at(at, [this, held, salt] {
			for (std::uint64_t a = 0; a < 64 * line; a += line)
				std::memset(ctx.data(a), salt, 8);
			ctx.clean_invalidate(held, [this, held] { ctx.unlock(held); });
		});
	}
};

struct run_result {
	std::vector<double> seen;
	std::uint64_t batched = 0;
};

/** On a link of @p link_gib_s, the CPU holds line 40 and (Shared) lines 16..23; a timer is set @p
 *  delay ns ahead; then the CPU loads lines 0..15 at once and claims lines
 *  16..31 (upgrades and misses), and reads what it got. */
run_result run(bool batching, double delay, double link_gib_s)
{
	sim::eci::config c;
	c.link_gib_s = link_gib_s;
	sim::eci::system sys(c);
	granting_device dev(sys);
	sys.attach(&dev);
	sys.set_miss_batching(batching);
	std::uint64_t v = 0;
	sys.cpu_load(40 * line, &v, 8);
	std::vector<std::uint64_t> shared;
	for (std::uint64_t i = 16; i < 24; ++i)
		shared.push_back(i * line);
	sys.cpu_load_lines(shared.data(), shared.size());
	dev.meanwhile(sys.now() + delay, 40 * line, 0x5a);
	const std::uint64_t before = sys.batched_misses();
	run_result r;
	std::vector<std::uint64_t> lines;
	for (std::uint64_t i = 0; i < 16; ++i)
		lines.push_back(i * line);
	sys.cpu_load_lines(lines.data(), lines.size());
	r.seen.push_back(sys.now());
	for (auto &l : lines)
		l += 16 * line;
	sys.cpu_claim_lines(lines.data(), lines.size());
	r.seen.push_back(sys.now());
	for (std::uint64_t i = 0; i < 32; ++i) {
		sys.cpu_load(i * line, &v, 8);
		r.seen.push_back(double(v));
	}
	sys.cpu_spend(5000); // the timer and its LCI, whenever they come
	r.seen.push_back(sys.now());
	const auto &st = sys.stats();
	for (auto n : st.by_msg)
		r.seen.push_back(double(n));
	for (auto n : {st.round_trips, st.cpu_hits, st.cpu_misses})
		r.seen.push_back(double(n));
	r.batched = sys.batched_misses() - before;
	return r;
}

} // namespace

TEST_CASE("miss batching: loads and claims give their events' times, bytes and counters, with a device timer "
	  "anywhere in them")
{
	// A link fast enough that the directory sets the pace, and one so slow
	// that the answers' data does (the bookings of both must be right).
	const double gib_s = GENERATE(20.0, 0.5);
	INFO("link " << gib_s << " GiB/s");
	std::uint64_t batched = 0, refused = 0;
	for (double delay = 0; delay < 8000; delay += 37.5) {
		INFO("the device's timer " << delay << " ns ahead");
		const auto on = run(true, delay, gib_s), off = run(false, delay, gib_s);
		CHECK(off.batched == 0);
		CHECK(on.seen == off.seen);
		(on.batched ? batched : refused) += 1; // of the two batches after the timer was set
	}
	// The timer fell inside some batches (refused: run as events) and
	// after others (taken whole).
	CHECK(batched > 10);
	CHECK(refused > 10);
}

TEST_CASE("miss batching: a device that promised a grant at once and did not answer is an error, not a hang")
{
	sim::eci::system sys;
	granting_device dev(sys);
	sys.attach(&dev);
	dev.answer = false;
	std::vector<std::uint64_t> lines{0, line, 2 * line};
	CHECK_THROWS_WITH(sys.cpu_load_lines(lines.data(), lines.size()),
			  Catch::Contains("grants line 0x0 at once") && Catch::Contains("did not answer"));
}

namespace {

/** A device that takes lines back: on a load of line 63 it holds the load,
 *  takes back the test's lines (in the test's order, all at once through
 *  clean_invalidate_all, else one by one) and then answers; a timer can
 *  also start a take-back while the CPU is busy, not waiting. Every line's
 *  return is recorded with its time and the first byte home. */
struct taking_device : sim::eci::device_engine {
	sim::eci::engine_ctx ctx;
	std::vector<std::uint64_t> take;
	std::vector<double> seen;
	explicit taking_device(sim::eci::system &s) : ctx(s) {}

	void on_request(sim::eci::engine_ctx &c, std::uint64_t addr, bool exclusive) override
	{
		if (addr != 63 * line) {
			c.answer(addr, exclusive);
			return;
		}
		take_back([this, addr] { ctx.answer(addr, false); });
	}
	bool grants_at_once(std::uint64_t addr, bool) const override { return addr != 63 * line; }

	void take_back(sim::event_queue::callback then)
	{
		auto back = [this](std::uint64_t a) {
			seen.push_back(double(a));
			seen.push_back(ctx.now());
			seen.push_back(double(*ctx.data(a)));
			ctx.unlock(a);
		};
		if (ctx.clean_invalidate_all(take, back, std::move(then)))
			return;
		auto left = std::make_shared<std::size_t>(take.size());
		auto shared_then = std::make_shared<sim::event_queue::callback>(std::move(then));
		for (std::uint64_t a : take)
			ctx.clean_invalidate(a, [back, a, left, shared_then] {
				back(a);
				if (!--*left)
					(*shared_then)();
			});
	}
};

/** The CPU loads lines 0..11 and stores into the even ones (dirty), then
 *  loads line 63: the device takes back the lines in the order
 *  5, 0, 7, 2, 9, 4, 11, 6, 1, 8, 3, 10 (both slices, out of order) and
 *  answers; a device timer set @p delay ns ahead writes every line's home
 *  copy and sends an LCI of its own. Then the CPU reads every line. */
std::vector<double> take_back_run(bool batching, double delay)
{
	sim::eci::system sys;
	taking_device dev(sys);
	sys.attach(&dev);
	sys.set_miss_batching(batching);
	dev.take = {5, 0, 7, 2, 9, 4, 11, 6, 1, 8, 3, 10};
	for (auto &a : dev.take)
		a *= line;
	std::uint64_t v = 0;
	for (std::uint64_t i = 0; i < 13; ++i) {
		sys.cpu_load(i * line, &v, 8);
		if (i % 2 == 0) {
			v = 0x40 + i;
			sys.cpu_store(i * line, &v, 8);
		}
	}
	dev.ctx.at(sys.now() + delay, [&dev] {
		for (std::uint64_t a = 0; a < 13 * line; a += line)
			*dev.ctx.data(a) ^= 0x80;
		dev.ctx.clean_invalidate(12 * line, [&dev] { dev.ctx.unlock(12 * line); });
	});
	std::vector<double> seen;
	sys.cpu_load(63 * line, &v, 8);
	seen.push_back(sys.now());
	for (std::uint64_t i = 0; i < 13; ++i) {
		sys.cpu_load(i * line, &v, 8);
		seen.push_back(double(v));
	}
	seen.insert(seen.end(), dev.seen.begin(), dev.seen.end());
	const auto &st = sys.stats();
	for (auto n : st.by_msg)
		seen.push_back(double(n));
	seen.push_back(double(st.round_trips));
	seen.push_back(double(st.cpu_hits));
	return seen;
}

/** A take-back a device timer starts while the CPU polls line 3 (a hit
 *  until the L2 gives it up, then a miss that waits for the unlock). */
std::vector<double> busy_cpu_run(bool batching)
{
	sim::eci::system sys;
	taking_device dev(sys);
	sys.attach(&dev);
	sys.set_miss_batching(batching);
	dev.take = {0, line, 2 * line, 3 * line, 4 * line};
	std::uint64_t v = 0;
	for (std::uint64_t i = 0; i < 5; ++i)
		sys.cpu_load(i * line, &v, 8);
	dev.ctx.at(sys.now() + 50, [&dev] { dev.take_back([] {}); });
	std::vector<double> seen;
	for (int i = 0; i < 200; ++i) {
		sys.cpu_load(3 * line, &v, 8);
		seen.push_back(sys.now());
		sys.cpu_spend(7);
	}
	seen.push_back(double(sys.stats().cpu_hits));
	seen.insert(seen.end(), dev.seen.begin(), dev.seen.end());
	return seen;
}

} // namespace

TEST_CASE("take-back batching: a device's LCIs of many lines give their events' times, bytes and counters, with "
	  "a device timer anywhere in them")
{
	std::size_t differ_from_first = 0;
	const auto first = take_back_run(true, 0);
	for (double delay = 0; delay < 3000; delay += 25) {
		INFO("the device's timer " << delay << " ns ahead");
		const auto on = take_back_run(true, delay), off = take_back_run(false, delay);
		CHECK(on == off);
		differ_from_first += on != first;
	}
	CHECK(differ_from_first > 10); // the timer lands in different places of the exchange
}

TEST_CASE("take-back batching: none while the CPU is busy (it would see the lines leave early)")
{
	CHECK(busy_cpu_run(true) == busy_cpu_run(false));
}

TEST_CASE("take-back batching: a line named twice goes one by one; a bank in order, with one line after it, in one "
	  "step")
{
	struct shape {
		std::vector<std::uint64_t> take; // line indices, in the order the device names them
		bool batched;
	};
	const shape shapes[] = {
		{{1, 2, 3, 4, 5}, true},     // a bank in order
		{{2, 3, 4, 5, 1}, true},     // and its control line after it (reclaim_other)
		{{1, 2, 3, 4, 2}, false},    // the line after it is one of the bank's
		{{1, 2, 3, 4, 5, 5}, false}, // the last one twice
		{{4, 2, 5, 2, 1}, false},    // out of order, one twice
		{{4, 2, 5, 3, 1}, true},     // out of order, each once
	};
	for (const auto &s : shapes) {
		std::string named;
		for (std::uint64_t i : s.take)
			named += std::to_string(i) + " ";
		INFO("lines taken back: " << named);
		sim::eci::system sys;
		taking_device dev(sys);
		sys.attach(&dev);
		for (std::uint64_t i : s.take)
			dev.take.push_back(i * line);
		std::uint64_t v = 0;
		for (std::uint64_t i = 1; i <= 5; ++i)
			sys.cpu_load(i * line, &v, 8);
		sys.cpu_load(63 * line, &v, 8); // the device takes them back, then answers
		CHECK(sys.batched_take_backs() == (s.batched ? s.take.size() : 0));
		CHECK(dev.seen.size() == 3 * s.take.size()); // every one came back, in a batch or not
	}
}
