// Finding the simulated XDMA device behind an open device, for tests and tools.
#include <pioc/device.hpp>
#include <pioc/sim/pcie_link.hpp>
#include <pioc/sim/xdma_control.hpp>

namespace pioc::sim {

xdma::sim_control *xdma_control(device &dev) noexcept
{
	pcie_link *link = dev.sim_link();
	return link ? dynamic_cast<xdma::sim_control *>(&link->device()) : nullptr;
}

} // namespace pioc::sim
