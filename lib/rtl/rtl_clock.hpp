// Shared by the RTL targets (rtl:pio, rtl:xdma, the NICs): a Verilated image clocked
// at the register map's clock, simulated nanoseconds <-> cycles, AXI4
// transfers driven to completion, and BAR0 of the PIO image on an AXI4 port.
//
// Speed: time advances in run_to() cycle by cycle only while something can
// change. When the image says it is idle (its `idle` output: no invocation,
// delay, held read or answer in flight) and every AXI port is quiet, the
// cycles up to the target, or up to the first cycle a stream input (an H2C
// beat, timed_input) is due, are skipped: only the free-running cycle counter
// would change, so it is advanced by the skipped count (public_flat_rw in
// speed.vlt) and the model is not evaluated. Cycle accounting stays exact;
// tests/rtl/test_rtl_speed.cpp checks that a host sees the same values and
// times with and without skipping.
#pragma once

#include "common/sim.hpp"
#include "rtl_devices.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace pioc::rtl {

/** Longest a single transaction may take before the model is declared hung:
 *  the longest INVOKE_TIMEOUT plus slack. */
constexpr std::uint64_t max_cycles = 0xffffffffULL + 100000;

/** An input of an image besides its AXI ports (a stream agent), which
 *  idle-cycle skipping must not run past: the first cycle at which it may
 *  drive anything, UINT64_MAX while it has nothing to offer. */
class timed_input {
public:
	virtual std::uint64_t next_cycle() const noexcept = 0;

protected:
	~timed_input() = default;
};

/** A Verilated model @p M with its clock; time 0 is the end of reset. */
template <class M> class clocked {
public:
	clocked(std::string name, std::uint64_t seed, unsigned clock_mhz)
		: s(seed), name_(std::move(name)), mhz_(clock_mhz)
	{
	}

	/** Clocks @p m with the model; @p stall percent random idle/backpressure cycles. */
	void attach(tb::axi4_master<std::uint32_t> &m, unsigned stall)
	{
		m.stall_valid.percent = stall;
		m.stall_ready.percent = stall;
		s.add(&m);
		ports_.push_back(&m);
	}

	/** Holds skipping back to the cycles before @p in next drives anything. */
	void add_input(const timed_input &in) { inputs_.push_back(&in); }

	/** Lets run_to() skip idle cycles: @p counter is the image's cycle
	 *  counter register (made writable by speed.vlt), advanced by the cycles
	 *  skipped. Without it (or with @p on false) every cycle is evaluated. */
	void skip_idle(std::uint64_t *counter, bool on)
	{
		counter_ = on ? counter : nullptr;
	}

	/** Resets the model (after the agents are added); time 0 from here. */
	void start()
	{
		s.reset();
		base_ = s.cycle;
	}

	std::uint64_t cycles_of(std::uint64_t ns) const { return (ns * mhz_ + 999) / 1000; }
	std::uint64_t ns_of(std::uint64_t cyc) const { return (cyc * 1000 + mhz_ - 1) / mhz_; }
	/** Cycles since time 0 and the simulated time they stand for. */
	std::uint64_t cycles() const { return s.cycle - base_; }
	std::uint64_t now_ns() const { return ns_of(cycles()); }
	unsigned clock_mhz() const { return mhz_; }

	/** Cycles evaluated one by one (the rest of cycles() were skipped). */
	std::uint64_t evaluated() const { return cycles() - skipped_; }

	/** Clocks the model up to simulated time @p t_ns (nothing if already
	 *  there); skips the cycles in which nothing but the counter changes. */
	void run_to(std::uint64_t t_ns)
	{
		const std::uint64_t target = base_ + cycles_of(t_ns);
		while (s.cycle < target) {
			if (quiet()) {
				// up to the first cycle an input (a stream beat) comes in
				std::uint64_t to = target;
				for (const auto *in : inputs_)
					to = std::min(to, in->next_cycle());
				if (to > s.cycle) {
					skip(to - s.cycle);
					continue;
				}
			}
			s.step();
		}
	}

	/** Clocks until @p m has finished the transfer @p tag; throws if the RTL
	 *  never answers or an AXI protocol checker complained. */
	template <class A> void finish(const tb::axi4_master<A> &m, std::uint64_t tag)
	{
		if (!s.run_until([&] { return m.done(tag); }, max_cycles))
			throw std::runtime_error(name_ + ": the RTL did not answer");
		if (!errors.empty())
			throw std::runtime_error(name_ + ": AXI protocol violation: " + errors.front());
	}

	tb::sim<M> s;
	std::vector<std::string> errors;   ///< filled by the agents' checkers

private:
	/** Nothing but the counter changes at the next edges: the image is idle
	 *  and no port has a transfer queued or in flight. */
	bool quiet() const
	{
		if constexpr (!requires(const M &m) { m.idle; }) {
			return false; // an image without an idle output runs every cycle
		} else {
			if (!counter_ || !s.m->idle)
				return false;
			for (const auto *p : ports_)
				if (!p->quiet())
					return false;
			return true;
		}
	}

	/** @p n cycles in which only the counter advances. */
	void skip(std::uint64_t n)
	{
		*counter_ += n;
		s.cycle += n;
		skipped_ += n;
		for (auto *p : ports_)
			p->cycle += n;   // the ports' cycle numbers (in error messages) stay the model's
		s.m->eval();     // the counter's output follows (no clock edge)
	}

	std::string name_;
	unsigned mhz_;
	std::uint64_t base_ = 0;
	std::uint64_t skipped_ = 0;
	std::uint64_t *counter_ = nullptr;
	std::vector<tb::axi4_master<std::uint32_t> *> ports_;
	std::vector<const timed_input *> inputs_;
};

/** A target whose time is a Verilated image's clock (for stats_of()). */
class rtl_target : public pioc::sim::target {
public:
	virtual rtl_stats stats() const = 0;
};

/** BAR0 = a PIO image's @p bar_size-byte map behind the AXI4 slave port that
 *  @p m drives on @p c: every TLP is one transfer (one burst per 256 beats),
 *  started at its arrival time; a read completes when the RTL answers,
 *  including a held INVOKE_STATUS read. Writes outside the map are dropped. */
template <class M> class axi_bar : public rtl_target {
public:
	axi_bar(std::string name, std::uint64_t bar_size, clocked<M> &c, tb::axi4_master<std::uint32_t> &m)
		: name_(std::move(name)), size_(bar_size), c_(c), m_(m)
	{
	}

	std::string name() const override { return name_; }
	std::uint64_t bar_size(unsigned bar) const override { return bar == 0 ? size_ : 0; }

	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override
	{
		if (bar != 0 || off + len > size_ || len == 0)
			return;   // dropped, as the endpoint would
		c_.run_to(t_ns);
		c_.finish(m_, m_.write(off, data, len));
	}

	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len,
			   std::uint64_t t_ns) override
	{
		std::memset(data, 0, len);
		if (bar != 0 || off + len > size_ || len == 0)
			return t_ns;
		c_.run_to(t_ns);
		c_.finish(m_, m_.read(off, data, len));
		return std::max(t_ns, c_.now_ns());
	}

	void advance(std::uint64_t t_ns) override { c_.run_to(t_ns); }

	rtl_stats stats() const override
	{
		return {c_.cycles(), double(c_.clock_mhz()), c_.now_ns(), c_.evaluated()};
	}

private:
	std::string name_;
	std::uint64_t size_;
	clocked<M> &c_;
	tb::axi4_master<std::uint32_t> &m_;
};

} // namespace pioc::rtl
