// A model of the Enzian directory controller and one CPU cache for the
// lines of a coherent engine's image (coh_top through coh_engine_rtl,
// nic_eci_top through nic_eci_ports: the same port calls and events), and
// the software side of one Fig. 5 channel over it. Shared by the
// testbenches of those images (moved here from test_coh_top.cpp).
//
// MESI-like line states in the CPU cache, LCI pulls dirty data back with a
// write-back before the LCIA, a line is locked from LC/LCI until UL (CPU
// requests for it wait), and CPU loads of Invalid lines become read
// requests that the engine may hold.
#pragma once

#include "coh_rtl.hpp"
#include "pioc/coherent/proto.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace tbdc {

using pioc::coherent::ctrl;
using pioc::coherent::kind;
using pioc::rtl::coh_event;
using pioc::rtl::line;

inline std::uint64_t word0(const line &d)
{
	std::uint64_t v;
	std::memcpy(&v, d.data(), 8);
	return v;
}

enum class st { I, S, E, M };

/** Directory controller + one CPU cache, for the engine's lines only. */
template <class E> struct dc_cpu_t {
	E &e;
	struct cl { st s = st::I; line d{}; bool locked = false; };
	std::map<std::uint64_t, cl> lines;
	std::map<std::uint32_t, std::uint64_t> rd_pending;      // id -> addr
	std::map<std::uint32_t, std::uint64_t> wb_pending;      // id -> addr (write-back before LCIA)
	std::set<std::uint32_t> victims;                         // write-backs of evicted dirty lines
	std::deque<std::pair<std::uint64_t, line>> wb_wait;      // LCI write-backs waiting for a free write id
	std::uint32_t next_wid = 0;
	std::multimap<std::uint64_t, std::uint32_t> waiting;     // loads waiting for an unlock
	std::map<std::uint32_t, line> rd_done;
	std::uint32_t next_id = 1;
	unsigned lci = 0, ul = 0, wbs = 0, reads = 0, upgrades = 0;
	std::uint64_t max_hold = 0;
	std::map<std::uint32_t, std::uint64_t> issued_at;
	std::map<std::uint64_t, unsigned> lci_at, read_at;       // LCIs, reads per line
	std::set<std::uint32_t> speculative;                     // reads nobody waits for (prefetch, speculation)
	/** Called before every cycle: an adversary's reads and evictions. */
	std::function<void()> on_pump;
	/** Lines whose read may cross the engine's LCI of them (the data lines
	 *  of a bank: the engine does not hold their reads and takes them back
	 *  whenever they are lent); any other line's LCI must not overtake the
	 *  answer of a read of it. */
	std::function<bool(std::uint64_t)> read_may_cross_lci = [](std::uint64_t) { return false; };

	explicit dc_cpu_t(E &eng) : e(eng) {}

	/** A write id not in flight (the DC's 64), or 64 if all are: with a link
	 *  latency, a take-back of a whole bank has more dirty lines in flight. */
	std::uint32_t free_wid()
	{
		for (int i = 0; i < 64; ++i) {
			const std::uint32_t id = next_wid++ % 64;
			if (!wb_pending.count(id) && !victims.count(id))
				return id;
		}
		return 64;
	}
	void lci_write_back(std::uint32_t id, std::uint64_t a, const line &d)
	{
		wb_pending[id] = a;
		e.write_back(id, a, d);
		++wbs;
	}

	std::uint32_t issue_read(std::uint64_t a, bool excl)
	{
		if (getenv("COH_DEBUG"))
			printf("  @%lu read %#lx excl %d locked %d\n", (unsigned long)e.cycle(), (unsigned long)a, excl, lines[a].locked);
		REQUIRE(rd_pending.size() < 64);
		std::uint32_t id = next_id++ % 64;
		while (rd_pending.count(id))   // the DC's read ids: 64, one per read in flight
			id = next_id++ % 64;
		rd_pending[id] = a;
		issued_at[id] = e.cycle();
		++reads;
		++read_at[a];
		if (lines[a].locked)
			waiting.insert({a, id});
		else
			e.read_request(id, a, excl);
		return id;
	}

	void pump()
	{
		if (on_pump)
			on_pump();
		e.step();
		while (auto ev = e.next_event()) {
			if (getenv("COH_DEBUG"))
				printf("  @%lu event %d id %u addr %#lx flag %d w0 %#lx\n", (unsigned long)e.cycle(), int(ev->type), ev->id,
				       (unsigned long)ev->addr, ev->flag, (unsigned long)word0(ev->data));
			switch (ev->type) {
			case coh_event::kind::read_data: {
				REQUIRE(rd_pending.count(ev->id));
				std::uint64_t a = rd_pending[ev->id];
				rd_pending.erase(ev->id);
				max_hold = std::max(max_hold, e.cycle() - issued_at[ev->id]);
				lines[a].s = ev->flag ? st::E : st::S;
				lines[a].d = ev->data;
				if (!speculative.erase(ev->id))
					rd_done[ev->id] = ev->data;
				break;
			}
			case coh_event::kind::local_op: {
				REQUIRE(ev->flag);   // the engine only uses LCI
				if (!read_may_cross_lci(ev->addr))
					for (auto &r : rd_pending)   // an LCI must not overtake the line's own answer
						REQUIRE(r.second != ev->addr);
				auto &l = lines[ev->addr];
				REQUIRE_FALSE(l.locked);
				l.locked = true;
				++lci;
				++lci_at[ev->addr];
				if (l.s == st::M) {
					const std::uint32_t id = free_wid();
					if (id < 64)
						lci_write_back(id, ev->addr, l.d);
					else
						wb_wait.emplace_back(ev->addr, l.d);
				} else {
					e.local_ack(ev->addr, true);
				}
				l.s = st::I;
				break;
			}
			case coh_event::kind::write_ack: {
				if (!victims.erase(ev->id)) {
					REQUIRE(wb_pending.count(ev->id));
					e.local_ack(wb_pending[ev->id], true);
					wb_pending.erase(ev->id);
				}
				if (!wb_wait.empty()) { // the id is free again
					lci_write_back(ev->id, wb_wait.front().first, wb_wait.front().second);
					wb_wait.pop_front();
				}
				break;
			}
			case coh_event::kind::unlock: {
				auto &l = lines[ev->addr];
				REQUIRE(l.locked);
				l.locked = false;
				++ul;
				auto r = waiting.equal_range(ev->addr);
				for (auto it = r.first; it != r.second; ++it)
					e.read_request(it->second, ev->addr, false);
				waiting.erase(r.first, r.second);
				break;
			}
			}
		}
	}

	/** CPU store of a whole line: needs E or M. */
	void store(std::uint64_t a, const line &d)
	{
		auto &l = lines[a];
		if (l.s == st::I || l.s == st::S) {
			++upgrades;
			std::uint32_t id = issue_read(a, true);
			REQUIRE(run([&] { return rd_done.count(id) > 0; }));
			rd_done.erase(id);
			lines[a].s = st::E;   // the upgrade grants Exclusive
		}
		lines[a].s = st::M;
		lines[a].d = d;
	}

	/** CPU eviction: a dirty line goes home (VICD), a clean one is dropped. */
	void evict(std::uint64_t a)
	{
		auto &l = lines[a];
		if (l.s == st::M) {
			const std::uint32_t id = free_wid();
			REQUIRE(id < 64);
			victims.insert(id);
			e.write_back(id, a, l.d);
			++wbs;
			REQUIRE(run([&] { return !victims.count(id); }));
		}
		l.s = st::I;
	}

	std::uint32_t start_load(std::uint64_t a)
	{
		if (lines[a].s != st::I) {
			std::uint32_t id = 1000 + next_id++;
			rd_done[id] = lines[a].d;   // hit: no traffic
			return id;
		}
		return issue_read(a, false);
	}

	/** A read the CPU issues on its own (a prefetch, a speculative load):
	 *  the line lands in the cache, nobody waits for it. Only for a line
	 *  not cached and not being read. */
	void speculate(std::uint64_t a)
	{
		if (lines[a].s != st::I || rd_pending.size() >= 48)   // leaves read ids for the CPU's own loads
			return;
		for (auto &r : rd_pending)
			if (r.second == a)
				return;
		for (auto &w : waiting)
			if (w.first == a)
				return;
		speculative.insert(issue_read(a, false));
	}

	/** Loads of @p addrs with all of them in flight at once (as
	 *  pioc::coherent's Lines::load_lines), at most 60 at a time (the DC's
	 *  64 read ids); returns their data in order. */
	std::vector<line> load_lines(const std::vector<std::uint64_t> &addrs)
	{
		std::vector<line> out(addrs.size());
		std::vector<std::uint32_t> ids(addrs.size());
		std::size_t issued = 0, done = 0;
		while (done < addrs.size()) {
			while (issued < addrs.size() && (issued == done || rd_pending.size() < 60)) {
				ids[issued] = start_load(addrs[issued]);
				++issued;
			}
			REQUIRE(run([&] { return rd_done.count(ids[done]) > 0; }));
			out[done] = rd_done[ids[done]];
			rd_done.erase(ids[done]);
			++done;
		}
		return out;
	}

	line load(std::uint64_t a)
	{
		std::uint32_t id = start_load(a);
		REQUIRE(run([&] { return rd_done.count(id) > 0; }));
		line d = rd_done[id];
		rd_done.erase(id);
		return d;
	}

	template <class F> bool run(F done, std::uint64_t max = 200000)
	{
		for (std::uint64_t i = 0; i < max && !done(); ++i)
			pump();
		return done();
	}
};

