#!/usr/bin/env python3
"""tools.nicbench_dma: nicbench rx/tx/throughput --path dma on sim:nic_dma
print the shared JSON shape, say they are simulated, give one row per size
with every frame checked (nicbench fails on any frame lost, doubled or
changed); DMA RX latency is nearly flat in the frame size (the engine writes
the frame as it arrives; the CPU polls host memory), unlike PIO's."""
import json
import subprocess
import sys

nicbench = sys.argv[1]


def run(*args):
    p = subprocess.run([nicbench, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"nicbench {' '.join(args)} failed: {p.stderr}")
    return p


rows = {}
for mode in ("rx", "tx", "throughput"):
    p = run(mode, "--path", "dma", "--size", "64,1536,9600", "-n", "100", "--ring", "16", "--json")
    if "sim:nic_dma (simulated)" not in p.stderr:
        sys.exit("nicbench did not say which default device it used")
    j = json.loads(p.stdout)
    assert j["tool"] == f"nicbench {mode}", j["tool"]
    assert j["simulated"] is True and j["device"] == "sim:nic_dma" and j["path"] == "dma", j
    assert j["memory_type"] == "uc", j["memory_type"]  # BAR0 and the config BAR, both uncached
    assert [r["size"] for r in j["results"]] == [64, 1536, 9600], j["results"]
    for r in j["results"]:
        assert r["p50_ns"] > 0 and r["max_ns"] >= r["p50_ns"], r
        if mode == "throughput":
            assert r["mbps"] > 0, r
        else:
            assert r["p100_ns"] >= r["p99_ns"] >= r["p95_ns"] >= r["p50_ns"], r
    rows[mode] = [r["p50_ns"] for r in j["results"]]

rx, tx = rows["rx"], rows["tx"]
assert rx[0] < rx[2], f"DMA RX latency should still grow a little with the frame: {rx}"
assert rx[2] < 2 * rx[0], f"DMA RX latency should not grow like PIO's (C2H writes as beats arrive): {rx}"
assert tx[0] < tx[2], f"DMA TX latency should grow with the frame (the engine reads it): {tx}"
print("nicbench dma ok:", rows)
