# Coherent protocols: thread tests run under ThreadSanitizer (make test-tsan),
# SPIN models (make test-spin; ctest label spin).
if(TEST unit.coherent_threads)
  set_tests_properties(unit.coherent_threads PROPERTIES LABELS "unit;threads" TIMEOUT 300)
endif()
find_program(PIOC_SPIN spin)
if(PIOC_SPIN)
  add_test(NAME spin.models COMMAND ${CMAKE_SOURCE_DIR}/tests/spin/run)
  set_tests_properties(spin.models PROPERTIES LABELS spin TIMEOUT 600)
endif()
