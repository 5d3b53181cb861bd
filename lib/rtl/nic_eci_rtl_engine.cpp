// rtl:nic_eci: the Verilated ECI NIC behind the ECI model's directory (see
// nic_eci_rtl_engine.hpp).
#include "nic_eci_rtl_engine.hpp"

#include <pioc/coherent/proto.hpp>
#include <pioc/error.hpp>
#include <pioc/regs/nic_eci.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace pioc::rtl {

namespace N = pioc::regs::nic_eci;

nic_eci_rtl_engine::nic_eci_rtl_engine(sim::eci::system &sys, options o)
	: sys_(sys), ctx_(sys), period_(1000.0 / double(N::clock_mhz))
{
	if (sys.cfg().line_size != N::LINE_BYTES)
		throw error(errc::invalid_argument,
			    fmt::format("rtl:nic_eci: the NIC's lines are {} bytes, the simulated CPU's {}", N::LINE_BYTES,
					sys.cfg().line_size));
	if (sys.cfg().device_bytes < N::bar_size)
		throw error(errc::invalid_argument,
			    fmt::format("rtl:nic_eci: the device-homed window ({} bytes) is smaller than the NIC's {}",
					sys.cfg().device_bytes, N::bar_size));
	if (double(N::NOT_READY_CYCLES) * period_ >= sys.cfg().timeout_ns)
		throw error(errc::invalid_argument, "rtl:nic_eci: NOT_READY_CYCLES is not before the CPU's machine check");
	rtl_ = std::make_unique<nic_eci_ports>(nic_eci_ports::options{o.seed, o.stall_percent, o.rx_banks, o.skip_idle, o.tx_banks, o.one_eval});
	sys_.attach(this);
}

nic_eci_rtl_engine::~nic_eci_rtl_engine()
{
	if (sys_.engine() == this)
		sys_.attach(nullptr);
}

void nic_eci_rtl_engine::fail(errc c, const std::string &what) const
{
	throw error(c, fmt::format("rtl:nic_eci (cycle {}, {:.1f} ns): {}", cycles(), sys_.now(), what));
}

std::uint64_t nic_eci_rtl_engine::cycles() const noexcept { return rtl_->cycle(); }
std::uint64_t nic_eci_rtl_engine::evaluated_cycles() const noexcept { return evaluated_ - rtl_->skipped(); }

std::uint32_t nic_eci_rtl_engine::alloc_id(bool read) const
{
	for (std::uint32_t id = 0; id < 64; ++id)
		if (read ? !reads_.count(id) : !writes_.count(id))
			return id;
	fail(errc::not_supported, fmt::format("more than 64 {} in flight (6-bit ids)", read ? "reads" : "write-backs"));
}

void nic_eci_rtl_engine::on_request(sim::eci::engine_ctx &, std::uint64_t addr, bool exclusive)
{
	if (addr >= N::bar_size)
		fail(errc::out_of_range,
		     fmt::format("CPU request for line {:#x}, outside the NIC's {}-byte window", addr, N::bar_size));
	for (const auto &[id, r] : reads_)
		if (r.addr == addr)
			fail(errc::device_error,
			     fmt::format("a second CPU request for line {:#x} while read id {} is pending", addr, id));
	const std::uint32_t id = alloc_id(true);
	reads_[id] = {addr, exclusive};
	rtl_->read_request(id, addr, exclusive);
	kick();
}

void nic_eci_rtl_engine::on_victim(sim::eci::engine_ctx &, std::uint64_t addr, bool dirty)
{
	if (dirty && addr < N::bar_size)
		write_back(addr, false); // a clean victim changes nothing at the image
}

void nic_eci_rtl_engine::write_back(std::uint64_t addr, bool then_lcia)
{
	const std::uint32_t id = alloc_id(false);
	writes_[id] = {addr, then_lcia};
	line d;
	std::memcpy(d.data(), ctx_.data(addr), d.size());
	known_[addr] = d;
	rtl_->write_back(id, addr, d);
	kick();
}

void nic_eci_rtl_engine::lcia(std::uint64_t addr)
{
	lci_out_.erase(addr);
	locked_.insert(addr);
	rtl_->local_ack(addr, true);
}

