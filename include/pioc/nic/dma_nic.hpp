/** @file
 * The DMA NIC driver (the paper's Fig. 8(a)): a conventional NIC whose MAC
 * feeds the XDMA AXI4-Stream engines, programmed through descriptor rings in
 * host memory (pioc::xdma::stream_ring, descriptor credit mode).
 *
 * TX: the frame is copied into its TX slot's host buffer, the slot's H2C
 * descriptor gets the length and EOP, and one credit write (a posted MMIO
 * store to the config BAR) lets the engine fetch it; send_batch() writes a
 * batch of descriptors under one credit write. TX slots come back when the
 * engine's poll-mode write-back (host memory) counts them done; the MAC's TX
 * stamp comes from BAR0's TX_STAMP FIFO in poll_tx(). reclaim_tx() reads no
 * stamp: the next poll_tx() drops the skipped ones with one write
 * (TX_STAMP_DROP), as last_rx() does for RX.
 * RX (polled): the C2H engine writes each frame into the next MTU-sized
 * buffer and its result record behind it; poll_rx() watches the record in
 * host memory (no MMIO), copies the frame out and gives the slot back, the
 * credits written in batches of a quarter of the ring. The RX stamp is read
 * from BAR0's RX_STAMP FIFO only when last_rx() asks for it, after the frame
 * was received, so it costs the receive path nothing; the stamps of frames
 * received in between are dropped by one write (RX_STAMP_DROP), not popped.
 * RX by interrupt (wait_rx, with rx_interrupt at open): every C2H
 * descriptor carries COMPLETED and the engine's interrupt mask
 * ie_descriptor_completed (stream_ring::enable_interrupt), so the engine
 * raises its MSI-X vector when the status bit rises. wait_rx polls once,
 * drains the eventfd, re-arms (a read of the status register's
 * read-to-clear alias, which also orders the result records written before
 * it), looks at the result record again, and only then sleeps.
 *
 * dma_nic<IO> is templated on the I/O view: no branch on the backend in the
 * hot path; with_dma_nic() picks it once. Only pioc::xdma and the device's
 * regions are used, so hardware and simulation run the same code.
 */
#pragma once

#include <pioc/device.hpp>
#include <pioc/nic/nic.hpp>
#include <pioc/regs/nic_dma.hpp>
#include <pioc/xdma/stream.hpp>
#include <pioc/xdma/xdma.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pioc::nic {

namespace dma_nic_detail {
/** Checks @p rings against the map before any engine is touched. */
ring_sizes checked(ring_sizes rings, const std::string &name);
[[noreturn, gnu::cold]] void bad_frame(const std::string &name, unsigned slot, const xdma::stream_packet_info &p);
[[noreturn, gnu::cold]] void stamp_lost(const std::string &name, const char *dir, std::uint64_t frame,
					std::uint64_t stamp);
[[noreturn, gnu::cold]] void tx_dropped(const std::string &name, std::uint64_t frame, std::uint32_t len);
[[noreturn, gnu::cold]] void no_rx_interrupt(const std::string &name);
} // namespace dma_nic_detail

