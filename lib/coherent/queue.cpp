// Host cache-line size for the queues between cores.
#include <pioc/coherent/queue.hpp>

#include <unistd.h>

namespace pioc::coherent {

std::uint32_t host_line_size() noexcept
{
	long v = -1;
#ifdef _SC_LEVEL1_DCACHE_LINESIZE
	v = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
#endif
	if (v >= 16 && v <= 512 && !(v & (v - 1)))
		return static_cast<std::uint32_t>(v);
	return 64;
}

} // namespace pioc::coherent
