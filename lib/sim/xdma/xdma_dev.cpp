// Behavioral model of the XDMA engine (PG195) as a discrete-event simulation:
// register map of regs/xdma.hpp, descriptor fetch from simulated host memory
// in adjacent blocks, magic / length / alignment checks, data movement to and
// from the card side (card_port: card memory, or the Verilated user logic
// in rtl:xdma), completed count, poll-mode write-back, MSI-X interrupts
// through eventfds, and error injection.
#include "sim/xdma/xdma_dev.hpp"

#include <pioc/sim/pcie_link.hpp>

#include "sim/pio_dev.hpp"

#include <pioc/error.hpp>
#include <pioc/regs/pio_dev.hpp>
#include "core/log.hpp"
#include <pioc/pcie_model.hpp>
#include <pioc/sim/host_memory.hpp>

#include <fmt/format.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

namespace pioc::xdma {
std::string_view to_string(fault f) noexcept
{
	switch (f) {
	case fault::none: return "none";
	case fault::bad_magic: return "bad_magic";
	case fault::misalign: return "misalign";
	case fault::read_error: return "read_error";
	case fault::write_error: return "write_error";
	case fault::desc_error: return "desc_error";
	case fault::stuck: return "stuck";
	case fault::stuck_hard: return "stuck_hard";
	case fault::removed: return "removed";
	}
	return "?";
}
} // namespace pioc::xdma

