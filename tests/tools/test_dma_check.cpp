// pciebench dma's data check against the simulated XDMA: the data it moves
// passes in every completion mode with several transfers in flight, and a
// transfer corrupted on the card, or one that never arrives, fails the check
// naming the transfer, the offset and the size.
#include "pciebench/dma_check.hpp"

#include <pioc/error.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <unistd.h>

using pioc::tool::dma_check;
using pioc::tool::dma_check_layout;

namespace {

struct sim_xdma {
	pioc::device dev = pioc::device::open("sim:xdma");
	pioc::xdma::dma x{dev};
};

// A regular file stands in for one of the stock driver's char devices
// (pwrite/pread at the card address, as cdev_sgdma.c's write/read do).
struct card_file {
	std::string path;
	card_file()
	{
		char t[] = "/tmp/pioc-dma-check-XXXXXX";
		const int fd = mkstemp(t);
		REQUIRE(fd >= 0);
		REQUIRE(ftruncate(fd, 1 << 20) == 0);
		close(fd);
		path = t;
	}
	~card_file() { unlink(path.c_str()); }
};

template <class F> std::string failure_of(F &&f)
{
	try {
		f();
	} catch (const pioc::error &e) {
		return e.what();
	}
	return {};
}

std::string failure_of(dma_check &c)
{
	try {
		c.back_and_compare();
	} catch (const pioc::error &e) {
		return e.what();
	}
	return {};
}

} // namespace

TEST_CASE("dma check: every byte comes back in every completion mode, 4 in flight", "[dma_check]")
{
	for (auto mode : {pioc::xdma::completion::writeback, pioc::xdma::completion::count,
			  pioc::xdma::completion::interrupt}) {
		sim_xdma s;
		s.x.h2c(0).set_completion(mode);
		s.x.c2h(0).set_completion(mode);
		CAPTURE(std::string(pioc::xdma::to_string(mode)));
		REQUIRE_NOTHROW(pioc::tool::run_dma_check(s.dev, s.x, 0, {4096, 4096, 0, 0, 4}, 1));
		REQUIRE_NOTHROW(pioc::tool::run_dma_check(s.dev, s.x, 0, {64, 128, 3, 1 << 20, 4}, 2));
	}
}

TEST_CASE("dma check: a byte corrupted on the card fails, naming offset and size", "[dma_check]")
{
	sim_xdma s;
	const dma_check_layout l{4096, 8192, 0, 0x10000, 4};
	dma_check c(s.dev, s.x, 0, l, 7);
	c.to_card();
	// Transfer 2's byte 1000 flipped where the engine put it.
	const std::uint64_t at = l.card + 2 * l.stride + 1000;
	std::uint8_t b;
	pioc::sim::xdma_control(s.dev)->card_read(at, &b, 1);
	b ^= 0x40;
	pioc::sim::xdma_control(s.dev)->card_write(at, &b, 1);
	const std::string why = failure_of(c);
	CAPTURE(why);
	CHECK(why.find("data check failed") != std::string::npos);
	CHECK(why.find("4096-byte transfer 2 of 4") != std::string::npos);
	CHECK(why.find("byte at offset 1000") != std::string::npos);
	CHECK(why.find("1 of 4096 bytes differ") != std::string::npos);
}

TEST_CASE("dma check: data left from an earlier check does not pass for this one", "[dma_check]")
{
	sim_xdma s;
	const dma_check_layout l{256, 256, 0, 0, 4};
	pioc::tool::run_dma_check(s.dev, s.x, 0, l, 1);
	// Check 2 reads back without sending first: the card still holds check 1's pattern.
	dma_check stale(s.dev, s.x, 0, l, 2);
	const std::string why = failure_of(stale);
	CAPTURE(why);
	CHECK(why.find("256-byte transfer 0 of 4") != std::string::npos);
}

TEST_CASE("dma check: patterns differ between slots and checks", "[dma_check]")
{
	CHECK(dma_check::pattern(1, 0, 64) != dma_check::pattern(1, 1, 64));
	CHECK(dma_check::pattern(1, 0, 64) != dma_check::pattern(2, 0, 64));
	CHECK(dma_check::pattern(1, 0, 13).size() == 13);
}

TEST_CASE("dma check through the stock driver's char devices: every byte back, 8 in flight", "[dma_check][native]")
{
	card_file card;
	pioc::xdma::chardev cd({card.path, card.path, card.path}, 8);
	REQUIRE_NOTHROW(pioc::tool::run_chardev_check(cd, "xilinx:test", {4096, 4096, 0, 0x1000, 8}, 1));
	REQUIRE_NOTHROW(pioc::tool::run_chardev_check(cd, "xilinx:test", {64, 128, 3, 0, 8}, 2));
}

TEST_CASE("dma check through the char devices: data that does not come back fails", "[dma_check][native]")
{
	// H2C and C2H on different files: what was written never comes back, as
	// when the stock driver's queued path puts every transfer at address 0.
	card_file to, from;
	pioc::xdma::chardev cd({to.path, from.path, to.path}, 4);
	const std::string why =
		failure_of([&] { pioc::tool::run_chardev_check(cd, "xilinx:test", {512, 512, 0, 0x2000, 4}, 3); });
	CAPTURE(why);
	CHECK(why.find("xilinx:test: data check failed: 512-byte transfer 0 of 4 (card address 0x2000") !=
	      std::string::npos);
	CHECK(why.find("byte at offset 0 read back 0x00") != std::string::npos);
	// More slots than the transport has threads: refused, not deadlocked.
	const std::string deep =
		failure_of([&] { pioc::tool::run_chardev_check(cd, "xilinx:test", {64, 64, 0, 0, 5}, 4); });
	CHECK(deep.find("exceeds the queue depth 4") != std::string::npos);
}
