# Layering (issue 14): the drivers include nothing of the simulator, directly
# or through the headers they include. Preprocessor only: about a second.
add_test(NAME layering.drivers_without_sim
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-includes ${CMAKE_SOURCE_DIR} ${CMAKE_CXX_COMPILER} ${PIOC_GEN})
set_tests_properties(layering.drivers_without_sim PROPERTIES TIMEOUT 120 LABELS "unit;layering")
