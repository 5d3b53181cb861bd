// rtl:nic_dma: the XDMA stream engine model in front of the Verilated DMA NIC
// user side (nic_dma_rtl.hpp).
//
// Time: the engine model is event-driven, the RTL clocked. The RTL runs up to
// the time of every call the model makes on it (advance, BAR accesses) and,
// while a frame is anywhere between H2C0 and C2H0, a little further
// (lookahead_ns, never past the engine model's next event, where new H2C
// data could come from), so that a frame starting on C2H0 is seen before its
// first beat: the engine model then gets it whole (a frame once started runs
// to its last beat) with the cycle of its last beat and writes it from its
// first beat on, as on the stream (the engine model writes a descriptor's
// bytes in one step). A BAR read completes as long after its arrival as the
// RTL took to answer it. H2C0's beats are fed to the RTL as the engine has
// the host's data for them; the engine's completion of an H2C descriptor is
// the cycle its last beat would leave without the MAC's backpressure, as in
// sim:nic_dma (the engine model's descriptor pipeline has no stream
// backpressure): the beats wait here meanwhile.
#include "nic_dma_rtl.hpp"

#include "Vnic_dma_top.h"
#include "Vnic_dma_top___024root.h"
#include "pioc/regs/nic_dma.hpp"
#include "rtl_clock.hpp"
#include "sim/nic/dma_nic_model.hpp"
#include "sim/xdma/xdma_dev.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace pioc::rtl {

namespace {
namespace R = pioc::regs::nic_dma;
using pioc::sim::stream_beat_bytes;

/** Lookahead while frames are in flight: more than the host's 30 ns poll step. */
constexpr std::uint64_t lookahead_ns = 64;

/** XDMA's H2C0 towards the RTL: each beat offered from its cycle on. */
class h2c_feed final : public tb::agent, public timed_input {
public:
	struct beat {
		std::array<std::uint32_t, stream_beat_bytes / 4> data{};
		std::uint64_t keep = 0;
		bool last = false;
		std::uint64_t cycle = 0; ///< sim cycle the engine has the beat's data
	};

	explicit h2c_feed(tb::sim<Vnic_dma_top> &s) : s_(s) {}
	void push(const beat &b) { q_.push_back(b); }
	bool empty() const noexcept { return q_.empty(); }
	void clear() noexcept { q_.clear(); }
	std::uint64_t next_cycle() const noexcept override { return q_.empty() ? UINT64_MAX : q_.front().cycle; }

	void drive() override
	{
		auto &m = *s_.m;
		m.h2c_tvalid = !q_.empty() && q_.front().cycle <= s_.cycle;
		if (!m.h2c_tvalid)
			return;
		std::memcpy(m.h2c_tdata.data(), q_.front().data.data(), stream_beat_bytes);
		m.h2c_tkeep = q_.front().keep;
		m.h2c_tlast = q_.front().last;
	}
	void sample() override
	{
		if (s_.m->h2c_tvalid && s_.m->h2c_tready)
			q_.pop_front();
	}

private:
	tb::sim<Vnic_dma_top> &s_;
	std::deque<beat> q_;
};

/** XDMA's C2H0: takes the RTL's frames into the engine model while its
 *  stream input has room (c2h_stream_packets), a frame once started to its
 *  end, and offers each whole frame with the time of its last beat. */
class c2h_take final : public tb::agent, public timed_input {
public:
	explicit c2h_take(clocked<Vnic_dma_top> &c) : c_(c) {}
	pioc::sim::xdma_dev *x = nullptr;
	bool mid_frame() const noexcept { return in_frame_; }
	/** A frame in assembly is lost (a reset). */
	void clear() noexcept
	{
		cur_.clear();
		in_frame_ = false;
	}
	/** Mid-frame it takes a beat every cycle (the image is not idle then). */
	std::uint64_t next_cycle() const noexcept override { return in_frame_ ? 0 : UINT64_MAX; }

