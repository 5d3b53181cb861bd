// Behavioural model of the DMA NIC (the paper's Fig. 8(a), issue 15 (a)):
// the XDMA engine model (lib/sim/xdma) with one H2C and one C2H AXI4-Stream
// engine, H2C0 feeding the MAC stand-in's TX stream, the MAC's RX stream
// feeding C2H0, and a user BAR (BAR0, fpga/regmap/nic_dma.toml) with the
// core-clock counter, the MAC's RX and TX stamp FIFOs and drop counters.
//
// Charged, in core cycles at 250 MHz where the NIC is concerned: TX beats
// leave as the H2C engine delivers them (one 64-byte beat per cycle at most,
// frames back to back) and reach the MAC one cycle later (the RTL's register
// stage), the MAC's store-and-forward and line timing (mac_model), RX beats
// one per cycle reaching C2H0 three cycles after the MAC offered them (the
// RTL's RX FIFO), which writes them to the host as the XDMA model charges
// (link rate, posted writes, result record behind the data); stamps readable
// two cycles after the MAC's last beat. The RX side never backpressures the
// MAC: C2H0 takes c2h_stream_packets frames ahead of its descriptors, the
// RX FIFO holds the rest, RX_FIFO_BYTES in 64-byte beats in at most
// RX_FIFO_FRAMES frames, and lets a frame in only with room for an MTU frame
// (the MAC does not say the length first), else drops it whole (RX_DROPS).
// These cycle counts and rules are the RTL's (fpga/rtl/nic/nic_dma_*.sv,
// checked by fpga/tb/test_nic_dma_top.cpp and tests/rtl/test_nic_dma_vs_model).
// A read of CYCLES returns the counter cycles_read cycles after the read
// arrived (the RTL's AXI front end and register stage).
// Left out: the user BAR's AXI port time (reads and writes cost only the link),
// the pad beats a malformed frame occupies the MAC stream with in the RTL.
#pragma once

#include "sim/nic/mac_model.hpp"
#include "sim/xdma/stream_port.hpp"

#include <pioc/sim/target.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace pioc::sim {
class xdma_dev;
}

namespace pioc::sim::nic {

/** Frames the XDMA C2H engine takes from its stream ahead of its
 *  descriptors (the IP's C2H buffer): rtl:nic_dma holds c2h_tready low while
 *  its engine model has this many waiting, so further frames wait in the
 *  NIC's RX FIFO. */
inline constexpr unsigned c2h_stream_packets = 2;

/** Cycle counts of the RTL's user side (fpga/rtl/nic/nic_dma_*.sv). */
struct dma_nic_timing {
	static constexpr unsigned tx_stage = 1;   ///< a beat leaves H2C0 -> on the MAC's TX stream
	static constexpr unsigned rx_to_c2h = 3;  ///< the MAC offers an RX beat -> on C2H0
	static constexpr unsigned stamp_push = 2; ///< the MAC's last beat -> its stamp in the FIFO
	static constexpr unsigned cycles_read = 2; ///< a BAR read arrives -> the CYCLES value it returns
};

/** BAR0 of the DMA NIC and the user logic between the XDMA stream engines
 *  and the MAC. Owned by its xdma_dev (make_dma_nic_model()). */
class dma_nic_user final : public target, public stream_sink {
public:
	std::string name() const override { return "nic_dma_user"; }
	std::uint64_t bar_size(unsigned bar) const override;
	void posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len,
			  std::uint64_t t_ns) override;
	std::uint64_t read(unsigned bar, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns) override;
	void advance(std::uint64_t) override {}
	bool advances() const noexcept override { return false; } // everything it does is an event of its xdma_dev

	double h2c_stream(unsigned ch, const std::uint8_t *data, std::size_t len, bool eop, double first_ns,
			  double last_ns) override;

