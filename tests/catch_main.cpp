// The one main() of every Catch2 unit-test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
