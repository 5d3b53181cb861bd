// Verilator testbench kit: clocking, random backpressure, valid/ready
// protocol checkers and AXI4 / AXI4-Lite masters. Header-only; used by the
// Catch2 testbenches in fpga/tb/ and by the RTL backend in lib/rtl/.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace pioc::tb {

/** Something that drives DUT inputs before a rising edge and observes the
 *  settled signals (handshakes) at the edge. */
struct agent {
	virtual ~agent() = default;
	virtual void drive() = 0;   ///< set inputs for this cycle
	virtual void sample() = 0;  ///< inputs and combinational outputs settled: see handshakes
};

/** Probability knob for random backpressure / idle cycles (0 = never stall). */
struct stall {
	std::mt19937_64 *rng;
	unsigned percent;
	bool operator()() { return percent && (*rng)() % 100 < percent; }
};

/** Clock loop around a Verilated model with `clk` and `rst_n`. */
template <class M> class sim {
public:
	explicit sim(std::uint64_t seed = 1) : rng(seed), m(std::make_unique<M>())
	{
		m->clk = 0;
		m->rst_n = 0;
		m->eval();
	}
	~sim() { m->final(); }

	void add(agent *a) { agents.push_back(a); }

	/** One clock cycle: inputs driven, settled and sampled with clk low, then
	 *  the rising edge. The falling edge is not evaluated on its own (no
	 *  logic uses it): the next step's first eval() sees clk low again. */
	void step()
	{
		for (auto *a : agents)
			a->drive();
		if (arm_edge) {
			// One evaluation: the agents sample what the last one left
			// (every output they see is a register's), then the edge.
			for (auto *a : agents)
				a->sample();
			arm_edge(*m);
			m->eval();
			++cycle;
			return;
		}
		m->clk = 0;
		m->eval();
		for (auto *a : agents)
			a->sample();
		m->clk = 1;
		m->eval();
		++cycle;
	}

	/** Set: step() evaluates the model once per cycle instead of twice.
	 *  Only for a model whose every output an agent samples is a flip-flop's
	 *  (no combinational path from an input): those outputs are then the
	 *  same before and after the inputs of the cycle are driven, so the
	 *  evaluation with the clock low, which only settled them, is left out.
	 *  The function makes the next eval() a rising edge with the clock
	 *  staying high (it sets the model's record of the clock's previous
	 *  value, which is Verilator-version specific: the caller provides it). */
	void (*arm_edge)(M &) = nullptr;

	void reset(unsigned cycles = 4)
	{
		m->rst_n = 0;
		for (unsigned i = 0; i < cycles; ++i)
			step();
		m->rst_n = 1;
	}

	/** Step until @p done() or @p max cycles; false on timeout. A template,
	 *  not std::function: @p done is called every cycle. */
	template <class F> bool run_until(F &&done, std::uint64_t max = 1000000)
	{
		for (std::uint64_t i = 0; i < max; ++i) {
			if (done())
				return true;
			step();
		}
		return done();
	}

	std::mt19937_64 rng;
	std::unique_ptr<M> m;
	std::uint64_t cycle = 0;
	std::vector<agent *> agents;
};

/** Protocol checker of one valid/ready channel: once valid is up it must stay
 *  up until ready, with the payload unchanged. Violations are recorded. */
class hs_checker {
public:
	hs_checker(std::string name, std::vector<std::string> *errors) : name_(std::move(name)), errors_(errors) {}

