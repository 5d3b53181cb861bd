// The CPU's accesses are checked before the model runs them (the check is
// inline on every access since wip/ecisimspeed, its error out of line): an
// access that crosses a line is misaligned, one past the modelled memory
// out of range, the last bytes of the last line are fine.
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

namespace eci = pioc::sim::eci;
using pioc::errc;

namespace {
auto code(errc c)
{
	return Catch::Matchers::Predicate<pioc::error>([c](const pioc::error &e) { return e.code() == c; });
}
} // namespace

TEST_CASE("eci model: accesses across a line or outside the memory throw, with the reason", "[eci_sim][access]")
{
	eci::system s;
	const std::uint64_t line = s.cfg().line_size, end = s.cfg().device_bytes + s.cfg().cpu_bytes;
	std::uint64_t v = 0;
	CHECK_THROWS_MATCHES(s.cpu_load(line - 4, &v, 8), pioc::error, code(errc::misaligned));
	CHECK_THROWS_MATCHES(s.cpu_store(s.cpu_base() + line - 1, &v, 2), pioc::error, code(errc::misaligned));
	CHECK_THROWS_MATCHES(s.cpu_load(end, &v, 8), pioc::error, code(errc::out_of_range));
	CHECK_THROWS_MATCHES(s.cpu_store(end + line, &v, 8), pioc::error, code(errc::out_of_range));
	CHECK_THROWS_MATCHES(s.cpu_evict(end), pioc::error, code(errc::out_of_range));
	CHECK_THROWS_MATCHES(s.cpu_load(0, &v, 0), pioc::error, code(errc::misaligned));
	v = 0x1122334455667788;
	s.cpu_store(end - 8, &v, 8); // the last bytes of the CPU-homed window
	std::uint64_t back = 0;
	s.cpu_load(end - 8, &back, 8);
	CHECK(back == v);
}

// An address near 2^64 made addr + n wrap to a small number, which passed
// the end check: the model then tried to make a page for line 2^57 (a
// std::length_error, not the caller's error).
TEST_CASE("eci model: an access whose end wraps past 2^64 is out of range", "[eci_sim][access]")
{
	eci::system s;
	std::uint64_t v = 0;
	const std::uint64_t top = ~std::uint64_t(0) - 7;
	CHECK_THROWS_MATCHES(s.cpu_load(top, &v, 8), pioc::error, code(errc::out_of_range));
	CHECK_THROWS_MATCHES(s.cpu_load_acquire(top, &v, 8), pioc::error, code(errc::out_of_range));
	CHECK_THROWS_MATCHES(s.cpu_store(top, &v, 8), pioc::error, code(errc::out_of_range));
}

// A hit remembers its line (the poll loop's fast path); the checks must not
// be remembered with it.
TEST_CASE("eci model: after a hit, accesses to the same line are still checked", "[eci_sim][access]")
{
	eci::system s;
	const std::uint64_t line = s.cfg().line_size, base = s.cpu_base();
	std::uint64_t v = 0;
	s.cpu_load(base, &v, 8);
	s.cpu_load(base, &v, 8); // a hit: its line is the remembered one now
	CHECK_THROWS_MATCHES(s.cpu_load(base + line - 4, &v, 8), pioc::error, code(errc::misaligned));
	CHECK_THROWS_MATCHES(s.cpu_load_acquire(base + line - 4, &v, 8), pioc::error, code(errc::misaligned));
	CHECK_THROWS_MATCHES(s.cpu_load(base, &v, 0), pioc::error, code(errc::misaligned));
	std::uint8_t big[512] = {};
	CHECK_THROWS_MATCHES(s.cpu_load(base, big, line + 1), pioc::error, code(errc::misaligned));
	s.cpu_store(base, &v, 8);
	CHECK_THROWS_MATCHES(s.cpu_store(base + line - 1, &v, 2), pioc::error, code(errc::misaligned));
	s.cpu_load(base + line - 8, &v, 8); // the last 8 bytes of the line are fine
}
