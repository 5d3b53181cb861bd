#!/usr/bin/env python3
"""The best speed any model of the DMA NIC could reach in the default
`nicbench throughput --path dma` run on this machine, beside the speed the
model reaches (issue 13; Documentation/benchmarking.md, session 26).

The run moves every frame's bytes: nicbench copies the frame into the
driver's TX slot, the device moves it into an RX slot, the driver copies it
out and nicbench compares it with what was sent. Three of those four steps
are the driver's and nicbench's, the code that runs on hardware too; the
fourth is the least a device model can do (one copy, no snapshot).
`bench/nic_copy_floor` times exactly that per frame size on this machine
(CPU time, same ring layout). Before its first frame the run also builds
the driver's two stream rings (alloc_dma, written whole) and frees them at
its end: nic_copy_floor times that too ("rings", the library's own
xdma::stream_ring on fresh memory), once a run. Where a first touch is cheap
it is small; on a VM whose hypervisor maps each new page at its first
access it is not (session 30: 1.3 to 3 ms for the default run's rings on
a Zen 5 VM).
Summed over the frames the default run sends of each size, plus the rings
once, that is a lower bound on the run's CPU time for ANY model, and the
run's simulated time divided by it is an upper bound on its speed:

  ceiling = the run's simulated ns
            / (sum over sizes(frames x floor ns per frame) + rings ns)

Everything else the run costs (the driver's register writes and polls, the
model's events) is left out, so the true best is lower still. A ceiling
below 1 means that real time is out of reach for this run on this machine,
whatever the model; above 1 it is not ruled out by the bytes and the rings
alone, and `model / ceiling` says how far the model is from the floor.

Both figures are MEASURED on this machine; the run's results are SIMULATED.

examples:
  bench/nic_dma_ceiling.py build               the table, the default run once
  bench/nic_dma_ceiling.py build --repeat 5    medians of five of each
  bench/nic_dma_ceiling.py build --json        for scripts
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from sim_speeds import machine  # the same description of the host as the speed table's

WARMUP_DEFAULT = 2  # nicbench's --warmup default: those frames are simulated and timed too


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"nic_dma_ceiling: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as e:
        sys.exit(f"nic_dma_ceiling: {' '.join(cmd)} printed no JSON ({e}): {p.stdout[:200]!r}")


def measure(build, repeat, floor_frames, ring):
    nicbench = os.path.join(build, "tools", "nicbench")
    floor = os.path.join(build, "bench", "nic_copy_floor")
    for exe in (nicbench, floor):
        if not os.access(exe, os.X_OK):
            sys.exit(f"nic_dma_ceiling: {exe} is missing: build the tree first "
                     f"(ninja -C {build} nicbench nic_copy_floor)")
    runs = [run_json([nicbench, "throughput", "--path", "dma", "--json"]) for _ in range(repeat)]
    sizes = [r["size"] for r in runs[0]["results"]]
    rows = []
    rings = []
    for i, size in enumerate(sizes):
        frames = runs[0]["results"][i]["iterations"] + WARMUP_DEFAULT
        sim_ns = statistics.median(r["results"][i]["simulation"]["simulated_ns"] for r in runs)
        cpu_ns = statistics.median(r["results"][i]["simulation"]["cpu_s"] * 1e9 for r in runs)
        fl = [run_json([floor, "--json", str(size), str(ring), str(floor_frames)]) for _ in range(repeat)]
        least = statistics.median(f["least_ns"] for f in fl)
        rings += [f["rings_ns"] for f in fl]
        rows.append({"size": size, "frames": frames, "simulated_ns": sim_ns, "model_cpu_ns": cpu_ns,
                     "floor_ns_per_frame": least, "floor_cpu_ns": least * frames,
                     "simulated_ns_per_frame": sim_ns / frames})
    total_sim = statistics.median(r["simulation"]["simulated_ns"] for r in runs)
    total_cpu = statistics.median(r["simulation"]["cpu_s"] * 1e9 for r in runs)
    copies_cpu = sum(r["floor_cpu_ns"] for r in rows)
    rings_cpu = statistics.median(rings)  # the same rings in every call: one figure
    floor_cpu = copies_cpu + rings_cpu
    ceiling = total_sim / floor_cpu
    return {
        "what": "nicbench throughput --path dma (sim:nic_dma), default run",
        "measured": "CPU time on this machine; the run's results are simulated",
        "repeat": repeat,
        "sizes": rows,
        "simulated_ns": total_sim,
        "model_cpu_ns": total_cpu,
        "floor_copies_cpu_ns": copies_cpu,
        "floor_rings_cpu_ns": rings_cpu,
        "floor_cpu_ns": floor_cpu,
        "model_speed": total_sim / total_cpu,
        "ceiling_speed": ceiling,
        "real_time_possible": ceiling >= 1.0,
        "machine": machine(),
    }


def print_table(m):
    print(f"{m['what']}, on {m['machine']['cpu']} (MEASURED CPU time; median of {m['repeat']})")
    print(f"{'size':>6} {'frames':>7} {'sim ns/frame':>13} {'model CPU ns/frame':>19} {'floor ns/frame':>15}"
          f" {'size ceiling':>13}")
    for r in m["sizes"]:
        f = r["frames"]
        print(f"{r['size']:>6} {f:>7} {r['simulated_ns_per_frame']:>13.1f} {r['model_cpu_ns'] / f:>19.1f}"
              f" {r['floor_ns_per_frame']:>15.1f} {r['simulated_ns_per_frame'] / r['floor_ns_per_frame']:>13.2f}")
    print(f"whole run: simulated {m['simulated_ns'] / 1e3:.0f} us, model {m['model_cpu_ns'] / 1e3:.0f} us CPU"
          f" (speed {m['model_speed']:.2f}), floor {m['floor_cpu_ns'] / 1e3:.0f} us CPU"
          f" (ceiling {m['ceiling_speed']:.2f}): the copies {m['floor_copies_cpu_ns'] / 1e3:.0f} us,"
          f" the two rings built and freed {m['floor_rings_cpu_ns'] / 1e3:.0f} us")
    if m["real_time_possible"]:
        print(f"real time is not ruled out here by the bytes and the rings alone; the model runs at "
              f"{m['model_speed'] / m['ceiling_speed']:.2f} of the ceiling")
    else:
        print("real time is out of reach here for any model: the copies and the compare the run must make,"
              " with its rings' set-up, take longer than the simulated time")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", help="build tree with tools/nicbench and bench/nic_copy_floor")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, medians reported (default 1)")
    ap.add_argument("--floor-frames", type=int, default=100000,
                    help="frames per nic_copy_floor pass (default 100000)")
    ap.add_argument("--ring", type=int, default=64, help="ring slots, as nicbench's default (64)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    a = ap.parse_args()
    if a.repeat < 1 or a.floor_frames < 1:
        ap.error("--repeat and --floor-frames must be at least 1")
    m = measure(a.build, a.repeat, a.floor_frames, a.ring)
    if a.json:
        json.dump(m, sys.stdout, indent=1)
        print()
    else:
        print_table(m)


if __name__ == "__main__":
    main()
