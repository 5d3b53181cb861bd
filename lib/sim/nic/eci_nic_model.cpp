// The ECI NIC model: the two Fig. 5 engines behind one directory, the MAC
// between them (see eci_nic_model.hpp for what it charges).
#include "sim/nic/eci_nic_model.hpp"

#include <pioc/error.hpp>
#include <pioc/regs/nic_eci.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pioc::sim::nic {

namespace map = regs::nic_eci;

namespace {
constexpr double ns_per_cycle = 1000.0 / map::clock_mhz;

// The module's own pipeline, in core cycles of the RTL (fpga/rtl/nic/
// nic_eci_*.sv, measured through the same driver and directory model by
// tests/rtl/test_nic_eci_vs_model.cpp; Documentation/nic.md "Model against
// RTL"). Each line exchange passes the coherent engine's registers: the
// held read taken, its LCI issued, the pulled line written back, examined
// (5a chunks through the chunk unit's request buffer) and the answer
// registered, plus the wait for the next clock edge at each hand-over with
// the directory: on average 7.6 cycles per RX exchange and 11.6 per TX
// exchange (the final chunk's read-out from the response buffer included).
constexpr double rx_exchange_cycles = 7.6;
constexpr double tx_exchange_cycles = 11.6;
// RX: the frame's row read and its message offered 2 cycles after the MAC's
// rx_done strobe (the cycle after the last beat).
constexpr std::uint64_t rx_offer_cycles = 2;
// A data line's read (a plain grant: the read taken, the line read from the
// bank's block RAM, the answer registered) or write-back: 3 cycles, as the
// RTL's testbench measures (Documentation/nic.md, "Data banks").
constexpr double data_line_cycles = 3;
// A whole RX message into a bank (coh_banks.sv), from the delivery's start
// (the signal's ACK consumed and the message offered): the message's
// 120-byte chunks read one a cycle after 3 cycles of set-up (the row RAM's
// read ahead, the last partial line's write, the answer registered); the
// take-back's first LCI 7 cycles after the start (the pulled control line's
// unlock first); the answer 3 cycles after the last lent line's LCIA.
// Fitted to the Verilated image's traces through the same driver and
// directory (tests/rtl/test_nic_eci_vs_model.cpp, nic.md "Data banks:
// model against RTL").
constexpr double bank_fill_cycles = 3, bank_chunk_cycles = 1, bank_lci_cycles = 7, bank_answer_cycles = 3;


bool data_line(std::uint64_t addr) noexcept { return addr % map::CHANNEL_STRIDE >= 2 * map::LINE_BYTES; }

eci::engine_config engine_for(coherent::variant v, std::uint32_t channels, bool banks)
{
	eci::engine_config c;
	c.v = v;
	c.channels = channels;
	c.data_lines = banks ? map::BANK_LINES : 0;
	c.stride = map::CHANNEL_STRIDE;
	c.compute_ns = 0;
	// A poll_rx() that finds no frame returns after the device held its
	// load this long (a 5b load is answered when a message exists).
	c.not_ready_ns = map::NOT_READY_CYCLES * ns_per_cycle;
	if (v == coherent::variant::dev_dev) {
		c.bank_fill_ns = bank_fill_cycles * ns_per_cycle;
		c.bank_chunk_ns = bank_chunk_cycles * ns_per_cycle;
		c.bank_lci_ns = bank_lci_cycles * ns_per_cycle;
		c.bank_answer_ns = bank_answer_cycles * ns_per_cycle;
	}
	return c;
}
} // namespace

std::uint64_t eci_nic_model::cycle_from(double t_ns) noexcept
{
	return static_cast<std::uint64_t>(std::ceil(t_ns / ns_per_cycle));
}

double eci_nic_model::ns_at(std::uint64_t cycle) noexcept { return static_cast<double>(cycle) * ns_per_cycle; }

eci_nic_model::eci_nic_model(eci::system &sys, bool banks) : sys_(sys)
{
	if (sys.cfg().line_size != map::LINE_BYTES)
		throw error(errc::invalid_argument,
			    fmt::format("sim:nic_eci: the NIC's lines are {} bytes, not {}", map::LINE_BYTES,
					sys.cfg().line_size));
	set_banks(banks);
}

