// pioc::find_bar: which BAR holds a user design, found by its ID register
// (include/pioc/device.hpp says why not by number).
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/region.hpp>

#include <fmt/format.h>

#include <string>

namespace pioc {

unsigned find_bar(device &dev, std::uint64_t min_size, std::uint64_t id_off, std::uint32_t id, std::string_view what,
		  unsigned first)
{
	std::string seen;
	for (const auto &b : dev.info().bars) {
		if (b.index < first || b.is_io || b.size < min_size || b.size < id_off + 4)
			continue;
		std::uint32_t v;
		try {
			v = dev.map(b.index, mem_type::uc).read<std::uint32_t>(id_off);
		} catch (const error &e) {
			seen += fmt::format("; BAR{} not mappable ({})", b.index, e.what());
			continue;
		}
		if (v == id)
			return b.index;
		seen += fmt::format("; BAR{} ({} bytes) reads {:#010x}", b.index, b.size, v);
	}
	throw error(errc::not_found,
		    fmt::format("{}: no BAR of at least {} bytes reads the {} ID {:#010x} at {:#x}{}", dev.spec(),
				min_size, what, id, id_off, seen.empty() ? std::string("; no BAR is that large") : seen));
}

} // namespace pioc
