#!/usr/bin/python3
"""tools.figures: make figures' script (scripts/figures) into a scratch
directory draws every figure: 9 SVG + 9 PNG, PNGs valid, the paper's numbers
in each; the NIC figures (Fig. 9, Fig. 10, Table 1) carry a SIMULATED series
for every NIC path the figures simulate, drawn from nicbench JSON with a
positive P50 for every packet size asked for (a NIC figure missing, or one
whose simulated series is absent or empty, fails).

    check-figures.py SOURCE_DIR BUILD_DIR
Debian's python3 on purpose (python3-matplotlib)."""
import glob
import json
import os
import subprocess
import sys
import tempfile

src, build = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools", "plot"))
import paper_figures  # noqa: E402

PNG = bytes([137, 80, 78, 71, 13, 10, 26, 10])
NIC_FIGURES = ("fig9-nic-receive", "fig10-nic-transmit", "table1-nic-percentiles")

with tempfile.TemporaryDirectory() as out:
    subprocess.run([os.path.join(src, "scripts", "figures"), build, out], check=True, stdout=subprocess.DEVNULL)
    svgs, pngs = glob.glob(out + "/*.svg"), glob.glob(out + "/*.png")
    assert len(svgs) == 9 and len(pngs) == 9, (svgs, pngs)
    for p in pngs:
        assert open(p, "rb").read(8) == PNG, p
    for s in svgs:
        assert "paper (hardware)" in open(s).read(), s

    paths = paper_figures.NIC_SIMULATED
    assert {"PCIe DMA", "PCIe PIO", "ECI PIO"} <= set(paths), paths
    for name in NIC_FIGURES:
        svg = os.path.join(out, name + ".svg")
        assert os.path.exists(svg), f"{name}.svg missing"
        text = open(svg).read()
        for path, (_, dev, panel) in paths.items():
            label = f"pioc model: {path} [SIMULATED]" if name.startswith("table1") else \
                f"{path} ({panel}) [SIMULATED]"
            assert label in text, f"{name}: no series '{label}'"

    # the JSON behind them: one file per direction, path and size list
    for direction in ("rx", "tx"):
        for arg, dev, _ in paths.values():
            for sizes in (paper_figures.NIC_SWEEP.split(","), [str(s) for s in paper_figures.P.TABLE1_SIZES]):
                f = os.path.join(out, "data", f"nic-{direction}-{arg}-{len(sizes)}.json")
                assert os.path.exists(f), f"{f} missing"
                j = json.load(open(f))
                assert j["simulated"] is True and j["device"].startswith(dev.split("@")[0]), (f, j["device"])
                rows = j["results"]
                assert [str(r["size"]) for r in rows] == sizes, (f, rows)
                assert all(r["p50_ns"] > 0 and r["max_ns"] >= r["p50_ns"] for r in rows), (f, rows)
print("ok: 9 figures, NIC figures with", ", ".join(paper_figures.NIC_SIMULATED), "SIMULATED")
