#!/usr/bin/env python3
"""pciebench dma and crossover on sim:xdma: --json parses, rows are complete and labelled simulated."""
import csv, io, json, subprocess, sys

exe = sys.argv[1]
def run(*args):
    p = subprocess.run([exe, *args], capture_output=True, text=True)
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    return p.stdout

for mode in ("writeback", "count", "interrupt"):
    d = json.loads(run("dma", "--sizes", "64,4K", "-n", "50", "--warmup", "5", "--completion", mode, "--json", "-q"))
    assert d["tool"] == "pciebench dma" and d["device"] == "sim:xdma" and d["simulated"] is True, d
    assert d["completion"] == mode and d["mps"] == 256 and d["mrrs"] == 512
    assert d["lost_signals"] == 0 and d["recoveries"] == 0, d  # every run completed by its own signal
    ops = [(r["op"], r["size"]) for r in d["results"]]
    assert ops == [(t, s) for s in (64, 4096) for t in ("LAT_RD", "LAT_WRRD", "BW_RD", "BW_WR", "BW_RDWR")], ops
    for r in d["results"]:
        assert r["iterations"] == 50
        if r["op"].startswith("LAT"):
            assert 0 < r["min_ns"] <= r["p50_ns"] <= r["p99_ns"] <= r["max_ns"], r
            assert r["complete_p50_ns"] > 0 and "doorbell_p50_ns" in r
        else:
            assert r["gbps"] > 0 and r["model_gbps"] > 0 and r["mbps"] > 0, r
            assert r["gbps"] <= r["model_gbps"] * 1.01, r  # never above the model
    lat = {r["size"]: r["p50_ns"] for r in d["results"] if r["op"] == "LAT_RD"}
    assert lat[4096] >= lat[64], lat  # count mode polls in round trips: may land on the same poll

c = run("dma", "--sizes", "256", "-n", "20", "--warmup", "2", "--tests", "LAT_RD,BW_WR", "--csv", "-q")
rows = list(csv.DictReader(io.StringIO(c)))
assert [r["op"] for r in rows] == ["LAT_RD", "BW_WR"], rows
t = run("dma", "--sizes", "64", "-n", "10", "--warmup", "1", "--tests", "LAT_RD", "-q")
assert "SIMULATED" in t, t
p = subprocess.run([exe, "dma", "--tests", "LAT_XX"], capture_output=True, text=True)
assert p.returncode == 2 and "LAT_XX" in p.stderr, p.stderr

x = json.loads(run("crossover", "--sizes", "64,1K,4K", "-n", "20", "--warmup", "2", "--json", "-q"))
assert x["tool"] == "pciebench crossover" and x["simulated"] is True
assert [r["op"] for r in x["results"]] == ["pio_write_read", "dma_h2c_c2h"] * 3
for k in ("fit_pio", "fit_dma"):
    assert set(x[k]) == {"offset_ns", "slope_ns_per_byte", "r2"}, x[k]
assert x["fit_dma"]["offset_ns"] > x["fit_pio"]["offset_ns"]  # DMA pays a fixed setup cost
assert x["crossover_bytes"] is not None and x["crossover_bytes"] > 0
print("dma ok")

# The stock-driver compatibility path, with a regular file standing in for
# /dev/xdma0_h2c_0 and _c2h_0 (both name the same card memory).
import os, tempfile
with tempfile.TemporaryDirectory() as tmp:
    h2c = os.path.join(tmp, "xdma0_h2c_0")
    with open(h2c, "wb") as f:
        f.truncate(1 << 20)
    os.symlink(h2c, os.path.join(tmp, "xdma0_c2h_0"))
    d = json.loads(run("dma", "--device", "xilinx:" + os.path.join(tmp, "xdma0"), "--sizes", "4K", "-n", "20",
                       "--warmup", "2", "-Q", "4", "--json", "-q"))
    assert d["transport"] == "xilinx-chardev" and d["simulated"] is False, d
    assert [r["op"] for r in d["results"]] == ["LAT_RD", "LAT_WRRD", "BW_RD", "BW_WR", "BW_RDWR"]
    assert all(r["p50_ns"] > 0 for r in d["results"])
p = subprocess.run([exe, "dma", "--device", "xilinx:/nonexistent/xdma7"], capture_output=True, text=True)
assert p.returncode == 1 and "/nonexistent/xdma7_h2c_0" in p.stderr, (p.returncode, p.stderr)
print("xilinx compat ok")