template <class IO> class dma_nic {
	using u32 = std::uint32_t;
	using u64 = std::uint64_t;

public:
	/** @p cfg is the XDMA config BAR's view, @p user the NIC's BAR (uncached). */
	/** @p rx_interrupt: receive by interrupt too (wait_rx). */
	dma_nic(xdma::dma &x, IO cfg, IO user, ring_sizes rings, std::string name, bool rx_interrupt = false)
		: cfg_(cfg), user_(user), name_(std::move(name)), rings_(dma_nic_detail::checked(rings, name_)),
		  tx_(x.h2c(0), rings_.tx, u32(regs::nic_dma::BUF_BYTES)),
		  rx_(x.c2h(0), rings_.rx, u32(regs::nic_dma::BUF_BYTES)), tx_len_(rings_.tx),
		  credit_batch_(std::max<u32>(1, rings_.rx / 4))
	{
		namespace r = regs::nic_dma;
		if (user_.template load<u32>(r::ID.offset) != r::id_value)
			throw error(errc::not_found, name_ + ": the user BAR's ID is not NICD: not a DMA NIC");
		// Stamps left from an earlier user would be taken for ours.
		while (user_.template load<u64>(r::RX_STAMP.offset) != r::STAMP_EMPTY) {}
		while (user_.template load<u64>(r::TX_STAMP.offset) != r::STAMP_EMPTY) {}
		if (rx_interrupt)
			rx_irq_fd_ = rx_.enable_interrupt();
		tx_.start();
		rx_.start();
		clock_ = sample_clock();
	}

	/** Queues one frame; false if every TX slot is still with the engine. */
	bool send(std::span<const std::byte> frame)
	{
		if (!post(frame))
			return false;
		tx_.credit(cfg_, 1);
		return true;
	}

	/** Queues a prefix of @p frames under one credit write. */
	std::size_t send_batch(std::span<const std::span<const std::byte>> frames)
	{
		std::size_t n = 0;
		while (n < frames.size() && post(frames[n]))
			++n;
		if (n)
			tx_.credit(cfg_, unsigned(n));
		return n;
	}

	/** Next TX completion with its MAC stamp; false if none is known yet. */
	bool poll_tx(tx_info &info)
	{
		namespace r = regs::nic_dma;
		// Only frames the engine has read can have reached the MAC: the
		// write-back in host memory says so without an MMIO read.
		if (((tx_.completed() - tx_reported_) & regs::xdma::WB_COUNT_MASK) == 0)
			return false;
		if (tx_skipped_) {
			// reclaim_tx() left the stamps of the frames before this one
			// in the FIFO; an image before map 1.2 ignores the write and
			// pop_stamp skips them one by one there.
			user_.template store<u32>(r::TX_STAMP_DROP.offset, tx_reported_ & 0xffff);
			tx_skipped_ = false;
		}
		u64 v;
		if (!pop_stamp(r::TX_STAMP.offset, tx_reported_, "TX", v))
			return false;
		const u32 len = tx_len_[tx_reported_ & (rings_.tx - 1)];
		if (v & r::STAMP_ERR)
			dma_nic_detail::tx_dropped(name_, tx_reported_, len);
		info = {v & r::STAMP_CYCLE_MASK, len};
		++tx_reported_;
		return true;
	}

	/** Counts every frame the engine has read (the write-back, no MMIO) as
	 *  completed without its stamp; returns how many (nic::driver). */
	std::size_t reclaim_tx()
	{
		const u32 n = (tx_.completed() - tx_reported_) & regs::xdma::WB_COUNT_MASK;
		if (n) {
			tx_reported_ = (tx_reported_ + n) & regs::xdma::WB_COUNT_MASK;
			tx_skipped_ = true;
		}
		return n;
	}

	/** Copies the next received frame into @p out; 0 if none is waiting. */
	std::size_t poll_rx(std::span<std::byte> out)
	{
		xdma::stream_packet_info p;
		if (!rx_.packet_at(cfg_, rx_tail_, p)) {
			cfg_.idle(xdma::detail::sim_poll_ns); // a pause on hardware; simulated time passes
			return 0;
		}
		return take_rx(out, p);
	}

	/** poll_rx() for a spin loop that does nothing else between its polls
	 *  (no MMIO access, no other driver call, no sleep) and has no timed
	 *  check of its own before @p horizon (the host_ns() clock; the
	 *  default: none). On hardware it is poll_rx(). In the simulator the
	 *  polls that cannot see a frame, because the device changes nothing
	 *  in host memory before then, pass at once (sim_io::idle_polls): the
	 *  loop sees the frame at the simulated time polling one by one does,
	 *  with a fraction of the calls. A frame's wait in a latency loop is
	 *  about a hundred polls of 30 simulated ns. */
	std::size_t poll_rx_spin(std::span<std::byte> out, std::uint64_t horizon = ~std::uint64_t(0))
	{
		xdma::stream_packet_info p;
		if (!rx_.packet_at(cfg_, rx_tail_, p)) {
			if constexpr (IO::simulated)
				cfg_.idle_polls(xdma::detail::sim_poll_ns, horizon);
			else
				cfg_.idle(xdma::detail::sim_poll_ns);
			return 0;
		}
		return take_rx(out, p);
	}

	/** Like poll_rx, but sleeps until a frame is there or @p deadline (io
	 *  now_ns() clock) passes (0). Needs rx_interrupt at open. Not for a
	 *  loop that must not sleep: poll_rx is. */
	std::size_t wait_rx(std::span<std::byte> out, std::uint64_t deadline)
	{
		if (rx_irq_fd_ < 0)
			dma_nic_detail::no_rx_interrupt(name_);
		for (;;) {
			if (std::size_t n = poll_rx(out))
				return n;
			rearm_rx_interrupt();
			if (std::size_t n = poll_rx(out)) // completed before the re-arm: no interrupt
				return n;
			if (!wait_rx_interrupt(deadline))
				return 0;
		}
	}

	/** The halves of wait_rx, for callers that build their own loop: the
	 *  next completed RX descriptor raises the interrupt (an interrupt
	 *  still pending from an earlier one is dropped: it would end the
	 *  sleep at once); sleep until it is raised (true) or @p deadline. */
	void rearm_rx_interrupt()
	{
		if (rx_irq_fd_ < 0)
			dma_nic_detail::no_rx_interrupt(name_);
		while (detail::try_read_eventfd(rx_irq_fd_)) {
		}
		rx_.rearm(cfg_);
	}
	bool wait_rx_interrupt(std::uint64_t deadline) { return cfg_.wait_interrupt(rx_irq_fd_, deadline); }

	/** The frame poll_rx() returned last, with its MAC stamp (read now). */
	rx_info last_rx()
	{
		if (rx_tail_ != 0 && stamped_ != rx_tail_) {
			// Frames received since the last stamp read left theirs in
			// the FIFO: one posted write drops them (a stream's thousand
			// would be a thousand uncached reads, a millisecond). An
			// image before map 1.1 ignores the write; pop_stamp still
			// skips them one by one there.
			if (rx_tail_ - stamped_ > 1)
				user_.template store<u32>(regs::nic_dma::RX_STAMP_DROP.offset, (rx_tail_ - 1) & 0xffff);
			u64 v = regs::nic_dma::STAMP_EMPTY;
			if (!pop_stamp(regs::nic_dma::RX_STAMP.offset, rx_tail_ - 1, "RX", v))
				dma_nic_detail::stamp_lost(name_, "RX", rx_tail_ - 1, v);
			last_rx_.mac_cycle = v & regs::nic_dma::STAMP_CYCLE_MASK;
			stamped_ = rx_tail_;
		}
		return last_rx_;
	}

	std::uint64_t now() { return user_.template load<u64>(regs::nic_dma::CYCLES.offset); }
	std::uint64_t host_ns() const { return cfg_.now_ns(); }
	clock_map clock() const { return clock_; }
	ring_sizes rings() const { return rings_; }
	const std::string &name() const { return name_; }

private:
	/** poll_rx()'s half once the result record says frame @p p is whole:
	 *  checks it, copies it out, gives the slot back (credits in batches). */
	std::size_t take_rx(std::span<std::byte> out, const xdma::stream_packet_info &p)
	{
		if (p.descriptors != 1 || p.len < min_frame || p.len > mtu) [[unlikely]]
			dma_nic_detail::bad_frame(name_, rx_tail_ & (rings_.rx - 1), p);
		if (out.size() < p.len) [[unlikely]]
			rx_too_small(name_, p.len, out.size());
		std::memcpy(out.data(), rx_.buffer(rx_tail_), p.len);
		rx_.release(rx_tail_, 1);
		++rx_tail_;
		last_rx_.len = p.len;
		if (++uncredited_ >= credit_batch_) {
			rx_.credit(cfg_, uncredited_);
			uncredited_ = 0;
		}
		return p.len;
	}

	/** Copies @p frame into the next TX slot and writes its descriptor;
	 *  false if the ring is full. */
	bool post(std::span<const std::byte> frame)
	{
		check_frame(frame.size(), name_);
		if (((tx_posted_ - tx_.completed()) & regs::xdma::WB_COUNT_MASK) >= rings_.tx)
			return false;
		const unsigned slot = tx_posted_ & (rings_.tx - 1);
		std::memcpy(tx_.buffer(slot), frame.data(), frame.size());
		tx_.set_h2c(slot, u32(frame.size()), true);
		tx_len_[slot] = u32(frame.size());
		tx_posted_ = (tx_posted_ + 1) & regs::xdma::WB_COUNT_MASK;
		return true;
	}

	/** Pops stamps at @p reg until frame @p frame's (16-bit sequence);
	 *  false if its FIFO is empty. A stamp past it means it was lost. */
	bool pop_stamp(u64 reg, u64 frame, const char *dir, u64 &v)
	{
		namespace r = regs::nic_dma;
		for (;;) {
			v = user_.template load<u64>(reg);
			if (v == r::STAMP_EMPTY)
				return false;
			const u64 behind = (frame - (v >> r::STAMP_SEQ_SHIFT)) & 0xffff;
			if (behind == 0)
				return true;
			if (behind >= 0x8000) // a later frame's: ours was lost
				dma_nic_detail::stamp_lost(name_, dir, frame, v);
			// an earlier frame's nobody asked for: skip it
		}
	}

	clock_map sample_clock()
	{
		return nic::sample_clock<IO::simulated>(
			regs::nic_dma::clock_mhz, [this] { return now(); }, [this] { return cfg_.now_ns(); });
	}

	IO cfg_, user_;
	std::string name_;
	ring_sizes rings_;
	xdma::stream_ring tx_, rx_;
	std::vector<u32> tx_len_;
	u32 credit_batch_;
	u32 tx_posted_ = 0, tx_reported_ = 0; // descriptors, modulo the write-back's 24 bits
	bool tx_skipped_ = false;	      ///< reclaim_tx() left stamps before tx_reported_ in the FIFO
	u32 rx_tail_ = 0, stamped_ = 0, uncredited_ = 0;
	rx_info last_rx_;
	clock_map clock_;
	int rx_irq_fd_ = -1; ///< C2H0's MSI-X eventfd (owned by its channel), -1: polled only
};

