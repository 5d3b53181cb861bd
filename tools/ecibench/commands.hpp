// The subcommands of ecibench: one line each. To add one, add a line
// X(name, "one-line help") here and define
//   pioc::tool::tool::body ecibench_<name>(CLI::App &cmd);
// in tools/ecibench/<name>.cpp: it declares the command's options on cmd
// (options.hpp) and returns what runs after a good parse, as pciebench's.
#pragma once

#include "common/options.hpp"

#define ECIBENCH_COMMANDS(X)                                                                              \
	X(invoke, "Fig. 5 invocations (variant, payload, Exclusive/Shared, pipelining)")                   \
	X(queue, "CNI cachable queue round trips (two cores, or core and modelled device)")                \
	X(pingpong, "raw cache-line ping-pong (the floor) and FastForward")

namespace ecibench {
#define ECIBENCH_DECLARE(name, help) pioc::tool::tool::body ecibench_##name(CLI::App &cmd);
ECIBENCH_COMMANDS(ECIBENCH_DECLARE)
#undef ECIBENCH_DECLARE
} // namespace ecibench
