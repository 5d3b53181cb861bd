/** @file
 * Does a coherent window keep what is written to it?
 *
 * Rings of the CNI queue (and FastForward's) are ordinary memory to the
 * protocol: a line written, evicted and read again must come back. A window
 * whose device serves only some lines does not give that: the Enzian
 * image's coherent engine answers only its invocation channels' lines A/B,
 * answers every other line with zeros, drops their write-backs, and its
 * window aliases every MiB. A queue placed there loses its messages without
 * an error. check_keeps_data() finds that before anything runs: it writes a
 * value unique to each line (so aliasing shows too), cleans every line to
 * the device (the eviction the protocol itself would suffer), and reads
 * them back.
 */
#pragma once

#include <pioc/coherent/lines.hpp>
#include <pioc/error.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace pioc::coherent {

/** Throws pioc::error(not_supported) naming @p what, the first line at
 *  offset off..off+n that did not come back and the two values, if the
 *  memory behind @p l does not keep every line of [off, off+n) across an
 *  eviction. Leaves the range zeroed. @p nonce varies the values between
 *  checks (a line left from an earlier check does not pass this one). */
template <line_policy L>
void check_keeps_data(const L &l, std::uint64_t off, std::uint64_t n, std::string_view what, std::uint64_t nonce)
{
	const std::uint64_t line = l.line_size();
	auto value = [&](std::uint64_t o) { return (o * 0x9e3779b97f4a7c15ull) ^ nonce ^ 0xa5a5a5a5a5a5a5a5ull; };
	for (std::uint64_t o = off; o < off + n; o += line)
		l.store64(o, value(o));
	l.full();
	for (std::uint64_t o = off; o < off + n; o += line)
		l.evict(o);
	l.full();
	for (std::uint64_t o = off; o < off + n; o += line) {
		const std::uint64_t got = l.load64(o);
		if (got != value(o))
			throw error(errc::not_supported,
				    fmt::format("{}: the line at offset {:#x} did not keep what was written (wrote "
						"{:#018x}, read {:#018x} after cleaning it to the device): the memory "
						"behind this window does not hold arbitrary lines (an image that serves "
						"only its invocation channels, such as pioc's Enzian coherent engine, "
						"answers other lines with zeros, drops their write-backs and aliases "
						"every MiB), so a queue there would lose messages",
						what, o, value(o), got));
	}
	const std::vector<std::uint8_t> zeros(line);
	for (std::uint64_t o = off; o < off + n; o += line)
		l.store_bytes(o, zeros.data(), line);
	l.full();
}

} // namespace pioc::coherent
