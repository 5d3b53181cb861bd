// pio::call, the invocation prepared once for a timed loop: on the hardware
// I/O view over memory standing in for BAR0 (the 8-byte word path and every
// case it must hand to the general path or the cold tail calls), and on the
// simulated image, where it must answer exactly as pio::invoke does.
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/pio.hpp>
#include <pioc/pio_call.hpp>

#include "fake_bar.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

using namespace pioc;
namespace pd = pioc::regs::pio_dev;
using test::fake_bar;

namespace {
template <class F> errc code_of(F &&f)
{
	try {
		f();
	} catch (const error &e) {
		return e.code();
	}
	return errc::ok;
}
} // namespace

TEST_CASE("pio::call on mmio_io: request, doorbell, response and sequence on the word path")
{
	fake_bar bar;
	const mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	pio::invoke_state st;
	st.next_seq = 0x7ffffffe; // wraps to 0 on the way
	for (auto [o, n] : {std::pair{pio::op::add1, 8u}, {pio::op::echo, 64u}, {pio::op::bit_not, 512u},
			    {pio::op::bloom, 256u}}) {
		const pio::call<mem_type::uc, mmio_io> c(io, st, o, n);
		INFO("op " << pio::to_string(o) << " n " << n);
		REQUIRE(c.words());
		const std::size_t rlen = pio::response_len(o, n);
		CHECK(c.response_len() == rlen);
		for (int round = 0; round < 2; ++round) {
			std::vector<std::uint8_t> req(n), resp(n + 8, 0xee);
			for (std::size_t i = 0; i < n; ++i) {
				req[i] = static_cast<std::uint8_t>(i + 1 + round);
				bar.p[pd::RESP.offset + i] = static_cast<std::uint8_t>(~i - round);
			}
			const std::uint32_t seq = st.next_seq;
			bar.status(pd::STATUS_DONE | std::uint64_t(seq) << 32 | rlen);
			REQUIRE(c(req.data(), resp.data()) == rlen);
			CHECK(std::memcmp(bar.p + pd::REQ.offset, req.data(), n) == 0);
			CHECK(bar.doorbell() == pio::doorbell_value(o, n));
			CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, rlen) == 0);
			CHECK(resp[rlen] == 0xee);
			CHECK(st.next_seq == ((seq + 1) & 0x7fffffffu));
		}
	}
}

TEST_CASE("pio::call on mmio_io: the device's own response length wins, even off the word path")
{
	fake_bar bar;
	const mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	pio::invoke_state st;
	const pio::call<mem_type::uc, mmio_io> c(io, st, pio::op::echo, 16);
	REQUIRE(c.words());
	std::uint64_t req[2] = {1, 2};
	std::vector<std::uint8_t> resp(32, 0xee);
	for (std::size_t i = 0; i < 16; ++i)
		bar.p[pd::RESP.offset + i] = static_cast<std::uint8_t>(0x40 + i);
	// Done and the right sequence, but 13 bytes where 16 were owed: a
	// compare of the high word alone would copy 16.
	bar.status(pd::STATUS_DONE | std::uint64_t(1) << 32 | 13);
	REQUIRE(c(req, resp.data()) == 13);
	CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, 13) == 0);
	CHECK(resp[13] == 0xee);
	CHECK(st.next_seq == 2);
	bar.status(pd::STATUS_DONE | std::uint64_t(2) << 32 | 24); // longer than owed: all of it
	REQUIRE(c(req, resp.data()) == 24);
	CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, 24) == 0);
	CHECK(st.next_seq == 3);
}

TEST_CASE("pio::call on mmio_io: wide ISAs and partial words take the general path")
{
	fake_bar bar;
	for (auto [w, n] : {std::pair{wide_isa::sse, 64u}, {wide_isa::none, 13u}}) {
		const mmio_io io(bar.p, pd::bar_size, mem_type::uc, w);
		pio::invoke_state st;
		const pio::call<mem_type::uc, mmio_io> c(io, st, pio::op::echo, n);
		INFO("isa " << to_string(w) << " n " << n);
		CHECK_FALSE(c.words());
		std::vector<std::uint8_t> req(n, 0x5a), resp(n + 8, 0xee);
		for (std::size_t i = 0; i < n; ++i)
			bar.p[pd::RESP.offset + i] = static_cast<std::uint8_t>(3 * i + 1);
		bar.status(pd::STATUS_DONE | std::uint64_t(1) << 32 | n);
		REQUIRE(c(req.data(), resp.data()) == n);
		CHECK(std::memcmp(bar.p + pd::REQ.offset, req.data(), n) == 0);
		CHECK(std::memcmp(resp.data(), bar.p + pd::RESP.offset, n) == 0);
		CHECK(resp[n] == 0xee);
		CHECK(st.next_seq == 2);
	}
}

