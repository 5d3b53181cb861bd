#!/usr/bin/env python3
"""tools.nicbench_pio: nicbench rx/tx/throughput on sim:nic_pio print the
shared JSON shape, say they are simulated, give one row per size; PIO RX
latency grows with the frame (every RX load is a PCIe read); bad sizes and
unknown paths are refused by name."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nicbench_rows import p50_rows, run as run_nicbench  # noqa: E402

nicbench = sys.argv[1]


def run(*args, ok=True):
    return run_nicbench(nicbench, *args, ok=ok)


rows = p50_rows(nicbench, "pio", "sim:nic_pio", "uc+wc", "-n", "50")

rx = rows["rx"]
assert rx[0] < rx[1] < rx[2], f"PIO RX latency should grow with the frame: {rx}"

p = run("rx", "--size", "59", ok=False)
assert "59-byte frame is below the 60-byte minimum" in p.stderr, p.stderr
p = run("rx", "--path", "nosuch", ok=False)
assert "no path 'nosuch'" in p.stderr, p.stderr
print("nicbench ok:", rows)