	void observe(bool valid, bool ready, const std::vector<std::uint64_t> &payload, std::uint64_t cycle)
	{
		observe(valid, ready, payload.data(), payload.size(), cycle);
	}
	/** The same without a vector per call (the AXI masters call it every cycle). */
	void observe(bool valid, bool ready, std::initializer_list<std::uint64_t> payload, std::uint64_t cycle)
	{
		observe(valid, ready, payload.begin(), payload.size(), cycle);
	}
	/** The same with the payload read only when the check needs it: while a
	 *  transfer waits (valid, not ready) and in the cycle after. The AXI
	 *  masters call this for five channels every cycle; most cycles see an
	 *  idle channel or a beat taken at once. */
	template <class F>
		requires std::invocable<F &>
	void observe(bool valid, bool ready, F &&payload, std::uint64_t cycle)
	{
		if (pending_ || (valid && !ready)) {
			const auto p = payload();
			observe(valid, ready, p.data(), p.size(), cycle);
		} else if (valid) {
			++beats;   // taken at once, nothing waited: nothing to compare
		}
	}
	void observe(bool valid, bool ready, const std::uint64_t *payload, std::size_t n, std::uint64_t cycle)
	{
		if (pending_) {
			if (!valid)
				fail(cycle, "valid dropped before ready");
			else if (n != last_.size() || !std::equal(payload, payload + n, last_.begin()))
				fail(cycle, "payload changed while valid and not ready");
		}
		pending_ = valid && !ready;
		// Kept only for the next cycle's comparison (every cycle, this copy
		// was 10% of rtl:xdma's time); reuses the capacity: no allocation.
		if (pending_)
			last_.assign(payload, payload + n);
		if (valid && ready)
			++beats;
	}
	std::uint64_t beats = 0;
	/** Forgets a transfer in progress (the port was reset). */
	void reset() noexcept { pending_ = false; }

private:
	void fail(std::uint64_t cycle, const char *what)
	{
		errors_->push_back(name_ + " @" + std::to_string(cycle) + ": " + what);
	}
	std::string name_;
	std::vector<std::string> *errors_;
	bool pending_ = false;
	std::vector<std::uint64_t> last_;
};