namespace pioc::sim {

namespace r = pioc::regs::xdma;

namespace {
constexpr std::uint64_t config_bar_size = 0x10000; // 64 KiB
constexpr double axi_mhz = 250;
} // namespace

xdma_dev::xdma_dev(xdma_config c)
	: xdma_dev(c, std::make_unique<pio_dev>(), make_card_memory(c.card_memory, c.card_mem_ns))
{
}

xdma_dev::xdma_dev(xdma_config c, std::unique_ptr<target> user, std::unique_ptr<card_port> card)
	: cfg_(std::move(c)), user_(std::move(user)), card_(std::move(card))
{
	if (cfg_.h2c_channels > r::max_channels || cfg_.c2h_channels > r::max_channels)
		throw error(errc::invalid_argument, "xdma model: at most 4 channels per direction");
	if (!user_ || !card_)
		throw error(errc::invalid_argument, "xdma model: needs a user BAR and a card side");
	if (cfg_.user_bar == cfg_.config_bar || cfg_.user_bar > 5 || cfg_.config_bar > 5)
		throw error(errc::invalid_argument,
			    fmt::format("xdma model: user BAR {} and config BAR {} must be two of BAR0..5",
					cfg_.user_bar, cfg_.config_bar));
	if (auto *src = dynamic_cast<user_irq_source *>(user_.get())) {
		irq_user_ = true;
		src->connect_user_irq([this](unsigned line, double t) { user_irq(line, t); });
	}
	user_advances_ = user_->advances();
	vector_fd_.fill(-1);
	set_link_rates();
	h2c_.resize(cfg_.h2c_channels);
	c2h_.resize(cfg_.c2h_channels);
	for (unsigned i = 0; i < h2c_.size(); ++i)
		h2c_[i].ch = i;
	for (unsigned i = 0; i < c2h_.size(); ++i) {
		c2h_[i].ch = i;
		c2h_[i].c2h = true;
	}
	reset_registers();
}

xdma_dev::~xdma_dev() = default;

void xdma_dev::reset_registers()
{
	for (auto *v : {&h2c_, &c2h_})
		for (auto &e : *v) {
			const bool c2h = e.c2h;
			const unsigned ch = e.ch;
			const std::uint64_t gen = e.gen + 1;
			e = engine{};
			e.c2h = c2h;
			e.ch = ch;
			e.gen = gen;
		}
	user_en_ = chan_en_ = 0;
	user_pending_ = 0;
	credit_mode_ = 0;
	user_vec_.fill(0);
	chan_vec_.fill(0);
}

void xdma_dev::function_reset()
{
	reset_registers();
	clear_events();
	if (sink_)
		sink_->user_reset();
	removed_ = false;
}

std::uint64_t xdma_dev::bar_size(unsigned bar) const
{
	if (bar == cfg_.user_bar)
		return user_->bar_size(0);
	return bar == cfg_.config_bar ? config_bar_size : 0;
}

void xdma_dev::clear_events()
{
	q_.clear();
	for (auto &e : c2h_)
		e.quiet_done.clear();
	writes_.clear();
	next_write_ = std::numeric_limits<double>::infinity();
}

void xdma_dev::post_host_write(double t, const host_write &w)
{
	// Mostly in order: a write-back and a result record of two engines
	// may come the other way round.
	auto at = writes_.end();
	while (at != writes_.begin() && std::prev(at)->t > t)
		--at;
	writes_.insert(at, {t, w});
	next_write_ = writes_.front().t;
}

void xdma_dev::land_host_write()
{
	const timed_write tw = writes_.front();
	writes_.pop_front();
	next_write_ = writes_.empty() ? std::numeric_limits<double>::infinity() : writes_.front().t;
	now_ = std::max(now_, tw.t);
	const host_write &w = tw.w;
	if (!host_memory::instance().write(w.bus, w.data.data(), w.len))
		log().warn("{} {}{}: {} to bus address {:#x} hit no host memory (UR)", cfg_.label, w.c2h ? "C2H" : "H2C",
			   w.ch, w.what, w.bus);
}

void xdma_dev::advance(std::uint64_t t_ns)
{
	// Called on every simulated poll of host memory: nothing due is the
	// common case, the event loop out of line.
	const double t = double(t_ns);
	if (q_.due(t) || next_write_ <= t) [[unlikely]]
		run_events(t);
	now_ = std::max(now_, t);
	if (user_advances_)
		user_->advance(t_ns);
}

void xdma_dev::run_events(double t)
{
	for (;;) {
		const bool event = q_.due(t);
		if (next_write_ <= t && (!event || next_write_ <= q_.next_time())) {
			land_host_write();
		} else if (event) {
			double te;
			auto fn = q_.pop(te);
			now_ = std::max(now_, te);
			fn();
		} else {
			return;
		}
	}
}

std::uint64_t xdma_dev::next_event_ns() const noexcept
{
	// The user logic's own events too: a landing frame of the PIO NIC
	// raises a user interrupt line, whose MSI-X write is then ours.
	// User logic that raises lines but keeps no event clock (a Verilated
	// image): a sleeping CPU steps 100 ns at a time so it runs meanwhile.
	const std::uint64_t user = user_->has_event_clock() ? user_->next_event_ns()
				   : irq_user_			 ? std::uint64_t(now_) + 100
								 : std::numeric_limits<std::uint64_t>::max();
	const double next = next_own_ns();
	if (next == std::numeric_limits<double>::infinity())
		return user;
	return std::min(user, std::uint64_t(next + 0.999));
}

double xdma_dev::next_own_ns() const noexcept
{
	double next = std::min(q_.empty() ? std::numeric_limits<double>::infinity() : q_.next_time(), next_write_);
	// A quiet completion still to come is where a sleeping CPU stopped (and
	// the RTL's look-ahead ended) when it was an event; the ones due by
	// now_ have happened, counted or not.
	// The times rise, and the due ones wait at the front until the count
	// is looked at (a ring's worth in a latency loop): a search, not a walk
	// (a walk was most of a polled wait's cost once its polls were spent
	// at once).
	for (const auto &e : c2h_)
		if (!e.quiet_done.empty() && e.quiet_done.back() > now_)
			next = std::min(next, *std::upper_bound(e.quiet_done.begin(), e.quiet_done.end(), now_));
	return next;
}

double xdma_dev::quiet_before_ns() const noexcept
{
	// User logic that runs as time passes (a Verilated image) or keeps
	// its own clock may act between our events. Otherwise host memory and
	// eventfds change only in our events and posted writes (quiet
	// completions change counters that only an MMIO read sees; they end
	// the quiet too, to be safe).
	if (user_advances_ || user_->has_event_clock())
		return 0;
	return next_own_ns();
}

void xdma_dev::bind_vector(unsigned vector, int fd)
{
	if (vector >= vector_fd_.size())
		throw error(errc::out_of_range, fmt::format("{}: MSI-X vector {} is not 0..31", cfg_.label, vector));
	vector_fd_[vector] = fd;
}

void xdma_dev::set_interrupt_enables(bool msi, bool msix) noexcept
{
	msi_state_ = (msi ? r::CFG_MSI_ENABLED : 0) | (msix ? r::CFG_MSIX_ENABLED : 0);
}

void xdma_dev::inject(bool c2h, unsigned channel, xdma::fault f)
{
	auto &v = c2h ? c2h_ : h2c_;
	if (channel >= v.size())
		throw error(errc::out_of_range,
			    fmt::format("{}: no {} channel {}", cfg_.label, c2h ? "C2H" : "H2C", channel));
	if (c2h && f == xdma::fault::write_error)
		throw error(errc::invalid_argument,
			    fmt::format("{}: C2H{}: a C2H engine has no write_error (PG195 C2H Channel Status 0x40): its "
					"host writes are posted and never answered; inject read_error (the AXI side)",
					cfg_.label, channel));
	v[channel].fault = f;
}

bool xdma_dev::stage_in(std::uint64_t host, std::uint64_t len)
{
	stage_.resize(len);
	return host_memory::instance().read(host, stage_.data(), len);
}

bool xdma_dev::card_fits(std::uint64_t addr, std::uint64_t len) const noexcept
{
	const std::uint64_t size = card_->size();
	return addr <= size && len <= size - addr;
}

void xdma_dev::check_card(std::uint64_t addr, std::size_t len, const char *what) const
{
	if (!card_fits(addr, len))
		throw error(errc::out_of_range,
			    fmt::format("{}: {} of {} bytes at card address {:#x} does not fit the card's {}-byte "
					"address space (0..{:#x})",
					cfg_.label, what, len, addr, card_->size(), card_->size() - 1));
}

void xdma_dev::card_read(std::uint64_t addr, void *out, std::size_t len)
{
	check_card(addr, len, "card_read");
	card_->read(addr, out, len, now_);
}

void xdma_dev::card_write(std::uint64_t addr, const void *data, std::size_t len)
{
	check_card(addr, len, "card_write");
	card_->write(addr, data, len, now_);
}

xdma_dev::engine *xdma_dev::engine_at(std::uint64_t off, bool sgdma)
{
	const unsigned target = unsigned(off >> 12) & 0xf, ch = unsigned(off >> 8) & 0xf;
	const bool c2h = sgdma ? target == r::target_c2h_sgdma : target == r::target_c2h;
	auto &v = c2h ? c2h_ : h2c_;
	return ch < v.size() ? &v[ch] : nullptr;
}

unsigned xdma_dev::irq_bit(const engine &e) const
{
	return r::chan_irq_bit(e.c2h, e.ch, unsigned(h2c_.size()));
}

// ---- registers -------------------------------------------------------------

std::uint32_t xdma_dev::reg_read(std::uint64_t off, double t)
{
	const unsigned target = unsigned(off >> 12) & 0xf;
	const std::uint64_t reg = off & 0xff;
	switch (target) {
	case r::target_h2c:
	case r::target_c2h: {
		engine *e = engine_at(off, false);
		if (!e)
			return 0;
		switch (reg) {
		case r::ENG_ID: return r::id_make(target, cfg_.stream, e->ch, 6);
		case r::ENG_CTRL:
		case r::ENG_CTRL_W1S:
		case r::ENG_CTRL_W1C: return e->ctrl;
		case r::ENG_STATUS: return e->status | busy_bit(*e, t);
		case r::ENG_STATUS_RC: {
			// Reading clears the logged bits and with them the interrupt
			// source: the next event is a new rising edge.
			const std::uint32_t s = e->status | busy_bit(*e, t);
			e->status = 0;
			update_irq(*e, t);
			return s;
		}
		case r::ENG_COMPLETED: count_completions(*e); return e->completed;
		case r::ENG_ALIGN:
			return (cfg_.addr_align << 16) | (cfg_.len_granularity << 8) | cfg_.addr_bits;
		case r::ENG_WB_LO: return e->wb_lo;
		case r::ENG_WB_HI: return e->wb_hi;
		case r::ENG_IRQ_MASK:
		case r::ENG_IRQ_MASK_W1S:
		case r::ENG_IRQ_MASK_W1C: return e->irq_mask;
		case r::ENG_PERF_CTRL: return e->perf_ctrl;
		case r::ENG_PERF_CYC_LO:
		case r::ENG_PERF_CYC_HI: {
			const std::uint64_t cyc = (e->perf_ctrl & 1) ? std::uint64_t((t - e->perf_start) * axi_mhz / 1000) : 0;
			return reg == r::ENG_PERF_CYC_LO ? std::uint32_t(cyc) : std::uint32_t(cyc >> 32);
		}
		case r::ENG_PERF_DATA_LO:
		case r::ENG_PERF_DATA_HI: {
			const std::uint64_t beats = e->perf_bytes / 64;
			return reg == r::ENG_PERF_DATA_LO ? std::uint32_t(beats) : std::uint32_t(beats >> 32);
		}
		default: return 0;
		}
	}
	case r::target_h2c_sgdma:
	case r::target_c2h_sgdma: {
		engine *e = engine_at(off, true);
		if (!e)
			return 0;
		switch (reg) {
		case r::SG_ID: return r::id_make(target, cfg_.stream, e->ch, 6);
		case r::SG_DESC_LO: return e->desc_lo;
		case r::SG_DESC_HI: return e->desc_hi;
		case r::SG_DESC_ADJ: return e->desc_adj;
		case r::SG_DESC_CREDITS: return e->credits;
		default: return 0;
		}
	}
	case r::target_irq: {
		const std::uint64_t o = off & 0xfff;
		switch (o) {
		case r::IRQ_ID: return r::id_make(r::target_irq, false, 0, 6);
		case r::IRQ_USER_EN: return user_en_;
		case r::IRQ_CHAN_EN: return chan_en_;
		// PG195: request = the lines' requests AND the enable mask (sent at
		// once here, so it reads 0 after the send); pending = requested,
		// not yet sent. The PIO image has no user lines: both read 0.
		case r::IRQ_USER_REQ: return user_pending_ & user_en_;
		case r::IRQ_USER_PENDING: return user_pending_;
		case r::IRQ_CHAN_REQ:
		case r::IRQ_CHAN_PENDING: {
			// PG195: request = the engine's interrupt source AND the enable
			// mask; pending = the source, until its cause is removed.
			std::uint32_t src = 0;
			for (auto *v : {&h2c_, &c2h_})
				for (const auto &en : *v)
					src |= irq_source(en) ? 1u << irq_bit(en) : 0;
			return o == r::IRQ_CHAN_REQ ? src & chan_en_ : src;
		}
		default:
			if (o >= r::IRQ_USER_VEC && o < r::IRQ_USER_VEC + 16)
				return user_vec_[(o - r::IRQ_USER_VEC) / 4];
			if (o >= r::IRQ_CHAN_VEC && o < r::IRQ_CHAN_VEC + 8)
				return chan_vec_[(o - r::IRQ_CHAN_VEC) / 4];
			return 0;
		}
	}
	case r::target_config: {
		switch (off & 0xfff) {
		case r::CFG_ID: return r::id_make(r::target_config, false, 0, 6);
		case r::CFG_BDF: return 0x0100; // 01:00.0
		case r::CFG_MPS: return r::code_from_size(cfg_.mps);
		case r::CFG_MRRS: return r::code_from_size(cfg_.mrrs);
		case r::CFG_MSI_EN: return msi_state_;
		case r::CFG_DATA_WIDTH: return cfg_.lanes >= 16 ? 3 : 2; // 512 / 256 bit
		case r::CFG_AXI_MPS: return r::code_from_size(cfg_.mps);
		case r::CFG_AXI_MRRS: return r::code_from_size(cfg_.mrrs);
		default: return 0;
		}
	}
	case r::target_sgdma_common:
		if ((off & 0xfff) == r::SGC_CREDIT_MODE || (off & 0xfff) == r::SGC_CREDIT_MODE_W1S ||
		    (off & 0xfff) == r::SGC_CREDIT_MODE_W1C)
			return credit_mode_;
		return (off & 0xfff) == 0 ? r::id_make(r::target_sgdma_common, false, 0, 6) : 0;
	default: return 0;
	}
}

void xdma_dev::set_ctrl(engine &e, std::uint32_t v, double t)
{
	const bool was_run = e.ctrl & r::CTRL_RUN;
	e.ctrl = v & r::ctrl_bits(e.c2h); // C2H has no write_error enables
	const bool run = v & r::CTRL_RUN;
	if (!was_run && run)
		start_run(e, t);
	else if (was_run && !run)
		stop_run(e, t);
}

void xdma_dev::reg_write(std::uint64_t off, std::uint32_t v, double t)
{
	const unsigned target = unsigned(off >> 12) & 0xf;
	const std::uint64_t reg = off & 0xff;
	switch (target) {
	case r::target_h2c:
	case r::target_c2h: {
		engine *e = engine_at(off, false);
		if (!e)
			return;
		switch (reg) {
		case r::ENG_CTRL: set_ctrl(*e, v, t); return;
		case r::ENG_CTRL_W1S: set_ctrl(*e, e->ctrl | v, t); return;
		case r::ENG_CTRL_W1C: set_ctrl(*e, e->ctrl & ~v, t); return;
		case r::ENG_STATUS: e->status &= ~v; update_irq(*e, t); return; // RW1C
		case r::ENG_WB_LO: e->wb_lo = v; return;
		case r::ENG_WB_HI: e->wb_hi = v; return;
		case r::ENG_IRQ_MASK:
		case r::ENG_IRQ_MASK_W1S:
		case r::ENG_IRQ_MASK_W1C: {
			const std::uint32_t m = r::ctrl_bits(e->c2h) & ~(r::CTRL_RUN | r::CTRL_NON_INCR_ADDR | r::CTRL_POLL_WB);
			e->irq_mask = (reg == r::ENG_IRQ_MASK ? v : reg == r::ENG_IRQ_MASK_W1S ? e->irq_mask | v
											 : e->irq_mask & ~v) & m;
			update_irq(*e, t);
			return;
		}
		case r::ENG_PERF_CTRL:
			if (v & 2)
				e->perf_bytes = 0, e->perf_start = t;
			if ((v & 1) && !(e->perf_ctrl & 1))
				e->perf_start = t;
			e->perf_ctrl = v & 1;
			return;
		default: return;
		}
	}
	case r::target_h2c_sgdma:
	case r::target_c2h_sgdma: {
		engine *e = engine_at(off, true);
		if (!e)
			return;
		switch (reg) {
		case r::SG_DESC_LO: e->desc_lo = v; return;
		case r::SG_DESC_HI: e->desc_hi = v; return;
		case r::SG_DESC_ADJ: e->desc_adj = v & r::DESC_ADJ_MASK; return;
		case r::SG_DESC_CREDITS: add_credits(*e, v, t); return;
		default: return;
		}
	}
	case r::target_irq: {
		const std::uint64_t o = off & 0xfff;
		switch (o) {
		case r::IRQ_USER_EN: user_en_ = v; send_user_irqs(t); return;
		case r::IRQ_USER_EN_W1S: user_en_ |= v; send_user_irqs(t); return;
		case r::IRQ_USER_EN_W1C: user_en_ &= ~v; return;
		case r::IRQ_CHAN_EN: chan_en_ = v; update_all_irqs(t); return;
		case r::IRQ_CHAN_EN_W1S: chan_en_ |= v; update_all_irqs(t); return;
		case r::IRQ_CHAN_EN_W1C: chan_en_ &= ~v; update_all_irqs(t); return;
		default:
			if (o >= r::IRQ_USER_VEC && o < r::IRQ_USER_VEC + 16)
				user_vec_[(o - r::IRQ_USER_VEC) / 4] = v & 0x1f1f1f1f;
			else if (o >= r::IRQ_CHAN_VEC && o < r::IRQ_CHAN_VEC + 8)
				chan_vec_[(o - r::IRQ_CHAN_VEC) / 4] = v & 0x1f1f1f1f;
			return;
		}
	}
	case r::target_sgdma_common: sgdma_common_write(off & 0xfff, v); return;
	default: return; // read-only (the config block) or unmapped: dropped like any posted write
	}
}

void xdma_dev::posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len, std::uint64_t t_ns)
{
	if (removed_)
		return; // nobody is there to take it
	if (bar == cfg_.user_bar) {
		advance(t_ns);
		user_->posted_write(0, off, data, len, t_ns);
		return;
	}
	advance(t_ns);
	if (bar != cfg_.config_bar || off + len > config_bar_size)
		return;
	if (off >= r::msix_base && off + len <= r::msix_base + msix_.size()) {
		std::memcpy(msix_.data() + (off - r::msix_base), data, len);
		return;
	}
	if (len != 4 || off % 4) {
		log().warn("{} BAR{}: {}-byte write at {:#x} dropped: registers take whole, aligned DWORDs",
			   cfg_.label, cfg_.config_bar, len, off);
		return;
	}
	std::uint32_t v;
	std::memcpy(&v, data, 4);
	reg_write(off, v, double(t_ns));
}

