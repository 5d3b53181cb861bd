#!/usr/bin/env python3
"""tools.nicbench_dma: nicbench rx/tx/throughput --path dma on sim:nic_dma
print the shared JSON shape, say they are simulated, give one row per size
with every frame checked (nicbench fails on any frame lost, doubled or
changed); DMA RX latency is nearly flat in the frame size (the engine writes
the frame as it arrives; the CPU polls host memory), unlike PIO's."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nicbench_rows import p50_rows  # noqa: E402

rows = p50_rows(sys.argv[1], "dma", "sim:nic_dma", "uc", "-n", "100", "--ring", "16")

rx, tx = rows["rx"], rows["tx"]
assert rx[0] < rx[2], f"DMA RX latency should still grow a little with the frame: {rx}"
assert rx[2] < 2 * rx[0], f"DMA RX latency should not grow like PIO's (C2H writes as beats arrive): {rx}"
assert tx[0] < tx[2], f"DMA TX latency should grow with the frame (the engine reads it): {tx}"
print("nicbench dma ok:", rows)
