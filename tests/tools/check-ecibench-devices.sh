#!/bin/sh
# ecibench takes its device the way pciebench does (issue 14): --device SPEC
# for every command, sim:eci the default of invoke, cores of queue/pingpong;
# the old spellings (--window, --engine, --peer) map to --device; every
# variant runs on sim:eci (5c/5d: the CPU-homed window starts where the
# engine says); bad input exits 2 naming the option, and --help names the
# devices.
#   check-ecibench-devices.sh ECIBENCH
set -u
bench=$1
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ok() { echo "ok   $*"; }
strip='import json,sys; r=json.load(sys.stdin); r.pop("cpu"); r.pop("simulation"); print(json.dumps(r, sort_keys=True, indent=1))'
bad() { echo "FAIL $*"; fail=1; }

# usage OPTION ARGS...: exit 2, stderr names OPTION
usage() {
	opt=$1; shift
	err=$("$bench" "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && echo "$err" | grep -q -- "$opt"; then ok "$*: refused ($(echo "$err" | head -1))"
	else bad "$*: exit $rc, stderr: $err"; fi
}
# same A B ARGS...: ecibench A and B (each a quoted argument list) print the
# same JSON but for "cpu" and the simulator's speed (wall and CPU time)
same() {
	"$bench" $1 --no-pin --json 2>/dev/null | python3 -c "$strip" >"$dir/a" &&
	"$bench" $2 --no-pin --json 2>/dev/null | python3 -c "$strip" >"$dir/b" &&
	[ -s "$dir/a" ] && cmp -s "$dir/a" "$dir/b" && ok "'$1' = '$2'" || bad "'$1' != '$2': $(diff "$dir/a" "$dir/b" | head -5)"
}

same "invoke --sizes 64 -n 20" "invoke --device sim:eci --sizes 64 -n 20"
same "invoke --sizes 64 -n 20" "invoke --engine model --sizes 64 -n 20"
same "queue --peer device -n 200 -w 10" "queue --device sim:eci -n 200 -w 10"

# Every variant on the model, with the device's numbers (SIMULATED).
for v in 5a 5b 5c 5d; do
	out=$("$bench" invoke --variant $v --sizes 64 -n 20 --no-pin --json 2>&1) &&
	echo "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); x=r["results"][0]
assert r["device"]=="sim:eci" and r["simulated"] is True and r["variant"]==sys.argv[1], r
assert x["messages_per_op"]==4 and 800 < x["p50_ns"] < 1100, x' $v && ok "invoke --variant $v" ||
	bad "invoke --variant $v: $(echo "$out" | head -3)"
done
# The simulator's speed (issue 13), as pciebench reports it: simulated time,
# wall and CPU seconds and their ratios, all positive; no cycles on the model.
# sim_speed SPEC CMD...: the run's "simulation" object; SPEC "rtl" wants cycles.
sim_speed() {
	kind=$1; shift
	"$bench" "$@" --no-pin --json 2>/dev/null | python3 -c 'import json,sys; s=json.load(sys.stdin)["simulation"]
for k in ("simulated_ns", "wall_s", "cpu_s", "sim_ns_per_wall_ns", "sim_ns_per_cpu_ns"):
    assert s[k] > 0, (k, s)
rtl = sys.argv[1] == "rtl"
assert ("cycles" in s) == rtl, s
if rtl:
    assert s["cycles"] > 0 and s["evaluated_cycles"] > 0 and s["cycles_per_s"] > 0 and s["clock_mhz"] == 300, s
print(s)' "$kind" && ok "simulation speed: $*" || bad "simulation speed: $*"
}
sim_speed model invoke --sizes 64,4K -n 50
sim_speed model invoke --variant 5b --sizes 64 -n 50
sim_speed model queue --device sim:eci -n 200 -w 10
# The simulated time is the sum over the sizes' devices.
for s in 64 4K 64,4K; do "$bench" invoke --sizes $s -n 50 --no-pin --json >"$dir/sizes-$s" || bad "invoke --sizes $s"; done
python3 -c 'import json,sys; a, b, ab = (json.load(open(f))["simulation"]["simulated_ns"] for f in sys.argv[1:])
assert a > 0 and b > a and abs(ab - (a + b)) < 1e-9 * ab, (a, b, ab)' "$dir/sizes-64" "$dir/sizes-4K" "$dir/sizes-64,4K" &&
	ok "simulated_ns sums the sizes" || bad "simulated_ns does not sum the sizes"

# The model's parameters come from the model the run used.
"$bench" invoke --line 64 --sizes 64 -n 5 --no-pin --json | python3 -c 'import json,sys; r=json.load(sys.stdin)
assert r["model"]["line"]==64 and r["model"]["link_ns"]>0, r' && ok "model parameters of a --line 64 run" || bad "model parameters"

usage --device invoke --device bogus -n 1
usage --device invoke --device cores -n 1
usage --window invoke --device sim:eci --window eci0 -n 1
usage --engine invoke --device sim:eci --engine rtl -n 1
usage --engine invoke --engine fast -n 1
usage --frobnicate invoke --frobnicate
usage --sizes invoke --sizes 64,20K -n 1
usage --iterations invoke --iterations 0
usage --peer queue --peer device --device cores -n 1
usage rtl:coh queue --device rtl:coh -n 1
usage sim:eci pingpong --device sim:eci -n 1
usage --entries pingpong --ops floor --entries 8 -n 1
usage --ops pingpong --ops floor,bogus -n 1

usage "--line 96" queue --device sim:eci --line 96 -n 1

# rtl:coh without -DPIOC_RTL=ON: the library says what is missing; with it,
# what the RTL engine cannot run is refused naming the option and the reason.
if ! "$bench" invoke --device rtl:coh --sizes 64 -n 2 --no-pin >/dev/null 2>"$dir/err"; then
	grep -q -- "-DPIOC_RTL=ON" "$dir/err" && ok "rtl:coh in a build without RTL names -DPIOC_RTL=ON" ||
		bad "rtl:coh: $(cat "$dir/err")"
else
	usage "--line 64: rtl:coh: line size 64" invoke --device rtl:coh --line 64 --sizes 64 -n 1
	usage "--device rtl:coh: rtl:coh: variant 5c" invoke --device rtl:coh --variant 5c --sizes 64 -n 1
	usage "--device rtl:coh: rtl:coh: pipelined" invoke --engine rtl --pipelined --sizes 64 -n 1
	sim_speed rtl invoke --device rtl:coh --sizes 64 -n 5 -w 1
fi

# --help names the devices: per command, and the tool's table.
for c in "invoke sim:eci rtl:coh kmod:eciN" "queue cores sim:eci kmod:eciN" "pingpong cores kmod:eciN"; do
	set -- $c
	cmd=$1; shift
	h=$("$bench" $cmd --help); rc=$?
	for d in "$@"; do
		echo "$h" | grep -q -- "$d" || { bad "ecibench $cmd --help does not name $d"; rc=1; }
	done
	[ $rc -eq 0 ] && ok "ecibench $cmd --help names $*"
done
h=$("$bench" --help)
for d in sim:eci rtl:coh kmod:eciN cores; do echo "$h" | grep -q "$d" || bad "ecibench --help does not name $d"; done
exit $fail
