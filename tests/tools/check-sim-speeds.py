#!/usr/bin/env python3
"""bench/sim_speeds.py over a build tree: every default model run of issue
13's table is measured, each figure is a positive speed with its goal, the
machine is named, and bad input is refused with a message naming it.

usage: check-sim-speeds.py PATH/TO/sim_speeds.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import tempfile

script, build = sys.argv[1], sys.argv[2]


def run(*args):
    return subprocess.run([sys.executable, script, "--build", build, *args], capture_output=True, text=True,
                          timeout=600)


p = run("--repeat", "1", "--json")
assert p.returncode == 0, (p.returncode, p.stderr)
doc = json.loads(p.stdout)
assert doc["failures"] == [], doc["failures"]
assert doc["machine"]["cpus"] >= 1 and doc["machine"]["kernel"], doc["machine"]
names = [r["run"] for r in doc["runs"]]
want = ["pciebench pio (sim:pio)", "pciebench dma (sim:xdma)", "pciebench crossover (sim:xdma)",
        "pciebench offload, pio path", "pciebench offload, dma path", "pciebench offload, eci path",
        "ecibench invoke (sim:eci)", "ecibench queue (sim:eci)"]
want += [f"nicbench {m} --path {p} (sim:nic_{p})" for m in ("rx", "tx", "throughput") for p in ("pio", "dma", "eci")]
assert sorted(names) == sorted(want), sorted(set(names) ^ set(want))
for r in doc["runs"]:
    assert r["runs"] == 1 and r["goal"] == 1.0 and r["unit"] == "simulated ns per CPU ns", r
    assert 0 < r["min"] <= r["median"] <= r["max"] and r["cpu_s_median"] > 0, r
    assert r["met_in"] == (1 if r["min"] > 1 else 0), r
# Progress goes to stderr, one line per run.
assert p.stderr.count("run 1 of 1") == len(want) - 2, p.stderr  # offload's three paths are one run

# The table: the machine line, then one line per run with its verdict.
p = run("--repeat", "1", "--only", "nicbench rx --path pio")
assert p.returncode == 0, p.stderr
lines = p.stdout.splitlines()
assert lines[0].startswith("# ") and "CPUs" in lines[0] and "SIMULATED" in lines[0], lines[0]
assert len(lines) == 3 and lines[2].startswith("nicbench rx --path pio (sim:nic_pio)"), lines
assert lines[2].endswith(("> 1: met", "> 1: NOT met")), lines[2]

for args, msg in ((["--only", "no such run"], "--only 'no such run': no run matches"),
                  (["--repeat", "0"], "--repeat 0: at least 1 run of each default")):
    p = run(*args)
    assert p.returncode == 2 and msg in p.stderr, (args, p.returncode, p.stderr)
p = subprocess.run([sys.executable, script, "--build", "/nonexistent"], capture_output=True, text=True)
assert p.returncode == 2 and "/nonexistent/tools/pciebench: not built" in p.stderr, p.stderr
# A tool that fails: the run is named with the command and its message, the
# script exits 1 (no figure is made up for it).
with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "tools"))
    for t in ("pciebench", "ecibench", "nicbench"):
        path = os.path.join(d, "tools", t)
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"no device for $*\" >&2\nexit 3\n")
        os.chmod(path, 0o755)
    p = subprocess.run([sys.executable, script, "--build", d, "--repeat", "2", "--only", "pciebench pio", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 1, (p.returncode, p.stderr)
    doc = json.loads(p.stdout)
    assert doc["runs"] == [] and len(doc["failures"]) == 1, doc
    assert "pciebench pio --no-pin -q --json exited 3: no device for pio" in doc["failures"][0], doc["failures"]
print(f"sim_speeds: {len(names)} runs measured; the table and the errors as documented")
