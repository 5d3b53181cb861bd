#!/bin/sh
# ecibench invoke on a window refuses, before opening anything, every option
# the Enzian image cannot apply, with exit code 2 (usage) and a message naming
# the option; valid options get past the check and fail only at opening the
# (absent) window, with exit code 1. The window is named both ways: --window
# PATH and --device PATH (kmod:eciN).
#   check-ecibench-window-options.sh ECIBENCH
set -u
bench=$1
win=/nonexistent/pioc/eci0
fail=0

# refused OPTION ARGS... : the run must exit 2 and name OPTION on stderr
refused() {
	opt=$1; shift
	err=$("$bench" invoke $how "$win" --no-pin -n 1 -w 0 "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && echo "$err" | grep -q -- "$opt"; then
		echo "ok   $*: refused ($err)"
	else
		echo "FAIL $*: exit $rc, stderr: $err"; fail=1
	fi
}
for how in --window --device; do
refused --shared --shared
refused --variant --variant 5c
refused --variant --variant 5b
refused --pipelined --pipelined
refused --channel --channel 4
refused --line --line 64
refused --engine --engine rtl
# A variant name it does not know is refused naming the value and the names.
refused "--variant: variant '5e' is not one of 5a, 5b, 5c, 5d, a," --variant 5e
done

err=$("$bench" invoke --window-size 4096 --no-pin -n 1 -w 0 2>&1 >/dev/null); rc=$?
if [ $rc -eq 2 ] && echo "$err" | grep -q -- --window-size; then echo "ok   --window-size without --window: refused"
else echo "FAIL --window-size without --window: exit $rc, $err"; fail=1; fi

# The last valid channel and the default options pass the check: the run
# fails later, opening the window, not as a usage error.
for args in "--channel 3" "--variant 5a --sizes 64" "--window-size 4096"; do
	err=$("$bench" invoke --device "kmod:eci0" --no-pin -n 1 -w 0 $args 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 1 ]; then echo "ok   $args: accepted, then the window cannot be opened ($err)"
	else echo "FAIL $args: exit $rc (expected 1 from opening the window), $err"; fail=1; fi
done
# --control (the image's I/O window, where CHANNELS and CONFIG are) is taken
# only beside a window run and only as another window; with it, --shared and
# a channel beyond the constant pass the check (the register decides, after
# opening: tests/qemu's eci-control runs that part through the module).
for bad in "--control kmod:eci1|--device sim:eci" "--control foo|--device kmod:eci0" \
	   "--control eci0|--device kmod:eci0"; do
	ctl=${bad%%|*}; dev=${bad#*|}
	err=$("$bench" invoke $dev $ctl --no-pin -n 1 -w 0 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && echo "$err" | grep -q -- "--control"; then echo "ok   $ctl with $dev: refused ($err)"
	else echo "FAIL $ctl with $dev: exit $rc, $err"; fail=1; fi
done
for args in "--shared" "--channel 7"; do
	err=$("$bench" invoke --device /nonexistent/pioc/eci0 --control /nonexistent/pioc/eci1 --no-pin -n 1 -w 0 \
		$args 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 1 ] && echo "$err" | grep -q "eci1"; then echo "ok   --control with $args: accepted, then eci1 cannot be opened"
	else echo "FAIL --control with $args: exit $rc (expected 1 from opening eci1), $err"; fail=1; fi
done
exit $fail
