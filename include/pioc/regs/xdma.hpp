/** @file
 * The AMD/Xilinx XDMA (DMA/Bridge Subsystem for PCIe, PG195) register map and
 * descriptor format: the one source for the driver (lib/xdma) and the engine
 * model (lib/sim/xdma). Facts from shared/reference/xdma.md.
 *
 * Config BAR address: [15:12] target, [11:8] channel, [7:0] byte offset.
 * 32-bit little-endian registers, whole-DWORD access only.
 */
#pragma once

#include <cstdint>

namespace pioc::regs::xdma {

// ---- blocks -------------------------------------------------------------
constexpr unsigned max_channels = 4;          ///< per direction
constexpr std::uint64_t min_bar_size = 32768; ///< a config BAR is at least 32 KiB
constexpr std::uint32_t target_h2c = 0x0, target_c2h = 0x1, target_irq = 0x2, target_config = 0x3,
			target_h2c_sgdma = 0x4, target_c2h_sgdma = 0x5, target_sgdma_common = 0x6,
			target_msix = 0x8;

constexpr std::uint64_t block(std::uint32_t target, unsigned ch = 0) noexcept
{
	return (std::uint64_t(target) << 12) | (std::uint64_t(ch) << 8);
}
constexpr std::uint64_t engine_base(bool c2h, unsigned ch) noexcept { return block(c2h ? target_c2h : target_h2c, ch); }
constexpr std::uint64_t sgdma_base(bool c2h, unsigned ch) noexcept
{
	return block(c2h ? target_c2h_sgdma : target_h2c_sgdma, ch);
}
constexpr std::uint64_t irq_base = block(target_irq);
constexpr std::uint64_t config_base = block(target_config);
constexpr std::uint64_t sgdma_common_base = block(target_sgdma_common);
constexpr std::uint64_t msix_base = block(target_msix);
constexpr std::uint64_t msix_pba = 0x8FE0;

// ---- identifier (+0x00 of every block) ---------------------------------
constexpr std::uint32_t id_subsystem = 0x1FC; ///< [31:20]
constexpr std::uint32_t id_make(std::uint32_t target, bool stream, unsigned ch, unsigned version) noexcept
{
	return (id_subsystem << 20) | (target << 16) | (stream ? 1u << 15 : 0u) | (ch << 8) | (version & 0xff);
}
constexpr std::uint32_t id_sub(std::uint32_t v) noexcept { return v >> 20; }
constexpr std::uint32_t id_target(std::uint32_t v) noexcept { return (v >> 16) & 0xf; }
constexpr bool id_stream(std::uint32_t v) noexcept { return (v >> 15) & 1; }
constexpr unsigned id_channel(std::uint32_t v) noexcept { return (v >> 8) & 0xf; }
constexpr unsigned id_version(std::uint32_t v) noexcept { return v & 0xff; }
constexpr bool id_is(std::uint32_t v, std::uint32_t target) noexcept
{
	return id_sub(v) == id_subsystem && id_target(v) == target;
}

// ---- engine registers (offset from engine_base) ------------------------
constexpr std::uint64_t ENG_ID = 0x00;
constexpr std::uint64_t ENG_CTRL = 0x04, ENG_CTRL_W1S = 0x08, ENG_CTRL_W1C = 0x0C;
constexpr std::uint64_t ENG_STATUS = 0x40;    ///< RW1C
constexpr std::uint64_t ENG_STATUS_RC = 0x44; ///< read clears (and so ends the interrupt source)
constexpr std::uint64_t ENG_COMPLETED = 0x48; ///< completed descriptors since the last run
constexpr std::uint64_t ENG_ALIGN = 0x4C;     ///< [23:16] addr align, [15:8] len granularity, [7:0] addr bits
constexpr std::uint64_t ENG_WB_LO = 0x88, ENG_WB_HI = 0x8C;
constexpr std::uint64_t ENG_IRQ_MASK = 0x90, ENG_IRQ_MASK_W1S = 0x94, ENG_IRQ_MASK_W1C = 0x98;
constexpr std::uint64_t ENG_PERF_CTRL = 0xC0, ENG_PERF_CYC_LO = 0xC4, ENG_PERF_CYC_HI = 0xC8,
			ENG_PERF_DATA_LO = 0xCC, ENG_PERF_DATA_HI = 0xD0;

constexpr unsigned align_addr(std::uint32_t v) noexcept { return (v >> 16) & 0xff; }
constexpr unsigned align_len(std::uint32_t v) noexcept { return (v >> 8) & 0xff; }
constexpr unsigned align_bits(std::uint32_t v) noexcept { return v & 0xff; }

// Control bits; the interrupt-enable mask uses the same positions.
constexpr std::uint32_t CTRL_RUN = 1u << 0;
constexpr std::uint32_t IE_DESC_STOPPED = 1u << 1;
constexpr std::uint32_t IE_DESC_COMPLETED = 1u << 2;
constexpr std::uint32_t IE_ALIGN_MISMATCH = 1u << 3;
constexpr std::uint32_t IE_MAGIC_STOPPED = 1u << 4;
constexpr std::uint32_t IE_INVALID_LENGTH = 1u << 5;
constexpr std::uint32_t IE_IDLE_STOPPED = 1u << 6;
constexpr std::uint32_t IE_READ_ERROR = 0x1fu << 9;
constexpr std::uint32_t IE_WRITE_ERROR = 0x1fu << 14;
constexpr std::uint32_t IE_DESC_ERROR = 0x1fu << 19;
constexpr std::uint32_t CTRL_NON_INCR_ADDR = 1u << 25;
constexpr std::uint32_t CTRL_POLL_WB = 1u << 26;

// Status bits.
constexpr std::uint32_t ST_BUSY = 1u << 0;
constexpr std::uint32_t ST_DESC_STOPPED = 1u << 1;
constexpr std::uint32_t ST_DESC_COMPLETED = 1u << 2;
constexpr std::uint32_t ST_ALIGN_MISMATCH = 1u << 3;
constexpr std::uint32_t ST_MAGIC_STOPPED = 1u << 4;
constexpr std::uint32_t ST_INVALID_LENGTH = 1u << 5;
constexpr std::uint32_t ST_IDLE_STOPPED = 1u << 6;
constexpr unsigned ST_READ_ERROR_SHIFT = 9, ST_WRITE_ERROR_SHIFT = 14, ST_DESC_ERROR_SHIFT = 19;
constexpr std::uint32_t ST_READ_ERROR = 0x1fu << ST_READ_ERROR_SHIFT;
constexpr std::uint32_t ST_WRITE_ERROR = 0x1fu << ST_WRITE_ERROR_SHIFT;
constexpr std::uint32_t ST_DESC_ERROR = 0x1fu << ST_DESC_ERROR_SHIFT;
/** Sub-codes of read_error / desc_error when the failing side is PCIe
 *  (PG195 "H2C Channel Status (0x40)": H2C read_error and desc_error of both
 *  directions): the completion status the host returned. */
constexpr std::uint32_t ERR_UR = 1u << 0;       ///< unsupported request
constexpr std::uint32_t ERR_CA = 1u << 1;       ///< completer abort
constexpr std::uint32_t ERR_PARITY = 1u << 2;   ///< parity error
constexpr std::uint32_t ERR_HEADER_EP = 1u << 3; ///< poisoned TLP header (EP)
constexpr std::uint32_t ERR_UNEXP_CPL = 1u << 4; ///< unexpected completion
/** Sub-codes when the failing side is the card's AXI bus (PG195: H2C
 *  write_error, C2H read_error): the AXI response; bits 4:2 reserved. */
constexpr std::uint32_t ERR_DECODE = 1u << 0; ///< AXI DECERR: no slave at that address
constexpr std::uint32_t ERR_SLAVE = 1u << 1;  ///< AXI SLVERR: the slave refused
/** Control / interrupt-enable / status bits an engine of that direction has:
 *  C2H has no write_error field (PG195 "C2H Channel Control (0x04)", "C2H
 *  Channel Status (0x40)"); a write there reads back 0. */
constexpr std::uint32_t CTRL_BITS_H2C = 0x06fffe7fu; // 6:0, 23:9, 26:25
constexpr std::uint32_t CTRL_BITS_C2H = CTRL_BITS_H2C & ~IE_WRITE_ERROR;
constexpr std::uint32_t ctrl_bits(bool c2h) noexcept { return c2h ? CTRL_BITS_C2H : CTRL_BITS_H2C; }
/** Every status bit that means the run failed. */
constexpr std::uint32_t ST_ERRORS = ST_ALIGN_MISMATCH | ST_MAGIC_STOPPED | ST_INVALID_LENGTH | ST_READ_ERROR |
				    ST_WRITE_ERROR | ST_DESC_ERROR;

// ---- SGDMA registers (offset from sgdma_base) --------------------------
constexpr std::uint64_t SG_ID = 0x00;
constexpr std::uint64_t SG_DESC_LO = 0x80, SG_DESC_HI = 0x84;
constexpr std::uint64_t SG_DESC_ADJ = 0x88;     ///< extra contiguous descriptors after the first
constexpr std::uint64_t SG_DESC_CREDITS = 0x8C; ///< stream C2H credit mode only

// ---- SGDMA common block (offset from sgdma_common_base) -----------------
/** Descriptor credit mode enable (PG195 "SGDMA Descriptor Credit Mode Enable
 *  (0x20)", W1S 0x24, W1C 0x28): bit ch for H2C channel ch, bit 16 + ch for
 *  C2H. An enabled engine fetches only as many descriptors as it was given
 *  credits through its SG_DESC_CREDITS register (writes add, [9:0]; the
 *  credits clear when run falls or the mode is disabled). */
constexpr std::uint64_t SGC_CREDIT_MODE = 0x20, SGC_CREDIT_MODE_W1S = 0x24, SGC_CREDIT_MODE_W1C = 0x28;
constexpr unsigned credit_mode_bit(bool c2h, unsigned ch) noexcept { return c2h ? 16 + ch : ch; }
constexpr std::uint32_t SG_CREDITS_MASK = 0x3ff;

// ---- IRQ block (offset from irq_base) ----------------------------------
constexpr std::uint64_t IRQ_ID = 0x00;
constexpr std::uint64_t IRQ_USER_EN = 0x04, IRQ_USER_EN_W1S = 0x08, IRQ_USER_EN_W1C = 0x0C;
constexpr std::uint64_t IRQ_CHAN_EN = 0x10, IRQ_CHAN_EN_W1S = 0x14, IRQ_CHAN_EN_W1C = 0x18;
constexpr std::uint64_t IRQ_USER_REQ = 0x40, IRQ_CHAN_REQ = 0x44;
constexpr std::uint64_t IRQ_USER_PENDING = 0x48, IRQ_CHAN_PENDING = 0x4C;
constexpr std::uint64_t IRQ_USER_VEC = 0x80;  ///< 0x80..0x8C, 4 vectors per DWORD
constexpr std::uint64_t IRQ_CHAN_VEC = 0xA0;  ///< 0xA0..0xA4
/** Channel interrupt bit: H2C channels first, then C2H (bit = h2c_count + ch). */
constexpr unsigned chan_irq_bit(bool c2h, unsigned ch, unsigned h2c_count) noexcept
{
	return c2h ? h2c_count + ch : ch;
}

// ---- config block (offset from config_base) ----------------------------
/** CFG_MSI_EN (read-only): which interrupt kind the host enabled in the
 *  function's PCI config space (PG195 "Config Block MSI Enable (0x14)"). */
constexpr std::uint32_t CFG_MSI_ENABLED = 1u << 0, CFG_MSIX_ENABLED = 1u << 1;
constexpr std::uint64_t CFG_ID = 0x00, CFG_BDF = 0x04, CFG_MPS = 0x08, CFG_MRRS = 0x0C, CFG_MSI_EN = 0x14,
			CFG_DATA_WIDTH = 0x18, CFG_AXI_MPS = 0x40, CFG_AXI_MRRS = 0x44;
/** 3-bit size code: 0 = 128 ... 5 = 4096. */
constexpr unsigned size_from_code(std::uint32_t c) noexcept { return 128u << (c & 7); }
constexpr std::uint32_t code_from_size(unsigned bytes) noexcept
{
	std::uint32_t c = 0;
	while ((128u << c) < bytes && c < 5)
		++c;
	return c;
}

// ---- descriptors (32 bytes, little-endian, in host memory) -------------
constexpr std::uint32_t DESC_MAGIC = 0xAD4B;
constexpr std::uint32_t DESC_STOP = 1u << 0;
constexpr std::uint32_t DESC_COMPLETED = 1u << 1;
constexpr std::uint32_t DESC_EOP = 1u << 4;
constexpr unsigned DESC_ADJ_SHIFT = 8;
constexpr std::uint32_t DESC_ADJ_MASK = 0x3f;
constexpr std::uint32_t DESC_MAX_LEN = (1u << 28) - 1;
constexpr unsigned DESC_MAX_BLOCK = 64;   ///< descriptors fetched in one burst
constexpr std::uint64_t DESC_BLOCK_BOUNDARY = 4096;

struct descriptor {
	std::uint32_t control; ///< [31:16] magic, [13:8] Nxt_adj, [7:0] flags
	std::uint32_t length;  ///< [27:0]
	std::uint32_t src_lo, src_hi;
	std::uint32_t dst_lo, dst_hi;
	std::uint32_t next_lo, next_hi;
};
static_assert(sizeof(descriptor) == 32);

constexpr std::uint32_t desc_magic(std::uint32_t control) noexcept { return control >> 16; }
constexpr unsigned desc_adj(std::uint32_t control) noexcept { return (control >> DESC_ADJ_SHIFT) & DESC_ADJ_MASK; }

// ---- AXI4-Stream engines (PG195 "DMA H2C Stream", "DMA C2H Stream") ------
/** C2H stream: a descriptor's source address is the bus address of the
 *  32-byte result record the engine writes when the descriptor is filled or
 *  closed by the end of a packet (the Xilinx driver's struct xdma_result). */
struct c2h_result {
	std::uint32_t status; ///< [31:16] C2H_RESULT_MAGIC, [0] EOP
	std::uint32_t length; ///< bytes written to this descriptor's buffer
	std::uint32_t reserved[6];
};
static_assert(sizeof(c2h_result) == 32);
constexpr std::uint32_t C2H_RESULT_MAGIC = 0x52B4;
constexpr std::uint32_t C2H_RESULT_EOP = 1u << 0;
constexpr bool result_valid(std::uint32_t status) noexcept { return (status >> 16) == C2H_RESULT_MAGIC; }
/** PG195: the length of a C2H stream descriptor (its buffer) is a multiple
 *  of 64 bytes. */
constexpr std::uint32_t C2H_STREAM_LEN_MULTIPLE = 64;
/** Stream data path width in bytes from the config block's CFG_DATA_WIDTH
 *  code (0: 64 bit ... 3: 512 bit). H2C packs data per descriptor: a
 *  descriptor inside a packet (no EOP) whose length is not a multiple of it
 *  ends in a partial beat (tkeep not all ones) in the middle of the packet. */
constexpr unsigned stream_beat_bytes(std::uint32_t data_width_code) noexcept { return 8u << (data_width_code & 3); }

// ---- poll-mode write-back ---------------------------------------------
constexpr std::uint32_t WB_COUNT_MASK = 0xffffff;
constexpr std::uint32_t WB_ERROR = 1u << 31;

} // namespace pioc::regs::xdma
