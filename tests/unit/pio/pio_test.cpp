// PIO invocation and streams on the simulated image: every size, every op,
// UC/WC/WT, both link presets; and the documented errors for bad input.
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/bloom_hash.hpp>
#include <pioc/pio.hpp>
#include <pioc/sim/pcie_link.hpp>

#include "core/bloom_paths.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace pioc;
namespace r = pioc::regs::pio_dev;

namespace {
std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed)
{
	std::vector<std::uint8_t> v(n);
	for (std::size_t i = 0; i < n; ++i)
		v[i] = static_cast<std::uint8_t>(i * 151 + seed * 7 + 1);
	return v;
}

template <class F> errc code_of(F &&f, std::string *msg = nullptr)
{
	try {
		f();
	} catch (const error &e) {
		if (msg)
			*msg = e.what();
		return e.code();
	}
	return errc::ok;
}

bool has(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }
} // namespace

TEST_CASE("invocation returns the op applied to the request, for every size 1..8192", "[pio]")
{
	const auto mt = GENERATE(mem_type::uc, mem_type::wc, mem_type::wt);
	INFO("memory type " << to_string(mt));
	device dev = device::open("sim:pio");
	pio::invoker inv(dev.map(0, mt));
	std::vector<std::uint8_t> resp(pio::max_payload), want(pio::max_payload);
	for (std::size_t n = 1; n <= pio::max_payload; ++n) {
		const auto o = static_cast<pio::op>(n % 4);
		const auto req = pattern(n, static_cast<unsigned>(n));
		const auto len = inv.invoke(o, req, resp);
		const auto rlen = pio::response_len(o, n);
		pio::apply(o, req.data(), n, want.data());
		if (len != rlen || !std::equal(want.begin(), want.begin() + rlen, resp.begin())) {
			FAIL("size " << n << " op " << pio::to_string(o) << ": wrong response (length " << len << ")");
		}
	}
	CHECK(dev.map(0).read<std::uint32_t>(r::INVOKE_COUNT.offset) == pio::max_payload);
}

TEST_CASE("bloom: 64 bytes of hashes per started 128-byte element, as pioc/bloom_hash.hpp", "[pio]")
{
	CHECK(pio::response_len(pio::op::bloom, 1) == 64);
	CHECK(pio::response_len(pio::op::bloom, 128) == 64);
	CHECK(pio::response_len(pio::op::bloom, 129) == 128);
	CHECK(pio::response_len(pio::op::echo, 129) == 129);
	CHECK(pio::parse_op("bloom") == pio::op::bloom);
	std::uint8_t el[128] = {};
	el[0] = 1;
	std::uint8_t out[64];
	pio::apply(pio::op::bloom, el, 128, out);
	const auto h = bloom::hash(el);
	std::uint64_t w0;
	std::memcpy(&w0, out, 8);
	CHECK(w0 == h[0]);
	std::memcpy(&w0, out + 56, 8);
	CHECK(w0 == h[7]);
	CHECK(h[0] != bloom::seed[0]);
}

TEST_CASE("the reference ops do what the register map says", "[pio]")
{
	const std::uint8_t in[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2};
	std::uint8_t out[10];
	pio::apply(pio::op::add1, in, 10, out);
	CHECK(out[0] == 0); // 0xffff...ff + 1 wraps
	CHECK(out[7] == 0);
	CHECK(out[8] == 1); // tail echoed
	pio::apply(pio::op::bit_not, in, 10, out);
	CHECK(out[9] == 0xfd);
	CHECK(pio::parse_op("not") == pio::op::bit_not);
	CHECK(!pio::parse_op("hash"));
}

TEST_CASE("the templates inside visit() and the invoker agree, on both presets", "[pio]")
{
	for (const char *spec : {"sim:pio", "sim:pio@enzian-gen3x8"}) {
		INFO(spec);
		device dev = device::open(spec);
		region bar = dev.map(0, mem_type::wc);
		pio::invoke_state st;
		st.next_seq = pio::next_sequence(bar);
		const auto req = pattern(100, 3);
		std::vector<std::uint8_t> resp(100), want(100);
		const std::size_t len = bar.visit([&](const auto &io) {
			return pio::invoke<mem_type::wc>(io, st, pio::op::add1, req.data(), req.size(), resp.data());
		});
		pio::apply(pio::op::add1, req.data(), 100, want.data());
		CHECK(len == 100);
		CHECK(resp == want);
		CHECK(st.next_seq == 2);
	}
}