	void drive() override
	{
		c_.s.m->c2h_tready = in_frame_ || (x && x->c2h_stream_waiting(0) < pioc::sim::nic::c2h_stream_packets);
	}
	void sample() override
	{
		auto &m = *c_.s.m;
		if (!(m.c2h_tvalid && m.c2h_tready))
			return;
		const auto *b = reinterpret_cast<const std::uint8_t *>(m.c2h_tdata.data());
		cur_.insert(cur_.end(), b, b + std::popcount(std::uint64_t(m.c2h_tkeep)));
		in_frame_ = !m.c2h_tlast;
		if (in_frame_)
			return;
		pioc::sim::stream_packet p;
		p.bytes = std::move(cur_);
		p.last_ns = double(c_.ns_of(c_.cycles()));
		// The next frame fills a buffer the engine model is done with
		// (it recycles each packet after writing it): a moved-from vector
		// has no capacity and would grow beat by beat, reallocating up to
		// nine times for a jumbo frame.
		cur_ = x->stream_buffer();
		x->c2h_stream_push(0, std::move(p));
	}

private:
	clocked<Vnic_dma_top> &c_;
	std::vector<std::uint8_t> cur_;
	bool in_frame_ = false;
};

/** The image, its BAR master and the two stream agents, built before the
 *  BAR. With @p skip_idle the cycles in which no frame is anywhere between
 *  H2C0 and C2H0 (the image's idle), no BAR access is in flight and no H2C
 *  beat is due pass without evaluation (rtl_clock.hpp). */
struct nic_dma_image {
	nic_dma_image(unsigned stall, std::uint64_t seed, bool skip_idle)
		: c("rtl:nic_dma", seed, R::clock_mhz),
		  axi("nic_dma_rtl", PIOC_AXI4_PORT(c.s.m.get(), s_), &c.s.rng, &c.errors), h2c(c.s), c2h(c)
	{
		c.attach(axi, stall);
		c.s.add(&h2c);
		c.s.add(&c2h);
		c.add_input(h2c);
		c.add_input(c2h);
		c.skip_idle(&c.s.m->rootp->nic_dma_top__DOT__u_cnt__DOT__count, skip_idle);
		c.start();
	}
	clocked<Vnic_dma_top> c;
	tb::axi4_master<std::uint32_t> axi;
	h2c_feed h2c;
	c2h_take c2h;
};

class nic_dma_rtl final : private nic_dma_image, public axi_bar<Vnic_dma_top>, public pioc::sim::stream_sink {
public:
	nic_dma_rtl(unsigned stall, std::uint64_t seed, bool skip_idle)
		: nic_dma_image(stall, seed, skip_idle), axi_bar("rtl:nic_dma", R::bar_size, nic_dma_image::c, nic_dma_image::axi)
	{}

	/** Wires the engines' side: @p x owns this object and outlives it. */
	void attach(pioc::sim::xdma_dev &x)
	{
		c2h.x = &x;
		x.set_stream_sink(this);
	}

	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override
	{
		axi_bar::posted_write(bar, off, data, len, t_ns);
		finish_rx_frame();
	}
	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns) override
	{
		c.run_to(t_ns);
		const std::uint64_t c0 = c.cycles();
		axi_bar::read(bar, off, data, len, t_ns);
		const std::uint64_t took = c.cycles() - c0;
		finish_rx_frame();
		return t_ns + c.ns_of(took);
	}
	// A CPU asleep (an interrupt wait) steps through the image's busy
	// stretches 100 ns at a time, as the XDMA model does for user
	// interrupt lines: a frame on its way from H2C through the MAC to the
	// C2H stream is no event of the XDMA model's until it reaches C2H, and
	// without this the sleeping CPU jumped to its deadline and the C2H
	// completion (and its MSI-X) came after it. Idle: no event of its own.
	bool has_event_clock() const noexcept override { return true; }
	std::uint64_t next_event_ns() const noexcept override
	{
		return c.s.m->idle && h2c.empty() ? UINT64_MAX : c.now_ns() + 100;
	}
	void advance(std::uint64_t t_ns) override
	{
		std::uint64_t to = t_ns;
		if (!c.s.m->idle || !h2c.empty())
			to = std::max(t_ns, std::min(t_ns + lookahead_ns, c2h.x->next_event_ns() - 1));
		c.run_to(to);
		finish_rx_frame();
	}

