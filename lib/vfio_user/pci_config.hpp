// The PCI configuration space pioc-devd presents for a served model: type-0
// header, BARs with sizing, and the capabilities the real function has
// (PCI Express with the modelled link, MSI and MSI-X pointing at the model's
// table), so the guest's PCI core and pioc.ko see what they see on a board.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace pioc::vfio_user {

/** Where the function's MSI-X table and PBA live (in one of its BARs). */
struct msix_layout {
	unsigned bar;
	std::uint32_t table_offset, pba_offset;
	unsigned vectors; ///< 1..2048
};

/** What the configuration space says about the function. */
struct pci_identity {
	std::uint16_t vendor = 0, device = 0, subsystem_vendor = 0, subsystem = 0;
	std::uint32_t class_code = 0x120000; ///< processing accelerator
	std::uint8_t revision = 0;
	std::array<std::uint64_t, 6> bar_sizes{}; ///< 0: no BAR; else a power of two >= 16
	std::array<bool, 6> prefetchable{};       ///< memory the CPU may map write-combining
	std::optional<msix_layout> msix;          ///< no MSI-X (and no MSI, no INTx) if unset
	/** false: MSI and INTx only. The table stays in its BAR, but no
	 *  capability points at it, so the guest never uses MSI-X (pioc-devd
	 *  --no-msix: QEMU 11.1's client aborts unplugging a function with
	 *  MSI-X; Documentation/cosim.md). */
	bool msix_capability = true;
	unsigned link_gen = 3, link_width = 16;   ///< PCIe capability: current = maximum
	unsigned mps = 256;                       ///< max payload supported
};

class pci_config {
public:
	static constexpr std::size_t size = 4096;
	// Where the capabilities are (fixed: tests and docs name them).
	static constexpr unsigned cap_msi = 0x50, cap_pcie = 0x70, cap_msix = 0xb0;

	/** Builds the space; throws pioc::error(invalid_argument) for a BAR size
	 *  that is not a power of two or an MSI-X table outside its BAR. */
	explicit pci_config(const pci_identity &id);

	/** Config read of @p len bytes at @p off (any length/alignment inside the space). */
	void read(std::uint32_t off, void *out, std::size_t len) const;
	/** Config write: only the bits a real function lets software change
	 *  take effect (command, BARs as sized, interrupt line, MSI/MSI-X control
	 *  and message fields, PCIe device control); the rest are read-only. */
	void write(std::uint32_t off, const void *in, std::size_t len);

	/** Back to power-on values (function reset). */
	void reset();

	bool memory_enabled() const noexcept { return (u16(0x04) & 0x2) != 0; }
	bool bus_master() const noexcept { return (u16(0x04) & 0x4) != 0; }
	bool msix_enabled() const noexcept;
	bool msi_enabled() const noexcept;
	const pci_identity &identity() const noexcept { return id_; }

private:
	std::uint16_t u16(unsigned off) const noexcept { return std::uint16_t(bytes_[off] | bytes_[off + 1] << 8); }
	void put16(unsigned off, std::uint16_t v) noexcept;
	void put32(unsigned off, std::uint32_t v) noexcept;
	void build();

	pci_identity id_;
	std::array<std::uint8_t, size> bytes_{};
	std::array<std::uint8_t, size> writable_{}; ///< per byte: bits software may change
};

} // namespace pioc::vfio_user