TEST_CASE("WC invocation: the request and doorbell leave as few TLPs as possible", "[pio]")
{
	device dev = device::open("sim:pio");
	pio::invoker wc(dev.map(0, mem_type::wc));
	auto &link = *dev.sim_link();
	const auto req = pattern(256, 1);
	std::vector<std::uint8_t> resp(256);
	link.reset_stats();
	wc.invoke(pio::op::echo, req, resp);
	CHECK(link.stats().mwr_tlps == 4 + 1);       // 4 full lines + the doorbell
	CHECK(link.stats().mrd_tlps == 1 + 256 / 16); // status + 16-byte reads
	pio::invoker uc(dev.map(0, mem_type::uc));
	link.reset_stats();
	uc.invoke(pio::op::echo, req, resp);
	CHECK(link.stats().mwr_tlps == 256 / 16 + 1);
}

TEST_CASE("write and read streams through the BRAM window", "[pio]")
{
	device dev = device::open("sim:pio@enzian-gen3x8");
	pio::invoker inv(dev.map(0, mem_type::wc));
	const auto data = pattern(r::BRAM.size, 9);
	inv.write(0, data);
	std::vector<std::uint8_t> back(r::BRAM.size);
	inv.read(0, back);
	CHECK(back == data);
	std::vector<std::uint8_t> odd(37);
	inv.read(5, odd);
	CHECK(std::equal(odd.begin(), odd.end(), data.begin() + 5));
}

TEST_CASE("bad input gives the documented error naming device, offset, size and rule", "[pio][errors]")
{
	device dev = device::open("sim:pio");
	region bar = dev.map(0, mem_type::uc);
	pio::invoker inv(bar);
	std::string msg;
	std::vector<std::uint8_t> big(pio::max_payload + 1), resp(pio::max_payload + 1);

	CHECK(code_of([&] { inv.invoke(pio::op::echo, std::span<const std::uint8_t>{}, resp); }, &msg) ==
	      errc::invalid_argument);
	CHECK(has(msg, "sim:pio BAR0"));
	CHECK(has(msg, "0 bytes"));

	CHECK(code_of([&] { inv.invoke(pio::op::echo, big, resp); }, &msg) == errc::out_of_range);
	CHECK(has(msg, "8193 bytes"));
	CHECK(has(msg, "8192"));

	std::vector<std::uint8_t> small(4);
	CHECK(code_of([&] { inv.invoke(pio::op::echo, std::span(big).first(8), small); }, &msg) ==
	      errc::invalid_argument);
	CHECK(has(msg, "response buffer"));

	// Offset past the end of the BAR and of the BRAM window.
	CHECK(code_of([&] { (void)bar.read<std::uint32_t>(r::bar_size); }, &msg) == errc::out_of_range);
	CHECK(has(msg, "0x40000"));
	CHECK(code_of([&] { inv.read(r::BRAM.size - 8, std::span(resp).first(16)); }, &msg) == errc::out_of_range);
	CHECK(has(msg, "BRAM"));
	CHECK(has(msg, "16 bytes"));
	CHECK(code_of([&] { inv.write(0, std::span<const std::uint8_t>{}); }, &msg) == errc::invalid_argument);

	// Misaligned wide access.
	CHECK(code_of([&] { (void)bar.read<std::uint64_t>(r::INVOKE_STATUS.offset + 4); }, &msg) == errc::misaligned);
	CHECK(has(msg, "0x100c"));
	CHECK(has(msg, "8-byte aligned"));

	// Unknown device, bad link preset, memory type the device cannot have.
	CHECK(code_of([&] { device::open("sim:nope"); }, &msg) == errc::not_found);
	CHECK(has(msg, "sim:nope"));
	CHECK(has(msg, "sim:pio"));
	CHECK(code_of([&] { device::open("sim:pio@gen9"); }, &msg) == errc::invalid_argument);
	CHECK(code_of([&] { dev.map(0, mem_type::wb); }, &msg) == errc::not_supported);
	CHECK(code_of([&] { dev.map(3); }, &msg) == errc::not_found);
}

