#!/usr/bin/env python3
"""tools.nicbench_irq: nicbench rx --rx-wait irq|poll on sim:nic_pio and
sim:nic_dma (SIMULATED). The JSON says which wait it used (poll by default);
with irq the DMA NIC's receive latency carries the interrupt path the XDMA
model charges (the MSI-X write, then the host's wake-up: 1800 ns more than
polling host memory); the PIO NIC sleeps only when the frame lands after
the driver's re-check (9600 bytes), not for a 64-byte frame that is back
before it. The ECI NIC has no receive interrupt: refused."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nicbench_rows import run  # noqa: E402

nb = sys.argv[1]


def rx_p50(path, *wait):
    j = json.loads(run(nb, "rx", "--path", path, "--size", "64,9600", "-n", "50", *wait, "--json").stdout)
    assert j["rx_wait"] == (wait[1] if wait else "poll"), j
    return [r["p50_ns"] for r in j["results"]]


for path in ("pio", "dma"):
    poll, irq = rx_p50(path), rx_p50(path, "--rx-wait", "irq")
    assert rx_p50(path, "--rx-wait", "poll") == poll, "poll is the default"
    extra = [i - p for i, p in zip(irq, poll)]
    print(f"nicbench {path}: rx p50 poll {poll} ns, irq {irq} ns, irq - poll {extra} ns (SIMULATED)")
    if path == "dma":
        assert all(1500 <= e <= 2500 for e in extra), f"DMA: the interrupt path should add ~1.8 us: {extra}"
    else:
        assert 0 <= extra[0] < 200, f"PIO 64 B: back before the re-check, no sleep: {extra}"
        assert 1500 <= extra[1] <= 2500, f"PIO 9600 B: asleep, woken by the interrupt: {extra}"

p = run(nb, "rx", "--path", "eci", "--rx-wait", "irq", ok=False)
assert "no receive interrupt" in p.stderr, p.stderr
print("nicbench irq ok")
