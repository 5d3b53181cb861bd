// The Verilated PIO image behind pioc::sim::target.
#include "rtl_devices.hpp"

#include "Vpio_top.h"
#include "common/sim.hpp"
#include "pioc/regs/pio_dev.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace pioc::rtl {

namespace {
namespace R = pioc::regs::pio_dev;

/** Longest a single transaction may take before the model is declared hung:
 *  the longest INVOKE_TIMEOUT plus slack. */
constexpr std::uint64_t max_cycles = 0xffffffffULL + 100000;

class pio_rtl final : public pioc::sim::target {
public:
	pio_rtl(unsigned stall, std::uint64_t seed)
		: s_(seed), axi_("pio_rtl", PIOC_AXI4_PORT(s_.m.get(), s_), &s_.rng, &errors_)
	{
		axi_.stall_valid.percent = stall;
		axi_.stall_ready.percent = stall;
		s_.add(&axi_);
		s_.reset();
		base_ = s_.cycle;   // time 0 = end of reset
	}

	std::string name() const override { return "rtl:pio_dev"; }
	std::uint64_t bar_size(unsigned bar) const override { return bar == 0 ? R::bar_size : 0; }

	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override
	{
		if (bar != 0 || off + len > R::bar_size || len == 0)
			return;   // dropped, as the endpoint would
		run_to(t_ns);
		finish(axi_.write(off, data, len));
	}

	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len,
			   std::uint64_t t_ns) override
	{
		std::memset(data, 0, len);
		if (bar != 0 || off + len > R::bar_size || len == 0)
			return t_ns;
		run_to(t_ns);
		finish(axi_.read(off, data, len));
		return std::max(t_ns, ns_of(s_.cycle - base_));
	}

	void advance(std::uint64_t t_ns) override { run_to(t_ns); }

	rtl_stats stats() const { return {s_.cycle - base_, double(R::clock_mhz), ns_of(s_.cycle - base_)}; }

private:
	static std::uint64_t cycles_of(std::uint64_t ns) { return (ns * R::clock_mhz + 999) / 1000; }
	static std::uint64_t ns_of(std::uint64_t cyc) { return (cyc * 1000 + R::clock_mhz - 1) / R::clock_mhz; }

	void run_to(std::uint64_t t_ns)
	{
		const std::uint64_t target = base_ + cycles_of(t_ns);
		while (s_.cycle < target)
			s_.step();
	}

	void finish(std::uint64_t tag)
	{
		if (!s_.run_until([&] { return axi_.done(tag); }, max_cycles))
			throw std::runtime_error("rtl:pio_dev: the RTL did not answer");
		if (!errors_.empty())
			throw std::runtime_error("rtl:pio_dev: AXI protocol violation: " + errors_.front());
	}

	std::vector<std::string> errors_;
	tb::sim<Vpio_top> s_;
	tb::axi4_master<std::uint32_t> axi_;
	std::uint64_t base_ = 0;
	friend rtl_stats stats_of(const pioc::sim::target &t);
};

} // namespace

std::unique_ptr<pioc::sim::target> make_pio_rtl(unsigned stall_percent, std::uint64_t seed)
{
	return std::make_unique<pio_rtl>(stall_percent, seed);
}

rtl_stats stats_of(const pioc::sim::target &t)
{
	if (auto *p = dynamic_cast<const pio_rtl *>(&t))
		return p->stats();
	return {0, 0.0, 0};
}

} // namespace pioc::rtl
