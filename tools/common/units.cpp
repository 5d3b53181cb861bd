// The tools' words for numbers. See units.hpp.
#include "common/units.hpp"

#include "common/run.hpp"

#include <pioc/enum_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace pioc::tool {

namespace {

std::string lower(std::string_view s)
{
	std::string r(s);
	for (auto &c : r)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	return r;
}

// Splits "4KiB" into 4 and "kib"; throws on a missing number.
std::pair<std::uint64_t, std::string> number_and_suffix(std::string_view s, std::string_view what)
{
	std::uint64_t v = 0;
	int base = 10;
	std::string_view digits = s;
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, digits = s.substr(2);
	auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
	if (ec != std::errc() || p == digits.data())
		throw usage_error(fmt::format("{} '{}' is not a number", what, s));
	return {v, lower(std::string_view(p, digits.data() + digits.size() - p))};
}

std::uint64_t scaled(std::uint64_t v, std::uint64_t mult, std::string_view s, std::string_view what)
{
	if (mult && v > ~0ull / mult)
		throw usage_error(fmt::format("{} '{}' is too large", what, s));
	return v * mult;
}

} // namespace

std::uint64_t parse_size(std::string_view s)
{
	auto [v, suf] = number_and_suffix(s, "size");
	if (suf.empty() || suf == "b")
		return v;
	if (suf == "k" || suf == "kb" || suf == "kib")
		return scaled(v, 1ull << 10, s, "size");
	if (suf == "m" || suf == "mb" || suf == "mib")
		return scaled(v, 1ull << 20, s, "size");
	if (suf == "g" || suf == "gb" || suf == "gib")
		return scaled(v, 1ull << 30, s, "size");
	throw usage_error(fmt::format("size '{}': unknown unit '{}' (use B, K/KiB, M/MiB, G/GiB)", s, suf));
}

std::uint64_t parse_count(std::string_view s)
{
	auto [v, suf] = number_and_suffix(s, "count");
	if (suf.empty())
		return v;
	if (suf == "k")
		return scaled(v, 1000, s, "count");
	if (suf == "m")
		return scaled(v, 1000000, s, "count");
	throw usage_error(fmt::format("count '{}': unknown unit '{}' (use k = 1000 or M = 10^6)", s, suf));
}

std::vector<std::string> split_list(std::string_view s, std::string_view what)
{
	std::vector<std::string> out;
	std::size_t start = 0;
	for (;;) {
		const auto comma = s.find(',', start);
		const auto word = s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
		if (word.empty())
			throw usage_error(fmt::format("{} list '{}' has an empty entry", what, s));
		out.emplace_back(word);
		if (comma == std::string_view::npos)
			break;
		start = comma + 1;
	}
	return out;
}

std::vector<std::uint64_t> parse_size_list(std::string_view s)
{
	std::vector<std::uint64_t> out;
	for (const auto &w : split_list(s, "size")) {
		if (auto dots = w.find(".."); dots != std::string::npos) {
			const auto lo = parse_size(std::string_view(w).substr(0, dots));
			const auto hi = parse_size(std::string_view(w).substr(dots + 2));
			if (lo == 0 || hi < lo)
				throw usage_error(fmt::format("size range '{}': needs 0 < low <= high", w));
			for (std::uint64_t x = lo; x <= hi; x *= 2) {
				out.push_back(x);
				if (x > (~0ull >> 1))
					break;
			}
		} else {
			out.push_back(parse_size(w));
		}
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

mem_type parse_mem(std::string_view s)
{
	if (auto t = parse_mem_type(s))
		return *t;
	throw usage_error(unknown_name(mem_type_names, s, "memory type"));
}

} // namespace pioc::tool
