// The simulated CPU's store buffer (system::store_buffer): stores wait here
// until performed, so the device can see them in another order than the
// program issued them, as an ARMv8 core lets it unless a barrier says no.
#include <pioc/sim/eci.hpp>

namespace pioc::sim::eci {

void system::store_buffer(std::uint64_t seed, double drain_rate)
{
	sb_drain_all();
	sb_rng_.seed(seed);
	sb_rate_ = drain_rate;
	refresh_plain();
}

void system::ignore_barrier(barrier::kind k, bool on) noexcept
{
	const unsigned bit = 1u << unsigned(k);
	ignored_barriers_ = on ? ignored_barriers_ | bit : ignored_barriers_ & ~bit;
}

void system::sb_perform(std::size_t i)
{
	buffered_store st = std::move(sb_[i]);
	sb_.erase(sb_.begin() + std::ptrdiff_t(i));
	if (i != 0)
		++sb_reorders_;
	struct guard {
		bool &b;
		~guard() { b = false; }
	} g{in_sb_ = true};
	cpu_store(st.addr, st.bytes.data(), st.bytes.size());
}

void system::sb_act()
{
	if (sb_rate_ <= 0 || in_sb_ || sb_.empty())
		return;
	if (std::uniform_real_distribution<double>(0, 1)(sb_rng_) >= sb_rate_)
		return;
	// Any buffered store may go next, except past an older store to the
	// same bytes (same-address order holds on every architecture); stores
	// to other bytes of the same line may pass each other, as on ARMv8.
	std::size_t i = sb_rng_() % sb_.size();
	for (std::size_t j = 0; j < i; ++j) {
		const auto &a = sb_[j], &b = sb_[i];
		if (a.addr < b.addr + b.bytes.size() && b.addr < a.addr + a.bytes.size()) {
			i = j; // the older overlapping store goes first
			break;
		}
	}
	sb_perform(i);
}

void system::sb_drain_line_of(std::uint64_t line)
{
	if (in_sb_)
		return;
	for (std::size_t i = 0; i < sb_.size();)
		if (line_of(sb_[i].addr) == line)
			sb_perform(i);
		else
			++i;
}

void system::sb_drain_all()
{
	if (in_sb_)
		return;
	while (!sb_.empty())
		sb_perform(0);
}

} // namespace pioc::sim::eci
