/** @file
 * Logging through spdlog. The level comes from PIOC_LOG_LEVEL (trace, debug,
 * info, warn, error, critical, off; default warn). Private to the library
 * (lib/core): spdlog stays out of the public headers.
 */
#pragma once

#include <spdlog/spdlog.h>

namespace pioc {
/** The library's logger ("pioc"), created on first use. */
spdlog::logger &log();
} // namespace pioc
