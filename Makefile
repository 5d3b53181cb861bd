# pioc: the one entry point.
#
#   make            library, tools, and the module if kernel headers are present
#   make demo       set up, then run pioc-info, pciebench and ecibench on the
#                   built-in simulated devices
#   make test       set up, then run every test (unit, sanitizers, aarch64,
#                   install, QEMU + module, RTL, SPIN, herd7)
#   make check-disk whether the disk has room for what make test writes
#                   (its first step; about 11 GB from a fresh clone)
#   make install    install library, headers, pkg-config, CMake package, tools
#   make kmod       build pioc.ko (KDIR=/path/to/headers to choose)
#   make figures    the paper's Figures 1, 2, 6, 7, 12 and Table 2 from the
#                   simulated experiments, beside the paper's numbers, as SVG
#                   and PNG in $(BUILD)/figures/ (about 15 s once built)
#
# Individual test stages: test-unit test-asan test-tsan test-aarch64
# test-install test-qemu test-cosim test-rtl test-cosim-rtl test-spin test-herd.

SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
PREFIX ?= /usr/local
CMAKE_FLAGS ?=
NINJA := ninja -j$(JOBS)

.PHONY: all lib tools kmod demo test check-disk install bootstrap clean figures \
	test-unit test-asan test-tsan test-aarch64 test-install test-qemu test-cosim test-rtl test-cosim-rtl test-spin test-herd

all: lib kmod-if-possible

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

lib tools: $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD)

# The module is built when headers for it exist (running kernel or KDIR).
kmod-if-possible:
	@if [ -d kmod ] && { [ -n "$(KDIR)" ] || [ -d /lib/modules/$$(uname -r)/build ] || \
		ls -d /usr/src/linux-headers-*-amd64 >/dev/null 2>&1; }; then \
		$(MAKE) -C kmod $(if $(KDIR),KDIR=$(KDIR)); \
	else echo "make: no kernel headers found, skipping the module (set KDIR=...)"; fi

kmod:
	$(MAKE) -C kmod $(if $(KDIR),KDIR=$(KDIR))

bootstrap:
	scripts/bootstrap

demo: bootstrap lib
	@scripts/demo $(BUILD)

# Runs pciebench/ecibench on the simulated devices, draws with tools/plot/.
figures: bootstrap $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD) pciebench ecibench nicbench
	scripts/figures $(BUILD) $(BUILD)/figures

install: lib
	cmake --install $(BUILD) --prefix $(PREFIX)

# ---------------------------------------------------------------- tests
# Every stage prints its own verdict; the summary at the end counts them.
TEST_STAGES := test-unit test-asan test-tsan test-aarch64 test-install test-kmod-matrix test-qemu test-cosim test-rtl test-cosim-rtl test-spin test-herd

# check-disk first: a full disk would otherwise surface a quarter of an hour
# in, as some other tool's error (scripts/check-disk says how much, and why).
test: check-disk
	@$(MAKE) --no-print-directory bootstrap
	@scripts/run-tests $(TEST_STAGES)

check-disk:
	@BUILD=$(BUILD) scripts/check-disk

test-unit: lib
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -LE 'slow|qemu|rtl|spin'

# The sanitizer and cross trees share no object with another tree: no ccache
# (disk; CMakeLists.txt, PIOC_CCACHE).
SIDE_TREE := -DPIOC_CCACHE=OFF

test-asan:
	cmake -S . -B build-asan -G Ninja -DPIOC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(SIDE_TREE) $(CMAKE_FLAGS)
	$(NINJA) -C build-asan
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j$(JOBS) -LE 'slow|qemu|rtl|spin|tsan-only'

test-tsan:
	cmake -S . -B build-tsan -G Ninja -DPIOC_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(SIDE_TREE) $(CMAKE_FLAGS)
	$(NINJA) -C build-tsan $$(cd build-tsan && ctest -N -L threads | sed -n 's/^ *Test *#[0-9]*: unit\.\(.*\)$$/test_\1/p')
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j$(JOBS) -L threads

test-aarch64:
	cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(SIDE_TREE) $(CMAKE_FLAGS)
	$(NINJA) -C build-aarch64
	cd build-aarch64 && ctest --output-on-failure -j$(JOBS) -L unit

test-install: lib
	tests/install/run $(BUILD)

# pioc.ko against Debian's 5.10, 6.1, 6.12 and newest headers, amd64 and
# arm64: W=1, sparse, modpost, checkpatch --strict; then DKMS on 6.1.
test-kmod-matrix:
	scripts/kmod-matrix

# The guest suite on the kernel of the installed headers (6.1), then on 6.12.
test-qemu: lib
	@if [ -x tests/qemu/run ]; then tests/qemu/run --build-dir $(BUILD); else echo "test-qemu: tests/qemu/run missing"; exit 1; fi
	tests/qemu/run --build-dir $(BUILD) --kernel 6.12

# The user's path in a QEMU guest (Debian 13's QEMU with the vfio-user client,
# from a cached debootstrap root) against devices served by pioc-devd.
test-cosim: lib
	tests/cosim/run --build-dir $(BUILD)

# The RTL suite (lint, iverilog, yosys, Verilator testbenches), then libpioc
# built with the Verilated images: model-vs-RTL agreement and pciebench on rtl:pio.
test-rtl:
	$(MAKE) -C fpga -j$(JOBS) test
	cmake -S . -B build-rtl -G Ninja -DPIOC_RTL=ON $(CMAKE_FLAGS)
	$(NINJA) -C build-rtl test_rtl pciebench ecibench nicbench
	cd build-rtl && ctest --output-on-failure -L rtl -E 'rtl[.]fpga'

# The Verilated images served to the guest by pioc-devd, as test-cosim serves
# the models: pioc.ko, pciebench pio/dma/offload and the examples against the
# RTL, with and without a guest IOMMU. Reuses test-rtl's build (build-rtl).
test-cosim-rtl:
	cmake -S . -B build-rtl -G Ninja -DPIOC_RTL=ON $(CMAKE_FLAGS)
	tests/cosim/run --build-dir build-rtl --device rtl:pio --device rtl:xdma --device rtl:xdma+iommu

test-spin:
	@if [ -x tests/spin/run ]; then tests/spin/run; else echo "test-spin: tests/spin/run missing"; exit 1; fi

# herd7 litmus tests of the coherent path's barriers (herd7 from the cached
# Debian unstable root; PIOC_ROOTS as for scripts/debian-root).
test-herd: $(BUILD)/build.ninja
	PIOC_BUILD=$(BUILD) tests/herd/run

clean:
	rm -rf $(BUILD) build-asan build-tsan build-aarch64 build-rtl
	-$(MAKE) -C kmod clean 2>/dev/null
