// Checked access to a mapped window.
#include <pioc/region.hpp>

#include <fmt/format.h>

namespace pioc {

region::region(std::string name, io_variant io, std::shared_ptr<const void> owner)
	: name_(std::move(name)), io_(io), owner_(std::move(owner))
{
}

std::uint64_t region::size() const noexcept
{
	return visit([](const auto &io) { return io.size(); });
}

mem_type region::type() const noexcept
{
	return visit([](const auto &io) { return io.type(); });
}

void region::check(std::uint64_t off, std::uint64_t len, std::uint64_t align, const char *what) const
{
	if (!owner_)
		throw error(errc::invalid_argument, fmt::format("{} of {} bytes at {:#x} on an empty region", what, len, off));
	if (len == 0)
		throw error(errc::invalid_argument,
			    fmt::format("{}: {} of 0 bytes at {:#x}: size must be at least 1", name_, what, off));
	const std::uint64_t sz = size();
	if (off >= sz || len > sz - off)
		throw error(errc::out_of_range,
			    fmt::format("{}: {} of {} bytes at {:#x} ends past the region (size {:#x})",
					name_, what, len, off, sz));
	if (align > 1 && off % align)
		throw error(errc::misaligned,
			    fmt::format("{}: {}-byte {} at {:#x} is not {}-byte aligned", name_, len, what, off, align));
}

void region::copy_to(std::uint64_t off, const void *src, std::size_t n) const
{
	check(off, n, 1, "copy to device");
	visit([&](const auto &io) { io.copy_to(off, src, n); });
}

void region::copy_from(std::uint64_t off, void *dst, std::size_t n) const
{
	check(off, n, 1, "copy from device");
	visit([&](const auto &io) { io.copy_from(off, dst, n); });
}

region region::sub(std::uint64_t off, std::uint64_t size, std::string_view label) const
{
	check(off, size, 1, "sub-region");
	std::string n = label.empty() ? fmt::format("{}+{:#x}", name_, off) : fmt::format("{}/{}", name_, label);
	return region(std::move(n), visit([&](const auto &io) -> io_variant { return io.sub(off, size); }), owner_);
}

} // namespace pioc
