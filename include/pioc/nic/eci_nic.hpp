/** @file
 * The ECI NIC driver (issue 15 (c), the paper's Fig. 8(c)): frames move as
 * the Fig. 5 protocols over the NIC's window of device-homed cache lines
 * (fpga/regmap/nic_eci.toml), so a frame reaches the CPU's cache, and leaves
 * it, over several lines with no PCIe and no descriptor ring.
 *
 *  - RX (poll_rx, polled): a device-initiated (5b) channel; the device
 *    answers the CPU's load of the control line with the next frame's
 *    message (its MAC RX stamp, then the frame) over as many exchanges as
 *    it takes (coherent::receiver). A load the device holds without a frame
 *    is answered "not ready": poll_rx returns 0. A device restart is
 *    handled as the 5b receiver does: resync (a new session) and go on; a
 *    frame delivered before the restart and not yet acknowledged is not
 *    sent again, so no frame arrives twice (one may be lost).
 *  - TX (send): a CPU-initiated (5a) invocation whose request is the frame
 *    and whose answer is the MAC's TX stamp, given once the frame's last
 *    beat reached the MAC (coherent::invoker). send() therefore returns with
 *    the frame on the line; poll_tx hands out the stamps, up to rings().tx
 *    unreaped before send() says "full".
 *  - now(): the CYCLES line, evicted and loaded (the device fills it at
 *    every load that reaches it).
 *  - Data banks (Documentation/protocols.md): the FEATURES line, read once
 *    at open, says whether RX messages come whole with their rest in a
 *    bank of data lines (the receiver takes both forms then) and whether TX
 *    requests may (the invoker's pipelined mode: one exchange per frame).
 *    An image that answers 0 moves every frame line by line as above.
 *
 * The driver is eci_nic<Lines> over a coherent line policy: mem_lines on a
 * module's ECI window (hardware), eci_sim_lines on sim:nic_eci. It names no
 * simulator header (the layering tests check).
 */
#pragma once

#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/nic/nic.hpp>
#include <pioc/regs/nic_eci.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace pioc::nic {

namespace eci_nic_detail {
/** The layout of the channel whose lines start at @p offset in the window,
 *  with @p data_lines data lines per bank. */
coherent::layout channel(std::uint64_t offset, std::uint32_t data_lines);
/** What an image's FEATURES word sets up: data lines per bank of each channel. */
struct bank_setup {
	std::uint64_t word = 0;
	std::uint32_t rx_lines = 0, tx_lines = 0;
};
/** Checks @p word (errc::device_error naming @p name and the word if it is
 *  inconsistent: a bank bit without lines, lines other than BANK_LINES or
 *  too few for a frame, lines without a bank bit). */
bank_setup banks(std::uint64_t word, const std::string &name);
coherent::cpu_options tx_options(coherent::cpu_options o, const bank_setup &b);
ring_sizes checked(ring_sizes rings, std::uint32_t line, const std::string &name);
[[noreturn, gnu::cold]] void bad_message(const std::string &name, std::size_t len);
[[noreturn, gnu::cold]] void tx_refused(const std::string &name, std::size_t len, std::size_t resp,
					std::uint64_t stamp);
} // namespace eci_nic_detail

