// pciebench dma's data check: after the timed runs, every byte a transfer
// moves is compared. The timed runs move a constant fill (their data is not
// looked at, so no compare sits in a timed loop); this step moves a pattern
// unique to each byte, slot and check, host -> card (H2C) and card -> a
// separate host area (C2H), with the run's completion mode, queue depth,
// card window and host offset, and compares what came back.
#pragma once

#include <pioc/device.hpp>
#include <pioc/xdma/chardev.hpp>
#include <pioc/xdma/xdma.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace pioc::tool {

/** Where one check's transfers go: @p slots transfers of @p size bytes, slot
 *  i at host offset i * stride + offset and card address card + i * stride. */
struct dma_check_layout {
	std::uint64_t size = 0, stride = 0, offset = 0, card = 0, slots = 1;
};

/** Two halves so a test can corrupt the card between them; run_dma_check()
 *  does both. A failed compare throws error(device_error) naming the
 *  transfer, its card address, the first wrong byte's offset and the size. */
class dma_check {
public:
	dma_check(device &dev, xdma::dma &x, unsigned channel, const dma_check_layout &l, std::uint64_t seed);
	/** Host pattern -> card, all slots in flight at once (H2C). */
	void to_card();
	/** Card -> poisoned host area, all slots in flight (C2H); then compares. */
	void back_and_compare();

	/** The byte pattern slot @p slot of check @p seed carries. */
	static std::vector<std::uint8_t> pattern(std::uint64_t seed, std::uint64_t slot, std::uint64_t size);

private:
	void move(xdma::channel &ch, std::vector<xdma::request *> &reqs);
	device &dev_;
	xdma::dma &x_;
	xdma::channel &h2c_, &c2h_;
	dma_check_layout l_;
	std::uint64_t seed_;
	dma_buffer out_, back_; ///< what goes to the card, what comes back
	std::vector<xdma::request *> h2c_reqs_, c2h_reqs_;
};

/** Both halves: the data check of one size. */
void run_dma_check(device &dev, xdma::dma &x, unsigned channel, const dma_check_layout &l, std::uint64_t seed);

/** The same check through the stock Xilinx driver's char devices: the
 *  pattern goes out with @p l.slots queued pwrites (every slot in flight,
 *  the transport's queue depth) and comes back with queued preads into a
 *  poisoned area. @p host_slots is where slot i's bytes live on the host
 *  (i * l.stride + l.offset); the names in a failure are @p what's. */
void run_chardev_check(xdma::chardev &cd, std::string_view what, const dma_check_layout &l, std::uint64_t seed);

/** Compares what came back into @p host (slot i at i * stride + offset)
 *  with the pattern of check @p seed; throws error(device_error) naming
 *  @p what, the transfer, its card address, the first wrong byte and the
 *  size. */
void compare_slots(std::string_view what, const dma_check_layout &l, std::uint64_t seed, const std::uint8_t *host);

} // namespace pioc::tool
