/** @file
 * The PCIe bandwidth model of pcie-bench (Neugebauer et al., SIGCOMM 2018),
 * as specified in shared/reference/pcie-model.md.
 *
 * Given a link (generation, lanes) and the negotiated parameters (MPS, MRRS,
 * RCB, address width, ECRC) it computes the raw bandwidth, the bandwidth left
 * at the TLP layer after ACK/flow-control DLLPs and SKP ordered sets, and the
 * effective bandwidth of DMA writes, reads and simultaneous reads+writes of
 * a given transfer size. Bandwidths are in Gb/s (10^9 bit/s), unrounded.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pioc::pcie_model {

/** Link and negotiated parameters. */
struct params {
	unsigned gen = 3;        ///< 1..7 (6 and 7 are a rough guess: 242/256 encoding, gen5 tables)
	unsigned lanes = 8;      ///< 1, 2, 4, 8, 16, 32
	unsigned mps = 256;      ///< max payload size, bytes: 128..4096, power of two
	unsigned mrrs = 512;     ///< max read request size, bytes: 128..4096, power of two
	unsigned rcb = 64;       ///< read completion boundary, bytes: 64 or 128
	bool rcb_chunks = false; ///< completions cut at RCB instead of MPS
	unsigned addr_bits = 64; ///< 32 or 64: MWr/MRd header 8 or 12 bytes
	bool ecrc = false;       ///< a 4-byte TLP digest on every TLP

	/** Throws pioc::error (invalid_argument) naming the parameter and its allowed values. */
	void validate() const;
};

/** One transfer size. */
struct row {
	std::uint64_t size = 0;
	double write_gbps = 0;   ///< DMA writes (device -> host) only
	double read_gbps = 0;    ///< DMA reads only
	double rdwr_rx_gbps = 0; ///< reads + writes at once: read data (completions) per direction
	double rdwr_tx_gbps = 0; ///< reads + writes at once: write data
};

class model {
public:
	explicit model(const params &p);

	const params &parameters() const noexcept { return p_; }
	double gts_per_lane() const noexcept;
	double encoding() const noexcept;
	/** Symbols between ACK DLLPs and between flow-control updates (spec tables). */
	unsigned ack_limit() const noexcept { return ack_; }
	unsigned fc_update() const noexcept { return fc_; }
	double raw_gbps() const noexcept;
	double tlp_gbps() const noexcept;

	/** Per-TLP overhead in bytes (framing + common header + type header [+ ECRC]). */
	unsigned mwr_overhead() const noexcept;
	unsigned mrd_overhead() const noexcept;
	unsigned cpl_overhead() const noexcept;

	/** Bytes on the wire for S bytes of data. */
	std::uint64_t write_bytes(std::uint64_t s) const noexcept;
	std::uint64_t read_request_bytes(std::uint64_t s) const noexcept;
	std::uint64_t read_completion_bytes(std::uint64_t s) const noexcept;

	double write_gbps(std::uint64_t s) const noexcept;
	double read_gbps(std::uint64_t s) const noexcept;
	row evaluate(std::uint64_t s) const noexcept;
	std::vector<row> evaluate(const std::vector<std::uint64_t> &sizes) const;

private:
	params p_;
	unsigned ack_ = 0, fc_ = 0;
};

/** Parses "64,256,1500" (also "64-4096" doubling, "64-4096:+64" linear). Throws on junk. */
std::vector<std::uint64_t> parse_sizes(const std::string &spec);

} // namespace pioc::pcie_model
