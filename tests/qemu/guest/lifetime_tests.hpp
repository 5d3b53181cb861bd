// Lifetime, concurrency and security tests of the guest program.
#pragma once
#include <string>

namespace guest {
/** Runs test @p name if it is one of these; false if unknown. */
bool run_lifetime_test(const std::string &name);
} // namespace guest
