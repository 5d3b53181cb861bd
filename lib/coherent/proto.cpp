// Variant names and channel layout checks of the Fig. 5 protocol family.
#include <pioc/coherent/proto.hpp>

#include <fmt/format.h>

namespace pioc::coherent {

std::string_view to_string(variant v) noexcept
{
	return name_of(variant_names, v);
}

std::optional<variant> parse_variant(std::string_view s) noexcept
{
	return parse_name(variant_names, s);
}

layout layout::for_channel(std::uint64_t window_bytes, std::uint32_t line, std::uint32_t index,
			   std::uint64_t stride, std::uint32_t data_lines)
{
	if (line < 16 || (line & (line - 1)))
		throw error(errc::invalid_argument, fmt::format("coherent: line size {} is not a power of two >= 16", line));
	if (stride == 0 || stride % line)
		throw error(errc::misaligned,
			    fmt::format("coherent: channel stride {:#x} is not a multiple of the {}-byte line", stride, line));
	if (data_lines > 1024)
		throw error(errc::invalid_argument, fmt::format("coherent: {} data lines per bank (at most 1024)", data_lines));
	layout l{std::uint64_t(index) * stride, line, data_lines};
	if (l.bytes() > stride)
		throw error(errc::out_of_range, fmt::format("coherent: a channel with {} data lines per bank needs {:#x} "
							    "bytes, more than the stride {:#x}",
							    data_lines, l.bytes(), stride));
	if (l.base + l.bytes() > window_bytes)
		throw error(errc::out_of_range,
			    fmt::format("coherent: channel {} needs [{:#x}, {:#x}) but the window has {:#x} bytes", index,
					l.base, l.base + l.bytes(), window_bytes));
	return l;
}

void layout::check_tads(std::uint32_t tads) const
{
	auto tad = [&](std::uint64_t off) { return (off / line) % tads; };
	if (tads < 2 || tad(ctrl_off(0)) == tad(ctrl_off(1)))
		throw error(errc::invalid_argument,
			    fmt::format("coherent: lines A and B map to the same TAD unit ({} TADs): the device's "
					"hold on A would block the transfer of B",
					tads));
}

} // namespace pioc::coherent
