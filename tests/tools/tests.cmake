# Tool smoke tests (ctest label "tools"): the tools run on the simulated device
# and their --json output has the shared shape (Documentation/benchmarking.md).
find_package(Python3 COMPONENTS Interpreter)
if(TARGET pciebench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.pciebench_pio_json
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-json.sh $<TARGET_FILE:pciebench> ${Python3_EXECUTABLE})
  add_test(NAME tools.pciebench_pio_csv_table
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-pio-cli.sh $<TARGET_FILE:pciebench>)
  set_tests_properties(tools.pciebench_pio_json tools.pciebench_pio_csv_table PROPERTIES TIMEOUT 300 LABELS tools)
endif()
