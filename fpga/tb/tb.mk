# Verilator + Catch2 testbenches: one binary per top, tb/test_<top>.cpp.
# Included by fpga/Makefile (variables B, GEN, SRCS, JOBS, TIMEOUT from there).
TB_TOPS    := pio_top axi_ram bloom_hash coh_top xdma_user_top cdc_handshake mac_loopback nic_pio_top nic_dma_top
TB_TOPS    += nic_eci_top
TB_CXXFLAGS := -std=c++20 -O1 -I$(CURDIR)/tb -I$(ROOT)/include -I$(GEN) -I$(ROOT)/lib/rtl -I$(ROOT)/lib
TB_VFLAGS  := --cc --exe --build -j $(JOBS) -Wall -Wno-DECLFILENAME -O2 --x-assign unique --x-initial unique
TB_RUN_TIMEOUT ?= 900

tb: $(TB_TOPS:%=$(B)/tb/%.pass)

$(B)/tb/catch_main.o: tb/common/catch_main.cpp
	@mkdir -p $(@D)
	$(CXX) -std=c++20 -O1 -c $< -o $@

# Extra C++ sources of a testbench (the lib/rtl port wrappers it tests).
TB_EXTRA_coh_top := $(ROOT)/lib/rtl/coh_rtl.cpp
TB_EXTRA_mac_loopback := $(ROOT)/lib/sim/nic/mac_model.cpp
TB_EXTRA_nic_pio_top := $(ROOT)/lib/sim/nic/mac_model.cpp
TB_EXTRA_nic_dma_top := $(ROOT)/lib/sim/nic/mac_model.cpp
TB_EXTRA_nic_eci_top := $(ROOT)/lib/rtl/nic_eci_rtl.cpp $(ROOT)/lib/sim/nic/mac_model.cpp
# Extra Verilator configuration of a testbench (speed.vlt: the cycle counter
# writable, for a twin that skips idle cycles).
TB_VLT_nic_pio_top := $(ROOT)/lib/rtl/speed.vlt
TB_VLT_nic_eci_top := $(ROOT)/lib/rtl/speed.vlt

.SECONDEXPANSION:
.SECONDARY:
$(B)/tb/%/Vtb: $(SRCS) scripts/lint.vlt tb/test_%.cpp $(wildcard tb/*.hpp tb/common/*.hpp $(ROOT)/lib/rtl/*.hpp $(ROOT)/lib/sim/nic/*.hpp) $$(TB_EXTRA_$$*) $$(TB_VLT_$$*) $(B)/tb/catch_main.o
	@mkdir -p $(@D)
	$(TIMEOUT) 1200 $(VERILATOR) $(TB_VFLAGS) --top-module $* -Mdir $(@D)/obj -o ../Vtb \
	    -CFLAGS "$(TB_CXXFLAGS)" scripts/lint.vlt $(TB_VLT_$*) $(SRCS) $(CURDIR)/tb/test_$*.cpp $(TB_EXTRA_$*) $(B)/tb/catch_main.o

$(B)/tb/%.pass: $(B)/tb/%/Vtb
	cd $(B)/tb/$* && $(TIMEOUT) $(TB_RUN_TIMEOUT) ./Vtb --durations yes -r compact
	@touch $@
