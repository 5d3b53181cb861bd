// The Bloom hashes for the simulated devices, built for the best ISA the
// CPU has (pioc/bloom_hash.hpp, hash_buffer_best).
//
// One element's eight hashes are eight chains of 128 dependent steps, so a
// vector holding them (one lane per hash) waits on its own latency: about
// 250 ns an element on an AMD EPYC (Zen 4) with AVX-512. The AVX-512 path
// below hashes eight elements at once, eight independent vectors, and
// widens their bytes to 64-bit words beforehand so that adding a byte is a
// broadcast load instead of a move from a general register: 100 ns an
// element on the same core. The PIO image's Bloom unit takes 92 ns an
// element (23 cycles at 250 MHz, sim::pio_dev's timing), so only this path
// lets the models come close to it.
//
// CPUs without AVX-512 (Zen 3, most Intel client cores) took the compiler's
// AVX2 build of the scalar loop: 460 to 1300 ns an element on a Zen 3 VM,
// where the offload's dma path then ran at 0.43x real time (benchmarking.md,
// session 21). The AVX2 path puts one element in each lane instead: four
// elements, and for each byte the eight hashes are eight independent
// vectors whose shift counts are the hash's own immediates, so the byte
// of all four elements is one widening load, shared by the eight.
#include <pioc/bloom_hash.hpp>

#include "core/bloom_paths.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PIOC_NO_TARGET_CLONES)
#define PIOC_BLOOM_AVX512 1
#include <immintrin.h>
#endif

namespace pioc::bloom {
namespace {

#ifdef PIOC_BLOOM_AVX512
__attribute__((target_clones("avx2", "default")))
#endif
void hash_buffer_any(const void *src, std::size_t len, void *dst) noexcept
{
	hash_buffer(src, len, dst);
}

#ifdef PIOC_BLOOM_AVX512
constexpr std::size_t group = 8; // elements in flight: enough to hide the step's latency

// Whole groups of @p group elements; returns the bytes it consumed.
__attribute__((target("avx512f"))) std::size_t hash_groups_avx512_impl(const std::uint8_t *s, std::size_t len,
								      std::uint8_t *d) noexcept
{
	const __m512i vshl = _mm512_set_epi64(shl[7], shl[6], shl[5], shl[4], shl[3], shl[2], shl[1], shl[0]);
	const __m512i vshr = _mm512_set_epi64(shr[7], shr[6], shr[5], shr[4], shr[3], shr[2], shr[1], shr[0]);
	const __m512i vseed = _mm512_loadu_si512(seed.data());
	// The zero-masking forms with every lane on: the plain ones trip GCC
	// 12's -Wmaybe-uninitialized inside immintrin.h.
	const __mmask8 all = 0xff;
	std::size_t off = 0;
	for (; off + group * element_bytes <= len; off += group * element_bytes, d += group * result_bytes) {
		alignas(64) std::uint64_t wide[group][element_bytes];
		for (std::size_t e = 0; e < group; ++e)
			for (std::size_t j = 0; j < element_bytes; j += 8) {
				const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(s + off + e * element_bytes + j));
				_mm512_store_si512(&wide[e][j], _mm512_maskz_cvtepu8_epi64(all, eight));
			}
		__m512i h[group];
		for (auto &v : h)
			v = vseed;
		for (std::size_t j = 0; j < element_bytes; ++j) {
#pragma GCC unroll 8
			for (std::size_t e = 0; e < group; ++e) {
				const __m512i sum = _mm512_add_epi64(_mm512_maskz_sllv_epi64(all, h[e], vshl),
								  _mm512_maskz_srlv_epi64(all, h[e], vshr));
				h[e] = _mm512_xor_si512(h[e], _mm512_add_epi64(sum, _mm512_set1_epi64(static_cast<long long>(wide[e][j]))));
			}
		}
		// Lane i is hash i, and x86 is little-endian: the result's layout.
		for (std::size_t e = 0; e < group; ++e)
			_mm512_storeu_si512(d + e * result_bytes, h[e]);
	}
	return off;
}

constexpr std::size_t lanes2 = 4; // elements per AVX2 group: one per 64-bit lane

/** Hash I's step on four elements' hashes @p h, each lane's byte in @p b. */
template <unsigned I>
__attribute__((target("avx2"), always_inline)) inline __m256i step4(__m256i h, __m256i b) noexcept
{
	return _mm256_xor_si256(
		h, _mm256_add_epi64(_mm256_add_epi64(_mm256_slli_epi64(h, shl[I]), _mm256_srli_epi64(h, shr[I])), b));
}

template <unsigned I>
__attribute__((target("avx2"), always_inline)) inline __m256i seed4() noexcept
{
	return _mm256_set1_epi64x(static_cast<long long>(seed[I]));
}

__attribute__((target("avx2"))) std::size_t hash_groups_avx2_impl(const std::uint8_t *s, std::size_t len,
								   std::uint8_t *d) noexcept
{
	std::size_t off = 0;
	for (; off + lanes2 * element_bytes <= len; off += lanes2 * element_bytes, d += lanes2 * result_bytes) {
		// Byte j of the four elements side by side (t[j] = e0[j] e1[j]
		// e2[j] e3[j]): two rounds of interleaving per 16 bytes.
		alignas(16) std::uint32_t t[element_bytes];
		const std::uint8_t *e = s + off;
		for (std::size_t c = 0; c < element_bytes; c += 16) {
			const auto ld = [&](std::size_t el) {
				return _mm_loadu_si128(reinterpret_cast<const __m128i *>(e + el * element_bytes + c));
			};
			const __m128i a0 = ld(0), a1 = ld(1), a2 = ld(2), a3 = ld(3);
			const __m128i lo01 = _mm_unpacklo_epi8(a0, a1), hi01 = _mm_unpackhi_epi8(a0, a1);
			const __m128i lo23 = _mm_unpacklo_epi8(a2, a3), hi23 = _mm_unpackhi_epi8(a2, a3);
			auto *q = reinterpret_cast<__m128i *>(t + c);
			_mm_store_si128(q + 0, _mm_unpacklo_epi16(lo01, lo23));
			_mm_store_si128(q + 1, _mm_unpackhi_epi16(lo01, lo23));
			_mm_store_si128(q + 2, _mm_unpacklo_epi16(hi01, hi23));
			_mm_store_si128(q + 3, _mm_unpackhi_epi16(hi01, hi23));
		}
		// Eight named vectors, not an array: GCC 12 kept an array of them
		// on the stack, a load and a store around every step.
		__m256i h0 = seed4<0>(), h1 = seed4<1>(), h2 = seed4<2>(), h3 = seed4<3>();
		__m256i h4 = seed4<4>(), h5 = seed4<5>(), h6 = seed4<6>(), h7 = seed4<7>();
		for (std::size_t j = 0; j < element_bytes; ++j) {
			const __m256i b = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(static_cast<int>(t[j])));
			h0 = step4<0>(h0, b), h1 = step4<1>(h1, b), h2 = step4<2>(h2, b), h3 = step4<3>(h3, b);
			h4 = step4<4>(h4, b), h5 = step4<5>(h5, b), h6 = step4<6>(h6, b), h7 = step4<7>(h7, b);
		}
		// Lane l of hash i's vector is element l's: the result wants the
		// eight hashes of each element together.
		alignas(32) std::uint64_t out[k][lanes2];
		auto *o = reinterpret_cast<__m256i *>(out);
		_mm256_store_si256(o + 0, h0), _mm256_store_si256(o + 1, h1);
		_mm256_store_si256(o + 2, h2), _mm256_store_si256(o + 3, h3);
		_mm256_store_si256(o + 4, h4), _mm256_store_si256(o + 5, h5);
		_mm256_store_si256(o + 6, h6), _mm256_store_si256(o + 7, h7);
		for (std::size_t l = 0; l < lanes2; ++l)
			for (unsigned i = 0; i < k; ++i)
				std::memcpy(d + l * result_bytes + 8 * i, &out[i][l], 8);
	}
	return off;
}
#endif

} // namespace

