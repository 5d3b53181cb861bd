# pioc-info end to end: --json parses and matches this machine and a fake
# sysfs tree; unknown devices give the documented error; --help teaches.
if(TARGET pioc-info)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME tools.pioc-info
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_pioc_info.py $<TARGET_FILE:pioc-info>)
  set_tests_properties(tools.pioc-info PROPERTIES TIMEOUT 120 LABELS "tools")
endif()
