/** @file
 * The k = 8 hash functions of the Bloom-filter offload (paper Sec. 6.5), as
 * computed by the FPGA's bloom_hash unit (fpga/rtl/bloom/bloom_hash.sv).
 * This is the normative software definition: the RTL testbenches, the
 * behavioral device models and the CPU baseline all use it.
 *
 * An element is 128 bytes. Hash i (0..7) is a shift-add-xor hash over the
 * element's bytes in address order, with its own seed and shift amounts:
 *
 *     h = SEED[i]
 *     for b in element[0], element[1], ..., element[127]:
 *         h = h ^ ((h << SHL[i]) + (h >> SHR[i]) + b)        (mod 2^64)
 *
 * SEED[i] = (i + 1) * 0x9E3779B97F4A7C15 mod 2^64. The result of one element
 * is 64 bytes: hash i as a little-endian 64-bit word at byte offset 8 * i.
 * A request shorter than a multiple of 128 bytes is zero-padded to whole
 * elements; a request of n bytes yields 64 * ceil(n / 128) bytes.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace pioc::bloom {

inline constexpr unsigned k = 8;                    ///< hash functions
inline constexpr std::size_t element_bytes = 128;   ///< bytes per element
inline constexpr std::size_t result_bytes = k * 8;  ///< bytes of result per element

inline constexpr std::array<std::uint64_t, k> seed{
	0x9e3779b97f4a7c15ULL, 0x3c6ef372fe94f82aULL, 0xdaa66d2c7ddf743fULL, 0x78dde6e5fd29f054ULL,
	0x1715609f7c746c69ULL, 0xb54cda58fbbee87eULL, 0x538454127b096493ULL, 0xf1bbcdcbfa53e0a8ULL};
inline constexpr std::array<unsigned, k> shl{5, 6, 7, 4, 9, 3, 8, 11};
inline constexpr std::array<unsigned, k> shr{2, 3, 1, 5, 2, 7, 4, 3};

/** One step of hash @p i: fold byte @p b into @p h. */
constexpr std::uint64_t step(unsigned i, std::uint64_t h, std::uint8_t b) noexcept
{
	return h ^ ((h << shl[i]) + (h >> shr[i]) + b);
}

/** The 8 hashes of one 128-byte element. */
constexpr std::array<std::uint64_t, k> hash(const std::uint8_t (&element)[element_bytes]) noexcept
{
	std::array<std::uint64_t, k> h = seed;
	for (std::size_t j = 0; j < element_bytes; ++j)
		for (unsigned i = 0; i < k; ++i)
			h[i] = step(i, h[i], element[j]);
	return h;
}

/** Hashes of @p len bytes at @p src (zero-padded to whole elements) into
 *  @p dst, which must hold result_len(len) bytes. */
inline std::size_t result_len(std::size_t len) noexcept
{
	return (len + element_bytes - 1) / element_bytes * result_bytes;
}

inline void hash_buffer(const void *src, std::size_t len, void *dst) noexcept
{
	const auto *s = static_cast<const std::uint8_t *>(src);
	auto *d = static_cast<std::uint8_t *>(dst);
	for (std::size_t off = 0; off < len; off += element_bytes) {
		std::uint8_t e[element_bytes] = {};
		for (std::size_t j = 0; j < element_bytes && off + j < len; ++j)
			e[j] = s[off + j];
		const auto h = hash(e);
		for (unsigned i = 0; i < k; ++i)
			for (unsigned b = 0; b < 8; ++b)
				*d++ = static_cast<std::uint8_t>(h[i] >> (8 * b));
	}
}

/** hash_buffer()'s bytes, computed as fast as this CPU can: on x86-64 with
 *  AVX-512F eight elements at a time (2.5x faster on an AMD EPYC Zen 4),
 *  with AVX2 four at a time, one per lane (3 to 7x faster on a Zen 3),
 *  the rest by hash_buffer() built for AVX2 or any CPU (GCC/Clang
 *  target_clones; on other architectures the one build).
 *  For the simulated devices, whose hashing is host CPU time that an FPGA
 *  spends in a pipeline (pciebench offload's speed,
 *  Documentation/benchmarking.md); the CPU baseline keeps hash_buffer(). */
void hash_buffer_best(const void *src, std::size_t len, void *dst) noexcept;

} // namespace pioc::bloom
