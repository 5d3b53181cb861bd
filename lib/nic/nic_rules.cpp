// The rules every NIC path applies before touching its device: frame sizes
// the MAC carries, ring sizes the descriptor logic can index.
#include <pioc/nic/nic.hpp>

#include <string>

namespace pioc::nic {

void check_frame(std::size_t len, std::string_view who)
{
	if (len < min_frame)
		throw error(errc::invalid_argument,
			    std::string(who) + ": " + std::to_string(len) + "-byte frame is below the " +
				    std::to_string(min_frame) + "-byte minimum (runt; the MAC would drop it)");
	if (len > mtu)
		throw error(errc::invalid_argument,
			    std::string(who) + ": " + std::to_string(len) + "-byte frame is above the " +
				    std::to_string(mtu) + "-byte MTU (the MAC would drop it)");
}

void rx_too_small(std::string_view who, std::size_t len, std::size_t room)
{
	throw error(errc::out_of_range,
		    std::string(who) + ": received " + std::to_string(len) + "-byte frame does not fit the " +
			    std::to_string(room) + "-byte buffer given to poll_rx (it stays queued)");
}

void check_ring_size(std::uint32_t ring, std::uint32_t max, std::string_view who)
{
	if (ring < 2 || ring > max || (ring & (ring - 1)) != 0)
		throw error(errc::invalid_argument,
			    std::string(who) + ": ring of " + std::to_string(ring) +
				    " descriptors must be a power of two from 2 to " + std::to_string(max));
}

clock_map clock_map::from_samples(std::uint64_t c0, std::int64_t h0, std::uint64_t c1, std::int64_t h1)
{
	if (c1 == c0)
		throw error(errc::invalid_argument, "nic clock_map: the two samples have the same cycle count");
	clock_map m;
	m.cycle0 = c0;
	m.host_ns0 = h0;
	m.ns_per_cycle = static_cast<double>(h1 - h0) / static_cast<double>(static_cast<std::int64_t>(c1 - c0));
	return m;
}

} // namespace pioc::nic