	/** Wires the engines' side: @p x owns this object and outlives it. */
	void attach(xdma_dev &x);
	/** A function reset: the MAC, the stamp FIFOs, their sequence numbers
	 *  and the drop counters start again (a driver opened after it expects
	 *  frame 0's stamps first). */
	void user_reset() override;
	/** Stamp words the model holds for the two FIFOs, in them or on their
	 *  way in: at most twice the FIFOs' depth plus the frames in flight,
	 *  however long a run that reads no stamp goes on (tests). */
	std::size_t stamps_held() const noexcept { return rx_stamps_.held() + tx_stamps_.held(); }

	static std::uint64_t cycles_at(double t_ns) noexcept;
	static std::uint64_t cycle_from(double t_ns) noexcept;
	static double ns_at(std::uint64_t cycle) noexcept;

private:
	/** A stamp FIFO's word: the frame's 16-bit sequence number, error bit, cycle. */
	static std::uint64_t stamp_word(std::uint64_t seq, std::uint64_t cycle, bool err) noexcept;
	/** A stamp FIFO of BAR0 (RX_STAMP, TX_STAMP). A frame's stamp is known
	 *  when the frame is sent and enters the FIFO at a simulated time
	 *  ahead; nothing but a BAR read sees the FIFO, and a read comes after
	 *  the device has caught up with it (xdma_dev::read advances first), so
	 *  the words wait here by time and the read moves the due ones in,
	 *  in the order an event each would have (time, then push order),
	 *  overflow included: two events fewer per frame. */
	class stamp_fifo {
	public:
		/** @p word enters at simulated time @p t_ns; @p now_ns is the
		 *  device's time. Once a FIFO's depth of words waits, the words
		 *  due by then (and not after @p t_ns) enter first, as any later
		 *  read would find them: without that, a run that never reads the
		 *  FIFO (nicbench throughput reads no stamp) kept every frame's
		 *  word waiting, 16 bytes a frame. */
		void push_at(double t_ns, std::uint64_t word, double now_ns);
		/** The oldest word in the FIFO once everything due by @p now_ns
		 *  (the device's time) has entered; STAMP_EMPTY if none. */
		std::uint64_t pop(double now_ns);
		/** RX_STAMP_DROP / TX_STAMP_DROP: once everything due by @p now_ns
		 *  has entered, drops the stamps before sequence @p seq (nic_dma.toml). */
		void drop_before(std::uint64_t seq, double now_ns);
		void clear() noexcept;
		std::size_t held() const noexcept { return words_.size() + coming_.size(); }

	private:
		struct timed {
			double t;
			std::uint64_t word;
		};
		/** Moves the words due by @p now_ns in, losing the oldest when full. */
		void take_due(double now_ns);
		std::deque<std::uint64_t> words_;
		std::deque<timed> coming_; ///< by time, then push order
	};
	void frame_out(std::vector<std::uint8_t> bytes, std::uint64_t last_cycle);
	/** The RX FIFO lets a frame in (at its first beat). */
	bool rx_room();

	xdma_dev *x_ = nullptr;
	mac_model mac_;
	std::vector<std::uint8_t> tx_pkt_; ///< the TX frame being assembled from H2C descriptors
	bool tx_bad_ = false;		   ///< ... has a partial beat before its last
	std::uint64_t tx_free_cycle_ = 0;  ///< first cycle the TX stream is free
	std::uint64_t tx_seq_ = 0, rx_seq_ = 0;
	stamp_fifo rx_stamps_, tx_stamps_;
	std::uint32_t rx_drops_ = 0, malformed_ = 0;
	std::deque<std::size_t> rx_held_; ///< lengths of frames let in and not yet written by C2H0, oldest first
	/** A delivered frame on its way to the RX FIFO's input. */
	struct rx_coming {
		std::vector<std::uint8_t> bytes;
		mac_result m;
	};
	/** Frames the MAC delivered whose first RX beat is still ahead, in
	 *  delivery order: their arrival events come in this order (the MAC's
	 *  rx_first times rise), so each event takes the oldest and carries
	 *  nothing but `this`. */
	std::deque<rx_coming> rx_coming_;
	void rx_arrive();
};

/** sim:nic_dma: the XDMA stream design with the DMA NIC's user side. */
std::unique_ptr<target> make_dma_nic_model();

} // namespace pioc::sim::nic
