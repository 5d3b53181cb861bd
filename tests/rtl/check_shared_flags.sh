#!/usr/bin/env bash
# In a -DPIOC_RTL=ON build, only the code that names rtl: devices may be
# compiled differently from the default build: lib/transport, lib/sim, lib/rtl,
# tests/rtl and tests/unit/eci_sim/device_open_test.cpp. Everything else (the
# tools, the other unit tests, the rest of the library) must be the same
# command line as in the default build, so that make test's build-rtl takes
# it from ccache (CMakeLists.txt, PIOC_CCACHE). With pioc_rtl linked PUBLIC
# into pioc_static (its define and include directories on every user) this
# fails, naming the objects.
set -euo pipefail
build=${1:?usage: check_shared_flags.sh BUILD_DIR}
cmds=$(ninja -C "$build" -t commands pciebench ecibench nicbench pioc-info pioc-devd test_rtl test_eci_sim test_pio |
	grep -E ' -c [^ ]+\.(cpp|cc|c)$' || true)
[ -n "$cmds" ] || { echo "FAIL: no compile commands from ninja in $build"; exit 1; }
# Judged by the source file (the last word), not the whole command line.
allowed='/lib/(transport|sim|rtl)/|/tests/rtl/|/device_open_test\.cpp$'
bad=$(grep -E 'PIOC_HAVE_RTL|rtl-generated|/lib/rtl( |$)' <<<"$cmds" | sed -E 's/.* -c ([^ ]+)$/\1/' |
	grep -vE "$allowed" || true)
if [ -n "$bad" ]; then
	echo "FAIL: compiled with the RTL backend's flags, though they do not use it:"
	sed 's/^/  /' <<<"$bad" | head -20
	exit 1
fi
# And the code that does use it still gets them.
grep -E ' -c [^ ]+/lib/transport/sim_transport\.cpp$' <<<"$cmds" | grep -q PIOC_HAVE_RTL ||
	{ echo "FAIL: lib/transport/sim_transport.cpp is compiled without PIOC_HAVE_RTL"; exit 1; }
grep -E ' -c [^ ]+device_open_test\.cpp$' <<<"$cmds" | grep -q PIOC_HAVE_RTL ||
	{ echo "FAIL: device_open_test.cpp is compiled without PIOC_HAVE_RTL"; exit 1; }
n=$(sed -E 's/.* -c ([^ ]+)$/\1/' <<<"$cmds" | grep -cvE "$allowed")
echo "check_shared_flags: $n compile commands free of the RTL backend's flags"
