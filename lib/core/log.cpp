// The library logger: spdlog to stderr, level from PIOC_LOG_LEVEL.
#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

namespace pioc {

spdlog::logger &log()
{
	static std::shared_ptr<spdlog::logger> logger = [] {
		auto l = spdlog::get("pioc");
		if (!l)
			l = spdlog::stderr_color_mt("pioc");
		l->set_pattern("pioc: [%l] %v");
		const char *lvl = std::getenv("PIOC_LOG_LEVEL");
		l->set_level(lvl ? spdlog::level::from_str(lvl) : spdlog::level::warn);
		return l;
	}();
	return *logger;
}

} // namespace pioc
