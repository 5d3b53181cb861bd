#!/usr/bin/env python3
"""What each behavioural model costs per simulated nanosecond, in
instructions counted by callgrind: a figure of the code, not of the machine.

bench/sim_speeds.py measures simulated ns per CPU ns, which is what issue 13
asks for, but that figure moves with the host: the same build ran
sim:nic_eci's default rx run at 1.23x real time on a Zen 4 VM and at 0.53x
on a Zen 3 VM (Documentation/benchmarking.md, session 21). This tool splits
the figure in two:

  speed = (instructions the host retires per CPU ns)
          / (instructions the model needs per simulated ns)

and counts the second, which is deterministic for a given binary: each
default run of the tools is run twice under callgrind, with N and 2N timed
iterations, and the difference of the instruction totals over the
difference of the simulated times (the tool's own --json `simulation`) is
the model's cost per simulated ns in the steady state (start-up, device
set-up and warm-up are the same in both and cancel out).

With --host it also runs each default natively (its default iterations,
3 runs, the median), as sim_speeds.py does, and prints the speed measured
and the instruction rate that implies for this host inside the model's
steady state (cost x speed, instructions per CPU ns): real time needs a
host whose rate is at least the cost.

With --check FILE it compares each cost with the ceiling FILE gives for it
(lines "NAME CEILING", # comments) and exits 1 when any is above: a change
that makes a model slower per simulated ns fails on every machine, where a
timing test would pass on a fast one.

examples:
  bench/model_instructions.py                         the table (about 1 minute)
  bench/model_instructions.py --only eci --json
  bench/model_instructions.py --check bench/model_instructions.budget
  bench/model_instructions.py --host                  also this machine's speed and rate
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sim_speeds  # noqa: E402  (the default runs, one list for both tools)

# Timed iterations of the smaller of the two counted runs (the larger runs
# twice as many): enough that the difference is the steady state, few
# enough that callgrind (about 50x slower than native) takes seconds.
SMALL_N = {
    "pciebench pio": 200,
    "pciebench dma": 40,
    "pciebench crossover": 20,
    "pciebench offload": 4,
    "ecibench invoke": 10,
    "ecibench queue": 2000,
    "nicbench": 40,
}


def runs():
    """(name, tool, args, small n): sim_speeds' default runs, offload one
    run per simulated path so that each path's instructions are its own,
    nicbench tx left out (the same run as rx)."""
    out = []
    for name, tool, args, rows in sim_speeds.model_runs():
        if name.startswith("nicbench tx"):
            continue  # nicbench's rx and tx report two columns of one ping run: the rx row counts it
        key = next(k for k in SMALL_N if name.startswith(k))
        if rows is None:
            out.append((name, tool, args, SMALL_N[key]))
            continue
        for path in ("pio", "dma", "eci"):
            out.append((f"{name}, {path} path", tool, args + ["--paths", path], SMALL_N[key]))
    return out


def simulated_ns(doc):
    """The simulated time of one run: the report's, else the sum of its rows'."""
    s = doc.get("simulation")
    if s and "simulated_ns" in s:
        return float(s["simulated_ns"])
    rows = [r["simulation"]["simulated_ns"] for r in doc.get("results", []) if r.get("simulation")]
    if not rows:
        raise ValueError("no simulation object in the tool's JSON")
    return float(sum(rows))


def cpu_s(doc):
    s = doc.get("simulation")
    if s and "cpu_s" in s:
        return float(s["cpu_s"])
    return float(sum(r["simulation"]["cpu_s"] for r in doc.get("results", []) if r.get("simulation")))


def counted_run(build, tool, args, timeout):
    """(instructions, the tool's JSON) of one run under callgrind (a native
    run is sim_speeds.run_once)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               os.path.join(build, "tools", tool)] + args + ["--json"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
        with open(out) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1]), json.loads(p.stdout)
    raise RuntimeError(f"{' '.join(cmd)}: no instruction total in callgrind's output")


