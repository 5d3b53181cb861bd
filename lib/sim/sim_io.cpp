// pioc::sim_io's accesses and waits: each one a transaction or a step of
// simulated time on the link. Declared as a handle in <pioc/io.hpp> so that
// drivers include nothing of the simulator; defined here, beside the link.
#include <pioc/io.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <algorithm>
#include <limits>

namespace pioc {

void sim_io::store_bytes(std::uint64_t off, const std::uint8_t *s, unsigned u) const
{
	link_->cpu_store(bar_, base_ + off, s, u, type_);
}

void sim_io::load_bytes(std::uint64_t off, std::uint8_t *d, unsigned u) const
{
	link_->cpu_load(bar_, base_ + off, d, u, type_);
}

void sim_io::copy_to(std::uint64_t off, const void *src, std::size_t n) const
{
	detail::copy_to(*this, off, static_cast<const std::uint8_t *>(src), n, wide_,
			[this](std::uint64_t o, const std::uint8_t *s) { store_bytes(o, s, wide_); });
}

void sim_io::copy_from(std::uint64_t off, void *dst, std::size_t n) const
{
	detail::copy_from(*this, off, static_cast<std::uint8_t *>(dst), n, wide_,
			  [this](std::uint64_t o, std::uint8_t *d) { load_bytes(o, d, wide_); });
}

void sim_io::wc_flush() const { link_->cpu_barrier(barrier::kind::wc_flush); }
void sim_io::store_store() const { link_->cpu_barrier(barrier::kind::store_store); }
void sim_io::store_load() const { link_->cpu_barrier(barrier::kind::store_load); }
void sim_io::load_load() const { link_->cpu_barrier(barrier::kind::load_load); }
void sim_io::full() const { link_->cpu_barrier(barrier::kind::full); }

std::uint64_t sim_io::now_ns() const noexcept
{
	return link_->now_ns();
}

void sim_io::idle(std::uint64_t ns) const
{
	// A driver's poll loop calls this every few simulated ns: no more than
	// the clock step and the device's own (usually empty) catch-up.
	link_->cpu_poll(double(ns));
}

void sim_io::idle_polls(std::uint64_t step, std::uint64_t horizon) const
{
	// UINT64_MAX: the caller has no timed check of its own (its horizon
	// is the device's next change); as a number it would let the polls
	// run on through a device with nothing to come, for ever.
	const double h = horizon == ~std::uint64_t(0) ? std::numeric_limits<double>::infinity() : double(horizon);
	link_->cpu_poll_until(double(step), h);
}

/** The CPU sleeps until the device's next event or @p deadline, then the
 *  device catches up: the one simulated wait step. */
static void sleep_step(sim::pcie_link &link, std::uint64_t deadline)
{
	const sim::target &dev = link.device();
	const std::uint64_t now = link.now_ns();
	const std::uint64_t next = std::min(dev.has_event_clock() ? dev.next_event_ns() : now + 100, deadline);
	link.cpu_spend(double(next > now ? next - now : 1));
	link.catch_up_device();
}

bool sim_io::wait_interrupt(int fd, std::uint64_t deadline) const
{
	const sim::target &dev = link_->device();
	link_->catch_up_device();
	// The eventfd is read (poll + read: two system calls, most of an
	// interrupt-driven run's CPU time) at the start and then only after a
	// step in which the model wrote one of its eventfds: nothing else
	// writes them, so the wait ends at the same simulated time.
	const bool counted = dev.msix_writes() != UINT64_MAX;
	std::uint64_t seen = dev.msix_writes();
	for (bool check = true;; check = !counted || dev.msix_writes() != seen) {
		seen = dev.msix_writes();
		if (check && detail::try_read_eventfd(fd))
			return true;
		if (now_ns() >= deadline)
			return false;
		sleep_step(*link_, deadline);
	}
}

void sim_io::sleep_until_event(std::uint64_t deadline) const
{
	link_->catch_up_device();
	sleep_step(*link_, deadline);
}

} // namespace pioc
