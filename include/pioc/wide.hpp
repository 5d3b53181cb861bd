/** @file
 * Wide (vector) accesses to device memory, chosen once at start-up.
 *
 * A wide store of 64 bytes to a WC mapping becomes one 64-byte TLP; on UC it
 * may still be split by the CPU. The widest unit the CPU has is picked once
 * (pioc::wide_isa_default()) and callers may override it with PIOC_WIDE
 * (none, sse, avx2, avx512, movdir64b, neon). Functions here take an aligned
 * device address and any host address.
 */
#pragma once

#include <pioc/enum_names.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace pioc {

/** The instruction families for wide device accesses. */
enum class wide_isa : std::uint8_t {
	none,      ///< 64-bit general-purpose loads and stores
	sse,       ///< 128-bit SSE2 (x86-64 baseline)
	avx2,      ///< 256-bit AVX
	avx512,    ///< 512-bit AVX-512F
	movdir64b, ///< 64-byte direct store (loads use AVX-512 if present, else AVX, else SSE)
	neon,      ///< 128-bit NEON / LDP-STP pairs (arm64)
};

/** Bytes moved per wide store. */
constexpr unsigned wide_bytes(wide_isa w) noexcept
{
	switch (w) {
	case wide_isa::none: return 8;
	case wide_isa::sse: return 16;
	case wide_isa::avx2: return 32;
	case wide_isa::avx512: return 64;
	case wide_isa::movdir64b: return 64;
	case wide_isa::neon: return 16;
	}
	return 8;
}

/** The names of the instruction families (enum_names.hpp), as PIOC_WIDE takes them. */
inline constexpr enum_name<wide_isa> wide_isa_names[] = {
	{wide_isa::none, "none"}, {wide_isa::sse, "sse"}, {wide_isa::avx2, "avx2"},
	{wide_isa::avx512, "avx512"}, {wide_isa::movdir64b, "movdir64b"}, {wide_isa::neon, "neon"},
};

/** "none", "sse", "avx2", "avx512", "movdir64b", "neon". */
std::string_view to_string(wide_isa w) noexcept;
/** Parses a name of wide_isa_names (case-insensitive); nullopt otherwise. */
std::optional<wide_isa> parse_wide_isa(std::string_view s) noexcept;
/** True if this CPU can execute @p w. */
bool wide_isa_supported(wide_isa w) noexcept;
/** The widest supported family, or PIOC_WIDE if set (and supported). Computed once. */
wide_isa wide_isa_default();

namespace wide {

#if defined(__x86_64__)
[[gnu::always_inline]] inline void store16(volatile void *d, const void *s) noexcept
{
	_mm_store_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
}
[[gnu::always_inline]] inline void load16(const volatile void *d, void *s) noexcept
{
	_mm_storeu_si128((__m128i *)s, _mm_load_si128((const __m128i *)d));
}
[[gnu::target("avx")]] inline void store32(volatile void *d, const void *s) noexcept
{
	_mm256_store_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
}
[[gnu::target("avx")]] inline void load32(const volatile void *d, void *s) noexcept
{
	_mm256_storeu_si256((__m256i *)s, _mm256_load_si256((const __m256i *)d));
}
[[gnu::target("avx512f")]] inline void store64(volatile void *d, const void *s) noexcept
{
	_mm512_store_si512((void *)d, _mm512_loadu_si512(s));
}
[[gnu::target("avx512f")]] inline void load64(const volatile void *d, void *s) noexcept
{
	_mm512_storeu_si512(s, _mm512_load_si512((const void *)d));
}
[[gnu::target("movdir64b")]] inline void movdir64b(volatile void *d, const void *s) noexcept
{
	_movdir64b((void *)d, s);
}
#elif defined(__aarch64__)
[[gnu::always_inline]] inline void store16(volatile void *d, const void *s) noexcept
{
	// One 128-bit Q-register store: a single transaction on Device memory.
	uint8x16_t v = vld1q_u8(static_cast<const std::uint8_t *>(s));
	asm volatile("str %q1, [%0]" ::"r"(d), "w"(v) : "memory");
}
[[gnu::always_inline]] inline void load16(const volatile void *d, void *s) noexcept
{
	uint8x16_t v;
	asm volatile("ldr %q0, [%1]" : "=w"(v) : "r"(d) : "memory");
	vst1q_u8(static_cast<std::uint8_t *>(s), v);
}
#endif

} // namespace wide
} // namespace pioc
