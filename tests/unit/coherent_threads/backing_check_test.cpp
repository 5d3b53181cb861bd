// coherent::check_keeps_data: memory passes; a window that forgets lines on
// eviction (as the Enzian image's engine does outside its channels) and one
// that aliases (every MiB there; every 1 KiB here) are refused by offset.
#include <pioc/coherent/backing_check.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

using namespace pioc;

namespace {

std::shared_ptr<std::uint8_t> lines_memory(std::size_t n)
{
	std::shared_ptr<std::uint8_t> p(static_cast<std::uint8_t *>(std::aligned_alloc(128, n)), std::free);
	std::memset(p.get(), 0x11, n);
	return p;
}

/** Lines outside the first @p kept bytes read zero once evicted. */
struct forgetful : coherent::mem_lines {
	std::uint64_t kept;
	forgetful(void *b, std::uint32_t line, std::uint64_t k) : mem_lines(b, line), kept(k) {}
	void evict(std::uint64_t off) const
	{
		mem_lines::evict(off);
		if (off >= kept)
			std::memset(base() + off, 0, line_size());
	}
};

/** Offsets alias every @p period bytes. */
struct aliasing : coherent::mem_lines {
	std::uint64_t period;
	aliasing(void *b, std::uint32_t line, std::uint64_t p) : mem_lines(b, line), period(p) {}
	void store64(std::uint64_t off, std::uint64_t v) const { mem_lines::store64(off % period, v); }
	std::uint64_t load64(std::uint64_t off) const { return mem_lines::load64(off % period); }
};

std::string refusal(auto &&check)
{
	try {
		check();
	} catch (const pioc::error &e) {
		CHECK(e.code() == errc::not_supported);
		return e.what();
	}
	return {};
}

} // namespace

TEST_CASE("backing check: plain memory keeps every line, left zeroed")
{
	auto m = lines_memory(8192);
	coherent::mem_lines l(m.get(), 64);
	REQUIRE_NOTHROW(coherent::check_keeps_data(l, 0, 8192, "heap", 1));
	for (std::size_t i = 0; i < 8192; ++i)
		REQUIRE(m.get()[i] == 0);
}

TEST_CASE("backing check: a window that forgets lines is refused at the first one")
{
	auto m = lines_memory(8192);
	forgetful l(m.get(), 128, 256); // the first two lines are "channel lines"
	const std::string why = refusal([&] { coherent::check_keeps_data(l, 0, 8192, "kmod:eci0", 2); });
	CAPTURE(why);
	CHECK(why.find("kmod:eci0: the line at offset 0x100 did not keep") != std::string::npos);
	CHECK(why.find("read 0x0000000000000000") != std::string::npos);
}

TEST_CASE("backing check: a window that aliases is refused")
{
	auto m = lines_memory(1024);
	aliasing l(m.get(), 128, 1024);
	const std::string why = refusal([&] { coherent::check_keeps_data(l, 0, 4096, "kmod:eci0", 3); });
	CAPTURE(why);
	CHECK(why.find("offset 0x0 did not keep") != std::string::npos);
}
