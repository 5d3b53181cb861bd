#!/usr/bin/env python3
"""tools.nicbench_eci: nicbench rx/tx/throughput --path eci on sim:nic_eci
print the shared JSON shape, say they are simulated, give one row per size
with every frame checked (nicbench fails on any frame lost, doubled or
changed); a 64-byte frame is one line exchange each way (about a
microsecond). sim:nic_eci has data banks (FEATURES, Documentation/
protocols.md "Data banks"): a frame is one exchange each way whatever its
size, the bytes past the control line in data lines loaded (RX) or stored
(TX) around it, so a 9600-byte frame costs far less than the 80 exchanges
of the line-by-line protocols (about 930 ns each)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nicbench_rows import p50_rows  # noqa: E402

rows = p50_rows(sys.argv[1], "eci", "sim:nic_eci", "wb", "-n", "50", "--ring", "16")

for d in ("rx", "tx"):
    v = rows[d]
    assert 300 < v[0] < 2000, f"ECI {d}: a 64-byte frame should take one line exchange: {v}"
    per_line = (v[2] - v[0]) / 75  # 9608 (RX) / 9600 (TX) bytes: 75 data lines of 128 bytes against none
    assert 20 < per_line < 700, f"ECI {d}: each further data line should cost less than an exchange: {v}"
    assert v[2] < 0.7 * 80 * 930, f"ECI {d}: a 9600-byte frame should cost well under 80 exchanges: {v}"
print("nicbench eci ok:", rows)
