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

# pioc-plot (tools/pioc-plot): real JSON from both tools becomes valid SVG and
# PNG; truncated or malformed JSON is refused with the file and the reason.
if(TARGET pciebench AND TARGET ecibench AND TARGET nicbench)
  add_test(NAME tools.pioc_plot
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-pioc-plot.sh $<TARGET_FILE:pciebench> $<TARGET_FILE:ecibench>
      ${CMAKE_SOURCE_DIR}/tools/pioc-plot)
  set_tests_properties(tools.pioc_plot PROPERTIES TIMEOUT 300 LABELS tools)
endif()

# pciebench --help names every kind of device, the RTL ones included.
if(TARGET pciebench)
  add_test(NAME tools.pciebench_help_devices
    COMMAND sh -c "out=$($<TARGET_FILE:pciebench> --help) && for d in sim:pio sim:xdma sim:xdma_pio sim:nic_pio rtl:pio rtl:xdma 0000:01:00.0 kmod: xilinx:; do \
case \"$out\" in *\"$d\"*) ;; *) echo \"pciebench --help does not name $d\"; exit 1;; esac; done; echo ok")
  set_tests_properties(tools.pciebench_help_devices PROPERTIES TIMEOUT 60 LABELS tools)
endif()

# The command line of pciebench, pioc-info and pioc-devd (CLI11, tools/common/
# options): bad options, sizes, counts and devices exit 2 naming the option,
# the value and the rule; --help shows units, defaults and every device kind.
# Opens no device: under a second.
if(TARGET pciebench AND TARGET pioc-info AND TARGET pioc-devd)
  add_test(NAME tools.cli
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-cli.sh $<TARGET_FILE:pciebench> $<TARGET_FILE:pioc-info>
      $<TARGET_FILE:pioc-devd>)
  set_tests_properties(tools.cli PROPERTIES TIMEOUT 60 LABELS tools)
endif()