std::uint64_t xdma_dev::read(unsigned bar, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns)
{
	if (removed_) {
		// What a root port answers for a function that is no longer there
		// (a completion timeout or unsupported request): all-ones.
		std::memset(data, 0xff, len);
		return t_ns;
	}
	if (bar == cfg_.user_bar) {
		advance(t_ns);
		return user_->read(0, off, data, len, t_ns);
	}
	advance(t_ns);
	std::memset(data, 0, len);
	if (bar != cfg_.config_bar || off + len > config_bar_size)
		return t_ns;
	if (off >= r::msix_base && off + len <= r::msix_base + msix_.size()) {
		std::memcpy(data, msix_.data() + (off - r::msix_base), len);
		return t_ns;
	}
	if (len != 4 || off % 4) {
		log().warn("{} BAR{}: {}-byte read at {:#x} answered with zeros: registers take whole, aligned DWORDs",
			   cfg_.label, cfg_.config_bar, len, off);
		return t_ns;
	}
	const std::uint32_t v = reg_read(off, double(t_ns));
	std::memcpy(data, &v, 4);
	return t_ns;
}

// ---- the engine --------------------------------------------------------------

double xdma_dev::xfer_ns(bool c2h, std::uint64_t bytes) const
{
	return double(bytes) / (c2h ? bytes_per_ns_write_ : bytes_per_ns_read_);
}

