// Names of memory types: both directions come from mem_type_names.
#include <pioc/mem_type.hpp>

namespace pioc {

std::string_view to_string(mem_type t) noexcept
{
	return name_of(mem_type_names, t);
}

std::optional<mem_type> parse_mem_type(std::string_view s) noexcept
{
	return parse_name(mem_type_names, s);
}

} // namespace pioc
