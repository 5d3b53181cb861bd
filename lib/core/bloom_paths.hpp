// The vector paths behind pioc::bloom::hash_buffer_best (bloom_hash.cpp),
// each callable on its own so that tests/unit/pio checks every path this
// CPU can run, not only the one hash_buffer_best picks here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pioc::bloom::detail {

/** Which vector paths this build has and this CPU runs. */
bool have_avx2() noexcept;
bool have_avx512() noexcept;

/** Hashes as many whole groups of elements (4 for AVX2, 8 for AVX-512) of
 *  the @p len bytes at @p s as there are into @p d; returns the bytes
 *  consumed (a multiple of the group's bytes; the caller hashes the rest).
 *  Only when the matching have_*() is true. */
std::size_t hash_groups_avx2(const std::uint8_t *s, std::size_t len, std::uint8_t *d) noexcept;
std::size_t hash_groups_avx512(const std::uint8_t *s, std::size_t len, std::uint8_t *d) noexcept;

} // namespace pioc::bloom::detail
