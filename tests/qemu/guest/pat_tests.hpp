// x86 PAT per range of a BAR: the guest program's pat-ranges test.
#pragma once
#include <string>

namespace guest {
/** Runs test @p name if it is pat-ranges; false otherwise. */
bool run_pat_test(const std::string &name);
} // namespace guest
