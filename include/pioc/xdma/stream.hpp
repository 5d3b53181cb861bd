/** @file
 * AXI4-Stream XDMA engines (PG195 "DMA H2C Stream", "DMA C2H Stream"): a
 * circular descriptor ring in host memory that runs for ever in descriptor
 * credit mode, as a NIC's rings do.
 *
 *  pioc::xdma::dma x(dev);
 *  pioc::xdma::stream_ring tx(x.h2c(0), 64, 9600), rx(x.c2h(0), 64, 9600);
 *  tx.start(); rx.start();                        // RX: every slot credited
 *  x.config().visit([&](const auto &io) {
 *      std::memcpy(tx.buffer(s), frame, n);
 *      tx.set_h2c(s, n, true);                   // EOP: tlast on its last beat
 *      tx.credit(io, 1);                          // the engine may fetch it now
 *      pioc::xdma::stream_packet_info p;
 *      while (!rx.packet_at(io, t, p)) io.idle(30);
 *      ... rx.buffer(t) .. p.len ...; rx.release(t, p.descriptors); rx.credit(io, p.descriptors);
 *  });
 *
 * Rules the ring checks and names in its errors (engine, slot, size, rule):
 *  - H2C packs data per descriptor, so a descriptor inside a packet (no EOP)
 *    must be a multiple of the stream's beat (the data path width, 64 bytes
 *    at 512 bit), or the packet gets a partial beat before its last;
 *  - C2H descriptor lengths (the buffers) are multiples of 64 bytes;
 *  - credits are a 10-bit field: at most 1023 slots credited at once.
 * Each C2H descriptor's source address is its 32-byte result record
 * (regs::xdma::c2h_result: magic 0x52B4, EOP, length); a packet may span
 * descriptors, each full but the last, which carries EOP.
 */
#pragma once

#include <pioc/device.hpp>
#include <pioc/io.hpp>
#include <pioc/regs/xdma.hpp>
#include <pioc/xdma/xdma.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pioc::xdma {

/** A received packet: the descriptors it fills from the first slot on and
 *  its length in bytes. */
struct stream_packet_info {
	unsigned descriptors = 0;
	std::uint32_t len = 0;
};

class stream_ring {
public:
	/** Takes over stream engine @p ch (idle, not used by channel requests)
	 *  with @p slots descriptors (a power of two, 2..512), each with its own
	 *  @p buf_bytes buffer in host DMA memory. Throws pioc::error naming the
	 *  engine and the rule for a memory-mapped engine, a bad ring size or a
	 *  C2H buffer that is not a multiple of 64 bytes. */
	stream_ring(channel &ch, unsigned slots, std::uint32_t buf_bytes);
	/** Stops the engine (run cleared) and leaves credit mode. */
	~stream_ring();
	stream_ring(const stream_ring &) = delete;
	stream_ring &operator=(const stream_ring &) = delete;

	const std::string &name() const noexcept { return ch_->name(); }
	bool c2h() const noexcept { return ch_->c2h(); }
	unsigned slots() const noexcept { return slots_; }
	std::uint32_t buffer_bytes() const noexcept { return buf_bytes_; }
	/** The stream's beat in bytes (the data path width, from the config block). */
	unsigned beat_bytes() const noexcept { return beat_; }
	std::byte *buffer(unsigned slot) const noexcept { return bufs_ + std::size_t(slot & mask_) * stride_; }
	std::uint64_t buffer_bus(unsigned slot) const noexcept
	{
		return bufs_bus_ + std::uint64_t(slot & mask_) * stride_;
	}

	/** Programs the engine (descriptor credit mode, first descriptor, run
	 *  with poll-mode write-back). C2H: credits every slot. */
	void start();
	/** Clears run (credits clear with it) and leaves credit mode. */
	void stop();

