#!/usr/bin/env python3
"""Issue 13's simulator-speed table, measured: every default run of the
tools on the simulated devices, each repeated, with its speed against the
goal and the machine it ran on.

Goals (Documentation/benchmarking.md, "Issue 13's speed goals"):
  behavioural models  simulated ns per CPU ns above 1 (faster than real time)
  Verilated images    at least 5 M simulated cycles per CPU second

Every figure comes from the `simulation` object of the tool's own --json
(CPU time of the process, so other jobs on the machine change it less than
wall time; they still change it: repeat, and compare medians). The tools'
results are SIMULATED; only the speeds are measured, and they are this
machine's, not the code's.

examples:
  bench/sim_speeds.py                        models, 3 runs each, a table
  bench/sim_speeds.py --rtl-build build-rtl  also the Verilated images
  bench/sim_speeds.py --only nicbench --repeat 10 --json
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

MODEL_GOAL = 1.0    # simulated ns per CPU ns
RTL_GOAL = 5e6      # simulated cycles per CPU second


def model_runs():
    """(name, tool, args, rows): rows names the result field whose rows
    carry their own `simulation` (offload: one figure per path)."""
    runs = [
        ("pciebench pio (sim:pio)", "pciebench", ["pio", "--no-pin", "-q"], None),
        ("pciebench dma (sim:xdma)", "pciebench", ["dma", "--no-pin", "-q"], None),
        ("pciebench crossover (sim:xdma)", "pciebench", ["crossover", "--no-pin", "-q"], None),
        ("pciebench offload", "pciebench", ["offload", "--no-pin", "-q"], "op"),
        ("ecibench invoke (sim:eci)", "ecibench", ["invoke", "--no-pin", "-q"], None),
        ("ecibench queue (sim:eci)", "ecibench", ["queue", "--device", "sim:eci", "--no-pin", "-q"], None),
    ]
    for mode in ("rx", "tx", "throughput"):
        for path in ("pio", "dma", "eci"):
            runs.append((f"nicbench {mode} --path {path} (sim:nic_{path})", "nicbench",
                         [mode, "--path", path], None))
    return runs


def rtl_runs():
    runs = [
        ("pciebench pio --device rtl:pio", "pciebench", ["pio", "--device", "rtl:pio", "--no-pin", "-q"], None),
        ("pciebench dma --device rtl:xdma", "pciebench", ["dma", "--device", "rtl:xdma", "--no-pin", "-q"], None),
        ("ecibench invoke --device rtl:coh", "ecibench", ["invoke", "--device", "rtl:coh", "--no-pin", "-q"], None),
    ]
    for mode in ("rx", "tx", "throughput"):
        for path, dev in (("pio", "rtl:nic_pio"), ("dma", "rtl:nic_dma"), ("eci", "rtl:nic_eci"),
                          ("eci", "rtl:nic_eci_lines")):
            runs.append((f"nicbench {mode} --path {path} --device {dev}", "nicbench",
                         [mode, "--path", path, "--device", dev], None))
    return runs


def machine():
    """What the figures were measured on."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "Model name")) or line.startswith("CPU part"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model or platform.processor() or platform.machine(), "arch": platform.machine(),
            "cpus": os.cpu_count(), "kernel": platform.release(), "load_average": list(os.getloadavg())}


def speeds_of(doc, rows, rtl):
    """{label: (speed, cpu_s)} from one run's JSON."""
    key = "cycles_per_cpu_s" if rtl else "sim_ns_per_cpu_ns"
    if rows is None:
        s = doc.get("simulation")
        if not s or key not in s:
            raise ValueError(f"no simulation.{key} in the tool's JSON")
        return {"": (s[key], s["cpu_s"])}
    # One figure per group of rows: the group's simulated time over its CPU time.
    acc = {}
    for r in doc["results"]:
        s = r.get("simulation")
        if not s:
            continue  # measured, not simulated (offload's cpu path)
        sim, cpu = acc.get(r[rows], (0.0, 0.0))
        acc[r[rows]] = (sim + s["simulated_ns"], cpu + s["cpu_s"])
    if not acc:
        raise ValueError("no row carries a simulation object")
    return {g: (sim / (cpu * 1e9), cpu) for g, (sim, cpu) in acc.items()}