	/** The XDMA IP's user_reset, which the engine model asserts with a
	 *  function reset (pioc.ko's at every last close): one clock edge with
	 *  rst_n low puts every register of the image back, the FIFOs, stamp
	 *  FIFOs, sequence numbers and the cycle counter included, at the
	 *  instant of the reset (the image's time does not move, as the model's
	 *  does not). H2C beats not yet taken and a C2H frame in assembly go
	 *  with it, as the engine model's own queues do. */
	void user_reset() override
	{
		h2c.clear();
		c2h.clear();
		tx_free_ = 0;
		frame_bytes_ = 0;
		auto &m = *c.s.m;
		m.rst_n = 0;
		m.clk = 0;
		m.eval();
		m.clk = 1;
		m.eval();
		m.rst_n = 1;
		m.eval();
	}

	double h2c_stream(unsigned, const std::uint8_t *data, std::size_t len, bool eop, double first_ns,
			  double last_ns) override
	{
		// The engine has the host's data from first_ns to last_ns: the
		// beats in between evenly, each offered from its cycle on.
		const std::size_t n = (len + stream_beat_bytes - 1) / stream_beat_bytes;
		const std::uint64_t base = c.s.cycle - c.cycles();
		for (std::size_t i = 0; i < n; ++i) {
			h2c_feed::beat b;
			const std::size_t k = std::min<std::size_t>(stream_beat_bytes, len - i * stream_beat_bytes);
			std::memcpy(b.data.data(), data + i * stream_beat_bytes, k);
			b.keep = k == stream_beat_bytes ? ~0ull : (1ull << k) - 1;
			b.last = eop && i + 1 == n;
			const double t = n > 1 ? first_ns + (last_ns - first_ns) * double(i) / double(n - 1) : last_ns;
			b.cycle = base + c.cycles_of(std::uint64_t(std::ceil(t)));
			h2c.push(b);
		}
		// The completion, as sim:nic_dma charges it: the frame's beats one
		// per cycle after the previous frame's, the last once its data is here.
		frame_bytes_ += len;
		if (!eop)
			return last_ns;
		const std::uint64_t last = std::max<std::uint64_t>(c.cycles_of(std::uint64_t(std::ceil(last_ns))),
								   tx_free_ + (frame_bytes_ + 63) / 64 - 1);
		tx_free_ = last + 1;
		frame_bytes_ = 0;
		return double(c.ns_of(last));
	}

private:
	/** A frame started on C2H0 runs to its last beat (see the top). */
	void finish_rx_frame()
	{
		if (c2h.mid_frame() && !c.s.run_until([&] { return !c2h.mid_frame(); }, max_cycles))
			throw std::runtime_error("rtl:nic_dma: a C2H0 frame never ended");
	}

	std::uint64_t tx_free_ = 0;   ///< first cycle H2C0's next frame can start, as the engine sees it
	std::size_t frame_bytes_ = 0; ///< bytes of the H2C frame so far
};

} // namespace

std::unique_ptr<pioc::sim::target> make_nic_dma_rtl(unsigned stall_percent, std::uint64_t seed, bool skip_idle)
{
	pioc::sim::xdma_config cfg;
	cfg.name = cfg.label = "rtl:nic_dma";
	cfg.stream = true;
	cfg.h2c_channels = cfg.c2h_channels = 1; // fpga/vcu118/build.tcl nic_dma: one H2C and one C2H stream
	cfg.config_bar = 0; // no AXI-Lite BAR: config BAR0, bypass (user) BAR1, as sim:nic_dma
	cfg.user_bar = 1;
	auto user = std::make_unique<nic_dma_rtl>(stall_percent, seed, skip_idle);
	nic_dma_rtl *u = user.get();
	auto dev = std::make_unique<pioc::sim::xdma_dev>(cfg, std::move(user),
							 pioc::sim::make_card_memory(4096, cfg.card_mem_ns));
	u->attach(*dev);
	return dev;
}

} // namespace pioc::rtl
