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

command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/bootstrap)"; exit 1; }
