/** @file
 * The PCIe PIO NIC driver (the paper's Fig. 8(b)): the CPU moves every frame
 * and every descriptor itself with loads and stores over BAR0
 * (fpga/regmap/nic_pio.toml).
 *
 * TX: the frame goes into its TX_BUF slot through the write-combined mapping
 * (wide stores), a WC flush orders it before the descriptor and the TX_HEAD
 * doorbell, which go through the uncached mapping. RX: RX_HEAD, the
 * descriptor and the frame are read through the uncached mapping, as the
 * paper does (Sec. 6.3: its PIO RX latency grows with the frame because every
 * load is a non-posted PCIe read).
 *
 * RX by interrupt (wait_rx, after use_rx_interrupt): RX_IRQ_ARM is one-shot
 * and raises only on an RX_HEAD advance, so the driver arms, reads RX_HEAD
 * once more (a frame that landed before the arm took effect raises nothing;
 * the arm is a posted write, which the read cannot pass), and only then
 * sleeps in io.wait_interrupt: poll() on the eventfd on hardware, simulated
 * time idling to the model's next event in simulation.
 *
 * pio_nic<IO> is templated on the I/O view (pioc/io.hpp), so nothing in
 * send/poll_rx branches on the backend; with_pio_nic() picks the view once.
 * It satisfies pioc::nic::driver.
 */
#pragma once

#include <pioc/device.hpp>
#include <pioc/nic/nic.hpp>
#include <pioc/regs/nic_pio.hpp>

#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace pioc::nic {

