// The Bloom hashes for the simulated devices, built for the best ISA the
// CPU has (pioc/bloom_hash.hpp, hash_buffer_best).
#include <pioc/bloom_hash.hpp>

namespace pioc::bloom {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PIOC_NO_TARGET_CLONES)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void hash_buffer_best(const void *src, std::size_t len, void *dst) noexcept
{
	hash_buffer(src, len, dst);
}

} // namespace pioc::bloom