void xdma_dev::start_run(engine &e, double t)
{
	if (e.busy)
		return;
	next_generation(e);
	e.busy = true;
	e.parked = false; // a stream engine stopped while waiting waits no more
	e.stale_busy_until = 0;
	e.completed = 0;
	e.status = 0; // PG195: every status field resets on setting the run bit
	update_irq(e, t);
	e.next_bus = (std::uint64_t(e.desc_hi) << 32) | e.desc_lo;
	e.next_adj = e.desc_adj;
	e.block.clear();
	e.block_pos = 0;
	e.cursor = t + cfg_.engine_start_ns;
	e.last_done = t;
	const xdma::fault f = e.fault;
	if (f == xdma::fault::removed) {
		e.fault = xdma::fault::none;
		removed_ = true;
		clear_events(); // nothing it had scheduled happens any more
		return;
	}
	if (f == xdma::fault::stuck || f == xdma::fault::stuck_hard) {
		// Busy with nothing completed, as reported on real boards.
		e.fault = xdma::fault::none;
		e.hard_stuck = f == xdma::fault::stuck_hard;
		return;
	}
	schedule_step(e, e.cursor);
}

void xdma_dev::stop_run(engine &e, double t)
{
	e.stale_busy_until = 0; // clearing run ends the stale window too
	e.credits = 0;          // PG195: descriptor credits clear when run falls
	if (!e.busy)
		return;
	if (e.hard_stuck)
		return; // ignores the stop: only a function reset recovers it
	// The engine finishes nothing more of this run; pending events go stale.
	next_generation(e);
	e.busy = false;
	log_status(e, r::ST_IDLE_STOPPED, t);
}

