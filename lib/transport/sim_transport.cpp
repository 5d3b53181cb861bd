// The "sim" transport: regions whose every access is a transaction on a
// simulated PCIe link to an in-process model; DMA buffers in host memory.
#include "transport/sim_transport.hpp"
#include "transport/eci_transport.hpp"

#include "sim/pio_dev.hpp"
#include "sim/nic/dma_nic_model.hpp"
#include "sim/nic/pio_nic_model.hpp"
#include "sim/xdma/xdma_dev.hpp"
#ifdef PIOC_HAVE_RTL
#include "nic_dma_rtl.hpp"
#include "nic_pio_rtl.hpp"
#include "rtl_devices.hpp"
#endif

#include <pioc/sim/host_memory.hpp>

#include <pioc/error.hpp>
#include "core/log.hpp"
#include <pioc/wide.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <new>

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

namespace pioc::detail {

const std::vector<sim_device_entry> &sim_devices()
{
	static const std::vector<sim_device_entry> devs = [] {
		std::vector<sim_device_entry> v;
		v.push_back({"pio", "pioc PIO test image (behavioral model)", 0x10ee, 0x9038, sim::make_pio_dev});
		v.push_back({"xdma", "XDMA (PG195) design: BAR0 PIO image, BAR1 XDMA config, 64 MiB card memory "
				     "(behavioral model)", 0x10ee, 0x903f, sim::make_xdma_dev});
		// The VCU118 image as built: the engines address the PIO image's map
		// (REQ, DOORBELL, RESP, BRAM), so DMA can drive invocations. The
		// behavioral counterpart of rtl:xdma.
		v.push_back({"xdma_pio", "XDMA (PG195) engine model, 1 H2C + 1 C2H: BAR0 and the engines' AXI master are "
					 "the PIO image (behavioral model of the VCU118 image), 256 KiB card address map",
			     0x10ee, 0x903f, sim::make_xdma_pio_dev});
		v.push_back({"xdma_stream", "XDMA (PG195) AXI4-Stream example design: 2 H2C + 2 C2H stream engines, "
					    "each H2C stream looped back into its C2H (behavioral model)",
			     0x10ee, 0x903f, sim::make_xdma_stream_dev});
		v.push_back({"nic_pio", "PCIe PIO NIC, the paper's Fig. 8(b): rings and buffers in BAR0 SRAM, 100G MAC "
					"loopback (behavioral model)", 0x10ee, 0x9048, sim::nic::make_pio_nic_model});
		v.push_back({"nic_dma", "DMA NIC, the paper's Fig. 8(a): MAC on XDMA AXI4-Stream engines (H2C0 -> MAC TX, "
					"MAC RX -> C2H0), rings in host memory, 100G MAC loopback (behavioral model)",
			     0x10ee, 0x9049, sim::nic::make_dma_nic_model});
		// Coherent (ECI) devices: no PCIe link; device::coherent() gives their lines.
		v.push_back({"eci", "modelled Enzian ECI: ThunderX-1 L2 and the FPGA's directory, behavioral Fig. 5 "
				    "and CNI queue engines (pioc/sim/eci.hpp)", 0, 0, nullptr, false, open_eci_model});
		v.push_back({"nic_eci", "ECI NIC, the paper's Fig. 8(c): frames as Fig. 5(b) messages, TX as Fig. 5(a) "
					"invocations over 128-byte lines, 100G MAC loopback (behavioral model)",
			     0, 0, nullptr, false, open_eci_nic_model});
#ifdef PIOC_HAVE_RTL
		v.push_back({"coh", "modelled Enzian ECI with the Verilated coherent invocation engine (fpga/rtl/coh) "
				    "as its device side: Fig. 5a, 128-byte lines", 0, 0, nullptr, true, open_eci_rtl});
		// The Verilated RTL of the same image: every TLP drives its AXI ports.
		v.push_back({"pio", "pioc PIO test image (Verilated RTL, fpga/rtl/pio)", 0x10ee, 0x9038,
			     [] { return rtl::make_pio_rtl(); }, true});
		// The XDMA engine model in front of the Verilated VCU118 user side.
		v.push_back({"xdma", "XDMA (PG195) engine model, 1 H2C + 1 C2H: BAR0 and the engines' AXI master are the "
				     "Verilated VCU118 user side (fpga/rtl/xdma), 256 KiB card address map",
			     0x10ee, 0x903f, [] { return rtl::make_xdma_rtl(); }, true});
		// The Verilated PIO NIC: NIC core and MAC stand-in (fpga/rtl/nic).
		v.push_back({"nic_pio", "PCIe PIO NIC, the paper's Fig. 8(b) (Verilated RTL, fpga/rtl/nic, MAC loopback "
					"stand-in)", 0x10ee, 0x9048, [] { return rtl::make_nic_pio_rtl(); }, true});
		// The XDMA stream engine model in front of the Verilated DMA NIC user side.
		v.push_back({"nic_dma", "DMA NIC, the paper's Fig. 8(a): XDMA stream engine model in front of the "
					"Verilated user side (fpga/rtl/nic/nic_dma_*, MAC loopback stand-in)",
			     0x10ee, 0x9049, [] { return rtl::make_nic_dma_rtl(); }, true});
		// The Verilated ECI NIC: the coherent engine, RX/TX bridges and MAC stand-in (fpga/rtl/nic).
		v.push_back({"nic_eci", "ECI NIC, the paper's Fig. 8(c) (Verilated RTL, fpga/rtl/nic/nic_eci_top.sv: coherent "
					"engine, RX/TX bridges, MAC loopback stand-in) behind the modelled Enzian",
			     0, 0, nullptr, true, open_eci_nic_rtl});
		v.push_back({"nic_eci_lines", "the same ECI NIC image with its banks pins low: every frame line by line "
					      "(FEATURES 0), as the images before the data banks",
			     0, 0, nullptr, true, open_eci_nic_rtl_lines});
#endif
		return v;
	}();
	return devs;
}

device_info sim_device_info(const sim_device_entry &e)
{
	device_info d;
	d.spec = (e.rtl ? "rtl:" : "sim:") + e.name;
	d.vendor = e.vendor;
	d.device = e.device;
	d.description = e.description;
	d.transport = e.rtl ? "rtl" : "sim";
	d.simulated = true;
	if (!e.make)
		return d;
	auto model = e.make();
	for (unsigned b = 0; b < 6; ++b)
		if (std::uint64_t sz = model->bar_size(b))
			d.bars.push_back({b, sz, 0, false, true, false});
	return d;
}

namespace {

class sim_transport final : public transport {
public:
	sim_transport(device_info info, std::unique_ptr<sim::target> model, sim::link_timing t)
		: info_(std::move(info)),
		  link_(std::make_shared<sim::pcie_link>(std::move(model), std::move(t)))
	{
		const auto &lt = link_->timing();
		info_.link.gen = lt.generation();
		info_.link.width = lt.lanes;
		info_.link.max_gen = info_.link.gen;
		info_.link.max_width = lt.lanes;
		info_.link.mps = 256;
		info_.link.mrrs = 512;
	}

