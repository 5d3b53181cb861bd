/** @file
 * Simulated host memory as a device sees it: a registry of DMA buffers by bus
 * address. The sim transport registers every buffer it hands out (with a bus
 * address distinct from the CPU address, as an IOMMU would give), and device
 * models reach host memory only through this registry, so a bad bus address
 * becomes an unsupported request the model reports, not a segfault, and a
 * driver that hands the device a CPU pointer is caught.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace pioc::sim {

class host_memory {
public:
	/** Memory the device reaches only through its owner, not by pointer (a
	 *  vfio-user client's region without a descriptor: DMA_READ/DMA_WRITE
	 *  messages). Called outside the registry's lock; false is a failed
	 *  access, reported as for an unknown range. */
	class remote {
	public:
		virtual bool read(std::uint64_t bus, void *dst, std::size_t n) noexcept = 0;
		virtual bool write(std::uint64_t bus, const void *src, std::size_t n) noexcept = 0;

	protected:
		~remote() = default;
	};

	/** The process-wide registry. */
	static host_memory &instance();

	/** Registers [cpu, cpu+size) and returns its bus address (4 KiB aligned,
	 *  above 4 GiB, with unmapped guard space between buffers). */
	std::uint64_t add(void *cpu, std::size_t size);
	/** Registers [cpu, cpu+size) at bus address @p bus, as a device server does
	 *  for guest memory mapped at its IOVA; false if it overlaps a registered range. */
	bool add_at(std::uint64_t bus, void *cpu, std::size_t size);
	/** Registers [bus, bus+size) as reachable only through @p owner (kept,
	 *  not owned); translate() gives nullptr there, read() and write() go to
	 *  @p owner. false if it overlaps a registered range. */
	bool add_remote_at(std::uint64_t bus, std::size_t size, remote *owner);
	/** Forgets the buffer at bus address @p bus. */
	void remove(std::uint64_t bus) noexcept;

	/** CPU address of [bus, bus+n) if it lies inside one registered buffer, else nullptr. */
	void *translate(std::uint64_t bus, std::size_t n) const noexcept;
	/** Device read of host memory, across adjacent registered ranges (a
	 *  guest IOMMU hands a server one contiguous IOVA range as several
	 *  mappings); false (nothing copied) if a byte hits no range, false
	 *  after the pieces before it if a remote access fails. */
	bool read(std::uint64_t bus, void *dst, std::size_t n) const noexcept;
	/** Device write of host memory, as read(). */
	bool write(std::uint64_t bus, const void *src, std::size_t n) noexcept;

	std::size_t buffers() const noexcept;

private:
	struct range {
		std::uint8_t *cpu; ///< nullptr: a remote range
		std::size_t size;
		remote *owner = nullptr;
	};
	using entry = std::pair<const std::uint64_t, range>;
	bool insert(std::uint64_t bus, const range &r);
	/** The registered range holding all of [bus, bus+n), else nullptr; mu_ held. */
	const entry *find(std::uint64_t bus, std::size_t n) const noexcept;
	const entry *find_in_tree(std::uint64_t bus, std::size_t n) const noexcept;
	/** The part of [bus, bus+n) inside the range holding @p bus: its CPU
	 *  address (nullptr for a remote range), owner and length (0: none). */
	struct piece {
		std::uint8_t *cpu = nullptr;
		remote *owner = nullptr;
		std::size_t len = 0;
	};
	piece piece_at(std::uint64_t bus, std::size_t n) const noexcept;
	/** Whether registered ranges cover every byte of [bus, bus+n). */
	bool covered(std::uint64_t bus, std::size_t n) const noexcept;
	mutable std::mutex mu_;
	std::map<std::uint64_t, range> by_bus_;
	/** The ranges find() returned last (map nodes stay put until removed):
	 *  a model's DMA goes to a few buffers over and over (a NIC's two
	 *  rings and the write-back words), the tree walk was a tenth of a
	 *  sim:nic_dma run's instructions. Emptied by remove(); mu_ held. */
	mutable std::array<const entry *, 4> recent_{};
	mutable unsigned recent_next_ = 0;
	std::uint64_t next_bus_ = 0x1'0000'0000ull;
};

} // namespace pioc::sim
