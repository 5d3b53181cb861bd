// The PIO NIC model: see pio_nic_model.hpp for what it charges.
#include "sim/nic/pio_nic_model.hpp"

#include <pioc/error.hpp>

#include <algorithm>
#include <cstring>

#include <unistd.h>

namespace pioc::sim::nic {

namespace r = pioc::regs::nic_pio;

namespace {

bool inside(const r::window &w, std::uint64_t off, std::size_t len)
{
	return off >= w.offset && off + len <= w.offset + w.size;
}

bool valid_ring_size(std::uint32_t n)
{
	return n >= 2 && n <= r::MAX_RING && (n & (n - 1)) == 0;
}

std::uint64_t get64(const std::vector<std::uint8_t> &mem, std::uint64_t off)
{
	std::uint64_t v;
	std::memcpy(&v, mem.data() + off, 8);
	return v;
}

} // namespace

pio_nic_model::pio_nic_model() : pio_nic_model(timing{}) {}

pio_nic_model::pio_nic_model(timing t)
	: timing_(t), rx_desc_(r::RX_DESC.size), tx_desc_(r::TX_DESC.size), rx_buf_(r::RX_BUF.size),
	  tx_buf_(r::TX_BUF.size), rx_size_(r::RX_RING_SIZE.reset), tx_size_(r::TX_RING_SIZE.reset)
{
}

std::uint64_t pio_nic_model::cycles_at(std::uint64_t t_ns) noexcept
{
	return t_ns * r::clock_mhz / 1000;
}

std::uint64_t pio_nic_model::cycle_from(std::uint64_t t_ns) noexcept
{
	return (t_ns * r::clock_mhz + 999) / 1000;
}

std::uint64_t pio_nic_model::ns_at(std::uint64_t cycles) noexcept
{
	return (cycles * 1000 + r::clock_mhz - 1) / r::clock_mhz;
}

std::uint64_t pio_nic_model::bar_size(unsigned bar) const
{
	return bar == 0 ? r::bar_size : 0;
}

void pio_nic_model::put64(std::vector<std::uint8_t> &mem, std::uint64_t off, std::uint64_t v)
{
	std::memcpy(mem.data() + off, &v, 8);
}

std::uint64_t pio_nic_model::port_start(std::uint64_t t_ns) const
{
	return std::max(cycle_from(t_ns), port_free_);
}

void pio_nic_model::advance(std::uint64_t t_ns)
{
	run_to(cycles_at(t_ns));
}

std::uint64_t pio_nic_model::next_landing_ns() const noexcept
{
	for (const auto &f : in_flight_)
		if (f.mac.delivered)
			return ns_at(f.mac.rx_stamp + timing_.rx_land_cycles);
	return UINT64_MAX;
}

std::uint64_t pio_nic_model::next_event_ns() const noexcept
{
	// A landing is the only thing that can raise the interrupt line (the
	// XDMA model in front of this one sends the MSI-X).
	return next_landing_ns();
}

void pio_nic_model::run_to(std::uint64_t now)
{
	// Frames leave in order and come back in order: TX completions, then RX
	// slot decisions at each frame's first beat, then RX landings, each
	// stopping at the first one still in the future.
	for (auto &f : in_flight_) {
		if (f.tx_reported)
			continue;
		if (f.tx_done_cycle + timing_.tx_done_cycles > now)
			break;
		const std::uint64_t d = f.tx_slot * r::DESC_BYTES;
		std::uint64_t w0 = get64(tx_desc_, d) & r::DESC_LEN_MASK;
		w0 |= r::DESC_DONE | (f.mac.delivered ? 0 : r::DESC_ERR);
		put64(tx_desc_, d, w0);
		put64(tx_desc_, d + 8, f.tx_done_cycle);
		f.tx_reported = true;
		++tx_tail_;
	}
	for (auto &f : in_flight_) {
		if (!f.mac.delivered || f.rx_decided)
			continue;
		if (f.mac.rx_first > now)
			break;
		f.rx_decided = true;
		if (rx_reserved_ - rx_tail_ >= rx_size_) {
			f.rx_dropped = true;
			++rx_drops_;
		} else {
			f.rx_slot = rx_reserved_++ & (rx_size_ - 1);
		}
	}
	while (!in_flight_.empty() && in_flight_.front().tx_reported) {
		frame &f = in_flight_.front();
		if (f.mac.delivered) {
			if (!f.rx_decided || f.mac.rx_stamp + timing_.rx_land_cycles > now)
				break;
			if (!f.rx_dropped)
				land(f);
		}
		in_flight_.pop_front();
	}
}

void pio_nic_model::land(const frame &f)
{
	std::memcpy(rx_buf_.data() + f.rx_slot * r::SLOT_BYTES, f.bytes.data(), f.bytes.size());
	put64(rx_desc_, f.rx_slot * r::DESC_BYTES, r::DESC_DONE | f.bytes.size());
	put64(rx_desc_, f.rx_slot * r::DESC_BYTES + 8, f.mac.rx_stamp);
	++rx_head_;
	if (irq_armed_) {
		// One-shot: the MSI-X write leaves in the landing cycle.
		irq_armed_ = false;
		++rx_irqs_;
		const std::uint64_t sent = ns_at(f.mac.rx_stamp + timing_.rx_land_cycles);
		if (raise_)
			raise_(r::RX_IRQ_LINE, double(sent));
	}
}

void pio_nic_model::ring_tx(std::uint32_t new_head, std::uint64_t now)
{
	if (new_head - tx_tail_ > tx_size_ || new_head - tx_head_ > tx_size_) {
		++ignored_writes_; // would overrun the ring: the RTL ignores it too
		return;
	}
	for (; tx_head_ != new_head; ++tx_head_) {
		frame f;
		f.tx_slot = tx_head_ & (tx_size_ - 1);
		const std::size_t len = get64(tx_desc_, f.tx_slot * r::DESC_BYTES) & r::DESC_LEN_MASK;
		const std::size_t stored = std::min<std::size_t>(len, r::SLOT_BYTES);
		const std::uint8_t *src = tx_buf_.data() + f.tx_slot * r::SLOT_BYTES;
		f.bytes.assign(src, src + stored);
		const std::uint64_t start = std::max(now + timing_.tx_start_cycles, tx_free_cycle_);
		const std::uint64_t beats = std::max<std::uint64_t>(1, mac_timing::beats(len));
		// the MAC takes the last beat later when its store is full
		f.mac = mac_.transmit(start + beats - 1, len);
		f.tx_done_cycle = f.mac.tx_stamp;
		tx_free_cycle_ = f.tx_done_cycle + 1;
		in_flight_.push_back(std::move(f));
	}
}

void pio_nic_model::reg_write(std::uint64_t off, std::uint32_t v, std::uint64_t now)
{
	const bool idle = in_flight_.empty() && rx_head_ == rx_tail_ && tx_head_ == tx_tail_;
	if (off == r::RX_RING_SIZE.offset && valid_ring_size(v) && idle)
		rx_size_ = v;
	else if (off == r::TX_RING_SIZE.offset && valid_ring_size(v) && idle)
		tx_size_ = v;
	else if (off == r::RX_TAIL.offset && v - rx_tail_ <= rx_head_ - rx_tail_)
		rx_tail_ = v;
	else if (off == r::TX_HEAD.offset)
		ring_tx(v, now);
	else if (off == r::RX_IRQ_ARM.offset)
		irq_armed_ = v & 1;
	else
		++ignored_writes_;
}

void pio_nic_model::posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
				 std::uint64_t t_ns)
{
	if (bar != 0 || len == 0) {
		++ignored_writes_;
		return;
	}
	// The port takes the write's beats one per cycle; it acts on the last.
	const std::uint64_t start = port_start(t_ns);
	const std::uint64_t beats = (off + len + 7) / 8 - off / 8;
	port_free_ = start + timing_.write_cycles + beats;
	const std::uint64_t now = start + beats;
	run_to(now);
	if (inside(r::TX_BUF, off, len)) {
		std::memcpy(tx_buf_.data() + (off - r::TX_BUF.offset), data, len);
	} else if (inside(r::TX_DESC, off, len)) {
		std::memcpy(tx_desc_.data() + (off - r::TX_DESC.offset), data, len);
	} else if (len == 4 && off < r::RX_DESC.offset && off % 4 == 0) {
		std::uint32_t v;
		std::memcpy(&v, data, 4);
		reg_write(off, v, now);
	} else {
		++ignored_writes_;
	}
}