void eci_nic_model::set_banks(bool rx, bool tx)
{
	rx_.reset();
	tx_.reset();
	rx_ = std::make_unique<eci::proto_engine>(sys_, engine_for(coherent::variant::dev_dev, 1, rx));
	// Channel 1 of the CPU-initiated engine is TX_CHAN (its channel 0 is
	// RX_CHAN's lines, which route() never hands it).
	auto tc = engine_for(coherent::variant::cpu_dev, 2, tx);
	tc.handler = [this](const std::uint8_t *req, std::size_t n, std::uint8_t *resp, std::size_t cap) {
		return transmit(req, n, resp, cap);
	};
	tx_ = std::make_unique<eci::proto_engine>(sys_, std::move(tc));
	features_ = (rx ? map::FEAT_RX_BANKS : 0) | (tx ? map::FEAT_TX_BANKS : 0);
	if (features_)
		features_ |= std::uint64_t(map::BANK_LINES) << map::FEAT_LINES_SHIFT;
	sys_.attach(this); // the engines attached themselves; the router goes in front
}

eci_nic_model::~eci_nic_model()
{
	if (sys_.engine() == this)
		sys_.attach(nullptr);
}

eci::proto_engine &eci_nic_model::route(std::uint64_t addr) const { return addr < map::TX_CHAN.offset ? *rx_ : *tx_; }

void eci_nic_model::on_request(eci::engine_ctx &ctx, std::uint64_t addr, bool exclusive)
{
	if (addr == map::CYCLES.offset) {
		const std::uint64_t c = cycle_from(ctx.now());
		std::memcpy(ctx.data(addr), &c, sizeof c);
		ctx.answer(addr, false);
		return;
	}
	if (addr == map::FEATURES.offset) {
		std::memcpy(ctx.data(addr), &features_, sizeof features_);
		ctx.answer(addr, false);
		return;
	}
	// The home handed the read over after the module's pipeline
	// (request_pipeline_ns; its victims go the same way, below).
	route(addr).on_request(ctx, addr, exclusive);
}

double eci_nic_model::request_pipeline_ns(std::uint64_t addr) const
{
	return addr == map::CYCLES.offset || addr == map::FEATURES.offset ? 0 : pipeline_ns(addr);
}

double eci_nic_model::pipeline_ns(std::uint64_t addr) const
{
	if (data_line(addr))
		return data_line_cycles * ns_per_cycle;
	return (addr < map::TX_CHAN.offset ? rx_exchange_cycles : tx_exchange_cycles) * ns_per_cycle;
}

void eci_nic_model::on_victim(eci::engine_ctx &ctx, std::uint64_t addr, bool dirty)
{
	if (addr != map::CYCLES.offset)
		ctx.at(ctx.now() + pipeline_ns(addr), [this, &ctx, addr, dirty] { route(addr).on_victim(ctx, addr, dirty); });
}

bool eci_nic_model::plain_read(std::uint64_t addr) const
{
	// CYCLES changes under the CPU: not plain memory.
	return addr != map::CYCLES.offset && route(addr).plain_read(addr);
}

bool eci_nic_model::grants_at_once(std::uint64_t addr, bool exclusive) const
{
	return addr != map::CYCLES.offset && addr != map::FEATURES.offset &&
		route(addr).grants_at_once(addr, exclusive);
}

std::size_t eci_nic_model::transmit(const std::uint8_t *frame, std::size_t n, std::uint8_t *resp, std::size_t cap)
{
	const double t = sys_.now(); // the request's last chunk is at the device
	const std::uint64_t first = std::max(cycle_from(t), tx_free_);
	const std::uint64_t last = first + mac_timing::beats(n) - 1;
	tx_free_ = last + 1;
	const mac_result r = mac_.transmit(last, n);
	std::uint64_t stamp = last;
	if (!r.delivered) {
		stamp |= map::TX_DROPPED;
	} else {
		// The MAC's stamp, then the frame (not zeroed first: a 9600-byte
		// memset per frame was 1.5% of a sim:nic_eci run).
		static_assert(map::RX_HDR == sizeof r.rx_stamp);
		std::vector<std::uint8_t> m;
		m.reserve(map::RX_HDR + n);
		const auto *stamp_bytes = reinterpret_cast<const std::uint8_t *>(&r.rx_stamp);
		m.insert(m.end(), stamp_bytes, stamp_bytes + sizeof r.rx_stamp);
		m.insert(m.end(), frame, frame + n);
		rx_->post(0, std::move(m), ns_at(r.rx_stamp + 1 + rx_offer_cycles));
	}
	// The answer leaves the cycle after the last beat reached the MAC.
	tx_->set_compute_ns(ns_at(last + 1) - t);
	if (cap < sizeof stamp)
		return 0;
	std::memcpy(resp, &stamp, sizeof stamp);
	return sizeof stamp;
}

} // namespace pioc::sim::nic
