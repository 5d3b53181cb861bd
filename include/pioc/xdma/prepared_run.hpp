/** @file
 * A transfer run again and again at the cost of the PG195 sequence by hand.
 *
 * channel_ops serves any mix of requests, modes and channels, and pays for
 * it on every run: request and channel state, checks, the running list, the
 * SGDMA registers compared with the last ones written (92 instructions per
 * submit + wait against 14 by hand, Documentation/benchmarking.md). A
 * prepared_run is what a latency loop needs instead: one request, on a
 * channel it holds alone, in write-back mode. Everything that does not
 * change between runs is checked and written when it is built (the
 * request's chain ends in STOP, the SGDMA registers point at it, the control
 * value, the write-back slot), so each run is the hand-written sequence:
 *
 *   start(): clear the write-back slot, order it before the doorbell, set run
 *   wait():  the write-back equals the descriptor count (one compare: an
 *            error bit or a short count differs), order the data after it,
 *            clear run so the next run is a rising edge
 *
 * Anything else (the run not finished at the first look, an error, a lost
 * write-back, a hung engine, a vanished device) leaves through a cold call
 * into channel_ops::wait, with its timeouts, recovery and errors.
 */
#pragma once

#include <pioc/xdma/xdma.hpp>

namespace pioc::xdma {

template <class IO> class prepared_run {
public:
	/** Holds @p c for @p r: write-back completion, no run in flight or
	 *  queued, phase timing off, @p r not in flight. Throws pioc::error
	 *  (invalid_argument) naming the channel and the rule otherwise. While
	 *  held, channel_ops::submit and set_completion on @p c are refused;
	 *  dma::function_reset() points the SGDMA registers at @p r again. */
	prepared_run(channel &c, const IO &io, request &r)
		: c_(c), io_(io), ctrl_(io.sub(c.eng_ + regs::xdma::ENG_CTRL, 4)), r_(r)
	{
		namespace R = regs::xdma;
		const char *why = c.mode_ != completion::writeback ? "needs write-back completion"
				  : c.held_				  ? "is already held by a prepared_run"
				  : c.busy_ || !c.pending_.empty()	  ? "has a run in flight or queued"
				  : c.time_phases_			  ? "times phases (time_phases(false) first)"
				  : r.st_ == request::state::running || r.st_ == request::state::queued
					  ? "request is in flight"
					  : nullptr;
		if (why)
			throw error(errc::invalid_argument,
				    c.name_ + ": prepared_run of " + c.describe(r) + ": the channel " + why);
		if (!(r.last_->control & R::DESC_STOP))
			unlink(*r.last_); // an earlier chain ran past it
		write_sgdma();
		stop_ctrl_ = c.ctrl_;
		run_ctrl_ = c.ctrl_ | R::CTRL_RUN;
		done_ = std::uint32_t(r.head_.count);
		wb_ = c.wb_;
		c.held_ = &r;
		c.busy_ = true; // so that channel_ops::submit takes its checked path
	}
	~prepared_run()
	{
		c_.held_ = nullptr;
		c_.busy_ = false;
	}
	prepared_run(const prepared_run &) = delete;
	prepared_run &operator=(const prepared_run &) = delete;

	/** Starts one run of the request. */
	[[gnu::always_inline]] void start()
	{
		*wb_ = 0;
		io_.store_store(); // the cleared slot (and the data) before the doorbell
		ctrl_.template store<std::uint32_t>(0, run_ctrl_);
	}
	/** Waits for that run; throws pioc::error as channel_ops::wait() does. */
	[[gnu::always_inline]] void wait()
	{
		if constexpr (IO::simulated)
			detail::idle(io_, detail::sim_poll_ns);
		// The engine writes back its completed count, with bit 31 on an
		// error: all descriptors done and no error is this one value.
		if (*wb_ != done_) [[unlikely]]
			return wait_general();
		io_.load_load(); // the data after the write-back that says it is there
		ctrl_.template store<std::uint32_t>(0, stop_ctrl_);
	}

private:
	void write_sgdma()
	{
		namespace R = regs::xdma;
		io_.template store<std::uint32_t>(c_.sg_ + R::SG_DESC_LO, std::uint32_t(r_.head_.bus));
		io_.template store<std::uint32_t>(c_.sg_ + R::SG_DESC_HI, std::uint32_t(r_.head_.bus >> 32));
		io_.template store<std::uint32_t>(c_.sg_ + R::SG_DESC_ADJ, r_.head_.adj);
		c_.sg_bus_ = r_.head_.bus;
		c_.sg_adj_ = r_.head_.adj;
	}

	/** Hands the run to channel_ops as the run in flight, so its polling,
	 *  deadlines, lost-signal recovery and error handling apply unchanged;
	 *  then holds the channel again. */
	[[gnu::noinline, gnu::cold]] void wait_general()
	{
		c_.running_.assign(1, &r_);
		r_.st_ = request::state::running;
		c_.expected_ = done_;
		c_.run_start_ = channel::not_started;
		c_.busy_ = true;
		++c_.runs_;
		try {
			channel_ops<IO>(c_, io_).wait(r_);
		} catch (...) {
			hold_again();
			throw;
		}
		hold_again();
	}
	void hold_again()
	{
		c_.busy_ = true;
		if (c_.sg_bus_ != r_.head_.bus || c_.sg_adj_ != r_.head_.adj)
			write_sgdma(); // a recovery forgot them
	}

	channel &c_;
	IO io_;
	IO ctrl_; ///< the engine's control register alone: each run's two stores
	request &r_;
	std::uint32_t stop_ctrl_ = 0, run_ctrl_ = 0, done_ = 0;
	volatile std::uint32_t *wb_ = nullptr;
};

} // namespace pioc::xdma
