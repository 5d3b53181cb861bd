#!/usr/bin/env python3
"""Progress on long runs (issue 13): with stderr to a file, pciebench and
ecibench print "<tool> <what>: done/total unit, P%[, ~S s left]" lines on
stderr, stdout stays valid JSON, --quiet prints none, a run shorter than
the delay prints none (1000 s; the default 2 s when the run took under
1.5 s), a long interval keeps it to one line, and pciebench pio reports
inside one size too.

PIOC_PROGRESS_DELAY / PIOC_PROGRESS_INTERVAL make a sub-second run report.
Usage: check-progress.py PCIEBENCH ECIBENCH"""
import json, os, re, shutil, subprocess, sys, tempfile, time

pciebench, ecibench = sys.argv[1], sys.argv[2]
LINE = re.compile(r"^(pciebench|ecibench) \S+ .+: (\d+)/(\d+) (iterations|runs), (\d+)%(, ~\d+ s left)?$")

runs = {
    "pciebench pio": [pciebench, "pio", "--sizes", "8,64", "--ops", "write_read,read", "-n", "200", "-w", "2"],
    "pciebench dma": [pciebench, "dma", "--sizes", "64,256", "-n", "20", "-w", "2", "--tests", "LAT_RD,BW_WR"],
    "pciebench offload": [pciebench, "offload", "--sizes", "128,1K", "-n", "3", "-w", "1"],
    "ecibench invoke": [ecibench, "invoke", "--sizes", "8,64", "-n", "100", "-w", "2"],
    "ecibench queue": [ecibench, "queue", "--peer", "device", "-n", "10000", "-w", "10"],
}


def run(cmd, delay, interval):
    env = dict(os.environ)
    env.pop("PIOC_PROGRESS_DELAY", None)
    env.pop("PIOC_PROGRESS_INTERVAL", None)
    if delay is not None:
        env["PIOC_PROGRESS_DELAY"] = delay
    if interval is not None:
        env["PIOC_PROGRESS_INTERVAL"] = interval
    # stderr to a pipe: not a terminal, so whole lines, not redraws.
    p = subprocess.run(cmd + ["--json", "--no-pin"], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (cmd, p.returncode, p.stderr)
    report = json.loads(p.stdout)  # fails if anything else got onto stdout
    assert report["results"], (cmd, report)
    return p.stderr.splitlines()


for name, cmd in runs.items():
    lines = run(cmd, "0", "0")
    assert len(lines) >= 2, (name, "expected progress lines on stderr", lines)
    seen = []
    for l in lines:
        m = LINE.match(l)
        assert m and l.startswith(name + " "), (name, "not a progress line", l)
        done, total, pct = int(m.group(2)), int(m.group(3)), int(m.group(5))
        assert done < total and pct == done * 100 // total, (name, l)
        seen.append(done)
    assert seen == sorted(seen) and seen[0] == 0 and seen[-1] > 0, (name, seen)
    assert any("s left" in l for l in lines), (name, "no estimate", lines)

    quiet = run(cmd + ["--quiet"], "0", "0")
    assert quiet == [], (name, "--quiet printed", quiet)
    # The delay is honoured: a delay longer than the run prints nothing.
    delayed = run(cmd, "1000", "0")
    assert delayed == [], (name, "printed before a 1000 s delay", delayed)
    # The default delay (2 s): checked only when the run was short enough in
    # wall time (under ASan on a loaded machine it may not be).
    t0 = time.monotonic()
    short = run(cmd, None, None)
    if time.monotonic() - t0 < 1.5:
        assert short == [], (name, "a sub-second run printed before the 2 s delay", short)
    sparse = run(cmd, "0", "1000")
    assert len(sparse) == 1, (name, "a 1000 s interval printed more than one line", sparse)
    print(f"ok {name}: {len(lines)} lines, e.g. {lines[-1]!r}")

# Inside one size: pio's latency loops report every 1024 iterations (after the
# timed part), so a slow device does not go quiet for a whole size.
inner = run([pciebench, "pio", "--sizes", "64", "--ops", "write_read", "-n", "3000", "-w", "100"], "0", "0")
counts = [int(LINE.match(l).group(2)) for l in inner]
assert counts == [0, 1024, 2048, 3072], ("pio progress inside one size", inner)
print("ok pciebench pio inside one size:", counts)

# On a terminal (a pty from util-linux's script): the line is redrawn in place
# ("\r" + erase-line, no newline) and erased before the tool exits.
if shutil.which("script"):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        env = dict(os.environ, PIOC_PROGRESS_DELAY="0")
        cmd = f"'{pciebench}' pio --sizes 8,64 --ops write_read -n 200 --json --no-pin > '{out}'"
        tty = subprocess.run(["script", "-qec", cmd, "/dev/null"], env=env, capture_output=True, timeout=60).stdout
        json.load(open(out))
        assert tty.startswith(b"\r\x1b[Kpciebench pio write_read 8 B: 0/") and b"\n" not in tty, tty
        assert tty.endswith(b"\r\x1b[K"), ("progress line not erased at the end", tty)
        print("ok terminal:", tty)
else:
    print("skip terminal check: no script(1)")
