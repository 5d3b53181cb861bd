// The Xilinx-driver compatibility transport, with regular files standing in
// for /dev/xdma0_h2c_0 and _c2h_0 (same file: one AXI address space), and
// pread/pwrite recorded (positioned_io_recorder.cpp): the stock driver honours
// the card address only there.
#include "unit/xdma/positioned_io_recorder.hpp"

#include <pioc/error.hpp>
#include <pioc/xdma/chardev.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using namespace pioc::xdma;

namespace {
struct tmpfile_ {
	std::string path;
	tmpfile_()
	{
		char t[] = "/tmp/pioc-xdma-cdev-XXXXXX";
		int fd = mkstemp(t);
		REQUIRE(fd >= 0);
		REQUIRE(ftruncate(fd, 1 << 20) == 0);
		close(fd);
		path = t;
	}
	~tmpfile_() { unlink(path.c_str()); }
};
} // namespace

TEST_CASE("default paths are the stock driver's names")
{
	auto p = chardev::default_paths(0, 1);
	CHECK(p.h2c == "/dev/xdma0_h2c_1");
	CHECK(p.c2h == "/dev/xdma0_c2h_1");
	CHECK(p.user == "/dev/xdma0_user");
}

TEST_CASE("blocking and queued transfers, every one a pread/pwrite at its card address", "[native]")
{
	tmpfile_ f;
	chardev cd({f.path, f.path, f.path}, 8);
	std::vector<std::uint8_t> a(4096), b(4096);
	for (std::size_t i = 0; i < a.size(); ++i)
		a[i] = std::uint8_t(i * 7 + 1);
	cd.write(0x1000, a.data(), a.size());
	cd.read(0x1000, b.data(), b.size());
	CHECK(a == b);
	// Queue depth 8: eight writes in flight, then eight reads.
	std::vector<std::vector<std::uint8_t>> src(8, a), dst(8, std::vector<std::uint8_t>(4096));
	for (unsigned i = 0; i < 8; ++i) {
		src[i][0] = std::uint8_t(i);
		cd.submit_write(0x10000 + i * 4096, src[i].data(), 4096, i);
	}
	CHECK(cd.in_flight() == 8);
	CHECK_THROWS_WITH(cd.submit_write(0, a.data(), 1, 99), Catch::Contains("in flight"));
	auto tags = cd.reap(8);
	CHECK(tags.size() == 8);
	for (unsigned i = 0; i < 8; ++i)
		cd.submit_read(0x10000 + i * 4096, dst[i].data(), 4096, 100 + i);
	tags = cd.reap(8);
	CHECK(tags.size() == 8);
	for (unsigned i = 0; i < 8; ++i)
		CHECK(dst[i] == src[i]);
}

TEST_CASE("queued transfers reach the stock driver as positioned calls, several at once", "[native]")
{
	tmpfile_ f;
	chardev cd({f.path, f.path, f.path}, 4);
	REQUIRE(pioc_test::watch_file(f.path));
	pioc_test::set_call_delay_us(3000); // a DMA taking a while: calls must overlap
	std::vector<std::vector<std::uint8_t>> src(8, std::vector<std::uint8_t>(512));
	for (unsigned i = 0; i < 8; ++i)
		std::memset(src[i].data(), int(0x40 + i), 512);
	unsigned issued = 0, done = 0;
	while (done < 8) {
		while (issued < 8 && cd.in_flight() < 4) {
			cd.submit_write(0x3000 + issued * 0x1000, src[issued].data(), 512, issued);
			++issued;
		}
		done += unsigned(cd.reap(1).size());
	}
	const auto calls = pioc_test::recorded_calls();
	const unsigned peak = pioc_test::peak_concurrency();
	pioc_test::unwatch();
	// Every queued transfer was a pwrite at its own card address ...
	REQUIRE(calls.size() == 8);
	std::vector<std::uint64_t> offs;
	for (const auto &c : calls) {
		CHECK(c.write);
		CHECK(c.len == 512);
		offs.push_back(c.offset);
	}
	std::sort(offs.begin(), offs.end());
	for (unsigned i = 0; i < 8; ++i)
		CHECK(offs[i] == 0x3000 + i * 0x1000);
	// ... queue depth 4 kept more than one in the driver at a time ...
	CHECK(peak >= 2);
	CHECK(peak <= 4);
	// ... and the bytes are where they were meant to go.
	std::vector<std::uint8_t> back(512);
	for (unsigned i = 0; i < 8; ++i) {
		cd.read(0x3000 + i * 0x1000, back.data(), 512);
		CHECK(back == src[i]);
	}
}

TEST_CASE("short transfers and missing devices are clear errors", "[native]")
{
	tmpfile_ f;
	chardev cd({f.path, f.path, f.path}, 4);
	std::vector<std::uint8_t> b(4096);
	// Reading past the end of the "card" moves fewer bytes.
	CHECK_THROWS_WITH(cd.read((1 << 20) - 100, b.data(), b.size()),
			  Catch::Contains(f.path) && Catch::Contains("moved only 100 bytes") && Catch::Contains("0xfff9c"));
	cd.submit_read((1 << 20) - 10, b.data(), 64, 1);
	CHECK_THROWS_WITH(cd.reap(1), Catch::Contains("moved only 10 bytes"));
	CHECK_THROWS_WITH(chardev(chardev::default_paths(97, 3)), Catch::Contains("/dev/xdma97_h2c_3"));
	// The user BAR maps (a file stands in for it).
	auto r = cd.map_user(4096);
	r.write<std::uint32_t>(0x10, 0xdeadbeef);
	CHECK(r.read<std::uint32_t>(0x10) == 0xdeadbeef);
}