void xdma_dev::fail(engine &e, std::uint32_t bits, double t)
{
	log().debug("{} {}{}: run failed, status bits {:#x}", cfg_.label, e.c2h ? "C2H" : "H2C", e.ch, bits);
	next_generation(e);
	e.busy = false;
	// The engine stops on every error; the status logs it only where the
	// ie_* bits allow. No write-back is documented for a run that stops
	// before any descriptor completed: the driver must read the status.
	log_status(e, bits, t);
	if (e.completed > 0)
		write_back(e, t, true);
}

void xdma_dev::finish(engine &e, double t)
{
	e.busy = false;
	next_generation(e);
	e.stale_busy_until = t + cfg_.stale_busy_ns;
	write_back(e, t, false);
	log_status(e, r::ST_DESC_STOPPED, t);
}

std::uint32_t xdma_dev::busy_bit(const engine &e, double t) const noexcept
{
	return e.busy || t < e.stale_busy_until ? r::ST_BUSY : 0;
}

void xdma_dev::log_status(engine &e, std::uint32_t bits, double t)
{
	// The control register's ie_* bits sit at the status bits' positions.
	e.status |= bits & e.ctrl & ~r::CTRL_RUN;
	update_irq(e, t);
}

bool xdma_dev::irq_source(const engine &e) const noexcept
{
	return (e.status & e.irq_mask & ~r::ST_BUSY) != 0;
}