TEST_CASE("pio::call on mmio_io: NOT_READY, stale, malformed and all-ones answers fail as invoke's do")
{
	fake_bar bar;
	const mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	std::uint64_t req = 1, resp = 0;
	pio::invoke_state st;
	st.next_seq = 5;
	const pio::call<mem_type::uc, mmio_io> c(io, st, pio::op::echo, 8);

	bar.status(pd::NOT_READY);
	CHECK(code_of([&] { c(&req, &resp); }) == errc::timeout);
	CHECK(st.not_ready_seen == st.not_ready_retries + 1);
	bar.status(pd::STATUS_DONE | std::uint64_t(4) << 32 | 8); // the previous invocation's answer
	CHECK(code_of([&] { c(&req, &resp); }) == errc::device_error);
	bar.status(std::uint64_t(5) << 32 | 8); // right sequence and length, done bit clear
	CHECK(code_of([&] { c(&req, &resp); }) == errc::device_error);
	bar.status(~0ull);
	CHECK(code_of([&] { c(&req, &resp); }) == errc::device_gone);
	CHECK(st.next_seq == 5);

	// A call and pio::invoke share the state: the sequence runs on.
	bar.status(pd::STATUS_DONE | std::uint64_t(5) << 32 | 8);
	CHECK(c(&req, &resp) == 8);
	bar.status(pd::STATUS_DONE | std::uint64_t(6) << 32 | 8);
	CHECK(pio::invoke<mem_type::uc>(io, st, pio::op::echo, &req, 8, &resp) == 8);
	bar.status(pd::STATUS_DONE | std::uint64_t(7) << 32 | 8);
	CHECK(c(&req, &resp) == 8);
	CHECK(st.next_seq == 8);
}

TEST_CASE("pio::call refuses request lengths no invocation can have, when it is built")
{
	fake_bar bar;
	const mmio_io io(bar.p, pd::bar_size, mem_type::uc, wide_isa::none);
	pio::invoke_state st;
	using call = pio::call<mem_type::uc, mmio_io>;
	CHECK(code_of([&] { call(io, st, pio::op::echo, 0); }) == errc::invalid_argument);
	CHECK(code_of([&] { call(io, st, pio::op::echo, pio::max_payload + 8); }) == errc::out_of_range);
	CHECK(code_of([&] { call(io, st, pio::op::echo, pio::max_payload); }) == errc::ok);
}

TEST_CASE("pio::call on the simulated image answers as pio::invoke does, every memory type", "[pio]")
{
	const auto mt = GENERATE(mem_type::uc, mem_type::wc, mem_type::wt);
	INFO("memory type " << to_string(mt));
	device dev = device::open("sim:pio");
	pio::invoker inv(dev.map(0, mt));
	for (auto [o, n] : {std::pair{pio::op::add1, 8u}, {pio::op::bit_not, 100u}, {pio::op::bloom, 384u}}) {
		std::vector<std::uint8_t> req(n), resp(n), want(pio::response_len(o, n));
		for (std::size_t i = 0; i < n; ++i)
			req[i] = static_cast<std::uint8_t>(i * 37 + 11);
		pio::apply(o, req.data(), n, want.data());
		inv.bar().visit([&](const auto &io) {
			pio::with_mem_type(io.type(), [&](auto m) {
				const pio::call<decltype(m)::value, std::decay_t<decltype(io)>> c(io, inv.state(), o, n);
				for (int i = 0; i < 3; ++i) {
					std::fill(resp.begin(), resp.end(), 0);
					REQUIRE(c(req.data(), resp.data()) == want.size());
					CHECK(std::equal(want.begin(), want.end(), resp.begin()));
				}
			});
		});
	}
}
