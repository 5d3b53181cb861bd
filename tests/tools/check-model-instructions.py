#!/usr/bin/env python3
"""bench/model_instructions.py's own behaviour, on one fast run (the queue
on sim:eci, about 5 s under callgrind): a ceiling below the count fails
naming the run, its count and the file; one above passes; a budget naming
no run, a malformed line, a missing build and an --only matching nothing
are refused with messages naming them. (The real ceilings are checked by
bench.model_instructions.)

usage: check-model-instructions.py PATH/TO/model_instructions.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import tempfile

script, build = sys.argv[1], sys.argv[2]
run_name = "ecibench queue (sim:eci)"


def run(*args, build_dir=build):
    return subprocess.run([sys.executable, script, "--build", build_dir, *args], capture_output=True, text=True,
                          timeout=600)


with tempfile.TemporaryDirectory() as d:
    def budget(text):
        path = os.path.join(d, "budget")
        with open(path, "w") as f:
            f.write(text)
        return path

    p = run("--only", "ecibench queue", "--json", "--check", budget(f"# a comment\n{run_name} 1000  # loose\n"))
    assert p.returncode == 0, (p.returncode, p.stderr)
    doc = json.loads(p.stdout)
    (r,) = doc["results"]
    assert r["run"] == run_name and r["ceiling"] == 1000 and doc["over"] == [] and doc["failures"] == [], doc
    cost = r["instructions_per_sim_ns"]
    assert 1 < cost < 1000 and r["instructions"][1] > r["instructions"][0] > 0, r
    assert r["simulated_ns"][1] > r["simulated_ns"][0] > 0, r

    p = run("--only", "ecibench queue", "--check", budget(f"{run_name} {cost / 2:.3f}\n"))
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert f"{run_name}: {cost:.2f} instructions per simulated ns, above the ceiling of" in p.stderr, p.stderr
    assert "budget" in p.stderr, p.stderr

    p = run("--check", budget("no such run 3\n"))
    assert p.returncode == 2 and "no such run: no such run" in p.stderr, p.stderr
    p = run("--check", budget(f"{run_name}\n"))
    assert p.returncode != 0 and "budget:1: expected 'NAME CEILING'" in p.stderr, p.stderr

p = run("--only", "no such run")
assert p.returncode == 2 and "--only 'no such run': no run matches" in p.stderr, p.stderr
p = run(build_dir="/nonexistent")
assert p.returncode == 2 and "/nonexistent/tools/pciebench: not built" in p.stderr, p.stderr
print("model_instructions: ceilings, refusals and messages as documented")
