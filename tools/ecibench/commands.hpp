// The subcommands of ecibench: one line each. To add one, add a line
// X(name, "one-line help") here and define
//   int ecibench_<name>(int argc, char **argv);   // argv[0] = "ecibench <name>"
// in tools/ecibench/<name>.cpp (its options on CLI11: options.hpp).
#pragma once

#define ECIBENCH_COMMANDS(X)                                                                              \
	X(invoke, "Fig. 5 invocations (variant, payload, Exclusive/Shared, pipelining)")                   \
	X(queue, "CNI cachable queue round trips (two cores, or core and modelled device)")                \
	X(pingpong, "raw cache-line ping-pong (the floor) and FastForward")

namespace ecibench {
#define ECIBENCH_DECLARE(name, help) int ecibench_##name(int argc, char **argv);
ECIBENCH_COMMANDS(ECIBENCH_DECLARE)
#undef ECIBENCH_DECLARE
} // namespace ecibench
