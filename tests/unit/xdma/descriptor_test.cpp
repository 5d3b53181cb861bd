// Descriptor encoding and chain building: adjacency across 4 KiB, 64-descriptor
// blocks, counting down, zero and maximum lengths.
#include <pioc/error.hpp>
#include <pioc/xdma/descriptor.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace pioc::xdma;
namespace r = pioc::regs::xdma;

TEST_CASE("descriptor encoding")
{
	descriptor d = encode({0x1'2345'6780ull, 0xabcd'0000'0040ull, 4096}, r::DESC_STOP | r::DESC_COMPLETED, 5,
			      0x9'0000'0020ull);
	CHECK(d.control == ((0xAD4Bu << 16) | (5u << 8) | 3u));
	CHECK(d.length == 4096);
	CHECK(d.src_lo == 0x23456780u);
	CHECK(d.src_hi == 0x1u);
	CHECK(d.dst_lo == 0x40u);
	CHECK(d.dst_hi == 0xabcdu);
	CHECK(d.next_lo == 0x20u);
	CHECK(d.next_hi == 0x9u);
	// Maximum length and adjacency.
	CHECK(encode({0, 0, r::DESC_MAX_LEN}, 0, 63, 0).length == (1u << 28) - 1);
	CHECK(r::desc_adj(encode({0, 0, 1}, 0, 63, 0).control) == 63);
	CHECK_THROWS_WITH(encode({0, 0, 0}, 0, 0, 0), Catch::Contains("length 0"));
	CHECK_THROWS_WITH(encode({0, 0, 1u << 28}, 0, 0, 0), Catch::Contains("28-bit"));
	CHECK_THROWS_WITH(encode({0, 0, 1}, 0, 64, 0), Catch::Contains("Nxt_adj 64"));
}

TEST_CASE("block planning respects 4 KiB and 64 descriptors")
{
	// 4 KiB holds 128 descriptors: two blocks of 64.
	CHECK(plan_blocks(0x10000, 128) == std::vector<unsigned>{64, 64});
	CHECK(plan_blocks(0x10000, 130) == std::vector<unsigned>{64, 64, 2});
	// Starting 3 descriptors before a 4 KiB boundary: a block of 3 first.
	CHECK(plan_blocks(0x10000 + 4096 - 96, 10) == std::vector<unsigned>{3, 7});
	CHECK(plan_blocks(0x10000, 1) == std::vector<unsigned>{1});
	CHECK(adjacent_after(0x10000, 10, 0) == 9);
	CHECK(adjacent_after(0x10000, 10, 9) == 0);
	CHECK(adjacent_after(0x10000 + 4096 - 96, 10, 2) == 0);
	CHECK(adjacent_after(0x10000 + 4096 - 96, 10, 3) == 6);
}

TEST_CASE("chains obey the adjacency rules")
{
	const std::size_t cap = 1024;
	std::vector<descriptor> mem(cap);
	for (std::size_t start : {0u, 1u, 60u, 125u, 127u}) {
		for (std::size_t n : {1u, 2u, 63u, 64u, 65u, 129u, 300u}) {
			const std::uint64_t bus = 0x2'0000'0000ull + 32 * start;
			std::vector<segment> segs;
			for (std::size_t i = 0; i < n; ++i)
				segs.push_back({0x1000 * i, 0x8000'0000ull + i, std::uint32_t(i + 1)});
			chain_head h = build_chain(mem.data() + start, bus, cap - start, segs);
			INFO("start " << start << " n " << n);
			CHECK(h.count == n);
			CHECK(h.bus == bus);
			CHECK(check_chain(mem.data(), 0x2'0000'0000ull, cap, h) == "");
			// Every block within 4 KiB and at most 64; counts run down.
			std::size_t i = 0;
			for (unsigned b : plan_blocks(bus, n)) {
				CHECK(b <= 64);
				const std::uint64_t a0 = bus + 32 * i, a1 = a0 + 32 * b - 1;
				CHECK(a0 / 4096 == a1 / 4096);
				i += b;
			}
			CHECK(h.adj == plan_blocks(bus, n)[0] - 1);
			const descriptor &last = mem[start + n - 1];
			CHECK((last.control & r::DESC_STOP));
			CHECK((last.control & r::DESC_COMPLETED));
			CHECK(last.next_lo == 0);
			// COMPLETED only on the last one.
			for (std::size_t k = 0; k + 1 < n; ++k)
				CHECK_FALSE((mem[start + k].control & (r::DESC_COMPLETED | r::DESC_STOP)));
		}
	}
}

TEST_CASE("chain checker catches broken chains")
{
	std::vector<descriptor> mem(256);
	std::vector<segment> segs(100, segment{0, 0, 64});
	const std::uint64_t bus = 0x10000;
	chain_head h = build_chain(mem.data(), bus, mem.size(), segs);
	REQUIRE(check_chain(mem.data(), bus, mem.size(), h) == "");
	SECTION("block across 4 KiB")
	{
		chain_head bad = h;
		bad.bus = bus + 32 * 120; // 8 before the boundary, claims 63 more
		bad.adj = 63;
		CHECK_THAT(check_chain(mem.data(), bus, mem.size(), bad), Catch::Contains("crosses a 4 KiB boundary"));
	}
	SECTION("bad magic")
	{
		mem[5].control &= 0xffff;
		CHECK_THAT(check_chain(mem.data(), bus, mem.size(), h), Catch::Contains("magic"));
	}
	SECTION("count that does not run down")
	{
		mem[3].control |= 7u << 8;
		CHECK_THAT(check_chain(mem.data(), bus, mem.size(), h), Catch::Contains("count down"));
	}
	SECTION("linking two chains")
	{
		std::vector<segment> s2(3, segment{0, 0, 8});
		chain_head h2 = build_chain(mem.data() + 150, bus + 32 * 150, 100, s2);
		link(mem[99], h2);
		CHECK(check_chain(mem.data(), bus, mem.size(), h) == "");
		CHECK(r::desc_adj(mem[99].control) == h2.adj);
		CHECK_FALSE((mem[99].control & r::DESC_STOP));
		unlink(mem[99]);
		CHECK((mem[99].control & r::DESC_STOP));
		CHECK(check_chain(mem.data(), bus, mem.size(), h) == "");
	}
}

TEST_CASE("splitting and capacity")
{
	auto v = split(0x1000, 0x0, 10, 4);
	REQUIRE(v.size() == 3);
	CHECK(v[2].len == 2);
	CHECK(v[2].src == 0x1008);
	CHECK(v[2].dst == 0x8);
	CHECK_THROWS_AS(split(0, 0, 0, 4), pioc::error);
	std::vector<descriptor> mem(2);
	std::vector<segment> segs(3, segment{0, 0, 1});
	CHECK_THROWS_WITH(build_chain(mem.data(), 0x1000, 2, segs), Catch::Contains("do not fit"));
	CHECK_THROWS_WITH(build_chain(mem.data(), 0x1010, 2, std::span(segs).first(1)), Catch::Contains("32-byte"));
}
