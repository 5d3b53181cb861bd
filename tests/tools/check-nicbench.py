#!/usr/bin/env python3
"""tools.nicbench_pio: nicbench rx/tx/throughput on sim:nic_pio print the
shared JSON shape, say they are simulated, give one row per size; PIO RX
latency grows with the frame (every RX load is a PCIe read); bad sizes and
unknown paths are refused by name."""
import json
import subprocess
import sys

nicbench = sys.argv[1]


def run(*args, ok=True):
    p = subprocess.run([nicbench, *args], capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        sys.exit(f"nicbench {' '.join(args)} failed: {p.stderr}")
    if not ok and p.returncode == 0:
        sys.exit(f"nicbench {' '.join(args)} should have failed")
    return p


rows = {}
for mode in ("rx", "tx", "throughput"):
    p = run(mode, "--path", "pio", "--size", "64,1536,9600", "-n", "50", "--json")
    if "sim:nic_pio (simulated)" not in p.stderr:
        sys.exit("nicbench did not say which default device it used")
    j = json.loads(p.stdout)
    assert j["tool"] == f"nicbench {mode}", j["tool"]
    assert j["simulated"] is True and j["device"] == "sim:nic_pio" and j["path"] == "pio"
    assert [r["size"] for r in j["results"]] == [64, 1536, 9600], j["results"]
    for r in j["results"]:
        assert r["p50_ns"] > 0 and r["max_ns"] >= r["p50_ns"], r
        if mode == "throughput":
            assert r["mbps"] > 0, r
        else:
            assert r["p100_ns"] >= r["p99_ns"] >= r["p95_ns"] >= r["p50_ns"], r
    rows[mode] = [r["p50_ns"] for r in j["results"]]

rx = rows["rx"]
assert rx[0] < rx[1] < rx[2], f"PIO RX latency should grow with the frame: {rx}"

p = run("rx", "--size", "59", ok=False)
assert "59-byte frame is below the 60-byte minimum" in p.stderr, p.stderr
p = run("rx", "--path", "nosuch", ok=False)
assert "no path 'nosuch'" in p.stderr, p.stderr
print("nicbench ok:", rows)