TEST_CASE("a function that does not finish in time gives errc::timeout", "[pio][errors]")
{
	device dev = device::open("sim:pio");
	pio::invoker inv(dev.map(0, mem_type::wc));
	inv.set_timeout_cycles(250);  // 1 us per status read
	inv.set_delay_cycles(250000); // 1 ms of compute
	inv.state().not_ready_retries = 2;
	const auto req = pattern(64, 2);
	std::vector<std::uint8_t> resp(64);
	std::string msg;
	CHECK(code_of([&] { inv.invoke(pio::op::echo, req, resp); }, &msg) == errc::timeout);
	CHECK(has(msg, "NOT_READY"));
	CHECK(has(msg, "3 reads"));
	CHECK(inv.state().not_ready_seen == 3);

	// Enough retries ride out the delay: 1 ms / ~1.5 us per attempt.
	device dev2 = device::open("sim:pio");
	pio::invoker ok(dev2.map(0, mem_type::wc));
	ok.set_timeout_cycles(250);
	ok.set_delay_cycles(2500); // 10 us
	ok.state().not_ready_retries = 100;
	CHECK(ok.invoke(pio::op::echo, req, resp) == 64);
	CHECK(resp == req);
	CHECK(ok.state().not_ready_seen > 0);
}

TEST_CASE("a stale completion (ignored doorbell) is detected", "[pio][errors]")
{
	device dev = device::open("sim:pio");
	region bar = dev.map(0, mem_type::uc);
	pio::invoker inv(bar);
	const auto req = pattern(8, 4);
	std::vector<std::uint8_t> resp(8);
	inv.invoke(pio::op::echo, req, resp); // seq 1 done
	// A doorbell the device ignores (length 0) leaves the old completion.
	std::string msg;
	CHECK(code_of([&] {
		      bar.visit([&](const auto &io) {
			      pio::invoke<mem_type::uc>(io, inv.state(), pio::op::echo, req.data(), 0, resp.data());
		      });
	      }, &msg) == errc::device_error);
	CHECK(has(msg, "sequence 1"));
	CHECK(has(msg, "2 was expected"));
}

// The models hash with hash_buffer_best (an AVX-512 or AVX2 path where the
// CPU has one, four or eight elements at a time): it must give the
// normative bytes for every length, whole elements and a zero-padded last
// one, whole groups with and without a rest. hash_buffer_best runs the path
// this CPU picks; each vector path this CPU can run is also checked on its
// own (an AVX-512 machine would otherwise never run the AVX2 path).
TEST_CASE("bloom: hash_buffer_best and each vector path give hash_buffer's bytes", "[pio]")
{
	std::vector<std::uint8_t> in(4096 + 77);
	std::uint64_t x = 0x243f6a8885a308d3ULL;
	for (auto &b : in) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b = static_cast<std::uint8_t>(x);
	}
	const std::size_t lengths[] = {1, 127, 128, 129, 512, 513, 1000, 1024, 1024 + 128 + 5, 2048, in.size()};
	for (std::size_t n : lengths) {
		CAPTURE(n);
		std::vector<std::uint8_t> want(bloom::result_len(n)), got(bloom::result_len(n), 0xee);
		bloom::hash_buffer(in.data(), n, want.data());
		bloom::hash_buffer_best(in.data(), n, got.data());
		CHECK(got == want);
	}
	using path = std::size_t (*)(const std::uint8_t *, std::size_t, std::uint8_t *) noexcept;
	const struct {
		const char *name;
		bool here;
		path run;
		std::size_t group;
	} paths[] = {{"avx2", bloom::detail::have_avx2(), bloom::detail::hash_groups_avx2, 4},
		     {"avx512", bloom::detail::have_avx512(), bloom::detail::hash_groups_avx512, 8}};
	for (const auto &p : paths) {
		if (!p.here)
			continue;
		CAPTURE(p.name);
		for (std::size_t n : lengths) {
			CAPTURE(n);
			const std::size_t whole = n / (p.group * bloom::element_bytes) * p.group * bloom::element_bytes;
			std::vector<std::uint8_t> want(bloom::result_len(whole)), got(bloom::result_len(whole) + 64, 0xee);
			bloom::hash_buffer(in.data(), whole, want.data());
			REQUIRE(p.run(in.data(), n, got.data()) == whole);
			CHECK(std::equal(want.begin(), want.end(), got.begin()));
			CHECK(got[want.size()] == 0xee); // nothing written past the whole groups
		}
	}
}