template <coherent::line_policy Lines> class eci_nic {
public:
	/** @p rings: rx is the most frames one poll loop should expect in flight
	 *  (the device queues them; nothing is dropped), tx the TX stamps kept
	 *  until poll_tx. Opens both channels (a SYNC each). */
	eci_nic(Lines lines, ring_sizes rings, std::string name, coherent::cpu_options o = {})
		: L_(lines), name_(std::move(name)), rings_(eci_nic_detail::checked(rings, lines.line_size(), name_)),
		  banks_(eci_nic_detail::banks(read_features(L_), name_)),
		  rx_(lines, eci_nic_detail::channel(regs::nic_eci::RX_CHAN.offset, banks_.rx_lines), o),
		  tx_(lines, eci_nic_detail::channel(regs::nic_eci::TX_CHAN.offset, banks_.tx_lines),
		      eci_nic_detail::tx_options(o, banks_)),
		  stamps_(rings_.tx),
		  msg_(regs::nic_eci::RX_HDR + mtu)
	{}

	bool send(std::span<const std::byte> frame)
	{
		check_frame(frame.size(), name_);
		if (tx_count_ == rings_.tx)
			return false;
		std::uint64_t stamp = 0;
		const std::size_t n = tx_.call(frame.data(), frame.size(), &stamp, sizeof stamp);
		if (n != regs::nic_eci::TX_RESP || (stamp & regs::nic_eci::TX_DROPPED))
			eci_nic_detail::tx_refused(name_, frame.size(), n, stamp);
		stamps_[(tx_head_ + tx_count_++) & (rings_.tx - 1)] = {stamp, static_cast<std::uint32_t>(frame.size())};
		return true;
	}

	std::size_t send_batch(std::span<const std::span<const std::byte>> frames)
	{
		std::size_t i = 0;
		while (i < frames.size() && send(frames[i]))
			++i;
		return i;
	}

	std::size_t poll_rx(std::span<std::byte> out)
	{
		if (!pending_) {
			std::size_t n;
			try {
				n = rx_.receive(msg_.data(), msg_.size());
			} catch (const error &e) {
				if (e.code() != errc::device_error)
					throw;
				rx_.resync(); // the device restarted: a new session, then go on
				++resyncs_;
				n = rx_.receive(msg_.data(), msg_.size());
			}
			if (n == 0)
				return 0;
			if (n < regs::nic_eci::RX_HDR + min_frame || n > msg_.size())
				eci_nic_detail::bad_message(name_, n);
			pending_ = n;
		}
		const std::size_t len = pending_ - regs::nic_eci::RX_HDR;
		if (out.size() < len)
			rx_too_small(name_, len, out.size());
		std::memcpy(&last_.mac_cycle, msg_.data(), sizeof last_.mac_cycle);
		std::memcpy(out.data(), msg_.data() + regs::nic_eci::RX_HDR, len);
		last_.len = len;
		pending_ = 0;
		return len;
	}

	rx_info last_rx() const noexcept { return last_; }

	bool poll_tx(tx_info &ti)
	{
		if (!tx_count_)
			return false;
		ti = stamps_[tx_head_];
		tx_head_ = (tx_head_ + 1) & (rings_.tx - 1);
		--tx_count_;
		return true;
	}

	/** Forgets the stamps no poll_tx() took (they came with each
	 *  invocation: nothing to read); returns how many (nic::driver). */
	std::size_t reclaim_tx() noexcept
	{
		const std::size_t n = tx_count_;
		tx_head_ = (tx_head_ + tx_count_) & (rings_.tx - 1);
		tx_count_ = 0;
		return n;
	}

	std::uint64_t now()
	{
		L_.evict(regs::nic_eci::CYCLES.offset); // the load must reach the device
		return L_.load64(regs::nic_eci::CYCLES.offset);
	}
	std::uint64_t host_ns() const { return static_cast<std::uint64_t>(L_.now_ns()); }
	clock_map clock()
	{
		return sample_clock<Lines::simulated>(
			regs::nic_eci::clock_mhz, [this] { return now(); }, [this] { return host_ns(); });
	}
	ring_sizes rings() const noexcept { return rings_; }

	/** The image's FEATURES word as read at open (0: line by line). */
	std::uint64_t features() const noexcept { return banks_.word; }
	/** Sessions opened again after a device restart (RX side). */
	std::uint64_t rx_resyncs() const noexcept { return resyncs_; }
	const coherent::cpu_stats &rx_stats() const noexcept { return rx_.stats(); }
	const coherent::cpu_stats &tx_stats() const noexcept { return tx_.stats(); }

private:
	/** The FEATURES line, evicted first so the load reaches the device. */
	static std::uint64_t read_features(const Lines &l)
	{
		l.evict(regs::nic_eci::FEATURES.offset);
		return l.load64(regs::nic_eci::FEATURES.offset);
	}

	Lines L_;
	std::string name_;
	ring_sizes rings_;
	eci_nic_detail::bank_setup banks_;
	coherent::receiver<Lines> rx_;
	coherent::invoker<Lines> tx_;
	std::vector<tx_info> stamps_;
	std::uint32_t tx_head_ = 0, tx_count_ = 0;
	std::vector<std::uint8_t> msg_; ///< the message being handed out: RX_HDR + frame
	std::size_t pending_ = 0;	///< its length, 0: none
	rx_info last_;
	std::uint64_t resyncs_ = 0;
};

} // namespace pioc::nic
