/** @file
 * Errors thrown by libpioc.
 *
 * Every failure is a pioc::error: an error code a program can branch on and a
 * message a person can act on. Messages name the device, the offset and size
 * involved and the rule that was broken, e.g.
 * "sim:pio BAR0: 8-byte write at 0x40001 is not 8-byte aligned".
 */
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pioc {

/** What went wrong, coarse enough to branch on. */
enum class errc : std::uint8_t {
	ok = 0,
	invalid_argument,  ///< a value the caller passed breaks a documented rule
	out_of_range,      ///< offset/size outside a region, window or buffer
	misaligned,        ///< access not aligned as the region or device requires
	not_found,         ///< no such device, BAR, window or file
	not_supported,     ///< the device, transport or CPU cannot do this
	permission,        ///< the OS refused (open/mmap/ioctl returned EACCES/EPERM)
	device_gone,       ///< the device answered all-ones or was removed
	timeout,           ///< the device did not answer in time
	device_error,      ///< the device reported an error (status bits)
	os_error,          ///< any other system call failure (errno in the message)
};

/** Human name of an error code ("out_of_range"). */
std::string_view to_string(errc c) noexcept;

/** The one exception type of libpioc. */
class error : public std::runtime_error {
public:
	error(errc code, const std::string &msg);
	/** The coarse error code. */
	errc code() const noexcept { return code_; }

private:
	errc code_;
};

/** Throws pioc::error for a failed system call: msg + ": " + strerror(errno).
 *  EACCES/EPERM map to errc::permission, ENOENT/ENODEV to errc::not_found. */
[[noreturn]] void throw_os_error(const std::string &msg, int err);

} // namespace pioc