std::uint64_t pio_nic_model::reg_read(std::uint64_t off, unsigned len, std::uint64_t now)
{
	switch (off) {
	case r::ID.offset: return r::id_value;
	case r::VERSION.offset: return r::VERSION.reset;
	case r::CYCLES.offset: return len == 8 ? now : now & 0xffffffffu;
	case r::CYCLES.offset + 4: return now >> 32;
	case r::RX_RING_SIZE.offset: return rx_size_;
	case r::TX_RING_SIZE.offset: return tx_size_;
	case r::RX_HEAD.offset: return rx_head_;
	case r::RX_TAIL.offset: return rx_tail_;
	case r::TX_HEAD.offset: return tx_head_;
	case r::TX_TAIL.offset: return tx_tail_;
	case r::RX_DROPS.offset: return rx_drops_;
	case r::RUNTS.offset: return mac_.runts();
	case r::OVERSIZE.offset: return mac_.oversized();
	case r::RX_IRQ_ARM.offset: return irq_armed_;
	case r::RX_IRQS.offset: return rx_irqs_;
	default: return ~0ull; // unmapped: all ones, as a PCIe read of a hole
	}
}

std::uint64_t pio_nic_model::read(unsigned bar, std::uint64_t off, void *data, std::size_t len,
				  std::uint64_t t_ns)
{
	// Taken on the NIC's bus one cycle after it starts on the port; the data
	// is back after the port's fixed cycles and one per beat.
	const std::uint64_t start = port_start(t_ns);
	const std::uint64_t beats = len ? (off + len + 7) / 8 - off / 8 : 0;
	const std::uint64_t now = start + 1;
	port_free_ = start + timing_.read_cycles + beats;
	run_to(now);
	const std::vector<std::uint8_t> *mem = nullptr;
	const r::window *w = nullptr;
	for (auto [win, m] : {std::pair{&r::RX_DESC, &rx_desc_}, std::pair{&r::TX_DESC, &tx_desc_},
			      std::pair{&r::RX_BUF, &rx_buf_}, std::pair{&r::TX_BUF, &tx_buf_}})
		if (bar == 0 && inside(*win, off, len)) {
			w = win;
			mem = m;
		}
	if (mem) {
		std::memcpy(data, mem->data() + (off - w->offset), len);
	} else if (bar == 0 && (len == 4 || len == 8) && off % len == 0 && off < r::RX_DESC.offset) {
		const std::uint64_t v = reg_read(off, unsigned(len), now);
		std::memcpy(data, &v, len);
	} else {
		std::memset(data, 0xff, len);
	}
	return std::max(t_ns, ns_at(port_free_));
}

std::unique_ptr<target> make_pio_nic_model()
{
	xdma_config c;
	c.name = "nic_pio";
	c.label = "sim:nic_pio";
	c.h2c_channels = c.c2h_channels = 1; // the IP always has its engines; this image ties them off
	c.config_bar = 0;
	c.user_bar = 1;
	return std::make_unique<xdma_dev>(c, std::make_unique<pio_nic_model>(), make_card_memory(4096, c.card_mem_ns));
}

pio_nic_model *pio_nic_model_of(target &dev) noexcept
{
	if (auto *m = dynamic_cast<pio_nic_model *>(&dev))
		return m;
	if (auto *x = dynamic_cast<user_bar_host *>(&dev))
		return dynamic_cast<pio_nic_model *>(const_cast<target *>(&x->user()));
	return nullptr;
}

} // namespace pioc::sim::nic
