// The DMA NIC driver's cold paths (include/pioc/nic/dma_nic.hpp): the ring
// rules checked at open and the errors of the receive and stamp paths.
#include <pioc/nic/dma_nic.hpp>

#include <fmt/format.h>

namespace pioc::nic::dma_nic_detail {

ring_sizes checked(ring_sizes rings, const std::string &name)
{
	check_ring_size(rings.rx, std::uint32_t(regs::nic_dma::MAX_RING), name + " RX ring");
	check_ring_size(rings.tx, std::uint32_t(regs::nic_dma::MAX_RING), name + " TX ring");
	return rings;
}

void bad_frame(const std::string &name, unsigned slot, const xdma::stream_packet_info &p)
{
	throw error(errc::device_error,
		    fmt::format("{}: RX descriptor {} holds a {}-byte packet over {} descriptor(s): the NIC delivers "
				"frames of {}..{} bytes, one per {}-byte buffer",
				name, slot, p.len, p.descriptors, min_frame, mtu, regs::nic_dma::BUF_BYTES));
}

void stamp_lost(const std::string &name, const char *dir, std::uint64_t frame, std::uint64_t stamp)
{
	throw error(errc::device_error,
		    fmt::format("{}: the {} stamp of frame {} (sequence {:#x}) is not in its FIFO (next stamp {:#x}): "
				"more than {} stamps went unread, or the device lost it",
				name, dir, frame, frame & 0xffff, stamp, regs::nic_dma::STAMP_FIFO));
}

void tx_dropped(const std::string &name, std::uint64_t frame, std::uint32_t len)
{
	throw error(errc::device_error,
		    fmt::format("{}: the NIC dropped TX frame {} ({} bytes) before the line (runt, oversize or a "
				"partial beat inside it)",
				name, frame, len));
}

void no_rx_interrupt(const std::string &name)
{
	throw error(errc::invalid_argument, name + ": wait_rx on a NIC opened without rx_interrupt (polled receive only)");
}

} // namespace pioc::nic::dma_nic_detail

namespace pioc::nic {

unsigned dma_nic_bar(device &dev)
{
	namespace r = regs::nic_dma;
	return find_bar(dev, r::bar_size, r::ID.offset, r::id_value, "DMA NIC (nic_dma.toml)");
}

} // namespace pioc::nic
