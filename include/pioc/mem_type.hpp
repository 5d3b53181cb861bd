/** @file
 * Memory types a mapping of device memory can have.
 */
#pragma once

#include <pioc/enum_names.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace pioc {

/** How the CPU may cache and combine accesses to a mapping.
 *
 * The values equal the PIOC_MEM_* constants of the kernel UAPI. */
enum class mem_type : std::uint8_t {
	uc = 0, ///< uncached: every access is one bus transaction, in order
	wc = 1, ///< write-combining: stores merge into full-line bursts; loads uncached
	wt = 2, ///< write-through: loads fill cache lines; stores go straight out
	wb = 3, ///< write-back cacheable: normal memory (ECI coherent windows)
};

/** The names of memory types (enum_names.hpp: one table, both directions). */
inline constexpr enum_name<mem_type> mem_type_names[] = {
	{mem_type::uc, "uc"}, {mem_type::wc, "wc"}, {mem_type::wt, "wt"}, {mem_type::wb, "wb"},
};

/** "uc", "wc", "wt", "wb". */
std::string_view to_string(mem_type t) noexcept;
/** Parses "uc"/"wc"/"wt"/"wb" (case-insensitive); nullopt otherwise. */
std::optional<mem_type> parse_mem_type(std::string_view s) noexcept;

} // namespace pioc
