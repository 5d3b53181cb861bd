// Copy routines and typed accessors against plain memory, for every size
// 1..4096 at every device-side alignment within a 64-byte line, with every
// wide-access family this CPU has.
#include <pioc/io.hpp>
#include <pioc/region.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

using namespace pioc;

namespace {
std::vector<wide_isa> isas()
{
	std::vector<wide_isa> v;
	for (auto w : {wide_isa::none, wide_isa::sse, wide_isa::avx2, wide_isa::avx512, wide_isa::movdir64b,
		       wide_isa::neon})
		if (wide_isa_supported(w))
			v.push_back(w);
	return v;
}

struct plain_memory {
	static constexpr std::size_t size = 8192 + 256;
	alignas(64) std::uint8_t bytes[size];
};
} // namespace

TEST_CASE("copy_to and copy_from move exactly the bytes asked, at every size and alignment", "[copy]")
{
	auto mem = std::make_unique<plain_memory>();
	std::vector<std::uint8_t> src(4096 + 64), back(4096 + 64);
	for (std::size_t i = 0; i < src.size(); ++i)
		src[i] = static_cast<std::uint8_t>(i * 7 + 3);
	for (auto w : isas()) {
		INFO("wide isa " << to_string(w));
		mmio_io io(mem->bytes, plain_memory::size, mem_type::uc, w);
		for (std::size_t n = 1; n <= 4096; n += (n < 256 ? 1 : 61)) {
			for (std::uint64_t off = 0; off < 64; ++off) {
				std::memset(mem->bytes, 0xee, plain_memory::size);
				const std::size_t src_shift = (off * 5) % 16; // host side misaligned too
				io.copy_to(off, src.data() + src_shift, n);
				// Exactly [off, off+n) changed.
				REQUIRE(std::memcmp(mem->bytes + off, src.data() + src_shift, n) == 0);
				for (std::uint64_t i = 0; i < off; ++i)
					REQUIRE(mem->bytes[i] == 0xee);
				REQUIRE(mem->bytes[off + n] == 0xee);
				std::fill(back.begin(), back.end(), 0);
				io.copy_from(off, back.data() + 1, n);
				REQUIRE(std::memcmp(back.data() + 1, src.data() + src_shift, n) == 0);
				REQUIRE(back[n + 1] == 0);
			}
		}
	}
}

TEST_CASE("every device-side access of a copy is naturally aligned", "[copy]")
{
	// Record the accesses the copy algorithm issues through a probe view.
	struct probe {
		std::vector<std::pair<std::uint64_t, unsigned>> *log;
		void store_bytes(std::uint64_t off, const std::uint8_t *, unsigned u) const { log->push_back({off, u}); }
	};
	std::vector<std::pair<std::uint64_t, unsigned>> log;
	std::vector<std::uint8_t> src(300);
	for (unsigned w : {8u, 16u, 32u, 64u})
		for (std::uint64_t off = 0; off < 64; ++off) {
			log.clear();
			probe p{&log};
			detail::copy_to(p, off, src.data(), 200, w,
					[&](std::uint64_t o, const std::uint8_t *) { log.push_back({o, w}); });
			std::uint64_t expect = off;
			for (auto [o, u] : log) {
				REQUIRE(o == expect);          // contiguous, in order
				REQUIRE(o % u == 0);           // naturally aligned
				REQUIRE((u & (u - 1)) == 0);   // power of two
				expect += u;
			}
			REQUIRE(expect == off + 200);
		}
}

TEST_CASE("region checks bounds, alignment and size with clear errors", "[region]")
{
	auto mem = std::make_shared<plain_memory>();
	region r("test BAR0", mmio_io(mem->bytes, 4096, mem_type::uc, wide_isa::none), mem);
	r.write<std::uint32_t>(0x10, 0xdeadbeef);
	REQUIRE(r.read<std::uint32_t>(0x10) == 0xdeadbeef);
	REQUIRE(r.read<std::uint16_t>(0x12) == 0xdead);

	auto code_of = [](auto &&f) {
		try {
			f();
		} catch (const error &e) {
			return e.code();
		}
		return errc::ok;
	};
	CHECK(code_of([&] { r.read<std::uint64_t>(4096); }) == errc::out_of_range);
	CHECK(code_of([&] { r.read<std::uint64_t>(4090); }) == errc::out_of_range);
	CHECK(code_of([&] { r.write<std::uint64_t>(0x11, 1); }) == errc::misaligned);
	CHECK(code_of([&] { r.read<std::uint32_t>(2); }) == errc::misaligned);
	std::uint8_t buf[16];
	CHECK(code_of([&] { r.copy_to(0, buf, 0); }) == errc::invalid_argument);
	CHECK(code_of([&] { r.copy_from(4095, buf, 2); }) == errc::out_of_range);
	CHECK(code_of([&] { r.sub(4000, 200); }) == errc::out_of_range);
	try {
		r.write<std::uint64_t>(0x11, 1);
		FAIL("no error");
	} catch (const error &e) {
		std::string m = e.what();
		CHECK(m.find("test BAR0") != std::string::npos);
		CHECK(m.find("0x11") != std::string::npos);
		CHECK(m.find("8-byte aligned") != std::string::npos);
	}
	auto s = r.sub(0x100, 0x100, "window");
	s.write<std::uint32_t>(0, 0x12345678);
	CHECK(r.read<std::uint32_t>(0x100) == 0x12345678);
	CHECK(code_of([&] { s.read<std::uint32_t>(0x100); }) == errc::out_of_range);
}

TEST_CASE("barrier helpers execute on this architecture", "[barrier]")
{
	for (auto k : {barrier::kind::compiler, barrier::kind::wc_flush, barrier::kind::store_store,
		       barrier::kind::store_load, barrier::kind::load_load, barrier::kind::full})
		barrier::issue(k);
	mmio_io::wc_flush();
	mmio_io::full();
	const auto t0 = mmio_io::now_ns();
	const auto t1 = mmio_io::now_ns();
	REQUIRE(t1 >= t0);
}

TEST_CASE("memory type and wide isa names round-trip", "[names]")
{
	for (auto t : {mem_type::uc, mem_type::wc, mem_type::wt, mem_type::wb})
		REQUIRE(parse_mem_type(to_string(t)) == t);
	REQUIRE(parse_mem_type("WC") == mem_type::wc);
	REQUIRE(!parse_mem_type("cached"));
	REQUIRE(wide_isa_supported(wide_isa_default()));
	REQUIRE(parse_wide_isa("avx512") == wide_isa::avx512);
	REQUIRE(!parse_wide_isa("avx1024"));
}