void xdma_dev::update_irq(engine &e, double t)
{
	// PG195 IRQ Block Channel Interrupt Enable Mask (0x10): an interrupt on
	// the rising edge of the source, or when the mask is set while the
	// source already is. Nothing re-raises a source that stays high.
	const bool line = irq_source(e) && (chan_en_ >> irq_bit(e) & 1);
	if (line && !e.irq_line)
		send_msix(e, t);
	e.irq_line = line;
}

void xdma_dev::update_all_irqs(double t)
{
	for (auto *v : {&h2c_, &c2h_})
		for (auto &e : *v)
			update_irq(e, t);
}

void xdma_dev::write_back(engine &e, double t, bool err)
{
	// PG195: poll-mode write-back needs ie_desc_completed as well as bit 26.
	if (!(e.ctrl & r::CTRL_POLL_WB) || !(e.ctrl & r::IE_DESC_COMPLETED))
		return;
	count_completions(e);
	host_write w;
	w.bus = (std::uint64_t(e.wb_hi) << 32) | e.wb_lo;
	const std::uint32_t word = (e.completed & r::WB_COUNT_MASK) | (err ? r::WB_ERROR : 0);
	std::memcpy(w.data.data(), &word, sizeof word);
	w.len = sizeof word;
	w.c2h = e.c2h;
	w.ch = std::uint8_t(e.ch);
	w.what = "write-back";
	// A posted write: visible in host memory one link traversal later.
	post_host_write(t + cfg_.one_way_ns, w);
}

void xdma_dev::send_msix(const engine &e, double t)
{
	const unsigned bit = irq_bit(e);
	send_vector((chan_vec_[bit / 4] >> (8 * (bit % 4))) & 0x1f, t);
}

void xdma_dev::user_irq(unsigned line, double t)
{
	if (line >= 16)
		throw error(errc::out_of_range, fmt::format("{}: user interrupt line {} is not 0..15", cfg_.label, line));
	user_pending_ |= 1u << line;
	send_user_irqs(t);
}

// Every pending line whose enable bit is set goes out as its vector's MSI-X
// write and is acknowledged (usr_irq_ack): a masked line waits, as the IP
// holds usr_irq_req unacknowledged.
void xdma_dev::send_user_irqs(double t)
{
	const std::uint32_t go = user_pending_ & user_en_ & 0xffff;
	user_pending_ &= ~go;
	for (unsigned line = 0; line < 16; ++line)
		if (go & (1u << line)) {
			++user_sent_;
			send_vector((user_vec_[line / 4] >> (8 * (line % 4))) & 0x1f, t);
		}
}

void xdma_dev::send_vector(unsigned vec, double t)
{
	if (!(msi_state_ & r::CFG_MSIX_ENABLED))
		return; // MSI and INTx are not delivered by this model
	const int fd = vector_fd_[vec];
	if (fd < 0)
		return;
	schedule(t + cfg_.one_way_ns + cfg_.irq_ns, [this, fd] {
		const std::uint64_t one = 1;
		[[maybe_unused]] ssize_t n = ::write(fd, &one, sizeof one);
		++msix_writes_;
	});
}

