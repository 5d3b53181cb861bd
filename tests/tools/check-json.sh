#!/usr/bin/env bash
# pciebench pio --json parses and has the shared shape; simulated runs say so.
set -euo pipefail
pciebench=$1 python=${2:-python3}
out=$("$pciebench" pio --ops write,read,write_read,write_stream,read_stream --sizes 8,64,4K \
	--iterations 200 --warmup 20 --no-pin --json)
printf '%s' "$out" | "$python" -c '
import json, sys
r = json.load(sys.stdin)
for k, t in [("tool", str), ("device", str), ("transport", str), ("memory_type", str), ("cpu", str),
             ("simulated", bool), ("results", list)]:
    assert k in r, "missing top-level key " + k
    assert isinstance(r[k], t), "%s has type %s" % (k, type(r[k]).__name__)
assert r["tool"] == "pciebench pio", r["tool"]
assert r["simulated"] is True, "a sim device must report simulated: true"
assert r["device"].startswith("sim:pio"), r["device"]
assert len(r["results"]) == 15, len(r["results"])
for row in r["results"]:
    for k in ("op", "size", "iterations", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"):
        assert k in row, "row lacks " + k
    assert row["iterations"] == 200
    assert row["min_ns"] <= row["p50_ns"] <= row["p90_ns"] <= row["p99_ns"] <= row["p999_ns"] <= row["max_ns"], row
    assert ("mbps" in row) == row["op"].endswith("_stream"), row
ops = {row["op"] for row in r["results"]}
assert ops == {"write", "read", "write_read", "write_stream", "read_stream"}, ops
print("ok: %d results" % len(r["results"]))
'
