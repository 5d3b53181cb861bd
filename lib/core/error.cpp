// Error codes and the exception type of libpioc.
#include <pioc/error.hpp>

#include <cerrno>
#include <cstring>

namespace pioc {

std::string_view to_string(errc c) noexcept
{
	switch (c) {
	case errc::ok: return "ok";
	case errc::invalid_argument: return "invalid_argument";
	case errc::out_of_range: return "out_of_range";
	case errc::misaligned: return "misaligned";
	case errc::not_found: return "not_found";
	case errc::not_supported: return "not_supported";
	case errc::permission: return "permission";
	case errc::device_gone: return "device_gone";
	case errc::timeout: return "timeout";
	case errc::device_error: return "device_error";
	case errc::os_error: return "os_error";
	}
	return "unknown";
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
