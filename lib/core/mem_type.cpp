// Names of memory types.
#include <pioc/mem_type.hpp>

#include <cctype>
#include <string>

namespace pioc {

std::string_view to_string(mem_type t) noexcept
{
	switch (t) {
	case mem_type::uc: return "uc";
	case mem_type::wc: return "wc";
	case mem_type::wt: return "wt";
	case mem_type::wb: return "wb";
	}
	return "?";
}

std::optional<mem_type> parse_mem_type(std::string_view s) noexcept
{
	std::string l;
	for (char c : s)
		l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	for (auto t : {mem_type::uc, mem_type::wc, mem_type::wt, mem_type::wb})
		if (l == to_string(t))
			return t;
	return std::nullopt;
}

} // namespace pioc