template <class IO> class pio_nic {
	using u32 = std::uint32_t;
	using u64 = std::uint64_t;

public:
	/** @p uc maps the NIC's BAR uncached from offset 0 (registers, rings, RX_BUF);
	 *  @p wc maps TX_BUF write-combined, its offset 0 being TX_BUF's. Both
	 *  rings must be empty (the device refuses a new size otherwise). */
	pio_nic(IO uc, IO wc, ring_sizes rings, std::string name)
		: uc_(uc), wc_(wc), rings_(rings), name_(std::move(name))
	{
		namespace r = regs::nic_pio;
		if (uc_.template load<u32>(r::ID.offset) != r::id_value)
			throw error(errc::not_found, name_ + ": the mapped BAR's ID is not NICP: not a PIO NIC");
		check_ring_size(rings.rx, r::MAX_RING, name_ + " RX ring");
		check_ring_size(rings.tx, r::MAX_RING, name_ + " TX ring");
		tx_head_ = tx_reaped_ = uc_.template load<u32>(r::TX_HEAD.offset);
		rx_tail_ = rx_head_ = uc_.template load<u32>(r::RX_TAIL.offset);
		if (uc_.template load<u32>(r::TX_TAIL.offset) != tx_head_ ||
		    uc_.template load<u32>(r::RX_HEAD.offset) != rx_tail_)
			throw error(errc::invalid_argument, name_ + ": rings not empty; cannot choose ring sizes now");
		uc_.template store<u32>(r::RX_RING_SIZE.offset, rings.rx);
		uc_.template store<u32>(r::TX_RING_SIZE.offset, rings.tx);
		if (uc_.template load<u32>(r::RX_RING_SIZE.offset) != rings.rx ||
		    uc_.template load<u32>(r::TX_RING_SIZE.offset) != rings.tx)
			throw error(errc::device_error, name_ + ": the device did not take the ring sizes");
		clock_ = sample_clock();
	}

	/** Queues one frame; false if all TX slots await poll_tx(). */
	bool send(std::span<const std::byte> frame)
	{
		namespace r = regs::nic_pio;
		check_frame(frame.size(), name_);
		if (tx_head_ - tx_reaped_ >= rings_.tx)
			return false;
		const u32 slot = tx_head_ & (rings_.tx - 1);
		wc_.copy_to(slot * r::SLOT_BYTES, frame.data(), frame.size());
		wc_.wc_flush(); // payload before descriptor and doorbell
		uc_.template store<u64>(r::TX_DESC.offset + slot * r::DESC_BYTES, frame.size());
		uc_.template store<u32>(r::TX_HEAD.offset, ++tx_head_);
		return true;
	}

	std::size_t send_batch(std::span<const std::span<const std::byte>> frames)
	{
		std::size_t n = 0;
		while (n < frames.size() && send(frames[n]))
			++n;
		return n;
	}

	/** Next TX completion (frees its slot); false if the oldest is pending. */
	bool poll_tx(tx_info &info)
	{
		namespace r = regs::nic_pio;
		if (tx_reaped_ == tx_head_)
			return false;
		const u64 d = r::TX_DESC.offset + (tx_reaped_ & (rings_.tx - 1)) * r::DESC_BYTES;
		const u64 w0 = uc_.template load<u64>(d);
		if (!(w0 & r::DESC_DONE))
			return false;
		if (w0 & r::DESC_ERR)
			throw error(errc::device_error, name_ + ": the MAC dropped a " +
								std::to_string(w0 & r::DESC_LEN_MASK) + "-byte TX frame");
		info.len = static_cast<u32>(w0 & r::DESC_LEN_MASK);
		info.mac_cycle = uc_.template load<u64>(d + 8);
		++tx_reaped_;
		return true;
	}

	/** Frees the slots of every frame whose last beat reached the MAC (one
	 *  read of TX_TAIL, not one descriptor read per frame), without their
	 *  stamps; returns how many (nic::driver). */
	std::size_t reclaim_tx()
	{
		namespace r = regs::nic_pio;
		const u32 tail = uc_.template load<u32>(r::TX_TAIL.offset);
		const u32 n = tail - tx_reaped_;
		if (n > tx_head_ - tx_reaped_)
			throw error(errc::device_error, name_ + ": TX_TAIL " + std::to_string(tail) +
								" is past the " + std::to_string(tx_head_) +
								" frames sent (the device lost its place)");
		tx_reaped_ = tail;
		return n;
	}

	/** Copies the next received frame into @p out; 0 if none is waiting. */
	std::size_t poll_rx(std::span<std::byte> out)
	{
		namespace r = regs::nic_pio;
		if (rx_tail_ == rx_head_) {
			rx_head_ = uc_.template load<u32>(r::RX_HEAD.offset);
			if (rx_tail_ == rx_head_)
				return 0;
		}
		const u32 slot = rx_tail_ & (rings_.rx - 1);
		const u64 d = r::RX_DESC.offset + slot * r::DESC_BYTES;
		const std::size_t len = uc_.template load<u64>(d) & r::DESC_LEN_MASK;
		if (out.size() < len)
			throw error(errc::out_of_range, name_ + ": received " + std::to_string(len) +
								"-byte frame does not fit the " + std::to_string(out.size()) +
								"-byte buffer given to poll_rx (it stays queued)");
		uc_.copy_from(r::RX_BUF.offset + slot * r::SLOT_BYTES, out.data(), len);
		last_rx_ = {len, uc_.template load<u64>(d + 8)};
		uc_.template store<u32>(r::RX_TAIL.offset, ++rx_tail_);
		return len;
	}

	/** Receives by interrupt from now on: @p irq is RX_IRQ_VECTOR's eventfd
	 *  (device::get_transport().interrupt(regs::nic_pio::RX_IRQ_VECTOR)). */
	void use_rx_interrupt(transport::interrupt_fd irq)
	{
		if (irq.fd < 0)
			throw error(errc::not_supported, name_ + ": the transport delivers no MSI-X vector " +
								 std::to_string(regs::nic_pio::RX_IRQ_VECTOR) +
								 "; interrupt receive needs one");
		irq_ = std::move(irq);
	}

	/** Like poll_rx, but sleeps until a frame is there or @p deadline
	 *  (io now_ns() clock) passes (0). Needs use_rx_interrupt(). A stale
	 *  interrupt (raised for a frame the re-check already took) costs one
	 *  more turn of the loop, never a frame. Not for a loop that must not
	 *  sleep: poll_rx is. */
	std::size_t wait_rx(std::span<std::byte> out, std::uint64_t deadline)
	{
		if (irq_.fd < 0)
			throw error(errc::invalid_argument, name_ + ": wait_rx without use_rx_interrupt()");
		for (;;) {
			if (std::size_t n = poll_rx(out))
				return n;
			arm_rx_interrupt();
			if (std::size_t n = poll_rx(out)) // landed before the arm took effect
				return n;
			if (!wait_rx_interrupt(deadline))
				return 0;
		}
	}

	/** The two halves of wait_rx, for callers that build their own loop:
	 *  arms the one-shot RX interrupt (RX_IRQ_ARM), sleeps until it is
	 *  raised (true) or @p deadline passes (false). */
	void arm_rx_interrupt() { uc_.template store<u32>(regs::nic_pio::RX_IRQ_ARM.offset, 1); }
	bool wait_rx_interrupt(std::uint64_t deadline) { return uc_.wait_interrupt(irq_.fd, deadline); }

	rx_info last_rx() const { return last_rx_; }
	std::uint64_t now() { return uc_.template load<u64>(regs::nic_pio::CYCLES.offset); }
	std::uint64_t host_ns() const { return uc_.now_ns(); }
	clock_map clock() const { return clock_; }
	ring_sizes rings() const { return rings_; }
	const std::string &name() const { return name_; }
	/** The memory types the mappings were granted: "uc+wc" (registers and
	 *  RX, TX_BUF), as the report's memory_type. */
	std::string mem_types() const
	{
		return std::string(to_string(uc_.type())) + "+" + std::string(to_string(wc_.type()));
	}

private:
	clock_map sample_clock()
	{
		return nic::sample_clock<IO::simulated>(
			regs::nic_pio::clock_mhz, [this] { return now(); }, [this] { return uc_.now_ns(); });
	}

	IO uc_, wc_;
	ring_sizes rings_;
	std::string name_;
	std::uint32_t tx_head_ = 0, tx_reaped_ = 0, rx_tail_ = 0, rx_head_ = 0;
	rx_info last_rx_;
	clock_map clock_;
	transport::interrupt_fd irq_;
};

