"""What the tools.nicbench_* checks share: run nicbench, and the shape of
its rx/tx/throughput reports on one path's default simulated device."""
import json
import subprocess
import sys


def run(nicbench, *args, ok=True):
    p = subprocess.run([nicbench, *args], capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        sys.exit(f"nicbench {' '.join(args)} failed: {p.stderr}")
    if not ok and p.returncode == 0:
        sys.exit(f"nicbench {' '.join(args)} should have failed")
    return p


def p50_rows(nicbench, path, device, memory_type, *extra):
    """rx, tx and throughput at 64/1536/9600 bytes on @device (the path's
    default, which nicbench must name); checks the JSON shape and returns
    {mode: [p50_ns per size]}."""
    rows = {}
    for mode in ("rx", "tx", "throughput"):
        p = run(nicbench, mode, "--path", path, "--size", "64,1536,9600", *extra, "--json")
        if f"{device} (simulated)" not in p.stderr:
            sys.exit("nicbench did not say which default device it used")
        j = json.loads(p.stdout)
        assert j["tool"] == f"nicbench {mode}", j["tool"]
        assert j["simulated"] is True and j["device"] == device and j["path"] == path, j
        assert j["memory_type"] == memory_type, j["memory_type"]
        # the simulator's speed over the run (the PCIe NICs' models; the ECI
        # NIC's model has no PCIe link to sample)
        if path != "eci":
            sp = j["simulation"]
            assert sp["simulated_ns"] > 0 and sp["cpu_s"] > 0 and sp["sim_ns_per_cpu_ns"] > 0, sp
        assert [r["size"] for r in j["results"]] == [64, 1536, 9600], j["results"]
        for r in j["results"]:
            assert r["p50_ns"] > 0 and r["max_ns"] >= r["p50_ns"], r
            if mode == "throughput":
                assert r["mbps"] > 0, r
            else:
                assert r["p100_ns"] >= r["p99_ns"] >= r["p95_ns"] >= r["p50_ns"], r
        rows[mode] = [r["p50_ns"] for r in j["results"]]
    return rows
