#!/bin/bash
# Instructions per PIO invocation, pio::invoke vs Fig. 3 by hand, counted by
# callgrind (deterministic) only inside the two functions of
# bench/pio_instructions.cpp. Fails if a ratio lib/fig3 exceeds its limit.
#
# usage: check_pio_instructions.sh PATH/TO/pio_instructions [SIZE:LIMIT ...]
set -euo pipefail
prog=$1
shift
limits=("$@")
[ ${#limits[@]} -gt 0 ] || limits=(8:1.05 64:1.05 512:1.05)
iters=1000
command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/bootstrap)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Ir collected inside function $2 over $iters calls of variant $1 at size $3.
count() {
	valgrind --tool=callgrind --toggle-collect="$2" --callgrind-out-file="$tmp/out" \
		"$prog" "$1" "$3" "$iters" 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/out"
}

fail=0
printf '%-6s %12s %12s %7s %7s\n' bytes "pio::invoke" "Fig. 3" ratio limit
for sl in "${limits[@]}"; do
	size=${sl%%:*} limit=${sl##*:}
	lib=$(count lib pioc_bench_lib_invoke "$size")
	ref=$(count fig3 pioc_bench_fig3_invoke "$size")
	read -r per_lib per_ref ratio ok < <(awk -v l="$lib" -v r="$ref" -v n="$iters" -v m="$limit" \
		'BEGIN { printf "%.1f %.1f %.3f %d\n", l / n, r / n, l / r, (l / r <= m) }')
	printf '%-6s %12s %12s %7s %7s\n' "$size" "$per_lib" "$per_ref" "$ratio" "$limit"
	[ "$ok" = 1 ] || { echo "  FAIL: pio::invoke costs ${ratio}x the hand-written sequence at $size B (limit ${limit}x)"; fail=1; }
done
exit $fail
