#!/usr/bin/env python3
"""pciebench model --json: shape and the worked example of pcie-model.md, to the digit."""
import json, subprocess, sys

exe = sys.argv[1]
def run(*args):
    out = subprocess.run([exe, "model", *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)

d = run("--gen", "3", "--lanes", "8", "--mps", "256", "--mrrs", "512", "--rcb", "64", "--addr", "64",
        "--sizes", "64,256,1500", "--json")
assert set(d) == {"raw_gbps", "tlp_gbps", "rows"}, d.keys()
assert round(d["raw_gbps"], 2) == 63.02 and round(d["tlp_gbps"], 2) == 57.88, d
want = {64: (42.10, 44.10, 33.08), 256: (52.92, 53.69, 48.75), 1500: (52.81, 53.60, 50.60)}
assert [r["size"] for r in d["rows"]] == [64, 256, 1500]
for r in d["rows"]:
    assert set(r) == {"size", "write_gbps", "read_gbps", "rdwr_rx_gbps", "rdwr_tx_gbps"}, r
    w, rd, rw = want[r["size"]]
    got = (round(r["write_gbps"], 2), round(r["read_gbps"], 2), round(r["rdwr_rx_gbps"], 2), round(r["rdwr_tx_gbps"], 2))
    assert got == (w, rd, rw, rw), (r["size"], got)
d = run("--gen", "3", "--lanes", "8", "--mps", "256", "--mrrs", "512", "--rcb", "64", "--rcb-chunks",
        "--sizes", "256,1500", "--json")
assert [round(r["read_gbps"], 2) for r in d["rows"]] == [44.10, 43.85], d
d = run("--gen", "3", "--lanes", "8", "--mps", "128", "--sizes", "256,1500", "--json")
assert round(d["tlp_gbps"], 2) == 56.67
assert [(round(r["write_gbps"], 2), round(r["read_gbps"], 2)) for r in d["rows"]] == [(47.72, 49.01), (47.54, 48.85)]
d = run("--addr", "32", "--ecrc", "--sizes", "64", "--json")
assert abs(d["rows"][0]["write_gbps"] - d["tlp_gbps"] * 64 / 88) < 1e-9  # 8+4+8+4 = 24 B
# bad input is a usage error (exit 2)
p = subprocess.run([exe, "model", "--lanes", "3", "--json"], capture_output=True, text=True)
assert p.returncode != 0 and "3 lanes" in p.stderr, (p.returncode, p.stderr)
print("model ok")
