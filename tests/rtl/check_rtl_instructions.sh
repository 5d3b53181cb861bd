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
# Fails if one evaluation per cycle costs more than LIMIT instructions per
# simulated cycle, or if two evaluations per cycle cost less than MIN_RATIO
# times one (the gain of make_xdma_rtl's one_eval).
#
# usage: check_rtl_instructions.sh PATH/TO/test_rtl [LIMIT [MIN_RATIO]]
set -euo pipefail
prog=$1
limit=${2:-3000}
min_ratio=${3:-1.10}
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
[ "$c1a" = "$c2a" ] && [ "$c1b" = "$c2b" ] ||
	{ echo "FAIL: one and two evaluations per cycle simulated different cycles ($c1a/$c2a, $c1b/$c2b)"; exit 1; }
read -r one two ratio ok_one ok_ratio < <(awk -v a="$i1a" -v b="$i1b" -v c="$i2a" -v d="$i2b" \
	-v ca="$c1a" -v cb="$c1b" -v l="$limit" -v m="$min_ratio" 'BEGIN {
		one = (b - a) / (cb - ca); two = (d - c) / (cb - ca)
		printf "%.1f %.1f %.3f %d %d\n", one, two, two / one, (one <= l), (two / one >= m) }')
printf 'rtl:xdma busy (H2C + C2H of 32 KiB), %s simulated cycles counted\n' "$((c1b - c1a))"
printf '  one evaluation per cycle:  %8s instructions per cycle (limit %s)\n' "$one" "$limit"
printf '  two evaluations per cycle: %8s instructions per cycle: %sx (at least %sx)\n' "$two" "$ratio" "$min_ratio"
[ "$ok_one" = 1 ] || { echo "FAIL: rtl:xdma costs $one instructions per simulated cycle (limit $limit)"; exit 1; }
[ "$ok_ratio" = 1 ] ||
	{ echo "FAIL: two evaluations per cycle cost only ${ratio}x one (at least ${min_ratio}x)"; exit 1; }