/** Software side of one channel, as libpioc does it: the word (control
 *  word + payload) into the answered line 1-par, then a load of par; a
 *  not-ready answer (valid = 0, in the fill only) is evicted and the same
 *  line loaded again; parity flips with the answer. */
template <class E> struct channel_t {
	dc_cpu_t<E> &m;
	unsigned ch;
	unsigned par = 0;        // the line the CPU loads next
	unsigned not_ready = 0;
	std::uint32_t seq = 0;
	std::uint64_t addr(unsigned k) const { return E::line_addr(ch, k); }

	line await()
	{
		line d = m.load(addr(par));
		while (!ctrl{word0(d)}.valid()) {
			++not_ready;
			m.evict(addr(par));
			d = m.load(addr(par));
		}
		par ^= 1;
		return d;
	}
	/** A session: SYNC(n), answered SYNC_ACK(n); sequence numbers follow n. */
	void open(std::uint32_t n)
	{
		seq = n;
		line d = exchange(ctrl::make(kind::sync, true, 0, n).w, nullptr, 0);
		REQUIRE(word0(d) == ctrl::make(kind::sync_ack, true, 0, n).w);
	}
	/** Writes control word @p w and @p payload into R and loads T. */
	line exchange(std::uint64_t w, const std::uint8_t *payload, std::size_t n)
	{
		line r{};
		std::memcpy(r.data(), &w, 8);
		if (n)
			std::memcpy(r.data() + pioc::coherent::ctrl_bytes, payload, n);
		m.store(addr(1 - par), r);
		return await();
	}
	line invoke(const std::uint8_t *payload, std::size_t n)
	{
		return exchange(ctrl::make(kind::request, true, std::uint32_t(n), ++seq).w, payload, n);
	}
	line invoke(const line &req) { return invoke(req.data(), 128 - pioc::coherent::ctrl_bytes); }
};

} // namespace tbdc