/** The BAR of @p dev that holds the DMA NIC's registers (nic_dma.toml's ID). */
unsigned dma_nic_bar(device &dev);

/** Opens the XDMA function of @p dev, maps the NIC's BAR (found by its ID:
 *  on the board the IP's bypass BAR, BAR1 beside the config BAR0) uncached,
 *  opens the DMA NIC
 *  with @p rings (and interrupt receive if @p rx_interrupt) and calls
 *  @p f(dma_nic<IO>&) with the device's I/O view. */
template <class F> void with_dma_nic(device &dev, ring_sizes rings, F &&f, bool rx_interrupt = false)
{
	xdma::options o;
	o.ring_descriptors = 64; // the channels' own rings stay unused: the stream rings replace them
	xdma::dma x(dev, o);
	region user = dev.map(dma_nic_bar(dev), mem_type::uc);
	x.config().visit([&](const auto &cfg_io) {
		user.visit([&](const auto &user_io) {
			using IO = std::remove_cvref_t<decltype(cfg_io)>;
			if constexpr (std::is_same_v<IO, std::remove_cvref_t<decltype(user_io)>>) {
				dma_nic<IO> nic(x, cfg_io, user_io, rings, dev.info().spec, rx_interrupt);
				f(nic);
			}
		});
	});
}

} // namespace pioc::nic
