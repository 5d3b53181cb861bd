#!/bin/sh
# Both benchmarks dispatch subcommands the same way (pioc::tool::tool, tools/common/options):
# "TOOL help COMMAND" is the command's --help, an unknown command exits 2 naming
# the known ones, no command prints the usage and exits 2.
#   check-subcommands.sh PCIEBENCH ECIBENCH
set -u
fail=0
check() { # tool command-to-run expected-words
	tool=$1 first=$2 known=$3
	name=$(basename "$tool")
	out=$("$tool" help "$first" 2>&1); rc=$?
	case "$rc:$out" in "0:usage: $name $first "*) echo "ok   $name help $first";;
	*) echo "FAIL $name help $first: exit $rc: $(echo "$out" | head -1)"; fail=1;; esac
	err=$("$tool" frobnicate 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in "2:$name: unknown command 'frobnicate' (known: $known;"*) echo "ok   $name frobnicate";;
	*) echo "FAIL $name frobnicate: exit $rc: $err"; fail=1;; esac
	"$tool" >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && echo "ok   $name without a command" || { echo "FAIL $name without a command: exit $rc"; fail=1; }
}
check "$1" pio "pio, dma, model, crossover, offload"
check "$2" invoke "invoke, queue, pingpong"
exit $fail
