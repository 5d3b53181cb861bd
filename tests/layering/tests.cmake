# The component layering (cmake/components.cmake) holds: a private header of a
# component not depended on is out of reach, one depended on is reachable.
add_test(NAME build.private_views
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-private-views ${CMAKE_CXX_COMPILER} ${PIOC_VIEWS}
          ${CMAKE_SOURCE_DIR}/include ${PIOC_GEN})
set_tests_properties(build.private_views PROPERTIES TIMEOUT 120 LABELS unit)
