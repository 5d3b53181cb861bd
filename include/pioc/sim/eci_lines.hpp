/** @file
 * The simulated line-access policy: the coherent protocols
 * (<pioc/coherent/lines.hpp>) run over the ECI model with every access going
 * through its CPU cache; time is simulated. Lives with the simulator so the
 * protocol headers include nothing of it.
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/sim/eci.hpp>

#include <cstddef>
#include <cstdint>

namespace pioc::coherent {

/** Every access through the ECI model (pioc::sim::eci::system). */
class eci_sim_lines {
public:
	static constexpr bool simulated = true;
	/** The window starts at simulated physical address @p base. */
	eci_sim_lines(sim::eci::system &sys, std::uint64_t base) noexcept : sys_(&sys), base_(base) {}

	std::uint32_t line_size() const noexcept { return sys_->cfg().line_size; }
	std::uint64_t load64(std::uint64_t off) const
	{
		std::uint64_t v;
		sys_->cpu_load(base_ + off, &v, 8);
		return v;
	}
	void store64(std::uint64_t off, std::uint64_t v) const { sys_->cpu_store(base_ + off, &v, 8); }
	void load_bytes(std::uint64_t off, void *dst, std::size_t n) const
	{
		if (n)
			sys_->cpu_load(base_ + off, dst, n);
	}
	void store_bytes(std::uint64_t off, const void *src, std::size_t n) const
	{
		if (n)
			sys_->cpu_store(base_ + off, src, n);
	}
	void load_lines(const std::uint64_t *offs, std::size_t n) const { in_flight(offs, n, &sim::eci::system::cpu_load_lines); }
	void claim_lines(const std::uint64_t *offs, std::size_t n) const { in_flight(offs, n, &sim::eci::system::cpu_claim_lines); }
	/** The load, then a load barrier: the ordering arm64's ldar gives (later
	 *  loads stay behind it), priced as one barrier. */
	std::uint64_t load_acquire(std::uint64_t off) const
	{
		std::uint64_t v;
		sys_->cpu_load_acquire(base_ + off, &v, 8);
		return v;
	}
	/** A store barrier, then the store: the ordering arm64's stlr gives
	 *  (earlier stores become visible first). */
	void store_release(std::uint64_t off, std::uint64_t v) const
	{
		sys_->cpu_barrier(barrier::kind::store_store);
		store64(off, v);
	}
	void store_load() const { sys_->cpu_barrier(barrier::kind::store_load); }
	void full() const { sys_->cpu_barrier(barrier::kind::full); }
	/** Nothing: each poll was a modelled load that already advanced time. */
	void relax(backoff &) const noexcept {}
	/** The polls of the line at @p off that cannot see anything new pass
	 *  at once (sim::eci::system::cpu_spend_polls), at the same times. */
	void relax_poll(backoff &, std::uint64_t off, double until) const
	{
		sys_->cpu_spend_polls(base_ + off, 8, until);
	}
	void evict(std::uint64_t off) const { sys_->cpu_evict(base_ + off); }
	double now_ns() const noexcept { return sys_->now(); }
	sim::eci::system &system() const noexcept { return *sys_; }

private:
	void in_flight(const std::uint64_t *offs, std::size_t n,
		       void (sim::eci::system::*op)(const std::uint64_t *, std::size_t)) const
	{
		std::uint64_t buf[64];
		while (n) {
			std::size_t k = n < 64 ? n : 64;
			for (std::size_t i = 0; i < k; ++i)
				buf[i] = base_ + offs[i];
			(sys_->*op)(buf, k);
			offs += k, n -= k;
		}
	}

	sim::eci::system *sys_;
	std::uint64_t base_;
};

static_assert(line_policy<eci_sim_lines>);

} // namespace pioc::coherent