def measure(build, name, tool, args, n, timeout):
    """Instructions per simulated ns between an N and a 2N run."""
    ir1, d1 = counted_run(build, tool, args + ["-n", str(n)], timeout)
    ir2, d2 = counted_run(build, tool, args + ["-n", str(2 * n)], timeout)
    dsim = simulated_ns(d2) - simulated_ns(d1)
    if dsim <= 0:
        raise ValueError(f"{name}: the 2N run simulated no more time than the N run ({dsim:.0f} ns)")
    return {"run": name, "n": n, "instructions": [ir1, ir2], "simulated_ns": [simulated_ns(d1), simulated_ns(d2)],
            "instructions_per_sim_ns": (ir2 - ir1) / dsim}


def host_speed(build, tool, args, timeout):
    """Simulated ns per CPU ns of the default run here, natively (3 runs,
    the median): the figure bench/sim_speeds.py reports."""
    speeds = []
    for _ in range(3):
        d = sim_speeds.run_once(build, tool, args, timeout)
        speeds.append(simulated_ns(d) / (cpu_s(d) * 1e9))
    return statistics.median(speeds)


def read_budget(path):
    budget = {}
    with open(path) as f:
        for k, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"(.+?)\s+([0-9.]+)", line)
            if not m:
                raise SystemExit(f"{path}:{k}: expected 'NAME CEILING', got {line!r}")
            budget[m.group(1)] = float(m.group(2))
    return budget


def main():
    ap = sim_speeds.parser(__doc__)
    ap.add_argument("--only", help="only the runs whose name matches this regular expression")
    ap.add_argument("--check", metavar="FILE", help="fail when a run costs more than FILE's ceiling for it")
    ap.add_argument("--host", action="store_true",
                    help="also run each natively: this machine's instruction rate and the speed it predicts")
    ap.add_argument("--timeout", type=float, default=300, help="seconds one run may take (default 300)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    a = ap.parse_args()
    if not os.access(os.path.join(a.build, "tools", "pciebench"), os.X_OK):
        ap.error(f"{a.build}/tools/pciebench: not built (cmake -S . -B {a.build} -G Ninja && ninja -C {a.build})")
    plan = runs()
    if a.only:
        plan = [p for p in plan if re.search(a.only, p[0])]
        if not plan:
            ap.error(f"--only {a.only!r}: no run matches")
    budget = read_budget(a.check) if a.check else {}
    if a.check:
        unknown = sorted(set(budget) - {p[0] for p in runs()})
        if unknown:
            ap.error(f"{a.check}: no such run: {', '.join(unknown)}")

    results, failures, over = [], [], []
    for i, (name, tool, args, n) in enumerate(plan):
        print(f"[{i + 1}/{len(plan)}] {name}: callgrind, -n {n} and {2 * n}", file=sys.stderr, flush=True)
        try:
            r = measure(a.build, name, tool, args, n, a.timeout)
            if a.host:
                speed = host_speed(a.build, tool, args, a.timeout)
                r["host"] = {"sim_ns_per_cpu_ns": speed,
                             "instructions_per_cpu_ns": speed * r["instructions_per_sim_ns"]}
        except (RuntimeError, ValueError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
            failures.append(f"{name}: {e}")
            continue
        if name in budget:
            r["ceiling"] = budget[name]
            if r["instructions_per_sim_ns"] > budget[name]:
                over.append(f"{name}: {r['instructions_per_sim_ns']:.2f} instructions per simulated ns, "
                            f"above the ceiling of {budget[name]:g} ({a.check})")
        results.append(r)

    if a.json:
        json.dump({"tool": "model_instructions", "results": results, "failures": failures, "over": over},
                  sys.stdout, indent=2)
        print()
    else:
        print("# instructions per simulated ns (callgrind, deterministic for this build); "
              "the tools' results SIMULATED")
        head = f"{'default run':48} {'instr/sim ns':>12} {'ceiling':>8}"
        if a.host:
            head += f" {'speed here':>10} {'host instr/ns':>13}"
        print(head)
        for r in results:
            line = f"{r['run'][:48]:48} {r['instructions_per_sim_ns']:12.2f} {r.get('ceiling', float('nan')):8.2f}"
            if a.host:
                h = r["host"]
                line += f" {h['sim_ns_per_cpu_ns']:10.2f} {h['instructions_per_cpu_ns']:13.2f}"
            print(line)
    for f in failures:
        print(f"model_instructions: {f}", file=sys.stderr)
    for o in over:
        print(f"model_instructions: {o}", file=sys.stderr)
    return 1 if failures or over else 0


if __name__ == "__main__":
    sys.exit(main())
