# RTL tests (fpga/ and lib/rtl). Included by tests/CMakeLists.txt.
#
# rtl.fpga: lint, iverilog, yosys and the Verilator testbenches of fpga/
# (make -C fpga test; outputs cached in build/fpga). Needs verilator,
# iverilog and yosys; skipped (return code 77) when one is missing.
add_test(NAME rtl.fpga
  COMMAND sh -c "for t in verilator iverilog yosys; do command -v $t >/dev/null || exit 77; done; \
exec make -C ${CMAKE_SOURCE_DIR}/fpga -j2 test"
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(rtl.fpga PROPERTIES TIMEOUT 3600 LABELS "rtl;slow" SKIP_RETURN_CODE 77)

# With -DPIOC_RTL=ON: the behavioral models and the Verilated RTL behind the
# same pioc::sim::target interface must give the same answers.
if(PIOC_RTL)
  file(GLOB RTL_TEST_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
  add_executable(test_rtl ${RTL_TEST_SRCS})
  target_link_libraries(test_rtl PRIVATE pioc_static pioc_catch_main)
  target_include_directories(test_rtl PRIVATE ${CMAKE_SOURCE_DIR}/lib ${CMAKE_SOURCE_DIR}/tests)
  add_test(NAME rtl.model_vs_rtl COMMAND test_rtl)
  set_tests_properties(rtl.model_vs_rtl PROPERTIES TIMEOUT 900 LABELS rtl)
endif()
