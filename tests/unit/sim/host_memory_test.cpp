// sim::host_memory across adjacent ranges: behind a guest IOMMU, pioc-devd
// gets one contiguous IOVA range of a guest buffer as several vfio-user
// mappings, and a device access may span them (found with sim:nic_dma+iommu
// in tests/cosim: the first nicbench run hung).
#include <pioc/sim/host_memory.hpp>

#include <catch2/catch.hpp>

#include <algorithm>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
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

namespace {

/** Memory reached through its owner only (a vfio-user client's region without a descriptor). */
struct remote_bytes final : pioc::sim::host_memory::remote {
	std::uint64_t bus;
	std::vector<std::uint8_t> bytes;
	bool read(std::uint64_t b, void *dst, std::size_t n) noexcept override
	{
		std::memcpy(dst, bytes.data() + (b - bus), n);
		return true;
	}
	bool write(std::uint64_t b, const void *src, std::size_t n) noexcept override
	{
		std::memcpy(bytes.data() + (b - bus), src, n);
		return true;
	}
};

} // namespace

TEST_CASE("host memory: random reads and writes over local, adjacent, remote ranges and gaps agree with a byte map")
{
	// read() and write() take one lookup when a single local range holds
	// the access, the piecewise path otherwise: both against the plain
	// rule (every byte in some range, else nothing copied).
	auto &hm = pioc::sim::host_memory::instance();
	constexpr std::uint64_t base = 0x6000'0000, span = 8 * 4096;
	// Local 0..2 pages, gap, local 3, remote 4..5, gap 6, local 7.
	std::vector<std::uint8_t> l0(2 * 4096), l3(4096), l7(4096);
	remote_bytes r;
	r.bus = base + 4 * 4096;
	r.bytes.assign(2 * 4096, 0);
	REQUIRE(hm.add_at(base, l0.data(), 4096));
	REQUIRE(hm.add_at(base + 4096, l0.data() + 4096, 4096)); // adjacent, as a guest IOMMU maps
	REQUIRE(hm.add_at(base + 3 * 4096, l3.data(), l3.size()));
	REQUIRE(hm.add_remote_at(r.bus, r.bytes.size(), &r));
	REQUIRE(hm.add_at(base + 7 * 4096, l7.data(), l7.size()));
	const auto at = [&](std::uint64_t off) -> std::uint8_t * { // the reference's byte, nullptr in a gap
		const std::uint64_t page = off / 4096;
		if (page < 2)
			return &l0[off];
		if (page == 3)
			return &l3[off - 3 * 4096];
		if (page == 4 || page == 5)
			return &r.bytes[off - 4 * 4096];
		if (page == 7)
			return &l7[off - 7 * 4096];
		return nullptr;
	};
	std::vector<std::uint8_t> model(span), buf;
	for (std::uint64_t i = 0; i < span; ++i)
		if (std::uint8_t *p = at(i))
			model[i] = *p;
	std::mt19937_64 rng(13);
	unsigned ok = 0, refused = 0;
	for (int it = 0; it < 20000; ++it) {
		const std::uint64_t off = rng() % span;
		const std::size_t n = std::size_t(rng() % std::min<std::uint64_t>(span - off, rng() % 2 ? 64 : 9000));
		bool covered = true;
		for (std::uint64_t i = off; i < off + n && covered; ++i)
			covered = at(i) != nullptr;
		buf.resize(n);
		if (rng() % 2) {
			for (auto &b : buf)
				b = std::uint8_t(rng());
			REQUIRE(hm.write(base + off, buf.data(), n) == covered);
			if (covered)
				std::copy(buf.begin(), buf.end(), model.begin() + std::ptrdiff_t(off));
		} else {
			std::fill(buf.begin(), buf.end(), 0xa5);
			REQUIRE(hm.read(base + off, buf.data(), n) == covered);
			if (covered)
				REQUIRE(std::equal(buf.begin(), buf.end(), model.begin() + std::ptrdiff_t(off)));
		}
		(covered ? ok : refused) += 1;
	}
	for (std::uint64_t i = 0; i < span; ++i) // and nothing written outside what was accepted
		if (std::uint8_t *p = at(i))
			REQUIRE(*p == model[i]);
	CHECK(ok > 1000);
	CHECK(refused > 1000);
	for (std::uint64_t page : {0, 1, 3, 4, 7})
		hm.remove(base + page * 4096);
}

TEST_CASE("host memory: a range removed and registered again at its bus address is found anew")
{
	// find() remembers the ranges it found last: remove() must forget them.
	auto &hm = pioc::sim::host_memory::instance();
	constexpr std::uint64_t base = 0x7800'0000;
	std::vector<std::uint8_t> a(4096, 1), b(8192, 2);
	REQUIRE(hm.add_at(base, a.data(), a.size()));
	CHECK(hm.translate(base + 16, 64) == a.data() + 16);
	hm.remove(base);
	CHECK(hm.translate(base + 16, 64) == nullptr);
	REQUIRE(hm.add_at(base, b.data(), b.size()));
	CHECK(hm.translate(base + 16, 64) == b.data() + 16);
	CHECK(hm.translate(base + 4096, 64) == b.data() + 4096);
	// One past a range's end belongs to the range after it, if any.
	std::vector<std::uint8_t> c(4096, 3);
	REQUIRE(hm.add_at(base + b.size(), c.data(), c.size()));
	CHECK(hm.translate(base + b.size(), 0) == c.data());
	hm.remove(base);
	hm.remove(base + b.size());
}

TEST_CASE("host memory: a buffer removed on another thread is not found from this thread's cache", "[native]")
{
	// find() remembers the ranges it found last, and a lock-free cache per
	// thread was tried (session 12, no measurable gain): whatever a thread
	// remembers, a removal on another thread must end it. [native]: it
	// starts a thread (Documentation/testing.md, the arm64 emulator).
	auto &hm = pioc::sim::host_memory::instance();
	constexpr std::uint64_t base = 0x7a00'0000;
	std::vector<std::uint8_t> a(4096, 1);
	REQUIRE(hm.add_at(base, a.data(), a.size()));
	CHECK(hm.translate(base + 64, 64) == a.data() + 64); // found, and cached here
	std::thread([&] { hm.remove(base); }).join();
	CHECK(hm.translate(base + 64, 64) == nullptr);
	std::uint8_t byte = 0;
	CHECK_FALSE(hm.read(base + 64, &byte, 1));
}
