// How every pioc tool ends. See run.hpp.
#include "common/run.hpp"

#include <pioc/error.hpp>

#include <fmt/format.h>

#include <iostream>

namespace pioc::tool {

int run(std::string_view prog, const std::function<int()> &body)
{
	try {
		return body();
	} catch (const usage_error &e) {
		std::cerr << fmt::format("{}: {}\n(run '{} --help' for the options)\n", prog, e.what(), prog);
		return exit_usage;
	} catch (const pioc::error &e) {
		std::cerr << fmt::format("{}: error ({}): {}\n", prog, to_string(e.code()), e.what());
		return exit_failure;
	} catch (const std::exception &e) {
		std::cerr << fmt::format("{}: error: {}\n", prog, e.what());
		return exit_failure;
	}
}

void emit(const bench::report &r, bench::format f)
{
	bench::write(r, f, std::cout);
	std::cout.flush();
}

} // namespace pioc::tool
