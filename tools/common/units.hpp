/** @file
 * The tools' words for numbers: sizes with binary units, counts with decimal
 * units, size lists and ranges, comma lists. Each throws usage_error naming
 * the value and the rule; the option's name is added by the caller
 * (options.hpp does it for every option it registers).
 */
#pragma once

#include <pioc/mem_type.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pioc::tool {

/** Parses "4096", "4K", "4KiB", "1M" (binary units; B suffix allowed). */
std::uint64_t parse_size(std::string_view s);
/** Parses an unsigned count: "10000", "10k", "1M" (decimal units), "0x10". */
std::uint64_t parse_count(std::string_view s);
/** Parses a size list: "8,64,4K" or a range of powers of two "8..8K"
 *  (mixed: "8..64,1000"). Sorted, duplicates removed. */
std::vector<std::uint64_t> parse_size_list(std::string_view s);
/** Splits "a,b,c" into words, rejecting empty ones. */
std::vector<std::string> split_list(std::string_view s, std::string_view what);
/** Parses a memory type or throws usage_error listing the valid ones. */
mem_type parse_mem(std::string_view s);

} // namespace pioc::tool
