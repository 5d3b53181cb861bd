#!/bin/bash
# The Verilated rtl:xdma image's cost per simulated cycle, counted by
# callgrind (deterministic: the same on every machine with the same compiler
# and Verilator), while DMA keeps its user side busy (H2C + C2H of 32 KiB,
# test_rtl_speed.cpp's xdma_busy). CPU-time speeds vary with the machine
# (CI's runner ran this image at half the development machine's speed), so
# this is what ctest holds the image to; the speeds are reported by
# rtl.speed and recorded in Documentation/benchmarking.md.
#
# Each figure is the difference of a 12-round and a 2-round run, divided by
# the difference of their simulated cycles: the image's construction, the
# first touches and the buffers' set-up cancel out.
#
# The same difference under cachegrind gives the first-level instruction
# cache misses per simulated cycle with a 32 KiB L1i: how much of the
# image's per-cycle code does not stay in the cache. CI's runner ran this
# image at half the development machine's speed while the small NIC images
# ran at the same speed (session 14): a front end that waits for code. The
# 64 Bloom stages, each tested at every clock edge, made the code run per
# cycle larger than the cache (36 misses per cycle); one condition for the
# whole idle pipeline (fpga/rtl/bloom/bloom_hash.sv) left almost none.
#
# Fails if one evaluation per cycle costs more than LIMIT instructions or
# more than I1_LIMIT instruction-cache misses per simulated cycle, or if two
# evaluations per cycle cost less than MIN_RATIO times one (the gain of
# make_xdma_rtl's one_eval).
#
# usage: check_rtl_instructions.sh PATH/TO/test_rtl [LIMIT [MIN_RATIO [I1_LIMIT]]]
set -euo pipefail
prog=$1
limit=${2:-2500}
min_ratio=${3:-1.10}
i1_limit=${4:-2}
. "$(dirname "$0")/../../bench/callgrind_count.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count EVALS ROUNDS: sets ir (instructions counted) and cyc (simulated cycles)
count() {
	PIOC_RTL_EVALS=$1 PIOC_RTL_ROUNDS=$2 callgrind_ir "$tmp" pioc_rtl_counted "$prog" "[rtl_xdma_counted]" \
		>"$tmp/stdout"
	ir=$(tail -n 1 "$tmp/stdout")
	cyc=$(sed -n 's/^rtl:xdma rounds .* cycles \([0-9]*\) .*/\1/p' "$tmp/stdout")
	[ -n "$cyc" ] || { echo "test_rtl [rtl_xdma_counted] printed no cycle count:"; cat "$tmp/stdout"; exit 1; }
}

count 1 2; i1a=$ir c1a=$cyc
count 1 12; i1b=$ir c1b=$cyc
count 2 2; i2a=$ir c2a=$cyc
count 2 12; i2b=$ir c2b=$cyc
# misses ROUNDS: sets mr (I1 misses of the whole run)
misses() {
	PIOC_RTL_EVALS=1 PIOC_RTL_ROUNDS=$1 cachegrind_i1 "$tmp" "$prog" "[rtl_xdma_counted]" >"$tmp/stdout"
	mr=$(tail -n 1 "$tmp/stdout" | cut -d' ' -f2)
}
misses 2; m1a=$mr
misses 12; m1b=$mr

[ "$c1a" = "$c2a" ] && [ "$c1b" = "$c2b" ] ||
	{ echo "FAIL: one and two evaluations per cycle simulated different cycles ($c1a/$c2a, $c1b/$c2b)"; exit 1; }
read -r one two ratio i1 ok_one ok_ratio ok_i1 < <(awk -v a="$i1a" -v b="$i1b" -v c="$i2a" -v d="$i2b" \
	-v ma="$m1a" -v mb="$m1b" -v ca="$c1a" -v cb="$c1b" -v l="$limit" -v m="$min_ratio" -v il="$i1_limit" 'BEGIN {
		one = (b - a) / (cb - ca); two = (d - c) / (cb - ca); i1 = (mb - ma) / (cb - ca)
		printf "%.1f %.1f %.3f %.2f %d %d %d\n", one, two, two / one, i1, (one <= l), (two / one >= m), (i1 <= il) }')
printf 'rtl:xdma busy (H2C + C2H of 32 KiB), %s simulated cycles counted\n' "$((c1b - c1a))"
printf '  one evaluation per cycle:  %8s instructions per cycle (limit %s)\n' "$one" "$limit"
printf '  two evaluations per cycle: %8s instructions per cycle: %sx (at least %sx)\n' "$two" "$ratio" "$min_ratio"
printf '  one evaluation per cycle:  %8s L1i misses per cycle, 32 KiB L1i (limit %s)\n' "$i1" "$i1_limit"
[ "$ok_one" = 1 ] || { echo "FAIL: rtl:xdma costs $one instructions per simulated cycle (limit $limit)"; exit 1; }
[ "$ok_i1" = 1 ] || { echo "FAIL: rtl:xdma's per-cycle code misses a 32 KiB L1i $i1 times per simulated cycle" \
	"(limit $i1_limit): the code run every cycle no longer fits the cache"; exit 1; }
[ "$ok_ratio" = 1 ] ||
	{ echo "FAIL: two evaluations per cycle cost only ${ratio}x one (at least ${min_ratio}x)"; exit 1; }
