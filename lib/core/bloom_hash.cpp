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
#include <pioc/bloom_hash.hpp>

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
__attribute__((target("avx512f"))) std::size_t hash_groups_avx512(const std::uint8_t *s, std::size_t len,
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
#endif

} // namespace

void hash_buffer_best(const void *src, std::size_t len, void *dst) noexcept
{
	const auto *s = static_cast<const std::uint8_t *>(src);
	auto *d = static_cast<std::uint8_t *>(dst);
#ifdef PIOC_BLOOM_AVX512
	static const bool avx512 = __builtin_cpu_supports("avx512f");
	if (avx512) {
		const std::size_t done = hash_groups_avx512(s, len, d);
		s += done;
		d += done / element_bytes * result_bytes;
		len -= done;
	}
#endif
	if (len)
		hash_buffer_any(s, len, d);
}

} // namespace pioc::bloom
