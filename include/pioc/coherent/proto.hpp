/** @file
 * The coherence-message protocols of the paper's Fig. 5 as one family:
 * shared definitions (variants, the control word, the channel layout).
 *
 * A channel is two control lines A (index 0) and B (index 1) whose roles
 * swap after every message, plus (pipelined mode) two banks of data lines.
 * Parity p is the control line the CPU loads next; the other line (1-p) is
 * where the CPU writes its request (CPU-initiated variants). Every answer,
 * including "not ready", flips p on both sides. See Documentation/protocols.md.
 */
#pragma once

#include <pioc/enum_names.hpp>
#include <pioc/error.hpp>
#include <pioc/regs/coh_dev.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pioc::coherent {

/** Who initiates a message, and where the lines are homed (Fig. 5 a-d). */
enum class variant : std::uint8_t {
	cpu_dev = 0, ///< (a) CPU-initiated, lines homed on the device
	dev_dev = 1, ///< (b) device-initiated, lines homed on the device
	cpu_cpu = 2, ///< (c) CPU-initiated, lines homed on the CPU
	dev_cpu = 3, ///< (d) device-initiated, lines homed on the CPU
};
constexpr bool cpu_initiated(variant v) noexcept { return v == variant::cpu_dev || v == variant::cpu_cpu; }
constexpr bool device_homed(variant v) noexcept { return v == variant::cpu_dev || v == variant::dev_dev; }
/** The names of the variants (enum_names.hpp): the figure's letter first (what
 *  to_string prints), then the short and the spelled-out aliases. */
inline constexpr enum_name<variant> variant_names[] = {
	{variant::cpu_dev, "5a"}, {variant::dev_dev, "5b"}, {variant::cpu_cpu, "5c"}, {variant::dev_cpu, "5d"},
	{variant::cpu_dev, "a"},  {variant::dev_dev, "b"},  {variant::cpu_cpu, "c"},  {variant::dev_cpu, "d"},
	{variant::cpu_dev, "cpu-dev"}, {variant::dev_dev, "dev-dev"},
	{variant::cpu_cpu, "cpu-cpu"}, {variant::dev_cpu, "dev-cpu"},
};

/** "5a", "5b", "5c", "5d". */
std::string_view to_string(variant v) noexcept;
/** Accepts "5a".."5d", "a".."d", "cpu-dev", "dev-dev", "cpu-cpu", "dev-cpu". */
std::optional<variant> parse_variant(std::string_view s) noexcept;

/** The 8-byte control word at offset 0 of a control line.
 *  bit 0 valid; bits 1-3 kind; bit 4 last chunk; bits 5-15 chunk index
 *  within the message; bits 16-31 payload bytes (in this line, or of the
 *  whole message in pipelined mode); bits 32-63 sequence number. valid = 0 is the
 *  device's "not ready yet" answer (a NACK). */
enum class kind : std::uint8_t { request = 0, response = 1, not_ready = 2, ack = 3, sync = 4, sync_ack = 5, more = 6, message = 7 };

struct ctrl {
	std::uint64_t w = 0;
	static constexpr ctrl make(kind k, bool last, std::uint32_t len, std::uint32_t seq,
				   std::uint32_t chunk = 0) noexcept
	{
		return ctrl{(k == kind::not_ready ? 0u : 1u) | (std::uint64_t(k) << 1) | (std::uint64_t(last) << 4) |
			    (std::uint64_t(chunk & 0x7ff) << 5) | (std::uint64_t(len & 0xffff) << 16) |
			    (std::uint64_t(seq) << 32)};
	}
	constexpr std::uint32_t chunk() const noexcept { return static_cast<std::uint32_t>((w >> 5) & 0x7ff); }
	constexpr bool valid() const noexcept { return w & 1; }
	constexpr kind k() const noexcept { return static_cast<kind>((w >> 1) & 7); }
	constexpr bool last() const noexcept { return (w >> 4) & 1; }
	constexpr std::uint32_t len() const noexcept { return static_cast<std::uint32_t>((w >> 16) & 0xffff); }
	constexpr std::uint32_t seq() const noexcept { return static_cast<std::uint32_t>(w >> 32); }
};
inline constexpr std::uint32_t ctrl_bytes = 8;

// One wire format: the coherent engine's RTL (fpga/regmap/coh_dev.toml, the
// generated pioc/regs/coh_dev.hpp) defines the same control word.
static_assert(ctrl::make(kind::request, false, 0, 0).w == regs::coh_dev::CTRL_VALID);
static_assert(ctrl::make(kind::not_ready, false, 0, 0).w ==
	      regs::coh_dev::KIND_NOT_READY << regs::coh_dev::CTRL_KIND_SHIFT);
