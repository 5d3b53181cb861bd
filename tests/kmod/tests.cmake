# kmod/Makefile: the headers tree it picks by default (newest by version).
# The build matrix and the DKMS check are `make test-kmod-matrix`
# (scripts/kmod-matrix), not ctest: they fetch Debian's headers.
add_test(NAME kmod.kdir_newest COMMAND ${CMAKE_CURRENT_LIST_DIR}/kdir-newest)
set_tests_properties(kmod.kdir_newest PROPERTIES TIMEOUT 60 LABELS unit)
# The judge of the API probes must refuse a probe where both or neither form
# compile.
add_test(NAME kmod.probes_run_selftest COMMAND ${CMAKE_CURRENT_LIST_DIR}/probes-run-selftest)
set_tests_properties(kmod.probes_run_selftest PROPERTIES TIMEOUT 60 LABELS unit)
