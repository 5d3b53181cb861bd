// The two seams between drivers and backends are concepts: both I/O views and
// both line-access policies satisfy theirs, and a backend that lacks one
// operation (or gets its type wrong) is refused at compile time instead of
// being found by a driver template deep inside an instantiation.
#include <pioc/coherent/lines.hpp>
#include <pioc/io.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <catch2/catch.hpp>

namespace {

/** The accesses and the clock of an I/O view: no full barrier, no waits. */
template <class Self> struct view_accesses {
	static constexpr bool simulated = false;
	std::uint64_t size() const noexcept { return 0; }
	pioc::mem_type type() const noexcept { return pioc::mem_type::uc; }
	Self sub(std::uint64_t, std::uint64_t) const noexcept { return {}; }
	template <class T> T load(std::uint64_t) const noexcept { return 0; }
	template <class T> void store(std::uint64_t, T) const noexcept {}
	void store_bytes(std::uint64_t, const std::uint8_t *, unsigned) const noexcept {}
	void load_bytes(std::uint64_t, std::uint8_t *, unsigned) const noexcept {}
	void copy_to(std::uint64_t, const void *, std::size_t) const noexcept {}
	void copy_from(std::uint64_t, void *, std::size_t) const noexcept {}
	void wc_flush() const noexcept {}
	void store_store() const noexcept {}
	void store_load() const noexcept {}
	void load_load() const noexcept {}
	std::uint64_t now_ns() const noexcept { return 0; }
};

/** An I/O view with everything but the full barrier. */
struct view_without_full : view_accesses<view_without_full> {
	void idle(std::uint64_t) const noexcept {}
	bool wait_interrupt(int, std::uint64_t) const noexcept { return false; }
};

/** Everything but the wait for an interrupt: a driver's interrupt completion
 *  must find it on the view, not by naming the backend. */
struct view_without_wait : view_accesses<view_without_wait> {
	void full() const noexcept {}
	void idle(std::uint64_t) const noexcept {}
};

/** The same view completed: proves the two above fail for the missing
 *  operation only. */
struct complete_view : view_accesses<complete_view> {
	void full() const noexcept {}
	void idle(std::uint64_t) const noexcept {}
	bool wait_interrupt(int, std::uint64_t) const noexcept { return false; }
};

/** A line policy whose clock is integral, where the protocols expect double
 *  simulated/wall nanoseconds. */
struct policy_with_integer_clock {
	static constexpr bool simulated = false;
	std::uint32_t line_size() const noexcept { return 64; }
	std::uint64_t load64(std::uint64_t) const noexcept { return 0; }
	void store64(std::uint64_t, std::uint64_t) const noexcept {}
	void load_bytes(std::uint64_t, void *, std::size_t) const noexcept {}
	void store_bytes(std::uint64_t, const void *, std::size_t) const noexcept {}
	void load_lines(const std::uint64_t *, std::size_t) const noexcept {}
	void claim_lines(const std::uint64_t *, std::size_t) const noexcept {}
	std::uint64_t load_acquire(std::uint64_t) const noexcept { return 0; }
	void store_release(std::uint64_t, std::uint64_t) const noexcept {}
	void store_load() const noexcept {}
	void full() const noexcept {}
	void relax(pioc::coherent::backoff &) const noexcept {}
	void relax_poll(pioc::coherent::backoff &, std::uint64_t, double) const noexcept {}
	void evict(std::uint64_t) const noexcept {}
	std::uint64_t now_ns() const noexcept { return 0; }
};

struct policy_with_double_clock : policy_with_integer_clock {
	double now_ns() const noexcept { return 0; }
};

} // namespace

TEST_CASE("both I/O views satisfy io_view", "[seam]")
{
	STATIC_REQUIRE(pioc::io_view<pioc::mmio_io>);
	STATIC_REQUIRE(pioc::io_view<pioc::sim_io>);
}

TEST_CASE("io_view refuses a view that lacks an operation", "[seam]")
{
	STATIC_REQUIRE_FALSE(pioc::io_view<view_without_full>);
	STATIC_REQUIRE(pioc::io_view<complete_view>);
	STATIC_REQUIRE_FALSE(pioc::io_view<int>);
	STATIC_REQUIRE_FALSE(pioc::io_view<view_without_wait>);
}

TEST_CASE("both line policies satisfy line_policy", "[seam]")
{
	STATIC_REQUIRE(pioc::coherent::line_policy<pioc::coherent::mem_lines>);
	STATIC_REQUIRE(pioc::coherent::line_policy<pioc::coherent::eci_sim_lines>);
}

TEST_CASE("line_policy refuses a policy with the wrong clock type", "[seam]")
{
	STATIC_REQUIRE_FALSE(pioc::coherent::line_policy<policy_with_integer_clock>);
	STATIC_REQUIRE(pioc::coherent::line_policy<policy_with_double_clock>);
}
