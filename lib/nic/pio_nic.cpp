// The PIO NIC driver's set-up (include/pioc/nic/pio_nic.hpp): where its BAR
// is, and the XDMA IP's side of its interrupt.
#include <pioc/nic/pio_nic.hpp>
#include <pioc/regs/xdma.hpp>
#include <pioc/xdma/xdma.hpp>

#include <fmt/format.h>

namespace pioc::nic {

namespace r = regs::nic_pio;

unsigned pio_nic_bar(device &dev)
{
	return find_bar(dev, r::bar_size, r::ID.offset, r::id_value, "PIO NIC (nic_pio.toml)");
}

transport::interrupt_fd pio_nic_rx_interrupt(device &dev)
{
	namespace x = regs::xdma;
	const int bar = xdma::find_config_bar(dev);
	if (bar < 0)
		throw error(errc::not_found,
			    fmt::format("{}: no XDMA config BAR: the PIO NIC's interrupt is the IP's user line {}, "
					"which only the IP's IRQ block enables",
					dev.spec(), r::RX_IRQ_LINE));
	// Ask for the vector first: a transport that cannot deliver it leaves
	// the line disabled.
	transport::interrupt_fd fd = dev.get_transport().interrupt(r::RX_IRQ_VECTOR);
	if (fd.fd < 0)
		return fd; // pio_nic::use_rx_interrupt names the missing vector
	region cfg = dev.map(unsigned(bar), mem_type::uc);
	cfg.write<std::uint32_t>(x::irq_base + x::IRQ_USER_EN_W1S, 1u << r::RX_IRQ_LINE);
	return fd;
}

} // namespace pioc::nic
