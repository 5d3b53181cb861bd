# Sourced by the bench/check_*_instructions.sh scripts: counts instructions
# with callgrind (deterministic), collecting only while one of the named
# functions is on the stack.
#
# callgrind_ir TMPDIR FUNCS PROG ARGS...: prints the instructions executed
# inside the comma-separated functions FUNCS during one run of PROG ARGS;
# on a failed run prints its log and exits 1.
callgrind_ir() {
	local tmp=$1 funcs=$2
	shift 2
	local toggles=() f
	IFS=, read -ra fs <<<"$funcs"
	for f in "${fs[@]}"; do
		toggles+=("--toggle-collect=$f")
	done
	valgrind --tool=callgrind "${toggles[@]}" --callgrind-out-file="$tmp/out" "$@" 2>"$tmp/log" ||
		{ cat "$tmp/log" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/out"
}

# cachegrind_i1 TMPDIR PROG ARGS...: prints "instructions I1-misses" of one
# whole run of PROG ARGS under cachegrind's cache simulation with a 32 KiB,
# 8-way, 64-byte-line first-level instruction cache (Zen 4's and recent Intel
# client cores' L1i); on a failed run prints its log and exits 1. Also
# deterministic: a model of the front end, not a measurement of this CPU.
cachegrind_i1() {
	local tmp=$1
	shift
	valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64 \
		--cachegrind-out-file="$tmp/cg.out" "$@" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
	awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
	     /^summary:/ { print $(col["Ir"] + 1), $(col["I1mr"] + 1); exit }' "$tmp/cg.out"
}

command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/bootstrap)"; exit 1; }
