#!/usr/bin/env bash
# The tools' command line (tools/common/options, CLI11): bad input exits 2 with
# a message naming the option, the value and the rule; --help names every
# kind of device (the simulated ones from the library's registry), the unit
# and default of the options. No device is opened: well under a second.
#   check-cli.sh PCIEBENCH PIOC-INFO PIOC-DEVD
set -uo pipefail
pb=$1 info=$2 devd=$3
fail=0
say() { echo "$1 $2"; [ "$1" = ok ] || fail=1; }

# expect_usage TOOL ARGS... WANT: exit code 2 and WANT (fixed string) on stderr.
expect_usage() {
	local want=${*: -1} rc=0 err
	err=$("${@:1:$#-1}" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$err"; then
		say ok "$(basename "$1") ${*:2:$#-2}"
	else
		say FAIL "$(basename "$1") ${*:2:$#-2}: exit $rc, said: $err (expected '$want')"
	fi
}

# Unknown options: named, with the options that share their start.
expect_usage "$pb" pio --bogus "unknown option --bogus"
expect_usage "$pb" pio --size 8 "unknown option --size (did you mean --sizes?)"
expect_usage "$pb" dma --sizes 64 stray "unexpected argument 'stray'"
# Sizes: the value and the rule.
expect_usage "$pb" pio --sizes 4X "--sizes: size '4X': unknown unit 'x' (use B, K/KiB, M/MiB, G/GiB)"
expect_usage "$pb" pio --sizes 8,,64 "--sizes: size list '8,,64' has an empty entry"
expect_usage "$pb" dma --sizes 64..8 "--sizes: size range '64..8': needs 0 < low <= high"
expect_usage "$pb" offload --sizes 100 "--sizes: 100 is not a whole number of 128-byte elements"
# Counts: range and number.
expect_usage "$pb" pio -n 0 "--iterations: 0 is outside 1..100000000"
expect_usage "$pb" pio --iterations lots "--iterations: count 'lots' is not a number"
expect_usage "$pb" dma --queue-depth 2000 "--queue-depth: 2000 is outside 1..1024"
expect_usage "$pb" model --gen 9 "--gen: 9 is outside 1..7"
expect_usage "$pb" pio --retries "--retries: 1 required N missing"
# Names from a table.
expect_usage "$pb" dma --completion sometimes "--completion: "
expect_usage "$pb" offload --paths cpu,gpu "--paths: unknown path 'gpu' (cpu, pio, dma, eci)"
# Devices: the option, the spec and what the library knows.
expect_usage "$pb" pio --device sim:nope "--device sim:nope: no simulated device 'sim:nope' (known: sim:pio"
expect_usage "$pb" pio --device nonsense "--device nonsense: 'nonsense' is not a device spec"
expect_usage "$pb" offload --pio-device sim:nope --paths pio "--pio-device sim:nope: no simulated device"
expect_usage "$pb" crossover --pio-device rtl:nope "--pio-device rtl:nope: no simulated device"
expect_usage "$info" --device sim:nope "--device sim:nope: no simulated device 'sim:nope'"
expect_usage "$info" --all --device sim:pio "--all lists devices and --device shows one"
expect_usage "$info" --frobnicate "unknown option --frobnicate"
expect_usage "$devd" --device sim:nope --socket /nonexistent/x.sock "--device sim:nope: pioc-devd: no device 'sim:nope'"
expect_usage "$devd" --link gen9 --list "--link: unknown link timing preset 'gen9'"
expect_usage "$devd" --list --bogus "unknown option --bogus"

# --help: every kind of device, options with unit and default.
help=$("$pb" --help) || say FAIL "pciebench --help exited $?"
for d in sim:pio sim:xdma sim:xdma_pio sim:nic_pio rtl:pio rtl:xdma rtl:nic_pio 0000:01:00.0 10ee:9038 kmod: sysfs: xilinx:; do
	grep -qF -- "$d" <<<"$help" && say ok "pciebench --help names $d" || say FAIL "pciebench --help does not name $d"
done
pio_help=$("$pb" pio --help)
for w in "--sizes LIST" "[default: 8..8K]" "payload bytes, 1..8192" "--mem-type TYPE" "[default: wc]" \
	"--iterations N" "[default: 10000]" "sim:*, rtl:* only" "usage: pciebench pio [options]"; do
	grep -qF -- "$w" <<<"$pio_help" && say ok "pciebench pio --help: $w" || say FAIL "pciebench pio --help lacks '$w'"
done
dma_help=$("$pb" help dma)
for w in "[default: sim:xdma]" "[default: 2000]" "hardware only" "BYTES"; do
	grep -qF -- "$w" <<<"$dma_help" && say ok "pciebench dma --help: $w" || say FAIL "pciebench dma --help lacks '$w'"
done
"$info" --help | grep -qF "rtl:pio" && say ok "pioc-info --help names rtl:pio" || say FAIL "pioc-info --help lacks rtl:pio"
"$devd" --help | grep -qF "sim:xdma_pio" && say ok "pioc-devd --help lists sim:xdma_pio" ||
	say FAIL "pioc-devd --help lacks sim:xdma_pio"
exit $fail
