// Configuration space of a served function (PCI Local Bus 3.0 ch. 6, PCIe
// Base 4.0 sec. 7.5.3 for the PCI Express capability, 7.7.2 for MSI-X).
#include "vfio_user/pci_config.hpp"

#include <pioc/error.hpp>

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace pioc::vfio_user {

namespace {
constexpr unsigned pcie_cap_bytes = 0x3c; // PCIe capability version 2, endpoint
} // namespace

pci_config::pci_config(const pci_identity &id) : id_(id)
{
	for (unsigned b = 0; b < 6; ++b) {
		const std::uint64_t s = id.bar_sizes[b];
		if (s && (!std::has_single_bit(s) || s < 16 || s > (std::uint64_t(1) << 31)))
			throw error(errc::invalid_argument,
				    fmt::format("pci_config: BAR{} size {:#x}: must be a power of two, 16 B..2 GiB", b, s));
	}
	if (id.msix) {
		const auto &m = *id.msix;
		const std::uint64_t bs = m.bar < 6 ? id.bar_sizes[m.bar] : 0;
		if (m.vectors < 1 || m.vectors > 2048 || !bs || m.table_offset % 8 || m.pba_offset % 8 ||
		    m.table_offset + 16ull * m.vectors > bs || m.pba_offset + 8ull * ((m.vectors + 63) / 64) > bs)
			throw error(errc::invalid_argument,
				    fmt::format("pci_config: MSI-X table ({} vectors at BAR{} {:#x}, PBA {:#x}) does not fit",
						m.vectors, m.bar, m.table_offset, m.pba_offset));
	}
	build();
}

void pci_config::put16(unsigned off, std::uint16_t v) noexcept
{
	bytes_[off] = std::uint8_t(v);
	bytes_[off + 1] = std::uint8_t(v >> 8);
}

void pci_config::put32(unsigned off, std::uint32_t v) noexcept
{
	put16(off, std::uint16_t(v));
	put16(off + 2, std::uint16_t(v >> 16));
}

void pci_config::build()
{
	bytes_.fill(0);
	writable_.fill(0);
	auto writable16 = [&](unsigned off, std::uint16_t m) {
		writable_[off] = std::uint8_t(m);
		writable_[off + 1] = std::uint8_t(m >> 8);
	};
	auto writable32 = [&](unsigned off, std::uint32_t m) {
		writable16(off, std::uint16_t(m));
		writable16(off + 2, std::uint16_t(m >> 16));
	};
	put16(0x00, id_.vendor);
	put16(0x02, id_.device);
	writable16(0x04, 0x0547); // I/O, memory, bus master, parity, SERR#, INTx disable
	put16(0x06, 0x0010);      // capabilities list
	put32(0x08, id_.class_code << 8 | id_.revision);
	bytes_[0x0e] = 0x00;      // type 0, single function
	for (unsigned b = 0; b < 6; ++b)
		if (const std::uint64_t s = id_.bar_sizes[b]) {
			writable32(0x10 + 4 * b, ~std::uint32_t(s - 1) & ~0xfu); // 32-bit memory BAR
			if (id_.prefetchable[b])
				bytes_[0x10 + 4 * b] = 0x08;
		}
	put16(0x2c, id_.subsystem_vendor ? id_.subsystem_vendor : id_.vendor);
	put16(0x2e, id_.subsystem ? id_.subsystem : id_.device);
	writable_[0x3c] = 0xff;   // interrupt line
	bytes_[0x3d] = id_.msix ? 1 : 0; // INTA# only on functions that interrupt at all

	// PCI Express capability: endpoint, link at its maximum.
	const bool msix_cap = id_.msix && id_.msix_capability;
	const unsigned next_after_pcie = msix_cap ? cap_msix : 0;
	bytes_[0x34] = std::uint8_t(id_.msix ? cap_msi : cap_pcie);
	const unsigned p = cap_pcie;
	bytes_[p] = 0x10;
	bytes_[p + 1] = std::uint8_t(next_after_pcie);
	put16(p + 2, 0x0002);                           // version 2, PCI Express endpoint
	const unsigned mps_code = unsigned(std::countr_zero(id_.mps) - 7); // 128 -> 0
	put32(p + 4, mps_code | 1u << 28);              // MPS supported, function-level reset
	put16(p + 8, 0x2000 | std::uint16_t(mps_code << 5) | 0x10); // MRRS 512, MPS, relaxed ordering
	writable16(p + 8, 0x7fff);
	put32(p + 12, id_.link_gen | id_.link_width << 4); // max speed/width
	writable16(p + 16, 0x0fc3);                      // link control: ASPM, RCB, clock, ...
	put16(p + 18, std::uint16_t(id_.link_gen | id_.link_width << 4)); // current speed/width
	put32(p + 44, ((1u << id_.link_gen) - 1) << 1); // link caps 2: supported speeds vector
	static_assert(cap_pcie + pcie_cap_bytes <= cap_msix);

	if (id_.msix) {
		// MSI: 64-bit address, as many vectors as MSI-X (a power of two up to 32).
		const unsigned msi_vec = id_.msix->vectors >= 32 ? 32 : std::bit_floor(id_.msix->vectors);
		bytes_[cap_msi] = 0x05;
		bytes_[cap_msi + 1] = std::uint8_t(cap_pcie);
		put16(cap_msi + 2, std::uint16_t(0x80 | std::countr_zero(msi_vec) << 1));
		writable16(cap_msi + 2, 0x0071);   // enable, multiple message enable
		writable32(cap_msi + 4, 0xfffffffc);
		writable32(cap_msi + 8, 0xffffffff);
		writable16(cap_msi + 12, 0xffff);
	}
	if (msix_cap) {
		const auto &m = *id_.msix;
		bytes_[cap_msix] = 0x11;
		bytes_[cap_msix + 1] = 0;
		put16(cap_msix + 2, std::uint16_t(m.vectors - 1));
		writable16(cap_msix + 2, 0xc000);  // enable, function mask
		put32(cap_msix + 4, m.table_offset | m.bar);
		put32(cap_msix + 8, m.pba_offset | m.bar);
	}
	// 0x100: no extended capabilities (a zero header ends the list).
}

void pci_config::reset()
{
	build();
}

void pci_config::read(std::uint32_t off, void *out, std::size_t len) const
{
	if (off > size || len > size - off)
		throw error(errc::out_of_range, fmt::format("config read of {} bytes at {:#x}", len, off));
	std::memcpy(out, bytes_.data() + off, len);
}

void pci_config::write(std::uint32_t off, const void *in, std::size_t len)
{
	if (off > size || len > size - off)
		throw error(errc::out_of_range, fmt::format("config write of {} bytes at {:#x}", len, off));
	const auto *src = static_cast<const std::uint8_t *>(in);
	for (std::size_t i = 0; i < len; ++i) {
		const std::uint8_t m = writable_[off + i];
		bytes_[off + i] = std::uint8_t((bytes_[off + i] & ~m) | (src[i] & m));
	}
}

bool pci_config::msix_enabled() const noexcept
{
	return id_.msix && id_.msix_capability && (u16(cap_msix + 2) & 0x8000);
}

bool pci_config::msi_enabled() const noexcept
{
	return id_.msix && (u16(cap_msi + 2) & 0x1);
}

} // namespace pioc::vfio_user
