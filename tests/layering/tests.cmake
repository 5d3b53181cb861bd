# Layering (issue 14): the drivers include nothing of the simulator, directly
# or through the headers they include. Preprocessor only: about a second.
add_test(NAME layering.drivers_without_sim
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-includes ${CMAKE_SOURCE_DIR} ${CMAKE_CXX_COMPILER} ${PIOC_GEN})
set_tests_properties(layering.drivers_without_sim PROPERTIES TIMEOUT 120 LABELS "unit;layering")

# The lib/ layers of Documentation/architecture.md on every #include line:
# core at the bottom, transports and models beside each other, drivers above
# the core, nothing sideways. Under a second.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME layering.components
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-layers ${CMAKE_SOURCE_DIR})
  set_tests_properties(layering.components PROPERTIES TIMEOUT 60 LABELS "unit;layering")
endif()

# <pioc/pioc.hpp> is the user API without the simulator, benchmark support or
# spdlog, and examples/ include it (plus the models they run on). A second.
add_test(NAME layering.umbrella
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-umbrella ${CMAKE_SOURCE_DIR} ${CMAKE_CXX_COMPILER} ${PIOC_GEN})
set_tests_properties(layering.umbrella PROPERTIES TIMEOUT 60 LABELS "unit;layering")

# The component layering (cmake/components.cmake) holds: a private header of a
# component not depended on is out of reach, one depended on is reachable.
add_test(NAME build.private_views
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-private-views ${CMAKE_CXX_COMPILER} ${PIOC_VIEWS}
          ${CMAKE_SOURCE_DIR}/include ${PIOC_GEN})
set_tests_properties(build.private_views PROPERTIES TIMEOUT 120 LABELS unit)

# CLI11 in the two files that parse, not in every tool file (7 s of
# compiling each, in four trees). Preprocessor only: a few seconds.
add_test(NAME layering.cli11_in_two_files
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-cli11 ${CMAKE_SOURCE_DIR} ${CMAKE_CXX_COMPILER} ${PIOC_GEN})
set_tests_properties(layering.cli11_in_two_files PROPERTIES TIMEOUT 120 LABELS "unit;layering")
