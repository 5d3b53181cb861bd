#!/usr/bin/env bash
# pioc-plot draws real tool output as valid SVG and PNG, and refuses broken
# input with a message naming the file and what is wrong (exit 1).
set -euo pipefail
pciebench=$1 ecibench=$2 plot=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$pciebench" pio --ops write_read,write_stream --sizes 8,64,4K -n 50 -w 5 --no-pin --json > "$dir/pio.json"
"$ecibench" invoke --sizes 64,1K -n 20 --no-pin --json > "$dir/eci.json"
"$plot" "$dir/pio.json" "$dir/eci.json" -o "$dir/all.svg"
"$plot" "$dir/eci.json" --kind cdf -o "$dir/cdf.png"
"$plot" "$dir/pio.json" --kind throughput -o "$dir/tp.png"

/usr/bin/python3 - "$dir" <<'PY'
import sys, xml.etree.ElementTree as ET
d = sys.argv[1]
root = ET.parse(d + "/all.svg").getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
text = "".join(root.itertext())
assert "SIMULATED" in text, "a simulated run must say so in the plot"
for png in ("cdf.png", "tp.png"):
    b = open(d + "/" + png, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR", png
    w, h = int.from_bytes(b[16:20], "big"), int.from_bytes(b[20:24], "big")
    assert w > 200 and h > 200 and len(b) > 10000, (png, w, h, len(b))
print("ok: svg and png drawn")
PY

# Broken input: each must fail with exit 1 and say why.
expect_error() { # file, expected message part
	local rc=0
	"$plot" "$1" -o "$dir/bad.png" 2> "$dir/err" || rc=$?
	if [ "$rc" -ne 1 ] || ! grep -qF -- "$2" "$dir/err" || ! grep -qF -- "$1" "$dir/err"; then
		echo "FAIL: $1 gave exit $rc and: $(cat "$dir/err")" >&2; exit 1
	fi
	[ ! -e "$dir/bad.png" ] || { echo "FAIL: $1 still produced a plot" >&2; exit 1; }
	echo "ok: $(cat "$dir/err")"
}
head -c 200 "$dir/pio.json" > "$dir/truncated.json"
expect_error "$dir/truncated.json" "not JSON (line"
sed 's/"p50_ns"/"p5_ns"/' "$dir/pio.json" > "$dir/nop50.json"
expect_error "$dir/nop50.json" 'lacks "p50_ns"'
echo '{"tool": "pciebench pio", "simulated": "yes", "results": []}' > "$dir/badtype.json"
expect_error "$dir/badtype.json" '"simulated" is str, expected bool'
expect_error "$dir/missing.json" "cannot read"
# A filter that leaves nothing is an error, not an empty picture.
rc=0; "$plot" "$dir/eci.json" --kind cdf --sizes 99 -o "$dir/empty.png" 2> "$dir/err" || rc=$?
[ "$rc" -eq 1 ] && grep -qF "nothing to draw" "$dir/err" && [ ! -e "$dir/empty.png" ] ||
	{ echo "FAIL: --sizes 99 gave exit $rc: $(cat "$dir/err")" >&2; exit 1; }
echo "ok: $(cat "$dir/err")"
