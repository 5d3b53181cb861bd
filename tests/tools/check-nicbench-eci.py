#!/usr/bin/env python3
"""tools.nicbench_eci: nicbench rx/tx/throughput --path eci on sim:nic_eci
print the shared JSON shape, say they are simulated, give one row per size
with every frame checked (nicbench fails on any frame lost, doubled or
changed); a 64-byte frame is one line exchange each way (about a
microsecond), and both directions grow by one exchange per 120 bytes (the
line-by-line Fig. 5 protocols), unlike DMA's flat RX."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nicbench_rows import p50_rows  # noqa: E402

rows = p50_rows(sys.argv[1], "eci", "sim:nic_eci", "wb", "-n", "50", "--ring", "16")

for d in ("rx", "tx"):
    v = rows[d]
    assert 300 < v[0] < 2000, f"ECI {d}: a 64-byte frame should take one line exchange: {v}"
    per_line = (v[2] - v[0]) / 79  # 9608 (RX) / 9600 (TX) bytes: 80 exchanges of 120 bytes against 1
    assert 500 < per_line < 1500, f"ECI {d}: each further 120 bytes should cost one exchange: {v}"
print("nicbench eci ok:", rows)
