// pio::invoke on the hardware I/O view (mmio_io) over memory that stands in
// for BAR0: the inline 8-byte path and every case it hands to a tail call
// (other ISAs, odd lengths, NOT_READY, stale or malformed status).
#include <pioc/error.hpp>
#include <pioc/pio.hpp>

#include "fake_bar.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace pioc;
namespace pd = pioc::regs::pio_dev;

using test::fake_bar;

TEST_CASE("pio::invoke on mmio_io: request, doorbell, response and sequence, any length and ISA")
{
	fake_bar bar;
	for (auto w : {wide_isa::none, wide_isa::sse}) {
		mmio_io io(bar.p, pd::bar_size, mem_type::uc, w);
		pio::invoke_state st;
		st.next_seq = 0x7ffffffe; // wraps to 0 on the way
		for (std::size_t n : {8u, 5u, 64u, 100u, 512u}) {
			INFO("isa " << to_string(w) << " n " << n);
			std::vector<std::uint8_t> req(n), resp(n + 8, 0xee);
			for (std::size_t i = 0; i < n; ++i) {
				req[i] = static_cast<std::uint8_t>(i + 1);
				bar.p[pd::RESP.offset + i] = static_cast<std::uint8_t>(~i);
			}
			const std::uint32_t seq = st.next_seq;
			bar.status(pd::STATUS_DONE | std::uint64_t(seq) << 32 | n);
			REQUIRE(pio::invoke<mem_type::uc>(io, st, pio::op::add1, req.data(), n, resp.data()) == n);
			CHECK(std::memcmp(bar.p + pd::REQ.offset, req.data(), n) == 0);
			CHECK(bar.doorbell() == pio::doorbell_value(pio::op::add1, n));
			CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, n) == 0);
			CHECK(resp[n] == 0xee);
			CHECK(st.next_seq == ((seq + 1) & 0x7fffffffu));
		}
	}
}

TEST_CASE("pio::invoke on mmio_io: a response shorter than the request and not whole words")
{
	fake_bar bar;
	mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	pio::invoke_state st;
	std::uint64_t req[2] = {1, 2};
	std::vector<std::uint8_t> resp(32, 0xee);
	for (std::size_t i = 0; i < 16; ++i)
		bar.p[pd::RESP.offset + i] = static_cast<std::uint8_t>(0x40 + i);
	bar.status(pd::STATUS_DONE | std::uint64_t(1) << 32 | 13);
	REQUIRE(pio::invoke<mem_type::uc>(io, st, pio::op::echo, req, 16, resp.data()) == 13);
	CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, 13) == 0);
	CHECK(resp[13] == 0xee); // not one byte more than the device said
}

TEST_CASE("pio::invoke on mmio_io: whole-word answers of another length and WT leave the one-compare path intact")
{
	// The inline path compares the status with the one that answers n
	// bytes; any other length must still be read as the device says.
	fake_bar bar;
	mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	pio::invoke_state st;
	std::uint64_t req[2] = {1, 2};
	std::vector<std::uint8_t> resp(64, 0xee);
	for (std::size_t i = 0; i < 32; ++i)
		bar.p[pd::RESP.offset + i] = static_cast<std::uint8_t>(0x40 + i);
	bar.status(pd::STATUS_DONE | std::uint64_t(1) << 32 | 24);
	REQUIRE(pio::invoke<mem_type::uc>(io, st, pio::op::echo, req, 16, resp.data()) == 24);
	CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, 24) == 0);
	CHECK(resp[24] == 0xee);
	bar.status(pd::STATUS_DONE | std::uint64_t(2) << 32 | 8);
	REQUIRE(pio::invoke<mem_type::uc>(io, st, pio::op::bloom, req, 16, resp.data()) == 8);
	CHECK(st.next_seq == 3);
	mmio_io wt(bar.p, pd::bar_size, mem_type::wt, wide_isa::none);
	bar.status(pd::STATUS_DONE | std::uint64_t(3) << 32 | 16);
	REQUIRE(pio::invoke<mem_type::wt>(wt, st, pio::op::echo, req, 16, resp.data()) == 16);
	CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, 16) == 0);
	CHECK(st.next_seq == 4);
}

TEST_CASE("pio::invoke on mmio_io: NOT_READY retried then a timeout, stale sequence and all-ones refused")
{
	fake_bar bar;
	mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	std::uint64_t req = 1, resp = 0;
	pio::invoke_state st;
	st.next_seq = 5;

	bar.status(pd::NOT_READY);
	CHECK_THROWS_MATCHES(pio::invoke<mem_type::uc>(io, st, pio::op::echo, &req, 8, &resp), error,
			     Catch::Matchers::Predicate<error>([](const error &e) { return e.code() == errc::timeout; }));
	CHECK(st.not_ready_seen == st.not_ready_retries + 1);
	CHECK(st.next_seq == 5);

	bar.status(pd::STATUS_DONE | std::uint64_t(4) << 32 | 8); // the previous invocation's answer
	CHECK_THROWS_MATCHES(pio::invoke<mem_type::uc>(io, st, pio::op::echo, &req, 8, &resp), error,
			     Catch::Matchers::Predicate<error>([](const error &e) { return e.code() == errc::device_error; }));
	bar.status(std::uint64_t(5) << 32 | 8); // right sequence, done bit clear
	CHECK_THROWS_MATCHES(pio::invoke<mem_type::uc>(io, st, pio::op::echo, &req, 8, &resp), error,
			     Catch::Matchers::Predicate<error>([](const error &e) { return e.code() == errc::device_error; }));
	bar.status(~0ull);
	CHECK_THROWS_MATCHES(pio::invoke<mem_type::uc>(io, st, pio::op::echo, &req, 8, &resp), error,
			     Catch::Matchers::Predicate<error>([](const error &e) { return e.code() == errc::device_gone; }));
	CHECK(st.next_seq == 5);

	bar.status(pd::STATUS_DONE | std::uint64_t(5) << 32 | 8); // and a good answer still works after
	CHECK(pio::invoke<mem_type::uc>(io, st, pio::op::echo, &req, 8, &resp) == 8);
	CHECK(st.next_seq == 6);
}
