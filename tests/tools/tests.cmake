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

# ecibench queue with the modelled device at the other end: simulated, and a
# round trip costs the four line exchanges Documentation/protocols.md derives
# (8 link messages, plus the lazy head reads once per pass of each ring).
if(TARGET ecibench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.ecibench_queue_device
    COMMAND sh -c "$<TARGET_FILE:ecibench> queue --peer device --entries 16 --iterations 320 --warmup 32 --json --no-pin | \
${Python3_EXECUTABLE} -c 'import json,sys; r=json.load(sys.stdin); x=r[\"results\"][0]; \
assert r[\"simulated\"] is True and r[\"transport\"]==\"sim\" and x[\"op\"]==\"cq_roundtrip\", r; \
assert abs(x[\"messages_per_op\"] - 8 * (1 + 1/16)) < 1e-9, x; assert abs(x[\"round_trips_per_op\"] - 4 * (1 + 1/16)) < 1e-9, x; \
assert 1300 < x[\"p50_ns\"] < 1700, x; print(\"ok\", x[\"p50_ns\"], x[\"messages_per_op\"])'")
  set_tests_properties(tools.ecibench_queue_device PROPERTIES TIMEOUT 300 LABELS tools)
endif()

# pciebench offload (paper Fig. 12): every path returns the hashes of
# pioc/bloom_hash.hpp (the tool checks them), rows say measured or simulated,
# per element the coherent path beats PIO over PCIe, and DMA beats PIO once
# the batch is large (the paper's shape).
if(TARGET pciebench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.pciebench_offload
    COMMAND sh -c "$<TARGET_FILE:pciebench> offload --sizes 128,1K,4K -n 5 -w 1 --json --no-pin | \
${Python3_EXECUTABLE} -c 'import json,sys; r=json.load(sys.stdin); rows={(x[\"op\"],x[\"size\"]):x for x in r[\"results\"]}; \
assert len(rows)==12, rows.keys(); assert all(rows[(\"cpu\",s)][\"time\"]==\"measured\" for s in (128,1024,4096)); \
assert all(rows[(p,s)][\"time\"]==\"simulated\" for p in (\"pio\",\"dma\",\"eci\") for s in (128,1024,4096)); \
assert rows[(\"eci\",4096)][\"ns_per_element\"] < rows[(\"pio\",4096)][\"ns_per_element\"], rows; \
assert rows[(\"dma\",4096)][\"p50_ns\"] < rows[(\"pio\",4096)][\"p50_ns\"], rows; \
assert rows[(\"dma\",128)][\"p50_ns\"] > rows[(\"eci\",128)][\"p50_ns\"], rows; \
assert rows[(\"pio\",4096)][\"elements\"]==32; print(\"ok\")'")
  set_tests_properties(tools.pciebench_offload PROPERTIES TIMEOUT 300 LABELS tools)
endif()

# ecibench invoke --window: options the Enzian image cannot apply are refused
# by name before the window is opened (no kmod needed: the window is absent).
if(TARGET ecibench)
  add_test(NAME tools.ecibench_window_options
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-ecibench-window-options.sh $<TARGET_FILE:ecibench>)
  set_tests_properties(tools.ecibench_window_options PROPERTIES TIMEOUT 60 LABELS tools)
endif()
