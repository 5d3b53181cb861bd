// Waiting for an interrupt on a real mapping: the eventfd the transport
// delivers an MSI-X vector to, read with poll() against the cycle clock.
#include <pioc/error.hpp>
#include <pioc/io.hpp>

#include <algorithm>
#include <cerrno>

#include <poll.h>
#include <unistd.h>

namespace pioc {

bool detail::try_read_eventfd(int fd)
{
	pollfd p{fd, POLLIN, 0};
	if (::poll(&p, 1, 0) != 1 || !(p.revents & POLLIN))
		return false;
	std::uint64_t v;
	return ::read(fd, &v, sizeof v) == sizeof v;
}

bool mmio_io::wait_interrupt(int fd, std::uint64_t deadline)
{
	for (;;) {
		if (detail::try_read_eventfd(fd))
			return true;
		const std::uint64_t now = now_ns();
		if (now >= deadline)
			return false;
		pollfd p{fd, POLLIN, 0};
		const int ms = int(std::min<std::uint64_t>((deadline - now) / 1'000'000 + 1, 1000));
		if (::poll(&p, 1, ms) < 0 && errno != EINTR)
			throw_os_error("waiting for an interrupt (poll on eventfd)", errno);
	}
}

} // namespace pioc