# make figures still works (the tools' options it uses exist, every figure is
# drawn): scripts/figures into a scratch directory, 18 files, PNGs valid, and
# the NIC figures with a SIMULATED series per simulated NIC path, from JSON
# with every packet size (tests/tools/check-figures.py).
if(TARGET pciebench AND TARGET ecibench AND TARGET nicbench)
  add_test(NAME tools.figures
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check-figures.py ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(tools.figures PROPERTIES TIMEOUT 300 LABELS tools)
endif()

# ecibench invoke --window: options the Enzian image cannot apply are refused
# by name before the window is opened (no kmod needed: the window is absent).
if(TARGET ecibench)
  add_test(NAME tools.ecibench_window_options
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-ecibench-window-options.sh $<TARGET_FILE:ecibench>)
  set_tests_properties(tools.ecibench_window_options PROPERTIES TIMEOUT 60 LABELS tools)
endif()

# ecibench --device (issue 14): defaults, old spellings mapped to --device,
# every Fig. 5 variant on sim:eci, bad input named, --help naming the devices.
if(TARGET ecibench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.ecibench_devices
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-ecibench-devices.sh $<TARGET_FILE:ecibench>)
  set_tests_properties(tools.ecibench_devices PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# pciebench and ecibench share one subcommand dispatch: "help COMMAND", an
# unknown command naming the known ones, exit codes (under a second).
if(TARGET pciebench AND TARGET ecibench AND TARGET nicbench)
  add_test(NAME tools.subcommands
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-subcommands.sh $<TARGET_FILE:pciebench> $<TARGET_FILE:ecibench>)
  set_tests_properties(tools.subcommands PROPERTIES TIMEOUT 60 LABELS tools)
endif()

# nicbench on the simulated PIO NIC (about a second).
if(TARGET nicbench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.nicbench_pio
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-nicbench.py $<TARGET_FILE:nicbench>)
  set_tests_properties(tools.nicbench_pio PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# nicbench on the simulated DMA NIC (about 0.5 s).
if(TARGET nicbench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.nicbench_dma
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-nicbench-dma.py $<TARGET_FILE:nicbench>)
  set_tests_properties(tools.nicbench_dma PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# nicbench on the simulated ECI NIC (about 0.2 s).
if(TARGET nicbench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.nicbench_eci
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-nicbench-eci.py $<TARGET_FILE:nicbench>)
  set_tests_properties(tools.nicbench_eci PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# nicbench rx --rx-wait irq|poll on the PIO and DMA NICs (about a second).
if(TARGET nicbench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.nicbench_irq
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-nicbench-irq.py $<TARGET_FILE:nicbench>)
  set_tests_properties(tools.nicbench_irq PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# Progress on long runs (issue 13): progress lines on stderr (not a terminal)
# for pciebench pio/dma/offload and ecibench invoke/queue, stdout JSON intact,
# none with --quiet or before the first-report delay (about 2 s in all).
if(TARGET pciebench AND TARGET ecibench AND Python3_Interpreter_FOUND)
  add_test(NAME tools.progress
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-progress.py $<TARGET_FILE:pciebench>
      $<TARGET_FILE:ecibench>)
  set_tests_properties(tools.progress PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# pciebench dma's data check (tools/pciebench/dma_check.cpp) against sim:xdma:
# it must pass real transfers and fail a corrupted or missing one.
if(TARGET pioc_tool_common)
  add_executable(test_dma_check ${CMAKE_CURRENT_LIST_DIR}/test_dma_check.cpp
    ${CMAKE_SOURCE_DIR}/tools/pciebench/dma_check.cpp)
  target_link_libraries(test_dma_check PRIVATE pioc_tool_common pioc_catch_main)
  add_test(NAME tools.dma_check COMMAND test_dma_check)
  set_tests_properties(tools.dma_check PROPERTIES TIMEOUT 120 LABELS tools)
endif()
# nicbench's interrupt wait when it runs out (tools/nicbench/measure.hpp):
# a frame back without its interrupt is named a lost interrupt, with the
# --rx-timeout limit it waited.
if(TARGET nicbench)
  add_executable(test_nicbench_wait ${CMAKE_CURRENT_LIST_DIR}/test_nicbench_wait.cpp)
  target_include_directories(test_nicbench_wait PRIVATE ${CMAKE_SOURCE_DIR}/tools)
  target_link_libraries(test_nicbench_wait PRIVATE pioc_tool_common pioc_catch_main)
  add_test(NAME tools.nicbench_wait COMMAND test_nicbench_wait)
  set_tests_properties(tools.nicbench_wait PROPERTIES TIMEOUT 60 LABELS tools)
endif()
# The check inside pciebench dma: sim:xdma_pio's card addresses from 0 are
# the PIO image's registers, not memory, so data sent there does not come
# back and the run must fail naming the transfer (its default, the block-RAM
# window, passes in tools.pciebench_dma_checked).
if(TARGET pciebench)
  add_test(NAME tools.pciebench_dma_check_fails
    COMMAND sh -c "if out=$($<TARGET_FILE:pciebench> dma -d sim:xdma_pio --card-addr 0 -t BW_RD -Q 4 -n 10 -w 2 \
--sizes 64 --no-pin 2>&1); then echo \"passed: $out\"; exit 1; fi; echo \"$out\" | \
grep 'data check failed: 64-byte transfer 0 of 4 (card address 0x0'")
  add_test(NAME tools.pciebench_dma_checked
    COMMAND sh -c "$<TARGET_FILE:pciebench> dma -d sim:xdma_pio -Q 4 -n 10 -w 2 --sizes 64,4K --no-pin --json | \
grep -q '\"checked_bytes\": *16896'")
  set_tests_properties(tools.pciebench_dma_check_fails tools.pciebench_dma_checked PROPERTIES TIMEOUT 120 LABELS tools)
endif()
# The same check on the stock-driver path (xilinx:PREFIX opens PREFIX_h2c_0
# and PREFIX_c2h_0): a file behind both names is one card and passes; two
# files lose the data and the run must fail naming the transfer.
if(TARGET pciebench)
  add_test(NAME tools.pciebench_xilinx_checked
    COMMAND sh -c "d=$(mktemp -d) && trap 'rm -rf $d' EXIT && truncate -s 1M $d/x_h2c_0 && ln -s x_h2c_0 $d/x_c2h_0 && $<TARGET_FILE:pciebench> dma -d xilinx:$d/x -Q 4 -n 10 -w 2 --sizes 64,4K --no-pin --json | grep -q '\"checked_bytes\": *33280'")
  add_test(NAME tools.pciebench_xilinx_check_fails
    COMMAND sh -c "d=$(mktemp -d) && trap 'rm -rf $d' EXIT && truncate -s 1M $d/x_h2c_0 $d/x_c2h_0 && if out=$($<TARGET_FILE:pciebench> dma -d xilinx:$d/x -Q 4 -n 10 -w 2 --sizes 64 --no-pin 2>&1); then echo \"passed: $out\"; exit 1; fi; echo \"$out\" | grep 'data check failed: 64-byte transfer 0 of 4 (card address 0x0'")
  set_tests_properties(tools.pciebench_xilinx_checked tools.pciebench_xilinx_check_fails PROPERTIES TIMEOUT 120 LABELS tools)
endif()

# bench/sim_speeds.py, issue 13's speed table, over this build's tools
# (about 3 s): every default model run measured once, each a positive speed
# with its goal, the machine named, progress on stderr, bad input refused.
# No limit on the speeds: CPU time is the machine's (testing.md).
if(TARGET pciebench AND TARGET ecibench AND TARGET nicbench AND Python3_Interpreter_FOUND
   AND NOT CMAKE_CROSSCOMPILING AND NOT PIOC_SANITIZE AND NOT PIOC_TSAN)
  add_test(NAME bench.sim_speeds
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-sim-speeds.py
            ${CMAKE_SOURCE_DIR}/bench/sim_speeds.py ${CMAKE_BINARY_DIR})
  set_tests_properties(bench.sim_speeds PROPERTIES TIMEOUT 600 LABELS bench)
endif()

# bench/model_instructions.py's checking and refusals (one callgrind run pair,
# about 5 s); the ceilings themselves are bench.model_instructions's.
if(TARGET pciebench AND TARGET ecibench AND TARGET nicbench AND Python3_Interpreter_FOUND
   AND NOT CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64"
   AND NOT PIOC_SANITIZE AND NOT PIOC_TSAN)
  add_test(NAME bench.model_instructions_cli
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check-model-instructions.py
            ${CMAKE_SOURCE_DIR}/bench/model_instructions.py ${CMAKE_BINARY_DIR})
  set_tests_properties(bench.model_instructions_cli PROPERTIES TIMEOUT 300 LABELS bench)
endif()