/** Pointers to the signals of one AXI4 slave port (64-bit data) of a model. */
template <class A> struct axi4_port {
	std::uint8_t *awvalid, *awready, *awid, *awlen, *awsize, *awburst;
	A *awaddr;
	std::uint8_t *wvalid, *wready, *wstrb, *wlast;
	std::uint64_t *wdata;
	std::uint8_t *bvalid, *bready, *bid, *bresp;
	std::uint8_t *arvalid, *arready, *arid, *arlen, *arsize, *arburst;
	A *araddr;
	std::uint8_t *rvalid, *rready, *rid, *rresp, *rlast;
	std::uint64_t *rdata;
};
#define PIOC_AXI4_PORT(m, p)                                                                             \
	{ &(m)->p##awvalid, &(m)->p##awready, &(m)->p##awid, &(m)->p##awlen, &(m)->p##awsize,           \
	  &(m)->p##awburst, &(m)->p##awaddr, &(m)->p##wvalid, &(m)->p##wready, &(m)->p##wstrb,         \
	  &(m)->p##wlast, &(m)->p##wdata, &(m)->p##bvalid, &(m)->p##bready, &(m)->p##bid,              \
	  &(m)->p##bresp, &(m)->p##arvalid, &(m)->p##arready, &(m)->p##arid, &(m)->p##arlen,           \
	  &(m)->p##arsize, &(m)->p##arburst, &(m)->p##araddr, &(m)->p##rvalid, &(m)->p##rready,        \
	  &(m)->p##rid, &(m)->p##rresp, &(m)->p##rlast, &(m)->p##rdata }

/** AXI4 master with random idle cycles on AW/W/AR and random BREADY/RREADY,
 *  plus protocol checkers on all five channels and response checks (IDs,
 *  RLAST position, OKAY). Transfers are split into bursts of up to 256 beats
 *  that do not cross 4 KiB. Several bursts may be queued; writes and reads
 *  are issued in the order queued, a read only after all earlier writes
 *  have their B response (PCIe ordering, as XDMA's bridge keeps it). */
template <class A> class axi4_master : public agent {
	axi4_port<A> p_;   // declared first: the checkers below are built from name_
	std::vector<std::string> *errors_;
	std::string name_;

public:
	axi4_master(std::string name, axi4_port<A> p, std::mt19937_64 *rng, std::vector<std::string> *errors)
		: p_(p), errors_(errors), name_(std::move(name)), c_aw(name_ + ".AW", errors),
		  c_w(name_ + ".W", errors), c_b(name_ + ".B", errors), c_ar(name_ + ".AR", errors),
		  c_r(name_ + ".R", errors), stall_valid{rng, 0}, stall_ready{rng, 0}
	{
		*p_.awvalid = *p_.wvalid = *p_.arvalid = 0;
		*p_.bready = *p_.rready = 0;
	}

	/** Queue a write of @p len bytes at byte address @p addr. Byte lanes follow
	 *  the address (64-bit bus); full beats use ARSIZE 3, a transfer of 1, 2
	 *  or 4 bytes that is naturally aligned uses a narrow single beat. */
	std::uint64_t write(std::uint64_t addr, const void *data, std::size_t len)
	{
		const auto *d = static_cast<const std::uint8_t *>(data);
		std::uint64_t tag = 0;
		while (len) {
			std::size_t n = chunk(addr, len);
			burst b = make(addr, n, true);
			// Beat by beat (a byte loop was 2% of rtl:xdma's time): the
			// lanes of [addr, addr + n) in each.
			const std::uint64_t base = addr & ~7ULL;
			for (unsigned k = 0; k < b.beats; ++k) {
				const std::uint64_t lo = std::max(addr, base + 8 * k), hi = std::min(addr + n, base + 8 * k + 8);
				const std::uint8_t *src = d + (lo - addr);
				if (hi - lo == 8) {
					b.wdata[k] = le64(src);
					b.wstrb[k] = 0xff;
					continue;
				}
				for (std::uint64_t a = lo; a < hi; ++a) {
					b.wdata[k] |= std::uint64_t(src[a - lo]) << (8 * (a & 7));
					b.wstrb[k] |= std::uint8_t(1u << (a & 7));
				}
			}
			tag = b.tag;
			q_.push_back(std::move(b));
			addr += n;
			d += n;
			len -= n;
		}
		return tag;
	}

	/** Queue a read; the data lands in @p out when done. */
	std::uint64_t read(std::uint64_t addr, void *out, std::size_t len)
	{
		auto *o = static_cast<std::uint8_t *>(out);
		std::uint64_t tag = 0;
		while (len) {
			std::size_t n = chunk(addr, len);
			burst b = make(addr, n, false);
			b.out = o;
			tag = b.tag;
			q_.push_back(std::move(b));
			addr += n;
			o += n;
			len -= n;
		}
		return tag;
	}

	/** True when the transfer that returned @p tag (and all before it) is done. */
	bool done(std::uint64_t tag) const { return completed_ >= tag; }
	bool idle() const { return q_.empty() && aw_.empty() && w_.empty() && b_.empty() && r_.empty(); }
	/** Idle and no valid driven (the last handshakes retired): the port
	 *  cannot change the slave until something is queued. */
	bool quiet() const { return idle() && !*p_.awvalid && !*p_.wvalid && !*p_.arvalid; }

	void drive() override
	{
		retire();
		// Issue the head of the queue onto AW (+ W) or AR.
		if (!q_.empty() && !*p_.awvalid && !*p_.arvalid && !stall_valid()) {
			burst &h = q_.front();
			if (h.write && aw_.size() < 4) {
				aw_.push_back(h.tag);
				b_.push_back({h.tag, h.id});
				set_aw(h);
				w_.push_back(std::move(h));   // the data moves on; B needs only tag and ID
				q_.pop_front();
			} else if (!h.write && b_.empty() && r_.size() < 4) {
				set_ar(h);
				r_.push_back(std::move(h));
				q_.pop_front();
			}
		}
		// W beats of the oldest write (may run ahead of AW).
		if (!*p_.wvalid && !w_.empty() && !stall_valid()) {
			burst &h = w_.front();
			*p_.wvalid = 1;
			*p_.wdata = h.wdata[wbeat_];
			*p_.wstrb = h.wstrb[wbeat_];
			*p_.wlast = wbeat_ == h.beats - 1;
		}
		*p_.bready = !stall_ready();
		*p_.rready = !stall_ready();
	}

	void sample() override
	{
		using P = std::uint64_t;
		c_aw.observe(*p_.awvalid, *p_.awready, [&] {
			return std::array<P, 5>{*p_.awid, P(*p_.awaddr), *p_.awlen, *p_.awsize, *p_.awburst};
		}, cycle);
		c_w.observe(*p_.wvalid, *p_.wready, [&] { return std::array<P, 3>{*p_.wdata, *p_.wstrb, *p_.wlast}; }, cycle);
		c_b.observe(*p_.bvalid, *p_.bready, [&] { return std::array<P, 2>{*p_.bid, *p_.bresp}; }, cycle);
		c_ar.observe(*p_.arvalid, *p_.arready, [&] {
			return std::array<P, 5>{*p_.arid, P(*p_.araddr), *p_.arlen, *p_.arsize, *p_.arburst};
		}, cycle);
		c_r.observe(*p_.rvalid, *p_.rready, [&] { return std::array<P, 4>{*p_.rid, *p_.rdata, *p_.rresp, *p_.rlast}; }, cycle);

		if (*p_.awvalid && *p_.awready)
			aw_fire_ = true;
		if (*p_.arvalid && *p_.arready)
			ar_fire_ = true;
		if (*p_.wvalid && *p_.wready) {
			w_fire_ = true;
		}
		if (*p_.bvalid && *p_.bready)
			on_b();
		if (*p_.rvalid && *p_.rready)
			on_r();
		++cycle;
	}

	hs_checker c_aw, c_w, c_b, c_ar, c_r;
	stall stall_valid, stall_ready;
	std::uint64_t cycle = 0;
	unsigned id_bits = 4;

private:
	/** Drop the valids whose handshakes happened at the last edge. */
	void retire()
	{
		if (aw_fire_) {
			*p_.awvalid = 0;
			aw_.pop_front();
			aw_fire_ = false;
		}
		if (ar_fire_) {
			*p_.arvalid = 0;
			ar_fire_ = false;
		}
		if (w_fire_) {
			*p_.wvalid = 0;
			w_fire_ = false;
			if (++wbeat_ == w_.front().beats) {
				wbeat_ = 0;
				w_.pop_front();
			}
		}
	}

	struct burst {
		std::uint64_t tag;
		bool write;
		std::uint64_t addr;   // first byte
		unsigned beats;
		unsigned size;        // log2 bytes per beat
		unsigned id;
		std::vector<std::uint64_t> wdata;
		std::vector<std::uint8_t> wstrb;
		std::uint8_t *out = nullptr;
		std::size_t len;
		unsigned rbeat = 0;
	};

	static std::size_t chunk(std::uint64_t addr, std::size_t len)
	{
		std::size_t to4k = 4096 - (addr & 4095);
		std::size_t max = 256 * 8 - (addr & 7);
		return std::min({len, to4k, max});
	}

	burst make(std::uint64_t addr, std::size_t n, bool write)
	{
		burst b{};
		b.tag = ++issued_;
		b.write = write;
		b.addr = addr;
		b.len = n;
		b.id = unsigned(b.tag) & ((1u << id_bits) - 1);
		if ((n == 1 || n == 2 || n == 4) && (addr & (n - 1)) == 0) {
			b.size = n == 1 ? 0 : n == 2 ? 1 : 2;
			b.beats = 1;
		} else {
			b.size = 3;
			b.beats = unsigned(((addr & 7) + n + 7) / 8);
		}
		if (write) {
			b.wdata.assign(b.beats, 0);
			b.wstrb.assign(b.beats, 0);
		}
		return b;
	}

	/** The 8 bytes at @p p as a little-endian word: one load where the host
	 *  is little-endian (gcc -O2 does not merge the byte loop into one). */
	static std::uint64_t le64(const std::uint8_t *p)
	{
		std::uint64_t v = 0;
		if constexpr (std::endian::native == std::endian::little) {
			std::memcpy(&v, p, 8);
		} else {
			for (unsigned i = 0; i < 8; ++i)
				v |= std::uint64_t(p[i]) << (8 * i);
		}
		return v;
	}

	void set_aw(const burst &b)
	{
		*p_.awvalid = 1;
		*p_.awid = std::uint8_t(b.id);
		*p_.awaddr = A(b.addr);
		*p_.awlen = std::uint8_t(b.beats - 1);
		*p_.awsize = std::uint8_t(b.size);
		*p_.awburst = 1;
	}
	void set_ar(const burst &b)
	{
		*p_.arvalid = 1;
		*p_.arid = std::uint8_t(b.id);
		*p_.araddr = A(b.addr);
		*p_.arlen = std::uint8_t(b.beats - 1);
		*p_.arsize = std::uint8_t(b.size);
		*p_.arburst = 1;
	}

	void err(const std::string &s) { errors_->push_back(name_ + " @" + std::to_string(cycle) + ": " + s); }

	void on_b()
	{
		if (b_.empty()) {
			err("B without a write");
			return;
		}
		const wresp &h = b_.front();
		if (*p_.bid != h.id)
			err("BID mismatch");
		if (*p_.bresp != 0)
			err("BRESP not OKAY");
		completed_ = h.tag;
		b_.pop_front();
	}

	void on_r()
	{
		if (r_.empty()) {
			err("R without a read");
			return;
		}
		burst &h = r_.front();
		if (*p_.rid != h.id)
			err("RID mismatch");
		if (*p_.rresp != 0)
			err("RRESP not OKAY");
		const bool last = h.rbeat == h.beats - 1;
		if (bool(*p_.rlast) != last)
			err("RLAST at the wrong beat");
		// copy the bytes of this beat that belong to the transfer
		const std::uint64_t beat_base = (h.addr & ~7ULL) + 8ULL * h.rbeat;
		const std::uint64_t data = *p_.rdata;
		if (beat_base >= h.addr && beat_base + 8 <= h.addr + h.len) {
			std::uint8_t *o = h.out + (beat_base - h.addr);
			if constexpr (std::endian::native == std::endian::little) {
				std::memcpy(o, &data, 8);   // a whole beat: one store
			} else {
				for (unsigned i = 0; i < 8; ++i)
					o[i] = std::uint8_t(data >> (8 * i));
			}
		} else {
			for (unsigned i = 0; i < 8; ++i) {
				std::uint64_t a = beat_base + i;
				if (a >= h.addr && a < h.addr + h.len)
					h.out[a - h.addr] = std::uint8_t(data >> (8 * i));
			}
		}
		if (++h.rbeat == h.beats) {
			completed_ = h.tag;
			r_.pop_front();
		}
	}

	struct wresp {
		std::uint64_t tag;
		unsigned id;
	};
	std::deque<burst> q_, w_, r_;
	std::deque<wresp> b_;
	std::deque<std::uint64_t> aw_;
	unsigned wbeat_ = 0;
	std::uint64_t issued_ = 0, completed_ = 0;
	bool aw_fire_ = false, ar_fire_ = false, w_fire_ = false;
};

/** Pointers to the signals of one AXI4-Lite slave port (32-bit data). */
template <class A> struct axil_port {
	std::uint8_t *awvalid, *awready;
	A *awaddr;
	std::uint8_t *wvalid, *wready, *wstrb;
	std::uint32_t *wdata;
	std::uint8_t *bvalid, *bready, *bresp;
	std::uint8_t *arvalid, *arready;
	A *araddr;
	std::uint8_t *rvalid, *rready, *rresp;
	std::uint32_t *rdata;
};
#define PIOC_AXIL_PORT(m, p)                                                                              \
	{ &(m)->p##awvalid, &(m)->p##awready, &(m)->p##awaddr, &(m)->p##wvalid, &(m)->p##wready,         \
	  &(m)->p##wstrb, &(m)->p##wdata, &(m)->p##bvalid, &(m)->p##bready, &(m)->p##bresp,             \
	  &(m)->p##arvalid, &(m)->p##arready, &(m)->p##araddr, &(m)->p##rvalid, &(m)->p##rready,         \
	  &(m)->p##rresp, &(m)->p##rdata }

/** AXI4-Lite master: one 32-bit access at a time, AW and W presented
 *  independently after random idle cycles, random BREADY/RREADY, checkers
 *  on all five channels. */
template <class A> class axil_master : public agent {
	axil_port<A> p_;   // declared first: the checkers below are built from name_
	std::vector<std::string> *errors_;
	std::string name_;

public:
	axil_master(std::string name, axil_port<A> p, std::mt19937_64 *rng, std::vector<std::string> *errors)
		: p_(p), errors_(errors), name_(std::move(name)), c_aw(name_ + ".AW", errors),
		  c_w(name_ + ".W", errors), c_b(name_ + ".B", errors), c_ar(name_ + ".AR", errors),
		  c_r(name_ + ".R", errors), stall_valid{rng, 0}, stall_ready{rng, 0}
	{
		*p_.awvalid = *p_.wvalid = *p_.arvalid = *p_.bready = *p_.rready = 0;
	}

	void write(std::uint64_t addr, std::uint32_t data, std::uint8_t strb = 0xf)
	{
		q_.push_back({true, addr, data, strb, nullptr});
	}
	void read(std::uint64_t addr, std::uint32_t *out) { q_.push_back({false, addr, 0, 0xf, out}); }
	bool idle() const { return q_.empty() && !busy_; }

	void drive() override
	{
		if (aw_fire_) { *p_.awvalid = 0; aw_fire_ = false; aw_done_ = true; }
		if (w_fire_) { *p_.wvalid = 0; w_fire_ = false; w_done_ = true; }
		if (ar_fire_) { *p_.arvalid = 0; ar_fire_ = false; }
		if (!busy_ && !q_.empty()) {
			cur_ = q_.front();
			q_.pop_front();
			busy_ = true;
			aw_done_ = w_done_ = false;
		}
		if (busy_ && cur_.write) {
			if (!aw_done_ && !*p_.awvalid && !stall_valid()) {
				*p_.awvalid = 1;
				*p_.awaddr = A(cur_.addr);
			}
			if (!w_done_ && !*p_.wvalid && !stall_valid()) {
				*p_.wvalid = 1;
				*p_.wdata = cur_.data;
				*p_.wstrb = cur_.strb;
			}
		} else if (busy_ && !ar_sent_ && !*p_.arvalid && !stall_valid()) {
			*p_.arvalid = 1;
			*p_.araddr = A(cur_.addr);
			ar_sent_ = true;
		}
		*p_.bready = !stall_ready();
		*p_.rready = !stall_ready();
	}

	void sample() override
	{
		c_aw.observe(*p_.awvalid, *p_.awready, {std::uint64_t(*p_.awaddr)}, cycle);
		c_w.observe(*p_.wvalid, *p_.wready, {*p_.wdata, *p_.wstrb}, cycle);
		c_b.observe(*p_.bvalid, *p_.bready, {*p_.bresp}, cycle);
		c_ar.observe(*p_.arvalid, *p_.arready, {std::uint64_t(*p_.araddr)}, cycle);
		c_r.observe(*p_.rvalid, *p_.rready, {*p_.rdata, *p_.rresp}, cycle);
		aw_fire_ = *p_.awvalid && *p_.awready;
		w_fire_ = *p_.wvalid && *p_.wready;
		ar_fire_ = *p_.arvalid && *p_.arready;
		if (*p_.bvalid && *p_.bready) {
			if (!busy_ || !cur_.write || !(aw_done_ || aw_fire_) || !(w_done_ || w_fire_))
				err("B before both AW and W");
			if (*p_.bresp)
				err("BRESP not OKAY");
			busy_ = false;
		}
		if (*p_.rvalid && *p_.rready) {
			if (!busy_ || cur_.write)
				err("R without a read");
			if (*p_.rresp)
				err("RRESP not OKAY");
			else if (cur_.out)
				*cur_.out = *p_.rdata;
			busy_ = false;
			ar_sent_ = false;
		}
		++cycle;
	}

	hs_checker c_aw, c_w, c_b, c_ar, c_r;
	stall stall_valid, stall_ready;
	std::uint64_t cycle = 0;

private:
	struct op {
		bool write;
		std::uint64_t addr;
		std::uint32_t data;
		std::uint8_t strb;
		std::uint32_t *out;
	};
	void err(const std::string &s) { errors_->push_back(name_ + " @" + std::to_string(cycle) + ": " + s); }
	std::deque<op> q_;
	op cur_{};
	bool busy_ = false, aw_done_ = false, w_done_ = false, ar_sent_ = false;
	bool aw_fire_ = false, w_fire_ = false, ar_fire_ = false;
};

} // namespace pioc::tb