void xdma_dev::fetch_block(engine &e)
{
	const unsigned n = e.next_adj + 1;
	const std::uint64_t bus = e.next_bus;
	e.block.clear();
	e.block_pos = 0;
	double t = e.cursor;
	const double fetch_ns = 2 * cfg_.one_way_ns + cfg_.host_mem_ns + xfer_ns(false, 32ull * n);
	if (e.fault == xdma::fault::desc_error) {
		e.fault = xdma::fault::none;
		fail(e, r::ERR_UR << r::ST_DESC_ERROR_SHIFT, t + fetch_ns);
		return;
	}
	if (bus % 32) {
		fail(e, r::ST_MAGIC_STOPPED, t + fetch_ns);
		return;
	}
	std::vector<r::descriptor> &raw = fetch_raw_; // kept: a credit-mode engine fetches per descriptor
	raw.resize(n);
	if (!host_memory::instance().read(bus, raw.data(), 32ull * n)) {
		fail(e, r::ERR_UR << r::ST_DESC_ERROR_SHIFT, t + fetch_ns);
		return;
	}
	// A block that crosses 4 KiB is fetched as garbage past the boundary on
	// real systems: the engine stops with MAGIC_STOPPED there.
	const std::uint64_t boundary = (bus / r::DESC_BLOCK_BOUNDARY + 1) * r::DESC_BLOCK_BOUNDARY;
	for (unsigned i = 0; i < n; ++i) {
		const std::uint64_t b = bus + 32ull * i;
		if (b >= boundary)
			raw[i].control = 0;
		if (i == 0 && e.fault == xdma::fault::bad_magic) {
			e.fault = xdma::fault::none;
			raw[i].control ^= 0x10000;
		}
		e.block.push_back({raw[i], b});
	}
	e.cursor = t + fetch_ns;
}

void xdma_dev::process(engine &e, const fetched &f)
{
	const r::descriptor &d = f.d;
	const double t = e.cursor;
	if (r::desc_magic(d.control) != r::DESC_MAGIC) {
		fail(e, r::ST_MAGIC_STOPPED, t);
		return;
	}
	const std::uint32_t len = d.length & r::DESC_MAX_LEN;
	const std::uint64_t src = (std::uint64_t(d.src_hi) << 32) | d.src_lo;
	const std::uint64_t dst = (std::uint64_t(d.dst_hi) << 32) | d.dst_lo;
	if (len == 0) {
		fail(e, r::ST_INVALID_LENGTH, t);
		return;
	}
	// Memory-mapped: source and destination aligned to each other (the same
	// offset modulo the alignment), not each to the alignment.
	bool misaligned = (src % cfg_.addr_align) != (dst % cfg_.addr_align) || (len % cfg_.len_granularity);
	if (e.fault == xdma::fault::misalign) {
		e.fault = xdma::fault::none;
		misaligned = true;
	}
	if (misaligned) {
		fail(e, r::ST_ALIGN_MISMATCH, t);
		return;
	}
	const std::uint64_t host = e.c2h ? dst : src, card = e.c2h ? src : dst;
	const bool cm = card_fits(card, len);
	double done;
	if (!e.c2h) {
		// H2C: read requests to host memory, completions back, write card memory.
		// Host memory without a pointer (a vfio-user region mapped without a
		// descriptor) is read through the registry into the staging buffer.
		const void *hp = host_memory::instance().translate(host, len);
		if (!hp && stage_in(host, len))
			hp = stage_.data();
		if (!hp || e.fault == xdma::fault::read_error) {
			e.fault = xdma::fault::none;
			fail(e, r::ERR_UR << r::ST_READ_ERROR_SHIFT, t + 2 * cfg_.one_way_ns);
			return;
		}
		if (!cm || e.fault == xdma::fault::write_error) {
			// The AXI side: nothing at that card address (DECERR), or the
			// slave refused (SLVERR, as the injected fault).
			const std::uint32_t code = cm ? r::ERR_SLAVE : r::ERR_DECODE;
			e.fault = xdma::fault::none;
			fail(e, code << r::ST_WRITE_ERROR_SHIFT, t + 2 * cfg_.one_way_ns + cfg_.host_mem_ns);
			return;
		}
		e.cursor = t + cfg_.desc_ns + xfer_ns(false, len);
		done = e.cursor + 2 * cfg_.one_way_ns + cfg_.host_mem_ns;
		// The data reaches the card side from the first completion on; a card
		// side slower than the link (the RTL's 64-bit AXI port) finishes later.
		const double arrive = t + cfg_.desc_ns + 2 * cfg_.one_way_ns + cfg_.host_mem_ns;
		done = std::max(done, card_->write(card, hp, len, arrive));
	} else {
		// C2H: read card memory, posted writes to host memory.
		if (!cm || e.fault == xdma::fault::read_error) {
			// C2H read_error is the AXI side (PG195 C2H Channel Status).
			const std::uint32_t code = cm ? r::ERR_SLAVE : r::ERR_DECODE;
			e.fault = xdma::fault::none;
			fail(e, code << r::ST_READ_ERROR_SHIFT, t + cfg_.card_mem_ns);
			return;
		}
		void *hp = host_memory::instance().translate(host, len);
		double read_done;
		if (hp) {
			read_done = card_->read(card, hp, len, t + cfg_.desc_ns);
		} else {
			// Host memory without a pointer: card data into the staging
			// buffer, then written through the registry (DMA_WRITE messages
			// for a vfio-user region without a descriptor).
			stage_.resize(len);
			read_done = card_->read(card, stage_.data(), len, t + cfg_.desc_ns);
			if (!host_memory::instance().write(host, stage_.data(), len))
				// Posted writes to no host memory: the host drops them (and
				// may log it through AER); the engine is never told, C2H
				// has no write_error, and the descriptor completes.
				log().warn("{} C2H{}: {} bytes written to bus address {:#x} hit no host memory; dropped",
					   cfg_.label, e.ch, len, host);
		}
		e.cursor = t + cfg_.desc_ns + xfer_ns(true, len);
		done = std::max(e.cursor + cfg_.card_mem_ns, read_done); // posted: the engine counts it when sent
	}
	e.perf_bytes += len;
	schedule_completion(e, done, d.control);
	if (d.control & r::DESC_STOP)
		e.block.clear(), e.block_pos = 0, e.next_bus = 0;
}

