// The ECI NIC driver's cold paths (include/pioc/nic/eci_nic.hpp): the
// window's channel layouts, the checks at open and the errors.
#include <pioc/nic/eci_nic.hpp>

#include <fmt/format.h>

namespace pioc::nic::eci_nic_detail {

namespace map = regs::nic_eci;

coherent::layout channel(std::uint64_t offset, std::uint32_t data_lines)
{
	return coherent::layout::for_channel(map::bar_size, map::LINE_BYTES,
					     static_cast<std::uint32_t>(offset / map::CHANNEL_STRIDE),
					     map::CHANNEL_STRIDE, data_lines);
}

bank_setup banks(std::uint64_t word, const std::string &name)
{
	const auto lines = static_cast<std::uint32_t>((word >> map::FEAT_LINES_SHIFT) & 0xffff);
	const bool rx = word & map::FEAT_RX_BANKS, tx = word & map::FEAT_TX_BANKS;
	auto bad = [&](const char *why) {
		return error(errc::device_error, fmt::format("{}: FEATURES {:#x}: {} (this driver knows data banks of {} "
							     "lines, FEAT_RX_BANKS {:#x}, FEAT_TX_BANKS {:#x})",
							     name, word, why, map::BANK_LINES, map::FEAT_RX_BANKS,
							     map::FEAT_TX_BANKS));
	};
	if (!rx && !tx) {
		if (lines)
			throw bad("data lines per bank without a bank bit");
		return {word, 0, 0};
	}
	if (!lines)
		throw bad("a bank bit without data lines");
	if (lines != map::BANK_LINES)
		throw bad("data lines per bank other than BANK_LINES");
	if (channel(map::RX_CHAN.offset, lines).max_pipelined() < map::RX_HDR + mtu)
		throw bad("banks too small for a whole frame");
	return {word, rx ? lines : 0, tx ? lines : 0};
}

coherent::cpu_options tx_options(coherent::cpu_options o, const bank_setup &b)
{
	o.pipelined = b.tx_lines > 0;
	return o;
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
