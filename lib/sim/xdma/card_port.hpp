// The card side the XDMA engines address (their AXI4 master port): card
// memory in sim:xdma, the PIO image's 256 KiB address map (the Verilated
// xdma_user_top's dma_* port) in rtl:xdma.
#pragma once

#include <pioc/sim/target.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace pioc::sim {

/** A card-side AXI slave as the engine model sees it. An access arrives at
 *  simulated time @p t_ns and returns the simulated time it completes (the
 *  last write beat accepted with its response / the last read beat
 *  received). A port is one resource: an access arriving while an earlier one
 *  is still in progress starts after it. The caller checks the range against
 *  size(). */
class card_port {
public:
	virtual ~card_port() = default;
	/** Card addresses are 0 .. size()-1. */
	virtual std::uint64_t size() const noexcept = 0;
	/** First address plain data may go to (0 for memory; the BRAM window
	 *  when the card side is the PIO image, whose low addresses are registers). */
	virtual std::uint64_t data_base() const noexcept { return 0; }
	virtual double write(std::uint64_t addr, const void *data, std::size_t len, double t_ns) = 0;
	virtual double read(std::uint64_t addr, void *data, std::size_t len, double t_ns) = 0;
};

/** @p size bytes of card memory (reserved, committed on touch); writes complete
 *  on arrival, reads after @p read_ns (the AXI read latency). */
std::unique_ptr<card_port> make_card_memory(std::uint64_t size, double read_ns);

/** The address map of BAR @p bar of a device model (@p t must outlive the
 *  port): the engines address the image as on VCU118, where XDMA's AXI master
 *  reaches the PIO image. Accesses are split at 4 KiB as AXI bursts are; a
 *  write completes on arrival, a read when the model answers (a held
 *  INVOKE_STATUS read later). Plain data from @p data_base on. */
std::unique_ptr<card_port> make_card_on_bar(target &t, unsigned bar, std::uint64_t data_base);

} // namespace pioc::sim
