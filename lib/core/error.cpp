// Error codes and the exception type of libpioc.
#include <pioc/error.hpp>
#include <pioc/enum_names.hpp>

#include <cerrno>
#include <cstring>

namespace pioc {

// Private: nothing parses error codes, but the names come from one table like
// every other enum's (enum_names.hpp).
constexpr enum_name<errc> errc_names[] = {
	{errc::ok, "ok"},
	{errc::invalid_argument, "invalid_argument"},
	{errc::out_of_range, "out_of_range"},
	{errc::misaligned, "misaligned"},
	{errc::not_found, "not_found"},
	{errc::not_supported, "not_supported"},
	{errc::permission, "permission"},
	{errc::device_gone, "device_gone"},
	{errc::timeout, "timeout"},
	{errc::device_error, "device_error"},
	{errc::os_error, "os_error"},
};

std::string_view to_string(errc c) noexcept
{
	return name_of(errc_names, c);
}

error::error(errc code, const std::string &msg) : std::runtime_error(msg), code_(code) {}

void throw_os_error(const std::string &msg, int err)
{
	errc c = errc::os_error;
	if (err == EACCES || err == EPERM)
		c = errc::permission;
	else if (err == ENOENT || err == ENODEV || err == ENXIO)
		c = errc::not_found;
	else if (err == EINVAL)
		c = errc::invalid_argument;
	else if (err == EOPNOTSUPP || err == ENOSYS)
		c = errc::not_supported;
	throw error(c, msg + ": " + std::strerror(err));
}

} // namespace pioc