def run_once(build, tool, args, timeout):
    cmd = [os.path.join(build, "tools", tool)] + args + ["--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    return json.loads(p.stdout)


def parser(doc):
    """The command line both tools share: --help from @p doc, --build."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0], epilog="\n\n".join(doc.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build tree with the tools (default: build)")
    return ap


def main():
    ap = parser(__doc__)
    ap.add_argument("--rtl-build", help="a -DPIOC_RTL=ON build tree: also run the Verilated images' defaults")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each default (default 3)")
    ap.add_argument("--only", help="only the runs whose name matches this regular expression")
    ap.add_argument("--timeout", type=float, default=120, help="seconds one run may take (default 120)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error(f"--repeat {a.repeat}: at least 1 run of each default")
    for b in [a.build] + ([a.rtl_build] if a.rtl_build else []):
        if not os.access(os.path.join(b, "tools", "pciebench"), os.X_OK):
            ap.error(f"{b}/tools/pciebench: not built (cmake -S . -B {b} -G Ninja && ninja -C {b})")

    plan = [(n, a.build, t, args, rows, False) for n, t, args, rows in model_runs()]
    if a.rtl_build:
        plan += [(n, a.rtl_build, t, args, rows, True) for n, t, args, rows in rtl_runs()]
    if a.only:
        plan = [p for p in plan if re.search(a.only, p[0])]
        if not plan:
            ap.error(f"--only {a.only!r}: no run matches")

    before = machine()
    figures = {}   # name -> {"rtl", "speeds": [...], "cpu_s": [...]}
    order = []
    failures = []
    failed = set()
    t0 = time.monotonic()
    # Round robin: each pass runs every default once, so a spell in which
    # the machine is slow (other tenants of a VM's host) touches one run of
    # each, not all the runs of one.
    for k in range(a.repeat):
        for i, (name, build, tool, args, rows, rtl) in enumerate(plan):
            if name in failed:
                continue
            print(f"[{i + 1}/{len(plan)}] {name}, run {k + 1} of {a.repeat} "
                  f"({time.monotonic() - t0:.0f} s so far)", file=sys.stderr, flush=True)
            try:
                got = speeds_of(run_once(build, tool, args, a.timeout), rows, rtl)
            except (RuntimeError, ValueError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
                failures.append(f"{name}: {e}")
                failed.add(name)
                continue
            for g, (speed, cpu) in got.items():
                label = f"{name}, {g} path" if g else name
                if label not in figures:
                    figures[label] = {"rtl": rtl, "speeds": [], "cpu_s": []}
                    order.append(label)
                figures[label]["speeds"].append(speed)
                figures[label]["cpu_s"].append(cpu)

    out = []
    for label in order:
        f = figures[label]
        goal = RTL_GOAL if f["rtl"] else MODEL_GOAL
        met = sum(s > goal if not f["rtl"] else s >= goal for s in f["speeds"])
        out.append({"run": label, "unit": "cycles per CPU s" if f["rtl"] else "simulated ns per CPU ns",
                    "goal": goal, "runs": len(f["speeds"]), "met_in": met,
                    "min": min(f["speeds"]), "median": statistics.median(f["speeds"]), "max": max(f["speeds"]),
                    "cpu_s_median": statistics.median(f["cpu_s"])})
    doc = {"tool": "sim_speeds", "machine": before, "load_average_after": list(os.getloadavg()),
           "repeat": a.repeat, "runs": out, "failures": failures}
    if a.json:
        json.dump(doc, sys.stdout, indent=2)
        print()
    else:
        m = before
        print(f"# {m['cpu']} ({m['arch']}, {m['cpus']} CPUs), Linux {m['kernel']}, load average "
              f"{m['load_average'][0]:.2f} before, {doc['load_average_after'][0]:.2f} after; "
              f"{a.repeat} runs each; speeds MEASURED (CPU time), the tools' results SIMULATED")
        print(f"{'default run':58} {'CPU s':>7} {'min':>8} {'median':>8} {'max':>8}  goal")
        for r in out:
            scale, unit = (1e6, "M") if r["unit"].startswith("cycles") else (1, "")
            goal = f">= {r['goal'] / scale:g} {unit}cycles/s" if unit else "> 1"
            verdict = ("met" if r["met_in"] == r["runs"] else
                       "NOT met" if r["met_in"] == 0 else f"met in {r['met_in']} of {r['runs']}")
            print(f"{r['run'][:58]:58} {r['cpu_s_median']:7.3f} {r['min'] / scale:8.2f} "
                  f"{r['median'] / scale:8.2f} {r['max'] / scale:8.2f}  {goal}: {verdict}")
    for f in failures:
        print(f"sim_speeds: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
