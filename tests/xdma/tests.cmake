# XDMA tool smoke tests (ctest label "tools"): pciebench model / dma / crossover
# on the simulated XDMA device, --json parsed by python3.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET pciebench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.pciebench_model_json
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-model.py $<TARGET_FILE:pciebench>)
  add_test(NAME tools.pciebench_dma_json
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-dma.py $<TARGET_FILE:pciebench>)
  set_tests_properties(tools.pciebench_model_json tools.pciebench_dma_json PROPERTIES TIMEOUT 300 LABELS tools)
endif()
