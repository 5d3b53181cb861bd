#!/bin/bash
# Instructions per PIO invocation, a prepared pio::call vs Fig. 3 by hand,
# counted by callgrind (deterministic) only inside the functions of
# bench/pio_instructions.cpp. Fails if a ratio call/fig3 exceeds its limit,
# or pio::invoke/fig3 (nothing prepared) exceeds its own when one is given.
#
# usage: check_pio_instructions.sh PATH/TO/pio_instructions [SIZE:LIMIT[:INVOKE_LIMIT] ...]
set -euo pipefail
prog=$1
shift
limits=("$@")
[ ${#limits[@]} -gt 0 ] || limits=(8:1.05 64:1.05 512:1.05)
iters=1000
. "$(dirname "$0")/callgrind_count.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Ir collected inside function $2 over $iters calls of variant $1 at size $3.
count() {
	callgrind_ir "$tmp" "$2" "$prog" "$1" "$3" "$iters"
}

fail=0
printf '%-6s %11s %12s %7s %7s %12s %7s\n' bytes "pio::call" "Fig. 3" ratio limit "pio::invoke" ratio
for sl in "${limits[@]}"; do
	IFS=: read -r size limit inv_limit <<<"$sl"
	lib=$(count call pioc_bench_lib_call "$size")
	ref=$(count fig3 pioc_bench_fig3_invoke "$size")
	inv=$(count invoke pioc_bench_lib_invoke "$size")
	read -r per_lib per_ref ratio ok per_inv inv_ratio < <(awk -v l="$lib" -v r="$ref" -v i="$inv" -v n="$iters" -v m="$limit" \
		'BEGIN { printf "%.1f %.1f %.3f %d %.1f %.3f\n", l / n, r / n, l / r, (l / r <= m), i / n, i / r }')
	printf '%-6s %11s %12s %7s %7s %12s %7s\n' "$size" "$per_lib" "$per_ref" "$ratio" "$limit" "$per_inv" "$inv_ratio"
	[ "$ok" = 1 ] || { echo "  FAIL: pio::call costs ${ratio}x the hand-written sequence at $size B (limit ${limit}x)"; fail=1; }
	if [ -n "$inv_limit" ] && ! awk -v r="$inv_ratio" -v m="$inv_limit" 'BEGIN { exit !(r <= m) }'; then
		echo "  FAIL: pio::invoke costs ${inv_ratio}x the hand-written sequence at $size B (limit ${inv_limit}x)"
		fail=1
	fi
done
exit $fail
