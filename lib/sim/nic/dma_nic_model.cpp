// The DMA NIC model (dma_nic_model.hpp): the user side between the XDMA
// stream engines and the MAC stand-in, and the register file of BAR0.
#include "sim/nic/dma_nic_model.hpp"

#include "sim/xdma/xdma_dev.hpp"

#include <pioc/regs/nic_dma.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

namespace pioc::sim::nic {

namespace r = pioc::regs::nic_dma;

std::uint64_t dma_nic_user::cycles_at(double t_ns) noexcept { return std::uint64_t(t_ns * r::clock_mhz / 1000); }

std::uint64_t dma_nic_user::cycle_from(double t_ns) noexcept
{
	return std::uint64_t(std::ceil(t_ns * r::clock_mhz / 1000 - 1e-9));
}

double dma_nic_user::ns_at(std::uint64_t cycle) noexcept { return double(cycle) * 1000 / r::clock_mhz; }

std::uint64_t dma_nic_user::bar_size(unsigned bar) const { return bar == 0 ? r::bar_size : 0; }

void dma_nic_user::attach(xdma_dev &x)
{
	x_ = &x;
	x.set_stream_sink(this);
}

void dma_nic_user::user_reset()
{
	mac_ = mac_model{};
	tx_pkt_.clear();
	tx_bad_ = false;
	tx_free_cycle_ = tx_seq_ = rx_seq_ = 0;
	rx_stamps_.clear();
	tx_stamps_.clear();
	rx_coming_.clear(); // their events went with the engines' (function_reset)
	rx_drops_ = malformed_ = 0;
}

void dma_nic_user::posted_write(unsigned, std::uint64_t off, const void *data, std::size_t len, std::uint64_t)
{
	// RX_STAMP_DROP and TX_STAMP_DROP take a write that carries their low
	// 16 bits (the RTL: byte strobes 0 and 1); every other write is
	// dropped, as posted writes to nothing are.
	stamp_fifo *f = nullptr;
	if (off == r::RX_STAMP_DROP.offset)
		f = &rx_stamps_;
	else if (off == r::TX_STAMP_DROP.offset)
		f = &tx_stamps_;
	if (!f || len < 2)
		return;
	std::uint16_t seq;
	std::memcpy(&seq, data, sizeof seq);
	f->drop_before(seq, x_->now_ns());
}

std::uint64_t dma_nic_user::stamp_word(std::uint64_t seq, std::uint64_t cycle, bool err) noexcept
{
	return ((seq & 0xffff) << r::STAMP_SEQ_SHIFT) | (err ? r::STAMP_ERR : 0) | (cycle & r::STAMP_CYCLE_MASK);
}

void dma_nic_user::stamp_fifo::push_at(double t_ns, std::uint64_t word, double now_ns)
{
	// Reads come at the device's time or later, so what is due by now
	// enters at the same place whenever it is moved; no later than t_ns
	// keeps the new word after every word it follows below. Moved only
	// once a FIFO's depth waits: a run that reads its stamps moves them
	// at the reads, as before, at no extra cost.
	if (coming_.size() >= r::STAMP_FIFO)
		take_due(std::min(now_ns, t_ns));
	// In time order but for a malformed frame's stamp (at its last beat,
	// possibly before the previous frame's): after every word not later.
	auto at = coming_.end();
	while (at != coming_.begin() && std::prev(at)->t > t_ns)
		--at;
	coming_.insert(at, {t_ns, word});
}

void dma_nic_user::stamp_fifo::take_due(double now_ns)
{
	while (!coming_.empty() && coming_.front().t <= now_ns) {
		if (words_.size() == r::STAMP_FIFO)
			words_.pop_front(); // full: the oldest is lost (the driver sees the gap in the sequence)
		words_.push_back(coming_.front().word);
		coming_.pop_front();
	}
}

void dma_nic_user::stamp_fifo::drop_before(std::uint64_t seq, double now_ns)
{
	take_due(now_ns);
	// The words hold consecutive sequence numbers (one per frame the MAC
	// handed over, the oldest lost first when full): the RTL counts instead
	// of reading them, and so does this, from the oldest word's.
	if (words_.empty())
		return;
	const std::uint64_t d = (seq - (words_.front() >> r::STAMP_SEQ_SHIFT)) & 0xffff;
	if (d < 0x8000)
		words_.erase(words_.begin(), words_.begin() + std::ptrdiff_t(std::min<std::uint64_t>(d, words_.size())));
}

std::uint64_t dma_nic_user::stamp_fifo::pop(double now_ns)
{
	take_due(now_ns);
	if (words_.empty())
		return r::STAMP_EMPTY;
	const std::uint64_t v = words_.front();
	words_.pop_front();
	return v;
}

void dma_nic_user::stamp_fifo::clear() noexcept
{
	words_.clear();
	coming_.clear();
}

std::uint64_t dma_nic_user::read(unsigned, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns)
{
	std::uint64_t v = ~0ull; // holes read all ones
	if (off == r::ID.offset)
		v = r::id_value;
	else if (off == r::VERSION.offset)
		v = (r::version_major << 16) | r::version_minor;
	else if (off == r::CYCLES.offset)
		v = cycles_at(double(t_ns)) + dma_nic_timing::cycles_read;
	else if (off == r::RX_STAMP.offset && len == 8)
		v = rx_stamps_.pop(x_->now_ns());
	else if (off == r::TX_STAMP.offset && len == 8)
		v = tx_stamps_.pop(x_->now_ns());
	else if (off == r::RX_DROPS.offset)
		v = rx_drops_;
	else if (off == r::RUNTS.offset)
		v = mac_.runts();
	else if (off == r::OVERSIZE.offset)
		v = mac_.oversized();
	else if (off == r::MALFORMED.offset)
		v = malformed_;
	std::memset(data, 0xff, len);
	std::memcpy(data, &v, std::min<std::size_t>(len, sizeof v));
	return t_ns;
}

double dma_nic_user::h2c_stream(unsigned, const std::uint8_t *data, std::size_t len, bool eop, double, double last_ns)
{
	tx_pkt_.insert(tx_pkt_.end(), data, data + len);
	if (!eop && len % stream_beat_bytes)
		tx_bad_ = true;
	if (!eop)
		return last_ns;
	// The frame's beats leave as the engine delivers them, one per cycle at
	// most, after the previous frame's.
	const std::uint64_t last_cycle =
		std::max(cycle_from(last_ns), tx_free_cycle_ + mac_timing::beats(tx_pkt_.size()) - 1);
	tx_free_cycle_ = last_cycle + 1;
	frame_out(std::move(tx_pkt_), last_cycle);
	tx_pkt_ = x_->stream_buffer();
	tx_bad_ = false;
	return ns_at(last_cycle);
}

void dma_nic_user::frame_out(std::vector<std::uint8_t> bytes, std::uint64_t last_cycle)
{
	const std::uint64_t seq = tx_seq_++;
	if (tx_bad_) {
		++malformed_;
		tx_stamps_.push_at(ns_at(last_cycle), stamp_word(seq, last_cycle, true), x_->now_ns());
		x_->recycle(std::move(bytes));
		return;
	}
	using t = dma_nic_timing;
	const mac_result m = mac_.transmit(last_cycle + t::tx_stage, bytes.size());
	tx_stamps_.push_at(ns_at(m.tx_stamp + t::stamp_push), stamp_word(seq, m.tx_stamp, !m.delivered), x_->now_ns());
	if (!m.delivered) {
		x_->recycle(std::move(bytes));
		return;
	}
	rx_coming_.push_back({std::move(bytes), m});
	x_->schedule_user(ns_at(m.rx_first), [this] { rx_arrive(); });
}

void dma_nic_user::rx_arrive()
{
	// RX: at its first beat the frame gets a FIFO place or is dropped
	// whole; C2H0 takes its beats as they arrive (one per cycle up to the
	// last, rx_to_c2h cycles after the MAC's) and the stamp is pushed after
	// the last beat.
	using t = dma_nic_timing;
	rx_coming f = std::move(rx_coming_.front());
	rx_coming_.pop_front();
	if (!rx_room()) {
		++rx_drops_;
		x_->recycle(std::move(f.bytes));
		return;
	}
	rx_held_.push_back(f.bytes.size());
	stream_packet p;
	p.bytes = std::move(f.bytes);
	p.last_ns = ns_at(f.m.rx_stamp + t::rx_to_c2h);
	x_->c2h_stream_push(0, std::move(p));
	const std::uint64_t seq = rx_seq_++;
	rx_stamps_.push_at(ns_at(f.m.rx_stamp + t::stamp_push), stamp_word(seq, f.m.rx_stamp, false),
			   x_->now_ns());
}

bool dma_nic_user::rx_room()
{
	// C2H0 writes frames in order: the ones it has written are the oldest.
	while (rx_held_.size() > x_->c2h_stream_waiting(0))
		rx_held_.pop_front();
	// C2H0 has taken the first c2h_stream_packets; the FIFO holds the rest,
	// counted in whole beats as the RTL's RAM holds them.
	std::uint64_t beats = 0, frames = 0;
	for (std::size_t i = c2h_stream_packets; i < rx_held_.size(); ++i, ++frames)
		beats += mac_timing::beats(rx_held_[i]);
	const std::uint64_t fifo_beats = r::RX_FIFO_BYTES / stream_beat_bytes;
	return frames < r::RX_FIFO_FRAMES && beats + mac_timing::beats(r::MTU) <= fifo_beats;
}

std::unique_ptr<target> make_dma_nic_model()
{
	xdma_config c;
	c.name = "nic_dma";
	c.label = "sim:nic_dma";
	c.stream = true;
	c.h2c_channels = c.c2h_channels = 1;
	c.config_bar = 0; // the board's image has no AXI-Lite BAR: config BAR0, bypass (user) BAR1
	c.user_bar = 1;
	auto user = std::make_unique<dma_nic_user>();
	dma_nic_user *u = user.get();
	auto dev = std::make_unique<xdma_dev>(c, std::move(user), make_card_memory(4096, c.card_mem_ns));
	u->attach(*dev);
	return dev;
}

} // namespace pioc::sim::nic
