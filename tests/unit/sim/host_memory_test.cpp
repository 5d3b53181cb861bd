// sim::host_memory across adjacent ranges: behind a guest IOMMU, pioc-devd
// gets one contiguous IOVA range of a guest buffer as several vfio-user
// mappings, and a device access may span them (found with sim:nic_dma+iommu
// in tests/cosim: the first nicbench run hung).
#include <pioc/sim/host_memory.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

TEST_CASE("host memory: a device access spans adjacent registered ranges; a gap fails it")
{
	auto &hm = pioc::sim::host_memory::instance();
	// Bus addresses far below what add() hands out (4 GiB and up).
	constexpr std::uint64_t base = 0x7000'0000;
	std::vector<std::uint8_t> a(4096, 0), b(4096, 0), c(4096, 0);
	REQUIRE(hm.add_at(base, a.data(), a.size()));
	REQUIRE(hm.add_at(base + 4096, b.data(), b.size()));
	REQUIRE(hm.add_at(base + 3 * 4096, c.data(), c.size())); // a page's gap before it

	std::vector<std::uint8_t> in(6000), out(6000, 0);
	for (std::size_t i = 0; i < in.size(); ++i)
		in[i] = std::uint8_t(i * 7 + 1);
	REQUIRE(hm.write(base + 1000, in.data(), in.size()));
	CHECK(std::memcmp(a.data() + 1000, in.data(), 3096) == 0);
	CHECK(std::memcmp(b.data(), in.data() + 3096, 6000 - 3096) == 0);
	REQUIRE(hm.read(base + 1000, out.data(), out.size()));
	CHECK(out == in);
	// Into the hole between b and c: refused.
	CHECK_FALSE(hm.read(base + 4096 + 2000, out.data(), 4096));
	CHECK_FALSE(hm.write(base + 2 * 4096 + 100, in.data(), 100));
	// One range alone still works, and translate() stays single-range.
	CHECK(hm.read(base + 3 * 4096, out.data(), 4096));
	CHECK(hm.translate(base + 1000, 6000) == nullptr);

	hm.remove(base);
	hm.remove(base + 4096);
	hm.remove(base + 3 * 4096);
}