	std::string_view name() const noexcept override { return info_.transport; }
	bool simulated() const noexcept override { return true; }
	const device_info &info() const noexcept override { return info_; }
	sim::pcie_link *sim_link() noexcept override { return link_.get(); }

	region map_bar(unsigned bar, mem_type t) override
	{
		const std::uint64_t size = link_->device().bar_size(bar);
		if (!size)
			throw error(errc::not_found, fmt::format("{}: BAR{} does not exist", info_.spec, bar));
		if (t == mem_type::wb)
			throw error(errc::not_supported,
				    fmt::format("{}: BAR{}: memory type wb is not allowed on PCIe device memory "
						"(use uc, wc or wt)", info_.spec, bar));
		// The simulated CPU moves 16 bytes per wide access unless told
		// otherwise: the width both the PC and ThunderX-1 read with (Sec. 4).
		unsigned wide = 16;
		if (const char *w = std::getenv("PIOC_SIM_WIDE"))
			wide = static_cast<unsigned>(std::strtoul(w, nullptr, 0));
		if (wide != 8 && wide != 16 && wide != 32 && wide != 64)
			throw error(errc::invalid_argument,
				    fmt::format("PIOC_SIM_WIDE={}: must be 8, 16, 32 or 64", wide));
		return region(fmt::format("{} BAR{} ({})", info_.spec, bar, to_string(t)),
			      sim_io(link_.get(), bar, 0, size, t, wide), link_);
	}

	/** The model's MSI-X vector @p vector, delivered to an eventfd of ours;
	 *  dropping the owner unbinds it and closes the eventfd. */
	interrupt_fd interrupt(unsigned vector) override
	{
		if (!link_->device().delivers_msix())
			return {};
		const int fd = ::eventfd(0, EFD_CLOEXEC); // blocking: io_uring reads on it must wait
		if (fd < 0)
			throw_os_error(fmt::format("{}: eventfd for MSI-X vector {}", info_.spec, vector), errno);
		link_->device().bind_vector(vector, fd);
		return {fd, std::shared_ptr<void>(link_.get(), [link = link_, vector, fd](void *) {
				link->device().bind_vector(vector, -1);
				::close(fd);
			})};
	}
	void function_reset() override { link_->device().function_reset(); }
	std::uint64_t card_memory_size() const noexcept override { return link_->device().card_memory_size(); }

	dma_buffer alloc_dma(std::size_t size) override
	{
		if (size == 0 || size > (std::size_t(1) << 30))
			throw error(errc::invalid_argument,
				    fmt::format("{}: DMA buffer of {} bytes: size must be 1 byte..1 GiB", info_.spec, size));
		const std::size_t rounded = (size + 4095) & ~std::size_t(4095);
		// Populated at once, as the module's DMA buffers are (pinned):
		// faulting its pages in one by one at first touch cost the DMA NIC's
		// two 600 KiB rings about 0.6 ms of CPU (2 us a page on a VM),
		// more than the whole open of sim:nic_dma otherwise.
		void *p = ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				 -1, 0);
		if (p == MAP_FAILED)
			throw std::bad_alloc();
		// The bus address comes from the simulated host memory registry (an
		// IOVA, not the CPU address): device models reach the buffer only
		// through it, and forget it when the last copy of the buffer goes.
		const std::uint64_t bus = sim::host_memory::instance().add(p, rounded);
		return dma_buffer{p, bus, size, std::shared_ptr<void>(p, [bus, rounded](void *q) {
					  sim::host_memory::instance().remove(bus);
					  ::munmap(q, rounded);
				  })};
	}

private:
	device_info info_;
	std::shared_ptr<sim::pcie_link> link_;
};

} // namespace

std::shared_ptr<transport> open_sim(const sim_device_entry &e, const std::string &timing_preset)
{
	auto info = sim_device_info(e);
	if (e.open_coherent)
		return e.open_coherent(std::move(info));
	auto timing = sim::link_timing::preset_named(timing_preset);
	log().info("opening {} with link timing {}", info.spec, timing.preset);
	return std::make_shared<sim_transport>(std::move(info), e.make(), std::move(timing));
}

} // namespace pioc::detail