namespace detail {
#ifdef PIOC_BLOOM_AVX512
bool have_avx2() noexcept
{
	static const bool yes = __builtin_cpu_supports("avx2");
	return yes;
}

bool have_avx512() noexcept
{
	static const bool yes = __builtin_cpu_supports("avx512f");
	return yes;
}

std::size_t hash_groups_avx2(const std::uint8_t *s, std::size_t len, std::uint8_t *d) noexcept
{
	return hash_groups_avx2_impl(s, len, d);
}

std::size_t hash_groups_avx512(const std::uint8_t *s, std::size_t len, std::uint8_t *d) noexcept
{
	return hash_groups_avx512_impl(s, len, d);
}
#else
// No vector path in this build: hash_buffer_best hashes everything with
// hash_buffer_any.
bool have_avx2() noexcept { return false; }
bool have_avx512() noexcept { return false; }
std::size_t hash_groups_avx2(const std::uint8_t *, std::size_t, std::uint8_t *) noexcept { return 0; }
std::size_t hash_groups_avx512(const std::uint8_t *, std::size_t, std::uint8_t *) noexcept { return 0; }
#endif
} // namespace detail

void hash_buffer_best(const void *src, std::size_t len, void *dst) noexcept
{
	const auto *s = static_cast<const std::uint8_t *>(src);
	auto *d = static_cast<std::uint8_t *>(dst);
	const std::size_t done = detail::have_avx512() ? detail::hash_groups_avx512(s, len, d)
				 : detail::have_avx2() ? detail::hash_groups_avx2(s, len, d)
							: 0;
	s += done;
	d += done / element_bytes * result_bytes;
	len -= done;
	if (len)
		hash_buffer_any(s, len, d);
}

} // namespace pioc::bloom