void xdma_dev::schedule_completion(engine &e, double done, std::uint32_t control)
{
	done = std::max(done, e.last_done);
	e.last_done = done;
	const bool stop = control & r::DESC_STOP, completed_flag = control & r::DESC_COMPLETED;
	if (cfg_.stream && e.c2h && !stop && !completed_flag) {
		e.quiet_done.push_back(done); // after every earlier one: done rises strictly (process_stream)
		return;
	}
	const std::uint64_t key = run_key(e, e.gen, (stop ? key_stop : 0) | (completed_flag ? key_completed : 0));
	schedule(done, [this, key] { complete(key); });
}

void xdma_dev::complete(std::uint64_t key)
{
	engine &e = engine_of(key);
	if (e.gen != key_gen(key))
		return;
	const bool stop = key & key_stop;
	count_completions(e); // the quiet ones before this (earlier in time)
	++e.completed;
	if (key & key_completed) {
		if (!stop)
			write_back(e, now_, false);
		log_status(e, r::ST_DESC_COMPLETED, now_);
	}
	if (stop)
		finish(e, now_);
}

void xdma_dev::count_completions(engine &e) noexcept
{
	while (!e.quiet_done.empty() && e.quiet_done.front() <= now_) {
		++e.completed;
		e.quiet_done.pop_front();
	}
}

void xdma_dev::next_generation(engine &e) noexcept
{
	count_completions(e);
	e.quiet_done.clear();
	++e.gen;
}

void xdma_dev::schedule_step(engine &e, double t)
{
	const std::uint64_t key = run_key(e, e.gen, 0);
	schedule(t, [this, key] { step(engine_of(key), key_gen(key)); });
}

void xdma_dev::step(engine &e, std::uint64_t gen)
{
	if (cfg_.stream)
		return step_stream(e, gen);
	if (e.gen != gen || !e.busy)
		return;
	if (e.block_pos >= e.block.size()) {
		count_completions(e);
		if (e.next_bus == 0 && e.completed > 0)
			return; // stopped: the STOP descriptor's completion ends the run
		fetch_block(e);
		if (e.gen != gen)
			return;
	} else {
		const fetched f = e.block[e.block_pos++];
		const bool last_in_block = e.block_pos == e.block.size();
		const bool stop = f.d.control & r::DESC_STOP;
		process(e, f);
		if (e.gen != gen)
			return;
		if (stop)
			return; // nothing more to fetch
		if (last_in_block && !follow_next(e, f))
			return;
	}
	schedule_step(e, e.cursor);
}

bool xdma_dev::follow_next(engine &e, const fetched &f)
{
	e.next_bus = (std::uint64_t(f.d.next_hi) << 32) | f.d.next_lo;
	e.next_adj = r::desc_adj(f.d.control);
	e.block.clear();
	e.block_pos = 0;
	if (e.next_bus == 0) {
		// A chain that ends without STOP: the engine has nothing to fetch.
		fail(e, r::ERR_UR << r::ST_DESC_ERROR_SHIFT, e.cursor);
		return false;
	}
	return true;
}

void xdma_dev::set_link_rates()
{
	pcie_model::params mp;
	mp.gen = cfg_.gen;
	mp.lanes = cfg_.lanes;
	mp.mps = cfg_.mps;
	mp.mrrs = cfg_.mrrs;
	pcie_model::model m(mp);
	// Large-transfer effective bandwidth in bytes per ns (Gb/s / 8).
	bytes_per_ns_read_ = m.read_gbps(1 << 20) / 8;
	bytes_per_ns_write_ = m.write_gbps(1 << 20) / 8;
}

void xdma_dev::attach_link(const link_timing &t)
{
	cfg_.gen = t.generation();
	cfg_.lanes = t.lanes;
	cfg_.one_way_ns = t.one_way_ns;
	set_link_rates();
}

std::unique_ptr<target> make_xdma_dev()
{
	return std::make_unique<xdma_dev>();
}

std::unique_ptr<target> make_xdma_pio_dev()
{
	xdma_config c;
	c.name = "xdma_pio";
	c.label = "sim:xdma_pio";
	c.h2c_channels = c.c2h_channels = 1;
	auto user = std::make_unique<pio_dev>();
	auto card = make_card_on_bar(*user, 0, regs::pio_dev::BRAM.offset);
	c.card_memory = card->size();
	return std::make_unique<xdma_dev>(std::move(c), std::move(user), std::move(card));
}

} // namespace pioc::sim