/** Finds the NIC's BAR of @p dev by its ID (pioc::find_bar: on the board it
 *  is the XDMA IP's bypass BAR, BAR1 beside the config BAR0), maps
 *  everything below TX_BUF uncached and TX_BUF
 *  write-combined, opens the NIC with @p rings and calls
 *  @p f(pio_nic<IO>&) with the device's I/O view type. The two mappings
 *  cover disjoint pages: x86 PAT gives a page one memory type, so a UC and a
 *  WC mapping of the same pages cannot both be granted (kmod.md, PAT). */
/** The BAR of @p dev that holds the PIO NIC (nic_pio.toml's ID). */
unsigned pio_nic_bar(device &dev);

/** Interrupt receive on @p dev, for pio_nic::use_rx_interrupt: enables the
 *  XDMA IP's user interrupt line RX_IRQ_LINE (User Interrupt Enable Mask,
 *  W1S, in the config BAR's IRQ block: reset value 0, so without this the
 *  IP never sends the NIC's interrupt) and asks the transport for MSI-X
 *  vector RX_IRQ_VECTOR (the IP's reset mapping of the line). Throws
 *  errc::not_found without an XDMA config BAR, errc::not_supported if the
 *  transport delivers no MSI-X. */
transport::interrupt_fd pio_nic_rx_interrupt(device &dev);

template <class F> void with_pio_nic(device &dev, ring_sizes rings, F &&f)
{
	namespace r = regs::nic_pio;
	// Whole pages, also of 64 KiB (arm64); nothing the driver reads or
	// writes uncached lies at or above TX_BUF.
	static_assert(r::TX_BUF.offset % 0x10000 == 0 && r::TX_BUF.size % 0x10000 == 0);
	static_assert(r::RX_BUF.offset + r::RX_BUF.size <= r::TX_BUF.offset &&
		      r::RX_DESC.offset + r::RX_DESC.size <= r::TX_BUF.offset &&
		      r::TX_DESC.offset + r::TX_DESC.size <= r::TX_BUF.offset);
	const unsigned bar = pio_nic_bar(dev);
	region uc = dev.map(bar, 0, r::TX_BUF.offset, mem_type::uc);
	region wc = dev.map(bar, r::TX_BUF.offset, r::TX_BUF.size, mem_type::wc);
	uc.visit([&](const auto &uc_io) {
		wc.visit([&](const auto &wc_io) {
			using IO = std::remove_cvref_t<decltype(uc_io)>;
			if constexpr (std::is_same_v<IO, std::remove_cvref_t<decltype(wc_io)>>) {
				pio_nic<IO> nic(uc_io, wc_io, rings, dev.info().spec);
				f(nic);
			}
		});
	});
}

} // namespace pioc::nic
