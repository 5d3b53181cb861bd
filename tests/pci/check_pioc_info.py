#!/usr/bin/env python3
"""Checks pioc-info end to end: --json parses and agrees with this machine's
/sys and with a fake sysfs tree (PIOC_SYSFS_ROOT) holding a pioc function;
an unknown device gives the documented error and exit status 1; --help
teaches the spec forms. Usage: check_pioc_info.py PATH/TO/pioc-info"""
import json
import os
import struct
import subprocess
import sys
import tempfile

TOOL = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([TOOL, *args], capture_output=True, text=True, env=e, timeout=60)


def run_json(*args, env=None):
    p = run(*args, env=env)
    check(p.returncode == 0, f"pioc-info {' '.join(args)} exits 0 (got {p.returncode}: {p.stderr.strip()})")
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as e:
        check(False, f"pioc-info {' '.join(args)} prints JSON ({e})")
        return {}


# 1. The default list: simulated devices with their modelled link, and cores.
doc = run_json("--json")
specs = [d["spec"] for d in doc.get("devices", [])]
check("sim:pio" in specs, "the list has sim:pio")
sim = next((d for d in doc.get("devices", []) if d["spec"] == "sim:pio"), {})
check(sim.get("simulated") is True and sim.get("transport") == "sim", "sim:pio is simulated, transport sim")
check(sim.get("link", {}).get("gen") in (1, 2, 3, 4, 5), "sim:pio reports its modelled link generation")
check(sim.get("bars") and sim["bars"][0]["size"] > 0, "sim:pio reports BAR0 with a size")
check(sim.get("local_cores"), "sim:pio has local cores")
eci = next((d for d in doc.get("devices", []) if d["spec"] == "sim:eci"), {})
check(eci and eci.get("vendor") is None and eci.get("device") is None,
      f"sim:eci (no PCI function) has no PCI IDs, not 0000:0000 (got {eci.get('vendor')}:{eci.get('device')})")
cpus = [c["cpu"] for c in doc.get("cores", [])]
check(cpus and sorted(cpus) == sorted(os.sched_getaffinity(0)), "cores are the CPUs this process may use")
check(sim.get("timing_core") in cpus, "the timing core is one of them")

# 2. --all against this machine's /sys: every function, with its IDs.
sysdevs = "/sys/bus/pci/devices"
if os.path.isdir(sysdevs):
    doc = run_json("--all", "--json", env={"PIOC_SYSFS_ROOT": "/sys"})
    got = {d["bdf"]: d for d in doc.get("devices", []) if d.get("bdf")}
    for bdf in os.listdir(sysdevs):
        with open(os.path.join(sysdevs, bdf, "vendor")) as f:
            vendor = "%04x" % int(f.read(), 16)
        check(bdf in got and got[bdf]["vendor"] == vendor, f"--all lists {bdf} with vendor {vendor}")
    check(len(got) == len(os.listdir(sysdevs)), "--all lists each function once")

# 3. A fake sysfs tree with a pioc function (10ee:9038, Gen3 x8 of x16,
#    MPS 256, MRRS 512, NUMA node 0, 64 KiB BAR0 + 1 MiB prefetchable BAR2).
with tempfile.TemporaryDirectory() as root:
    dev = os.path.join(root, "bus/pci/devices/0000:3b:00.0")
    os.makedirs(dev)
    os.makedirs(os.path.join(root, "bus/pci/drivers"))
    files = {"vendor": "0x10ee", "device": "0x9038", "subsystem_vendor": "0x10ee",
             "subsystem_device": "0x0007", "class": "0x058000", "irq": "0", "numa_node": "0"}
    for k, v in files.items():
        with open(os.path.join(dev, k), "w") as f:
            f.write(v + "\n")
    cfg = bytearray(4096)
    struct.pack_into("<HHH", cfg, 0, 0x10ee, 0x9038, 0)
    struct.pack_into("<H", cfg, 6, 0x10)                  # status: capability list
    cfg[0x34] = 0x40
    struct.pack_into("<BBH", cfg, 0x40, 0x10, 0, 2)       # PCI Express capability
    struct.pack_into("<H", cfg, 0x48, (1 << 5) | (2 << 12))  # DEVCTL: MPS 256, MRRS 512
    struct.pack_into("<I", cfg, 0x4c, 3 | (16 << 4))      # LNKCAP: Gen3 x16
    struct.pack_into("<H", cfg, 0x52, 3 | (8 << 4))       # LNKSTA: Gen3 x8
    with open(os.path.join(dev, "config"), "wb") as f:
        f.write(cfg)
    zero = "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    with open(os.path.join(dev, "resource"), "w") as f:
        f.write("0x00000000f0000000 0x00000000f000ffff 0x0000000000040200\n" + zero +
                "0x0000004000000000 0x00000040000fffff 0x000000000014220c\n" + zero * 4)
    env = {"PIOC_SYSFS_ROOT": root}
    doc = run_json("--json", env=env)
    fake = next((d for d in doc.get("devices", []) if d.get("bdf") == "0000:3b:00.0"), None)
    check(fake is not None, "a 10ee:9038 function is listed without --all")
    doc = run_json("--device", "10ee:9038", "--json", env=env)
    d = doc.get("device", {})
    check(d.get("spec") == "0000:3b:00.0" and d.get("transport") == "sysfs", "10ee:9038 resolves to the function, sysfs")
    check(d.get("link") == {"gen": 3, "width": 8, "max_gen": 3, "max_width": 16, "mps": 256, "mrrs": 512},
          f"link Gen3 x8 of x16, MPS 256, MRRS 512 (got {d.get('link')})")
    check(d.get("numa_node") == 0, "NUMA node 0")
    bars = {b["index"]: b for b in d.get("bars", [])}
    check(bars.get(0, {}).get("size") == 65536 and not bars[0]["prefetchable"], "BAR0 64 KiB non-prefetchable")
    check(bars.get(2, {}).get("size") == 1 << 20 and bars[2]["prefetchable"] and bars[2]["64bit"],
          "BAR2 1 MiB 64-bit prefetchable")
    check(bars.get(2, {}).get("phys") == "0x4000000000", "BAR2 at 0x4000000000")
    text = run("--device", "0000:3b:00.0", env=env).stdout
    check("Gen3 x8 (8 GT/s), capable Gen3 x16" in text, "human output shows the link")
    check("256 B / 512 B" in text and "1 MiB" in text, "human output shows MPS/MRRS and BAR sizes")

# 4. Unknown device: the documented error and exit status 1 (an unknown
# simulated name is a bad command line: 2).
p = run("--device", "0000:ff:1f.7")
check(p.returncode == 1, f"unknown device exits 1 (got {p.returncode})")
check("no PCI function 0000:ff:1f.7" in p.stderr and "pioc-info --all" in p.stderr,
      f"unknown device names it and points to --all (got {p.stderr.strip()!r})")
p = run("--device", "sim:nope")
check(p.returncode == 2 and "--device sim:nope: no simulated device 'sim:nope'" in p.stderr,
      "an unknown sim device is a bad command line naming the option and the device")
p = run("--bogus")
check(p.returncode == 2, "a bad option exits 2")

# 5. --help teaches.
p = run("--help")
check(p.returncode == 0, "--help exits 0")
for s in ("--device", "--all", "--json", "10ee:9038#1", "sysfs:BDF", "kmod:BDF", "PIOC_SYSFS_ROOT", "Examples"):
    check(s in p.stdout, f"--help mentions {s}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