	// ---- C2H interrupt (PG195) --------------------------------------------
	/** Before start(): every descriptor completed raises the engine's
	 *  interrupt (COMPLETED in each descriptor, ie_descriptor_completed in
	 *  the control and the interrupt-enable mask, the channel's bit in the
	 *  IRQ block's channel interrupt enable mask), delivered to the
	 *  channel's MSI-X vector; returns its eventfd. The engine raises it on
	 *  the status bit's rising edge, so once per rearm(). Throws
	 *  errc::not_supported when the transport delivers no MSI-X vector. */
	int enable_interrupt();
	/** Reads the status register's read-to-clear alias: the logged
	 *  completion clears, and the next one raises the interrupt again. The
	 *  answer is behind every result record the engine wrote before the
	 *  read (PCIe: a completion does not pass posted writes), so records
	 *  looked at after it are those of the engine at the read. */
	template <io_view IO> void rearm(const IO &io) const
	{
		(void)io.template load<std::uint32_t>(eng_ + regs::xdma::ENG_STATUS_RC);
		io.idle(0); // a simulated device catches up with the CPU (records due by now land)
	}

	// ---- H2C --------------------------------------------------------------
	/** Slot @p slot's descriptor: @p len bytes of its buffer, EOP (tlast)
	 *  if @p eop, COMPLETED with it (the write-back counts packets out).
	 *  The engine sees it after credit(). Throws pioc::error for a length of
	 *  0 or above the buffer, or a packet-inner length that breaks the beat. */
	void set_h2c(unsigned slot, std::uint32_t len, bool eop);
	/** Descriptors the engine completed since start() as its poll-mode
	 *  write-back last reported (24 bits, wrapping), written at each EOP. */
	std::uint32_t completed() const noexcept { return *wb_ & regs::xdma::WB_COUNT_MASK; }

	// ---- C2H --------------------------------------------------------------
	const volatile regs::xdma::c2h_result &result(unsigned slot) const noexcept { return res_[slot & mask_]; }
	/** True once the packet that starts at @p slot is whole (every
	 *  descriptor's result written, the last with EOP); @p p its size.
	 *  Throws pioc::error for a result that breaks the rules (a length
	 *  above the buffer, a packet-inner descriptor not full, a packet
	 *  longer than the ring). */
	template <io_view IO> bool packet_at(const IO &io, unsigned slot, stream_packet_info &p) const
	{
		const std::uint32_t st = res_[slot & mask_].status;
		if (!regs::xdma::result_valid(st)) [[likely]]
			return false;
		io.load_load(); // the record before its length and the data it covers
		if ((st & regs::xdma::C2H_RESULT_EOP) && res_[slot & mask_].length <= buf_bytes_) [[likely]] {
			p = {1, res_[slot & mask_].length};
			return true;
		}
		return spanning_packet(io, slot, p);
	}
	/** Forgets the results of @p n slots from @p slot on, so that the
	 *  engine's next pass writes them anew; credit() gives them back. */
	void release(unsigned slot, unsigned n) noexcept;

	/** Gives the engine @p n more descriptors (one register write). The
	 *  descriptors and buffers written before are ordered before it. */
	template <io_view IO> void credit(const IO &io, unsigned n) const
	{
		io.store_store();
		io.template store<std::uint32_t>(sg_ + regs::xdma::SG_DESC_CREDITS, n);
	}

private:
	template <io_view IO> bool spanning_packet(const IO &io, unsigned slot, stream_packet_info &p) const
	{
		std::uint32_t len = 0;
		for (unsigned k = 0; k < slots_; ++k) {
			const unsigned s = (slot + k) & mask_;
			const std::uint32_t st = res_[s].status;
			if (!regs::xdma::result_valid(st))
				return false;
			io.load_load();
			const std::uint32_t l = res_[s].length;
			const bool eop = st & regs::xdma::C2H_RESULT_EOP;
			check_result(s, st, l, eop);
			len += l;
			if (eop) {
				p = {k + 1, len};
				return true;
			}
		}
		too_long(slot);
	}
	/** Throws if a result breaks the rules. */
	void check_result(unsigned slot, std::uint32_t status, std::uint32_t len, bool eop) const;
	[[noreturn]] void too_long(unsigned slot) const;

	channel *ch_;
	unsigned slots_, mask_, beat_;
	std::uint32_t buf_bytes_;
	std::size_t stride_;
	std::uint64_t sg_, eng_;
	dma_buffer mem_;
	regs::xdma::descriptor *desc_ = nullptr;
	std::uint64_t desc_bus_ = 0;
	volatile regs::xdma::c2h_result *res_ = nullptr;
	std::byte *bufs_ = nullptr;
	std::uint64_t bufs_bus_ = 0;
	volatile std::uint32_t *wb_ = nullptr;
	bool running_ = false;
	bool irq_ = false;
};

} // namespace pioc::xdma
