/** @file
 * The functions of the PIO image's invoke unit (OP_* of pio_dev.toml) and
 * their reference model: what the device must answer. Header-only, so the
 * library, its tests and the Verilator testbenches of fpga/tb check every
 * device (model, RTL, board) against the same definition. The coherent
 * engine (coh_dev OP register) uses the same codes.
 */
#pragma once

#include <pioc/bloom_hash.hpp>
#include <pioc/regs/pio_dev.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pioc::pio {

/** The functions of the invoke unit. */
enum class op : std::uint8_t {
	echo = regs::pio_dev::OP_ECHO,    ///< response = request
	bit_not = regs::pio_dev::OP_NOT,  ///< response = bitwise NOT of the request
	add1 = regs::pio_dev::OP_ADD1,    ///< each little-endian 64-bit word + 1, tail bytes echoed
	bloom = regs::pio_dev::OP_BLOOM,  ///< k = 8 hashes (64 bytes) per 128-byte element (pioc/bloom_hash.hpp)
};

/** Length of the answer to an @p n-byte request: n, or 64 per started
 *  128-byte element for bloom. */
inline std::size_t response_len(op o, std::size_t n) noexcept
{
	return o == op::bloom ? bloom::result_len(n) : n;
}

/** What the device must answer for @p o applied to @p req (the reference
 *  model); @p out holds response_len(o, n) bytes. */
inline void apply(op o, const std::uint8_t *req, std::size_t n, std::uint8_t *out) noexcept
{
	switch (o) {
	case op::echo:
		std::memcpy(out, req, n);
		return;
	case op::bit_not:
		for (std::size_t i = 0; i < n; ++i)
			out[i] = static_cast<std::uint8_t>(~req[i]);
		return;
	case op::add1:
		std::memcpy(out, req, n);
		for (std::size_t i = 0; i + 8 <= n; i += 8) {
			std::uint64_t w;
			std::memcpy(&w, req + i, 8);
			++w;
			std::memcpy(out + i, &w, 8);
		}
		return;
	case op::bloom:
		bloom::hash_buffer(req, n, out);
		return;
	}
}

/** The same, as a new vector; @p code is an OP_* register value. */
inline std::vector<std::uint8_t> apply(std::uint64_t code, const std::uint8_t *req, std::size_t n)
{
	const auto o = static_cast<op>(code);
	std::vector<std::uint8_t> out(response_len(o, n));
	apply(o, req, n, out.data());
	return out;
}

} // namespace pioc::pio
