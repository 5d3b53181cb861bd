#!/bin/bash
# Instructions per XDMA transfer of one descriptor (submit + poll for the
# write-back), the library's general channel_ops and its prepared_run vs the
# least PG195 sequence by hand, counted by callgrind (deterministic) only
# inside the functions of bench/xdma_instructions.cpp. Fails if channel_ops
# costs more than LIMIT times the hand-written sequence, or prepared_run
# more than RUN_LIMIT times.
#
# usage: check_xdma_instructions.sh PATH/TO/xdma_instructions [LIMIT [RUN_LIMIT]]
set -euo pipefail
prog=$1
limit=${2:-7.0}
run_limit=${3:-1.05}
iters=1000
. "$(dirname "$0")/callgrind_count.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

lib=$(callgrind_ir "$tmp" pioc_bench_lib_submit,pioc_bench_lib_wait "$prog" lib "$iters")
lib_submit=$(callgrind_ir "$tmp" pioc_bench_lib_submit "$prog" lib "$iters")
run=$(callgrind_ir "$tmp" pioc_bench_run_start,pioc_bench_run_wait "$prog" run "$iters")
run_start=$(callgrind_ir "$tmp" pioc_bench_run_start "$prog" run "$iters")
hand=$(callgrind_ir "$tmp" pioc_bench_hand_submit,pioc_bench_hand_wait "$prog" hand "$iters")
hand_submit=$(callgrind_ir "$tmp" pioc_bench_hand_submit "$prog" hand "$iters")
read -r per_lib per_ls per_hand per_hs ratio ok < <(awk -v l="$lib" -v ls="$lib_submit" -v h="$hand" \
	-v hs="$hand_submit" -v n="$iters" -v m="$limit" \
	'BEGIN { printf "%.1f %.1f %.1f %.1f %.3f %d\n", l / n, ls / n, h / n, hs / n, l / h, (l / h <= m) }')
printf '%-16s %10s %10s %10s\n' "per transfer" submit wait total
printf '%-16s %10s %10s %10s\n' "channel_ops" "$per_ls" "$(awk -v a="$per_lib" -v b="$per_ls" 'BEGIN { print a - b }')" "$per_lib"
printf '%-16s %10s %10s %10s\n' "PG195 by hand" "$per_hs" "$(awk -v a="$per_hand" -v b="$per_hs" 'BEGIN { print a - b }')" "$per_hand"
read -r per_run per_rs run_ratio run_ok < <(awk -v l="$run" -v ls="$run_start" -v h="$hand" -v n="$iters" \
	-v m="$run_limit" 'BEGIN { printf "%.1f %.1f %.3f %d\n", l / n, ls / n, l / h, (l / h <= m) }')
printf '%-16s %10s %10s %10s\n' "prepared_run" "$per_rs" "$(awk -v a="$per_run" -v b="$per_rs" 'BEGIN { print a - b }')" "$per_run"
printf 'channel_ops ratio %s (limit %s), prepared_run ratio %s (limit %s)\n' "$ratio" "$limit" "$run_ratio" "$run_limit"
[ "$ok" = 1 ] || { echo "FAIL: channel_ops costs ${ratio}x the hand-written sequence (limit ${limit}x)"; exit 1; }
[ "$run_ok" = 1 ] || { echo "FAIL: prepared_run costs ${run_ratio}x the hand-written sequence (limit ${run_limit}x)"; exit 1; }
