# Co-simulation suite: pioc.ko and the unchanged tools in a QEMU guest against
# device models served by pioc-devd over vfio-user (needs root for the
# Debian 13 root that has QEMU with the vfio-user client).
add_test(NAME cosim.guest COMMAND ${CMAKE_CURRENT_LIST_DIR}/run --build-dir ${CMAKE_BINARY_DIR})
set_tests_properties(cosim.guest PROPERTIES TIMEOUT 1500 LABELS qemu RUN_SERIAL TRUE)
add_test(NAME cosim.judge-selftest COMMAND ${CMAKE_CURRENT_LIST_DIR}/run --self-test)
set_tests_properties(cosim.judge-selftest PROPERTIES TIMEOUT 60 LABELS unit)
