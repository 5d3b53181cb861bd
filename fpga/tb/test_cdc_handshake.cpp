// Testbench of the clock-domain-crossing handshake: two unrelated clocks
// (periods 7 and 13 time units, and the reverse), random source gaps and
// destination backpressure; every word arrives once, in order; both
// handshakes checked.
#include "Vcdc_handshake.h"
#include "common/sim.hpp"

#include <catch2/catch.hpp>

using namespace pioc::tb;

namespace {

void run(unsigned sp, unsigned dp, std::uint64_t seed)
{
	auto m = std::make_unique<Vcdc_handshake>();
	std::mt19937_64 rng(seed);
	std::vector<std::string> errors;
	hs_checker cs("src", &errors), cd("dst", &errors);
	std::deque<std::uint64_t> sent;
	std::uint64_t next = 1, received = 0;
	const std::uint64_t N = 300;
	m->s_clk = m->d_clk = 0;
	m->s_rst_n = m->d_rst_n = 0;
	m->s_valid = 0;
	m->d_ready = 0;
	m->eval();
	std::uint64_t t = 0;
	for (; t < 400000 && received < N; ++t) {
		if (t == 100)
			m->s_rst_n = m->d_rst_n = 1;
		bool s_edge = t % sp == 0, d_edge = t % dp == 0;
		if (s_edge) {
			// source side: present words with random gaps, hold until ready
			if (!m->s_valid && next <= N && rng() % 3 == 0 && m->s_rst_n) {
				m->s_valid = 1;
				m->s_data = next;
			}
			m->eval();
			cs.observe(m->s_valid, m->s_ready, {m->s_data}, t);
			bool fire = m->s_valid && m->s_ready;
			m->s_clk = 1;
			m->eval();
			m->s_clk = 0;
			if (fire) {
				sent.push_back(next++);
				m->s_valid = 0;
			}
			m->eval();
		}
		if (d_edge) {
			m->d_ready = rng() % 2;
			m->eval();
			cd.observe(m->d_valid, m->d_ready, {m->d_data}, t);
			if (m->d_valid && m->d_ready) {
				REQUIRE(!sent.empty());
				REQUIRE(m->d_data == sent.front());
				sent.pop_front();
				++received;
			}
			m->d_clk = 1;
			m->eval();
			m->d_clk = 0;
			m->eval();
		}
	}
	CHECK(received == N);
	CHECK(errors.empty());
	m->final();
}

} // namespace

TEST_CASE("cdc_handshake: words cross both ways between unrelated clocks", "[cdc]")
{
	run(7, 13, 1);
	run(13, 7, 2);
	run(5, 5, 3);
}
