#!/usr/bin/env python3
"""tools.nicbench_dma: nicbench rx/tx/throughput --path dma on sim:nic_dma
print the shared JSON shape, say they are simulated, give one row per size
with every frame checked (nicbench fails on any frame lost, doubled or
changed); DMA RX latency is nearly flat in the frame size (the engine writes
the frame as it arrives; the CPU polls host memory), unlike PIO's.
Throughput with MTU frames on the Enzian preset: the NIC drops some (its
receive DMA writes slower than its transmit DMA reads, see nic.md); nicbench
reports them as lost_frames, says so, and still checks every frame that
came back.
Throughput with small frames runs at the engines' rate: the loop takes its TX
slots back from the write-back (reclaim_tx), not by reading a TX stamp per
frame, which capped it at one uncached read per frame (1.8 M frames/s)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nicbench_rows import p50_rows, run  # noqa: E402

rows = p50_rows(sys.argv[1], "dma", "sim:nic_dma", "uc", "-n", "100", "--ring", "16")

rx, tx = rows["rx"], rows["tx"]
assert rx[0] < rx[2], f"DMA RX latency should still grow a little with the frame: {rx}"
assert rx[2] < 2 * rx[0], f"DMA RX latency should not grow like PIO's (C2H writes as beats arrive): {rx}"
assert tx[0] < tx[2], f"DMA TX latency should grow with the frame (the engine reads it): {tx}"

p = run(sys.argv[1], "throughput", "--path", "dma", "--device", "sim:nic_dma@enzian-gen3x8", "--size", "1536,9600",
        "-n", "1000", "--json")
res = json.loads(p.stdout)["results"]
lost = [r["lost_frames"] for r in res]
assert lost[0] == 0 and 0 < lost[1] < 100, f"lost frames at 1536 / 9600 B: {lost}"
assert "the NIC dropped" in p.stderr and "9600 B" in p.stderr, p.stderr
mb = res[1]["mbps"]
assert 6000 < mb < 6700, f"9600 B on gen3 x8 should move at about the link's DMA write rate (6.6 GB/s): {mb} MB/s"
p = run(sys.argv[1], "throughput", "--path", "dma", "--size", "64", "-n", "2000", "--json")
fps = json.loads(p.stdout)["results"][0]["frames_per_s"]
assert fps > 5e6, f"64 B frames back to back: {fps:.3g} frames/s; a TX stamp read per frame caps it near 1.8e6"
# Each size reports its own simulator speed, and together the rows account
# for the run's simulated time (the open and the close add a little).
p = run(sys.argv[1], "throughput", "--path", "dma", "--size", "64,9600", "-n", "200", "--json")
d = json.loads(p.stdout)
whole = d["simulation"]["simulated_ns"]
rows_ns = [r["simulation"]["simulated_ns"] for r in d["results"]]
for r in d["results"]:
    s = r["simulation"]
    assert s["simulated_ns"] >= r["iterations"] * r["p50_ns"], f"a row's speed must cover its frames: {r}"
    assert s["cpu_s"] > 0 and s["sim_ns_per_cpu_ns"] > 0, s
assert sum(rows_ns) <= whole < sum(rows_ns) + 100_000, f"rows {rows_ns} against the run's {whole} simulated ns"
print("nicbench dma ok:", rows, f"64 B: {fps:.3g} frames/s,", "enzian 9600 B:", mb, "MB/s,", lost[1], "lost")
