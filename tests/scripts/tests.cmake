# The scripts `make test` itself runs (ctest label "scripts").
add_test(NAME scripts.check_disk
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-disk.sh ${CMAKE_SOURCE_DIR}/scripts/check-disk)
set_tests_properties(scripts.check_disk PROPERTIES TIMEOUT 60 LABELS scripts SKIP_RETURN_CODE 77)
# The locks that let scripts/prefetch run beside the stages (a few seconds).
add_test(NAME scripts.fetch_locks
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/fetch-locks.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(scripts.fetch_locks PROPERTIES TIMEOUT 60 LABELS scripts SKIP_RETURN_CODE 77)
