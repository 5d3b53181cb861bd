#!/usr/bin/env bash
# pciebench pio: table says SIMULATED, CSV has the header, bad input fails
# with exit code 2 and a message naming the problem, --help teaches.
set -euo pipefail
pb=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
table=$("$pb" pio --ops write_read --sizes 8 -n 50 -w 5 --no-pin)
grep -q "SIMULATED TIME" <<<"$table" || fail "table does not say SIMULATED TIME"
grep -q "write_read" <<<"$table" || fail "table lacks the write_read row"
csv=$("$pb" pio --ops read --sizes 8,16 -n 50 -w 5 --no-pin --csv --device sim:pio@enzian-gen3x8)
head -1 <<<"$csv" | grep -q "^op,size,iterations,min_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,mbps" \
	|| fail "CSV header: $(head -1 <<<"$csv")"
[ "$(wc -l <<<"$csv")" -eq 3 ] || fail "CSV should have 3 lines"
"$pb" pio --help | grep -- "--mem-type" >/dev/null || fail "--help lacks --mem-type"
"$pb" --help | grep "^  pio" >/dev/null || fail "pciebench --help does not list pio"
expect_usage() { # args... ; expected text is the last argument
	local want=${*: -1} rc=0 err
	err=$("$pb" "${@:1:$#-1}" 2>&1 >/dev/null) || rc=$?
	[ "$rc" -eq 2 ] || fail "'${*:1:$#-1}' exited $rc, expected 2"
	grep -q -- "$want" <<<"$err" || fail "'${*:1:$#-1}' said: $err (expected '$want')"
}
expect_usage pio --sizes 0 "outside 1..8192"
expect_usage pio --sizes 16K "outside 1..8192"
expect_usage pio --ops write,jump "--ops: operation 'jump' is not one of write, read, write_read, write_stream, read_stream"
expect_usage pio --mem-type xx "--mem-type: memory type 'xx' is not one of uc, wc, wt, wb"
expect_usage pio --op-code hash "--op-code: op code 'hash' is not one of echo, not, add1, bloom"
expect_usage dma --tests LAT_RD,BW_X "--tests: test 'BW_X' is not one of LAT_RD, LAT_WRRD, BW_RD, BW_WR, BW_RDWR"
expect_usage dma --cache cold "--cache: cache mode 'cold' is not one of warm, thrash, host-warm"
expect_usage pio --bogus "unknown option"
expect_usage frobnicate "unknown command"
expect_usage pio --device sim:nope "--device sim:nope: no simulated device 'sim:nope'"
echo ok
