/** @file
 * Names of enum values, both ways, from one table per enum.
 *
 * Each enum that is printed or parsed has one table of {value, name} pairs
 * beside its declaration; to_string and parse are derived from it, so the two
 * directions cannot drift apart and every parser keeps one contract:
 *  - name_of(table, v): the name, or "?" for a value missing from the table;
 *  - parse_name(table, s): the value whose name equals @p s ignoring ASCII
 *    case, nullopt otherwise (noexcept, for callers that decide themselves);
 *  - unknown_name(table, s, what): the message for a failed parse, naming the
 *    value and every accepted name ("memory type 'xx' is not one of uc, wc");
 *  - parse_name_or_throw(table, s, what): parse_name, or pioc::error
 *    (errc::invalid_argument) with that message.
 *
 * @code
 *   inline constexpr enum_name<color> color_names[] = {{color::red, "red"}, {color::blue, "blue"}};
 *   name_of(color_names, color::red);                  // "red"
 *   parse_name_or_throw(color_names, "Blue", "color"); // color::blue
 * @endcode
 */
#pragma once

#include <pioc/error.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pioc {

/** One row of an enum's name table. */
template <class E>
struct enum_name {
	E value;
	std::string_view name;
};

/** The name of @p v in @p table; "?" if the table lacks it. */
template <class E, std::size_t N>
constexpr std::string_view name_of(const enum_name<E> (&table)[N], E v) noexcept
{
	for (const auto &row : table)
		if (row.value == v)
			return row.name;
	return "?";
}

namespace detail {
constexpr bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) noexcept
{
	if (a.size() != b.size())
		return false;
	auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
	for (std::size_t i = 0; i < a.size(); ++i)
		if (lower(a[i]) != lower(b[i]))
			return false;
	return true;
}
} // namespace detail

/** The value named @p s in @p table (ASCII case ignored); nullopt otherwise. */
template <class E, std::size_t N>
constexpr std::optional<E> parse_name(const enum_name<E> (&table)[N], std::string_view s) noexcept
{
	for (const auto &row : table)
		if (detail::equal_ignoring_ascii_case(row.name, s))
			return row.value;
	return std::nullopt;
}

/** "a, b, c": every name of @p table in table order. */
template <class E, std::size_t N>
std::string accepted_names(const enum_name<E> (&table)[N])
{
	std::string out;
	for (const auto &row : table) {
		if (!out.empty())
			out += ", ";
		out += row.name;
	}
	return out;
}

/** "<what> '<s>' is not one of <accepted names>". */
template <class E, std::size_t N>
std::string unknown_name(const enum_name<E> (&table)[N], std::string_view s, std::string_view what)
{
	std::string m(what);
	m += " '";
	m += s;
	m += "' is not one of ";
	m += accepted_names(table);
	return m;
}

/** parse_name, or pioc::error(errc::invalid_argument, unknown_name(...)). */
template <class E, std::size_t N>
E parse_name_or_throw(const enum_name<E> (&table)[N], std::string_view s, std::string_view what)
{
	if (auto v = parse_name(table, s))
		return *v;
	throw error(errc::invalid_argument, unknown_name(table, s, what));
}

} // namespace pioc
