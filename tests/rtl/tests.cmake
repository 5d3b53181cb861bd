# RTL tests (fpga/ and lib/rtl). Included by tests/CMakeLists.txt.
#
# rtl.fpga: lint, iverilog, yosys and the Verilator testbenches of fpga/
# (make -C fpga test; outputs cached in build/fpga). Needs verilator,
# iverilog and yosys (scripts/bootstrap installs them); fails, saying which,
# when one is missing: a missing tool must not pass for a verified design.
add_test(NAME rtl.fpga
  COMMAND sh -c "for t in verilator iverilog yosys; do command -v $t >/dev/null || \
{ echo \"rtl.fpga: $t is not installed (run scripts/bootstrap)\"; exit 1; }; done; \
exec make -C ${CMAKE_SOURCE_DIR}/fpga -j2 test"
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(rtl.fpga PROPERTIES TIMEOUT 3600 LABELS "rtl;slow")

# With -DPIOC_RTL=ON: the behavioral models and the Verilated RTL behind the
# same pioc::sim::target interface must give the same answers.
if(PIOC_RTL)
  file(GLOB RTL_TEST_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
  add_executable(test_rtl ${RTL_TEST_SRCS})
  target_link_libraries(test_rtl PRIVATE pioc_static pioc_rtl pioc_catch_main)
  target_include_directories(test_rtl PRIVATE ${CMAKE_SOURCE_DIR}/lib ${CMAKE_SOURCE_DIR}/tests
                             ${CMAKE_SOURCE_DIR}/fpga/tb)  # the AXI masters' checkers (test_rtl_speed.cpp)
  # Only the code that names rtl: devices is compiled differently from the
  # default build (so build-rtl reuses the rest from ccache).
  add_test(NAME rtl.shared_flags
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_shared_flags.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(rtl.shared_flags PROPERTIES TIMEOUT 60 LABELS rtl)
  add_test(NAME rtl.model_vs_rtl COMMAND test_rtl "~[speed]~[.]")  # a negation alone would run the hidden [.] tests too
  set_tests_properties(rtl.model_vs_rtl PROPERTIES TIMEOUT 900 LABELS rtl)
  # Simulator speed (issue 13, test_rtl_speed.cpp): skipping idle cycles
  # changes no value or time a host sees (rtl:pio, rtl:xdma, rtl:coh, the
  # NICs), and each image's simulated cycles per CPU second is reported.
  add_test(NAME rtl.speed COMMAND test_rtl [speed])
  set_tests_properties(rtl.speed PROPERTIES TIMEOUT 600 LABELS rtl)
  # The speeds rtl.speed reports are CPU time, which depends on the machine
  # (its floors fail only with PIOC_SPEED_FLOORS=1); this counts rtl:xdma's
  # instructions per simulated cycle with callgrind, which does not: a
  # ceiling (2770 today) and the gain of one evaluation per cycle over two
  # (1.17x today). An uninstrumented x86-64 build only, as bench.*_instructions.
  if(NOT CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64"
     AND NOT PIOC_SANITIZE AND NOT PIOC_TSAN)
    add_test(NAME rtl.instructions
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_rtl_instructions.sh $<TARGET_FILE:test_rtl> 2500 1.10 2)
    set_tests_properties(rtl.instructions PROPERTIES TIMEOUT 300 LABELS rtl)
    # rtl.speed's floors are live: under valgrind (about 8x slower than
    # native) rtl:xdma's floor fails with PIOC_SPEED_FLOORS=1 and is
    # reported, without failing, by default (about 4 s).
    add_test(NAME rtl.speed_floors
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_speed_floor.sh $<TARGET_FILE:test_rtl>)
    set_tests_properties(rtl.speed_floors PROPERTIES TIMEOUT 300 LABELS rtl)
  endif()
endif()

# Per-backend defaults (tools/common/run_defaults): a default pciebench pio
# run on rtl:pio uses the RTL's iteration counts (100 + 10 warm-up, every
# default size and op) and reports the simulator's speed; sim:pio keeps its
# own defaults and runs faster than real time.
if(PIOC_RTL)
  add_test(NAME rtl.default_runs
    COMMAND sh -c "$<TARGET_FILE:pciebench> pio --device rtl:pio --json --no-pin --quiet | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"warmup\"]==10, r[\"warmup\"]; \
assert len(r[\"results\"])==55 and all(x[\"iterations\"]==100 for x in r[\"results\"]), r[\"results\"]; \
s=r[\"simulation\"]; print(s); assert s[\"cycles\"]>0 and s[\"cycles_per_s\"]>0 and s[\"cpu_s\"]<60, s' || exit 1; \
$<TARGET_FILE:pciebench> pio --device sim:pio --sizes 64 --ops write_read --json --no-pin --quiet | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"results\"][0][\"iterations\"]==10000, r; \
s=r[\"simulation\"]; print(s); assert \"cycles\" not in s and s[\"sim_ns_per_cpu_ns\"]>1, s'")
  set_tests_properties(rtl.default_runs PROPERTIES TIMEOUT 600 LABELS rtl)
endif()

# pciebench against the RTL: every invocation's response is checked against
# the op applied to the request (echo, NOT, +1), for sizes 8 B .. 8 KiB, and
# the JSON must say the times are simulated.
if(PIOC_RTL)
  add_test(NAME rtl.pciebench_pio
    COMMAND sh -c "for op in echo not add1; do \
$<TARGET_FILE:pciebench> pio --device rtl:pio --ops write_read,write_stream,read_stream --op-code $op \
  --sizes 8,64,1K,8K --iterations 20 --warmup 2 --json --no-pin | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"simulated\"] is True and r[\"transport\"]==\"rtl\"; assert len(r[\"results\"])==12, r' || exit 1; done")
  set_tests_properties(rtl.pciebench_pio PROPERTIES TIMEOUT 900 LABELS rtl)
endif()

# pciebench dma on rtl:xdma (the XDMA engine model in front of the Verilated
# VCU118 user side): every suite row present, simulated, card buffers in the
# BRAM window by default; a window beyond the 256 KiB map is a clear error.
if(PIOC_RTL)
  add_test(NAME rtl.pciebench_dma
    COMMAND sh -c "$<TARGET_FILE:pciebench> dma --device rtl:xdma --tests LAT_RD,LAT_WRRD,BW_RD,BW_WR \
  --sizes 64,1K,8K --iterations 20 --warmup 2 --json --no-pin | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"simulated\"] is True and r[\"transport\"]==\"rtl\" and r[\"device\"]==\"rtl:xdma\", r; \
e=r.get(\"extra\",r); assert e[\"card_addr\"]==0x20000, e; assert len(r[\"results\"])==12, r; \
assert all(x[\"p50_ns\"]>0 for x in r[\"results\"] if x[\"op\"].startswith(\"LAT\")), r; \
assert all(0<x[\"gbps\"]<=16.5 for x in r[\"results\"] if x[\"op\"].startswith(\"BW\")), r' || exit 1; \
if $<TARGET_FILE:pciebench> dma --device rtl:xdma --sizes 64K --window 262144 --iterations 2 --json --no-pin >/dev/null 2>err-rtl.pciebench_dma.txt; \
then echo 'a 256 KiB card window was accepted'; exit 1; fi; \
grep -q \"rtl:xdma: 65536-byte transfers need card addresses 0x20000..0x5ffff\" err-rtl.pciebench_dma.txt && \
grep -q \"card's address space is 262144 bytes\" err-rtl.pciebench_dma.txt || { cat err-rtl.pciebench_dma.txt; exit 1; }")
  set_tests_properties(rtl.pciebench_dma PROPERTIES TIMEOUT 900 LABELS rtl)
endif()

# ecibench invoke on the Verilated coherent engine behind the ECI simulator
# (--engine rtl): 5a and 5b, simulated, transport rtl, RTL cycles per call,
# the Exclusive 5a call ~900 ns with 4 link messages; a 16 KiB 5a call in
# 120-byte chunks (137 request + 137 response chunks: 273 exchanges of 4
# messages, the final request chunk is answered with response chunk 0); a 5b
# message longer than the engine's one line (120 B) is a clear error (from
# the engine: the tool does not check it).
if(PIOC_RTL)
  add_test(NAME rtl.ecibench_invoke
    COMMAND sh -c "for v in 5a 5b; do \
$<TARGET_FILE:ecibench> invoke --engine rtl --variant $v --sizes 8,64,120 --iterations 50 --json --no-pin | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"simulated\"] is True and r[\"transport\"]==\"rtl\" and r[\"engine\"]==\"rtl\", r; \
assert len(r[\"results\"])==3, r; assert all(x[\"cycles_per_op\"]>0 and 300<x[\"p50_ns\"]<1200 for x in r[\"results\"]), r; \
assert r[\"variant\"]!=\"5a\" or all(x[\"messages_per_op\"]==4 and 800<x[\"p50_ns\"]<1000 for x in r[\"results\"]), r' || exit 1; done; \
$<TARGET_FILE:ecibench> invoke --engine rtl --variant 5a --sizes 16K --iterations 2 --json --no-pin | \
python3 -c 'import json,sys; r=json.load(sys.stdin); x=r[\"results\"][0]; assert x[\"messages_per_op\"]==4*(137+137-1), r' || exit 1; \
if $<TARGET_FILE:ecibench> invoke --engine rtl --variant 5b --sizes 121 --iterations 2 --json --no-pin >/dev/null 2>err-rtl.ecibench_invoke.txt; \
then echo 'a 121-byte 5b message was accepted'; exit 1; fi; \
grep -q 'at most 120 bytes' err-rtl.ecibench_invoke.txt || { cat err-rtl.ecibench_invoke.txt; exit 1; }")
  set_tests_properties(rtl.ecibench_invoke PROPERTIES TIMEOUT 900 LABELS rtl)
  # The channel count comes from the image's CHANNELS register: a channel
  # beyond it is refused by name before anything runs (it used to stall each
  # read until the engine's timeout on hardware).
  add_test(NAME rtl.ecibench_channel_count
    COMMAND sh -c "if $<TARGET_FILE:ecibench> invoke --device rtl:coh --channel 4 -n 2 --no-pin 2>err-rtl.ecibench_channel_count.txt; then echo '--channel 4 was accepted'; exit 1; fi; grep -q \"CHANNELS register reports 4\" err-rtl.ecibench_channel_count.txt || { cat err-rtl.ecibench_channel_count.txt; exit 1; }; $<TARGET_FILE:ecibench> invoke --device rtl:coh --channel 3 --sizes 8 -n 2 -w 0 --no-pin --quiet >/dev/null")
  set_tests_properties(rtl.ecibench_channel_count PROPERTIES TIMEOUT 120 LABELS rtl)
endif()

# The Bloom offload (paper Fig. 12) over PIO and DMA on the RTL: pciebench
# checks every hash against pioc/bloom_hash.hpp and fails on a wrong one.
if(PIOC_RTL)
  add_test(NAME rtl.pciebench_offload
    COMMAND $<TARGET_FILE:pciebench> offload --paths pio,dma --pio-device rtl:pio --dma-device rtl:xdma
            --sizes 128,1K,8K,16K -n 3 -w 1 --no-pin --json)
  set_tests_properties(rtl.pciebench_offload PROPERTIES TIMEOUT 900 LABELS rtl)
endif()

# nicbench on the Verilated PIO NIC (rtl:nic_pio, about 3 s per mode): its
# small RTL default count (20 frames per size), every frame checked by
# nicbench itself, JSON simulated with transport rtl, one row per size, RX
# latency growing with the frame.
if(PIOC_RTL)
  add_test(NAME rtl.nicbench_nic_pio
    COMMAND sh -c "for m in rx tx; do $<TARGET_FILE:nicbench> $m --device rtl:nic_pio --json 2>err-rtl.nicbench_nic_pio.txt | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"simulated\"] is True and r[\"transport\"]==\"rtl\", r; \
x=r[\"results\"]; assert [e[\"size\"] for e in x]==[64,1536,9600], x; assert all(e[\"iterations\"]==20 and e[\"p50_ns\"]>0 for e in x), x; \
assert sys.argv[1]!=\"rx\" or x[0][\"p50_ns\"]<x[1][\"p50_ns\"]<x[2][\"p50_ns\"], x' $m || exit 1; \
grep -q 'rtl:nic_pio is Verilated RTL: 20 frames per size' err-rtl.nicbench_nic_pio.txt || { cat err-rtl.nicbench_nic_pio.txt; exit 1; }; done")
  set_tests_properties(rtl.nicbench_nic_pio PROPERTIES TIMEOUT 300 LABELS rtl)
endif()

# nicbench --path dma on rtl:nic_dma (the XDMA stream engine model in front of
# the Verilated DMA NIC user side): the same driver and tool as on
# sim:nic_dma, JSON simulated with transport rtl, one row per size, the RTL
# default of 20 frames per size; RX nearly flat in the frame size (C2H0 writes
# a frame while its beats arrive: 9600 bytes within 400 ns of 64; written
# after its last beat they would be 0.7 us behind).
if(PIOC_RTL)
  add_test(NAME rtl.nicbench_nic_dma
    COMMAND sh -c "for m in rx tx; do $<TARGET_FILE:nicbench> $m --path dma --device rtl:nic_dma --json 2>err-rtl.nicbench_nic_dma.txt | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"simulated\"] is True and r[\"transport\"]==\"rtl\", r; \
x=r[\"results\"]; assert [e[\"size\"] for e in x]==[64,1536,9600], x; assert all(e[\"iterations\"]==20 and e[\"p50_ns\"]>0 for e in x), x; \
assert sys.argv[1]!=\"rx\" or x[0][\"p50_ns\"]<x[2][\"p50_ns\"]<x[0][\"p50_ns\"]+400, x' $m || exit 1; \
grep -q 'rtl:nic_dma is Verilated RTL: 20 frames per size' err-rtl.nicbench_nic_dma.txt || { cat err-rtl.nicbench_nic_dma.txt; exit 1; }; done")
  set_tests_properties(rtl.nicbench_nic_dma PROPERTIES TIMEOUT 300 LABELS rtl)
  # Receive by interrupt (the C2H engine's MSI-X) on the Verilated user side:
  # every frame back, RX above the polled receive's (the wake-up). Failed
  # with "frame 0 did not come back within 1 s" while the image's busy
  # stretches were no event of the sleeping CPU's (nic_dma_rtl next_event_ns).
  add_test(NAME rtl.nicbench_nic_dma_irq
    COMMAND sh -c "$<TARGET_FILE:nicbench> rx --path dma --device rtl:nic_dma --rx-wait irq -n 5 --json 2>err-rtl.nicbench_nic_dma_irq.txt | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"rx_wait\"]==\"irq\", r; x=r[\"results\"]; \
assert [e[\"size\"] for e in x]==[64,1536,9600] and all(e[\"iterations\"]==5 and e[\"p50_ns\"]>0 for e in x), x' \
|| { cat err-rtl.nicbench_nic_dma_irq.txt; exit 1; }")
  set_tests_properties(rtl.nicbench_nic_dma_irq PROPERTIES TIMEOUT 300 LABELS rtl)
endif()

# nicbench on the Verilated ECI NIC (rtl:nic_eci): the driver and nicbench
# unchanged, 20 frames per size (the RTL default), every frame checked by
# nicbench itself, JSON simulated with transport rtl, RX growing with the frame.
if(PIOC_RTL)
  add_test(NAME rtl.nicbench_nic_eci
    COMMAND sh -c "for m in rx tx; do $<TARGET_FILE:nicbench> $m --path eci --device rtl:nic_eci --json 2>err-rtl.nicbench_nic_eci.txt | \
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"simulated\"] is True and r[\"transport\"]==\"rtl\", r; \
x=r[\"results\"]; assert [e[\"size\"] for e in x]==[64,1536,9600], x; assert all(e[\"iterations\"]==20 and e[\"p50_ns\"]>0 for e in x), x; \
assert x[0][\"p50_ns\"]<x[1][\"p50_ns\"]<x[2][\"p50_ns\"], x; \
s=r[\"simulation\"]; assert s[\"cycles\"]>0 and 0<s[\"evaluated_cycles\"]<=s[\"cycles\"] and s[\"simulated_ns\"]>0, s' $m || exit 1; \
grep -q 'rtl:nic_eci is Verilated RTL: 20 frames per size' err-rtl.nicbench_nic_eci.txt || { cat err-rtl.nicbench_nic_eci.txt; exit 1; }; done")
  set_tests_properties(rtl.nicbench_nic_eci PROPERTIES TIMEOUT 300 LABELS rtl)
endif()