static_assert(ctrl::make(kind::request, true, 0, 0).w == (regs::coh_dev::CTRL_VALID | regs::coh_dev::CTRL_LAST));
static_assert(ctrl::make(kind::request, false, 0, 0, regs::coh_dev::CTRL_CHUNK_MASK).w ==
	      (regs::coh_dev::CTRL_VALID | regs::coh_dev::CTRL_CHUNK_MASK << regs::coh_dev::CTRL_CHUNK_SHIFT));
static_assert(ctrl::make(kind::request, false, 0xffff, 0).w ==
	      (regs::coh_dev::CTRL_VALID | regs::coh_dev::CTRL_LEN_MASK << regs::coh_dev::CTRL_LEN_SHIFT));
static_assert(ctrl::make(kind::request, false, 0, 0xffffffffu).w ==
	      (regs::coh_dev::CTRL_VALID | 0xffffffffull << regs::coh_dev::CTRL_SEQ_SHIFT));
static_assert(ctrl{regs::coh_dev::CTRL_KIND_MASK << regs::coh_dev::CTRL_KIND_SHIFT}.k() == kind(regs::coh_dev::CTRL_KIND_MASK));
static_assert(std::uint64_t(kind::request) == regs::coh_dev::KIND_REQUEST &&
	      std::uint64_t(kind::response) == regs::coh_dev::KIND_RESPONSE &&
	      std::uint64_t(kind::not_ready) == regs::coh_dev::KIND_NOT_READY &&
	      std::uint64_t(kind::ack) == regs::coh_dev::KIND_ACK && std::uint64_t(kind::sync) == regs::coh_dev::KIND_SYNC &&
	      std::uint64_t(kind::sync_ack) == regs::coh_dev::KIND_SYNC_ACK &&
	      std::uint64_t(kind::more) == regs::coh_dev::KIND_MORE &&
	      std::uint64_t(kind::message) == regs::coh_dev::KIND_MESSAGE);
static_assert(ctrl_bytes == regs::coh_dev::PAYLOAD_OFF && 128 - ctrl_bytes == regs::coh_dev::PAYLOAD_MAX);
/** Chunk index that marks a pipelined message (whole message in one exchange). */
inline constexpr std::uint32_t pipelined_chunk = 0x7ff;

/** Largest message (request or response) of one call. */
inline constexpr std::uint32_t max_message = 16384;

/** Where one channel's lines are, as offsets from the window's base.
 *  Control A at base, B at base + line; data line i of bank b at
 *  base + (2 + 2 i + b) * line. Consecutive lines land in different TADs
 *  (ThunderX-1 spreads lines over TADs by line index), so A and B, and the
 *  lines of one bank, never share a TAD unit as long as tads >= 2. */
struct layout {
	std::uint64_t base = 0;        ///< channel's first byte in the window
	std::uint32_t line = 128;      ///< cache-line size
	std::uint32_t data_lines = 0;  ///< data lines per bank (pipelined mode), 0 = none

	std::uint64_t ctrl_off(unsigned which) const noexcept { return base + std::uint64_t(which) * line; }
	std::uint64_t data_off(unsigned bank, std::uint32_t i) const noexcept
	{
		return base + (2 + 2 * std::uint64_t(i) + bank) * line;
	}
	std::uint64_t bytes() const noexcept { return (2 + 2 * std::uint64_t(data_lines)) * line; }
	std::uint32_t inline_bytes() const noexcept { return line - ctrl_bytes; }
	/** Largest message one exchange can carry (control line + bank). */
	std::uint64_t max_pipelined() const noexcept { return inline_bytes() + std::uint64_t(data_lines) * line; }

	/** Channel @p index of a window, @p stride bytes apart. Throws
	 *  pioc::error if the line size is not a power of two >= 16, the stride
	 *  is not a multiple of the line, or the channel does not fit in
	 *  @p window_bytes. */
	static layout for_channel(std::uint64_t window_bytes, std::uint32_t line, std::uint32_t index,
				  std::uint64_t stride, std::uint32_t data_lines = 0);
	/** Throws unless A and B (and bank lines) map to different TADs with
	 *  @p tads units spread by line index. */
	void check_tads(std::uint32_t tads) const;
};

/** Options of the CPU side. */
struct cpu_options {
	bool pipelined = false;            ///< use the data banks: all lines of a message at once
	std::uint32_t max_not_ready = 1u << 20; ///< consecutive "not ready" answers before giving up
	std::uint32_t session = 0;         ///< session number of the next resync(); 0 = a random one
};

/** Statistics the CPU side keeps (cheap integer increments). */
struct cpu_stats {
	std::uint64_t calls = 0, exchanges = 0, not_ready = 0, resyncs = 0;
	/** Messages (receiver) or responses (invoker) that came whole, the rest in a data bank. */
	std::uint64_t banked = 0;
};

} // namespace pioc::coherent