void nic_eci_rtl_engine::kick()
{
	if (ticking_)
		return;
	ticking_ = true;
	// The clock stood still since the image went idle: only its cycle
	// counter moved. It restarts at the cycle the model would be in now.
	const auto target = static_cast<std::uint64_t>(std::floor(ctx_.now() / period_));
	if (target > rtl_->counter())
		rtl_->idle(target - rtl_->counter());
	ctx_.at(ctx_.now(), [this] { tick(); });
}

void nic_eci_rtl_engine::tick()
{
	rtl_->step();
	++evaluated_;
	while (auto e = rtl_->next_event())
		handle(*e);
	if (!rtl_->protocol_errors().empty())
		fail(errc::device_error, "handshake violation on the image's ports: " + rtl_->protocol_errors().front());
	if (rtl_->busy())
		ctx_.at(ctx_.now() + period_, [this] { tick(); });
	else
		ticking_ = false;
}

void nic_eci_rtl_engine::handle(const coh_event &e)
{
	switch (e.type) {
	case coh_event::kind::read_data: {
		auto it = reads_.find(e.id);
		if (it == reads_.end())
			fail(errc::device_error, fmt::format("line data for read id {}, which is not pending", e.id));
		const read_req r = it->second;
		reads_.erase(it);
		if (r.excl && !e.flag)
			fail(errc::device_error,
			     fmt::format("line {:#x} granted Shared to an Exclusive request (id {})", r.addr, e.id));
		if (locked_.count(r.addr) || lci_out_.count(r.addr))
			fail(errc::device_error, fmt::format("line {:#x} answered while the image holds it locked", r.addr));
		coherent::ctrl w;
		std::memcpy(&w.w, e.data.data(), 8);
		if (r.addr != N::CYCLES.offset && !w.valid()) {
			// "Not ready" goes in the fill only (the image's line keeps
			// its content): so does the home copy, as for rtl:coh.
			line kept;
			std::memcpy(kept.data(), ctx_.data(r.addr), kept.size());
			std::memcpy(ctx_.data(r.addr), e.data.data(), e.data.size());
			ctx_.answer(r.addr, e.flag);
			std::memcpy(ctx_.data(r.addr), kept.data(), kept.size());
			return;
		}
		std::memcpy(ctx_.data(r.addr), e.data.data(), e.data.size());
		known_[r.addr] = e.data;
		ctx_.answer(r.addr, e.flag);
		return;
	}
	case coh_event::kind::write_ack: {
		auto it = writes_.find(e.id);
		if (it == writes_.end())
			fail(errc::device_error, fmt::format("write acknowledgement for id {}, which is not pending", e.id));
		const write_req w = it->second;
		writes_.erase(it);
		if (w.then_lcia)
			lcia(w.addr);
		return;
	}
	case coh_event::kind::local_op: {
		const std::uint64_t a = e.addr;
		if (!e.flag)
			fail(errc::not_supported, fmt::format("LC of line {:#x}: the ECI model offers LCI only", a));
		if (a >= N::bar_size || a % N::LINE_BYTES)
			fail(errc::device_error, fmt::format("LCI of address {:#x}, not a line of the window", a));
		if (lci_out_.count(a) || locked_.count(a))
			fail(errc::device_error, fmt::format("LCI of line {:#x}, which the image already holds locked", a));
		for (const auto &[id, r] : reads_)
			if (r.addr == a)
				fail(errc::device_error,
				     fmt::format("LCI of line {:#x} before answering the CPU's read of it (id {})", a, id));
		lci_out_.insert(a);
		ctx_.clean_invalidate(a, [this, a] {
			// The CPU's data goes back before the LCIA, as the directory
			// does with dirty data; an unchanged line is acknowledged at once.
			auto k = known_.find(a);
			if (k == known_.end() || std::memcmp(k->second.data(), ctx_.data(a), k->second.size()) != 0) {
				write_back(a, true);
				return;
			}
			lcia(a);
			kick();
		});
		return;
	}
	case coh_event::kind::unlock:
		if (!locked_.erase(e.addr))
			fail(errc::device_error,
			     fmt::format("UL of line {:#x}, which the image has not locked (or whose LCIA it did not get)",
					 e.addr));
		ctx_.unlock(e.addr);
		return;
	}
}

} // namespace pioc::rtl
