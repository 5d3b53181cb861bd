// The ECI NIC driver's cold paths (include/pioc/nic/eci_nic.hpp): the
// window's channel layouts, the checks at open and the errors.
#include <pioc/nic/eci_nic.hpp>

#include <fmt/format.h>

namespace pioc::nic::eci_nic_detail {

namespace map = regs::nic_eci;

coherent::layout channel(std::uint64_t offset)
{
	return coherent::layout::for_channel(map::bar_size, map::LINE_BYTES,
					     static_cast<std::uint32_t>(offset / map::CHANNEL_STRIDE),
					     map::CHANNEL_STRIDE, 0);
}

ring_sizes checked(ring_sizes rings, std::uint32_t line, const std::string &name)
{
	if (line != map::LINE_BYTES)
		throw error(errc::invalid_argument,
			    fmt::format("{}: the window's lines are {} bytes, the NIC's {}", name, line,
					map::LINE_BYTES));
	check_ring_size(rings.rx, 4096, name + " RX ring");
	check_ring_size(rings.tx, 4096, name + " TX ring");
	return rings;
}

void bad_message(const std::string &name, std::size_t len)
{
	throw error(errc::device_error,
		    fmt::format("{}: RX message of {} bytes: the NIC sends {} bytes of header and a frame of {}..{} "
				"bytes",
				name, len, map::RX_HDR, min_frame, mtu));
}

void tx_refused(const std::string &name, std::size_t len, std::size_t resp, std::uint64_t stamp)
{
	throw error(errc::device_error,
		    fmt::format("{}: the NIC answered a {}-byte TX frame with {} bytes ({:#x}): it expects {} bytes, "
				"and the top bit set means the MAC dropped the frame",
				name, len, resp, stamp, map::TX_RESP));
}

} // namespace pioc::nic::eci_nic_detail
