// The orderings the herd7 litmus tests (tests/herd) prove necessary, checked
// on the instruction sequence the protocol code actually issues: a line
// policy that forwards to the ECI model and records every access and
// barrier, then a check over the record.
//   - request: payload and data-line stores, then the control word as a
//     release (invoke-request-before-signal.litmus);
//   - answer: the control word's load is an acquire (or is followed by a
//     load barrier) before any payload or data-line load
//     (invoke-control-before-data.litmus).
#include "fixture.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace fx;

namespace {

enum class op { load, load_acquire, store, store_release, load_data, store_data, full };

struct event {
	op o;
	std::uint64_t off;
};

/** eci_sim_lines plus a log of what the protocol code asked for. */
class recording_lines {
public:
	static constexpr bool simulated = true;
	recording_lines(lines_t l, std::shared_ptr<std::vector<event>> log) : L_(l), log_(std::move(log)) {}

	std::uint32_t line_size() const noexcept { return L_.line_size(); }
	std::uint64_t load64(std::uint64_t off) const { return rec(op::load, off), L_.load64(off); }
	void store64(std::uint64_t off, std::uint64_t v) const { rec(op::store, off), L_.store64(off, v); }
	void load_bytes(std::uint64_t off, void *d, std::size_t n) const { rec(op::load_data, off), L_.load_bytes(off, d, n); }
	void store_bytes(std::uint64_t off, const void *s, std::size_t n) const
	{
		if (n)
			rec(op::store_data, off);
		L_.store_bytes(off, s, n);
	}
	void load_lines(const std::uint64_t *offs, std::size_t n) const
	{
		for (std::size_t i = 0; i < n; ++i)
			rec(op::load_data, offs[i]);
		L_.load_lines(offs, n);
	}
	void claim_lines(const std::uint64_t *offs, std::size_t n) const { L_.claim_lines(offs, n); } // a hint: no order
	std::uint64_t load_acquire(std::uint64_t off) const { return rec(op::load_acquire, off), L_.load_acquire(off); }
	void store_release(std::uint64_t off, std::uint64_t v) const { rec(op::store_release, off), L_.store_release(off, v); }
	void store_load() const { rec(op::full, 0), L_.store_load(); }
	void full() const { rec(op::full, 0), L_.full(); }
	void relax(coherent::backoff &b) const { L_.relax(b); }
	/** Polls one by one (no polls spent at once): each is in the record. */
	void relax_poll(coherent::backoff &b, std::uint64_t, double) const { L_.relax(b); }
	void evict(std::uint64_t off) const { L_.evict(off); }
	double now_ns() const { return L_.now_ns(); }

private:
	void rec(op o, std::uint64_t off) const { log_->push_back({o, off}); }
	lines_t L_;
	std::shared_ptr<std::vector<event>> log_;
};

/** Empty if the record keeps both orderings, else what broke where. */
std::string check_order(const std::vector<event> &log, const coherent::layout &lay)
{
	auto is_ctrl = [&](std::uint64_t off) { return off == lay.ctrl_off(0) || off == lay.ctrl_off(1); };
	bool pending_data = false; // data stored since the last store barrier
	bool answer_ordered = true; // the last control load orders the loads after it
	for (std::size_t i = 0; i < log.size(); ++i) {
		const event &e = log[i];
		switch (e.o) {
		case op::store_data: pending_data = true; break;
		case op::full: pending_data = false, answer_ordered = true; break;
		case op::store_release: pending_data = false; break;
		case op::store:
			if (is_ctrl(e.off) && pending_data)
				return "event " + std::to_string(i) + ": control word stored plainly after payload stores";
			break;
		case op::load:
			if (is_ctrl(e.off))
				answer_ordered = false;
			break;
		case op::load_acquire:
			if (is_ctrl(e.off))
				answer_ordered = true;
			break;
		case op::load_data:
			if (!answer_ordered)
				return "event " + std::to_string(i) + ": payload load not ordered after the control load";
			break;
		}
	}
	return {};
}

struct recorded {
	std::shared_ptr<std::vector<event>> log = std::make_shared<std::vector<event>>();
};

} // namespace

TEST_CASE("invoker: request stores before the control word, answer loads after it (line by line)")
{
	rig r;
	recorded rec;
	auto lay = r.eng->channel_layout(0);
	coherent::invoker<recording_lines> inv(recording_lines(r.lines(), rec.log), lay);
	std::vector<std::uint8_t> resp(coherent::max_message);
	for (std::size_t n : {8, 120, 121, 1000}) {
		auto req = pattern(n, 1);
		REQUIRE(inv.call(req.data(), n, resp.data(), resp.size()) == n);
	}
	REQUIRE(rec.log->size() > 20);
	CHECK(check_order(*rec.log, lay) == "");
}

TEST_CASE("invoker: pipelined data lines are loaded only after the control load")
{
	sim::eci::engine_config e;
	e.data_lines = 128;
	rig r(e);
	recorded rec;
	auto lay = r.eng->channel_layout(0);
	coherent::cpu_options o;
	o.pipelined = true;
	coherent::invoker<recording_lines> inv(recording_lines(r.lines(), rec.log), lay, o);
	std::vector<std::uint8_t> resp(coherent::max_message);
	for (std::size_t n : {100, 4096, 16384}) {
		auto req = pattern(n, 2);
		REQUIRE(inv.call(req.data(), n, resp.data(), resp.size()) == n);
		CHECK(std::equal(req.begin(), req.end(), resp.begin()));
	}
	CHECK(check_order(*rec.log, lay) == "");
}

TEST_CASE("receiver: the message payload is loaded after its control word")
{
	sim::eci::engine_config e;
	e.v = coherent::variant::dev_dev;
	rig r(e);
	recorded rec;
	auto lay = r.eng->channel_layout(0);
	coherent::receiver<recording_lines> rx(recording_lines(r.lines(), rec.log), lay);
	std::uint8_t buf[1024];
	r.eng->post(0, pattern(500, 3));
	REQUIRE(rx.receive(buf, sizeof buf, 1u << 20) == 500);
	CHECK(check_order(*rec.log, lay) == "");
}

TEST_CASE("the order check rejects the sequences the litmus twins allow")
{
	coherent::layout lay{0, 128, 4};
	// request: payload, plain control store, DMB SY (the .plain-store twin)
	CHECK(check_order({{op::store_data, 8}, {op::store, 0}, {op::full, 0}}, lay) != "");
	// answer: plain control load, then the payload (the .no-acquire twin)
	CHECK(check_order({{op::load, 128}, {op::load_data, 136}}, lay) != "");
	CHECK(check_order({{op::store_data, 8}, {op::store_release, 0}, {op::full, 0}, {op::load_acquire, 128},
			   {op::load_data, 136}},
			  lay) == "");
}
