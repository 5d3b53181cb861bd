"""Reading the result JSON of pciebench and ecibench (the shape is defined in
Documentation/benchmarking.md) into series a plot can draw.

Two shapes exist: the shared report ({"tool", "simulated", "results": [rows]})
and `pciebench model --json` ({"raw_gbps", "tlp_gbps", "rows": [...]}), whose
numbers are a formula, so they count as modelled. Anything else is refused
with a message that says which file, which field and what was expected.
"""

import json
import math

# Percentile fields of a row, with the fraction of samples at or below each.
PERCENTILES = [("min_ns", 0.0), ("p50_ns", 0.50), ("p90_ns", 0.90), ("p99_ns", 0.99),
               ("p999_ns", 0.999), ("max_ns", 1.0)]
MODEL_SERIES = ["write_gbps", "read_gbps", "rdwr_rx_gbps", "rdwr_tx_gbps"]


class InputError(Exception):
    """A result file pioc-plot cannot use; the message names file and field."""


class Series:
    """One operation of one run: rows sorted by size, all measured or all
    simulated (a run may mix both, e.g. pciebench offload: then it splits)."""

    def __init__(self, op, source, simulated):
        self.op, self.source, self.simulated = op, source, simulated
        self.rows = []

    def sizes(self):
        return [r["size"] for r in self.rows]

    def values(self, key):
        return [r.get(key) for r in self.rows]

    def has(self, key):
        return any(r.get(key) is not None for r in self.rows)


def _number(path, where, row, key, required):
    v = row.get(key)
    if v is None:
        if required:
            raise InputError(f"{path}: {where} lacks \"{key}\" (every row has it: "
                             "Documentation/benchmarking.md)")
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{path}: {where}: \"{key}\" is {json.dumps(v)}, expected a finite number")
    return v


def _row_simulated(path, where, row, run_simulated):
    t = row.get("time")
    if t is None:
        return run_simulated
    if t not in ("measured", "simulated"):
        raise InputError(f"{path}: {where}: \"time\" is {json.dumps(t)}, expected measured or simulated")
    return t == "simulated"


def _report_series(path, doc):
    for key, kind in (("tool", str), ("simulated", bool), ("results", list)):
        if key not in doc:
            raise InputError(f"{path}: no top-level \"{key}\"; is this the --json output of "
                             "pciebench or ecibench?")
        if not isinstance(doc[key], kind):
            raise InputError(f"{path}: top-level \"{key}\" is {type(doc[key]).__name__}, "
                             f"expected {kind.__name__}")
    source = doc.get("device") or doc["tool"]
    if isinstance(doc.get("timing"), str) and "@" not in source:
        source += "@" + doc["timing"]  # the link preset tells PC and Enzian timing apart
    series = {}
    for i, row in enumerate(doc["results"]):
        where = f"results[{i}]"
        if not isinstance(row, dict):
            raise InputError(f"{path}: {where} is not an object")
        op = row.get("op")
        if not isinstance(op, str) or not op:
            raise InputError(f"{path}: {where} has no \"op\" string")
        size = _number(path, where, row, "size", True)
        if size <= 0:
            raise InputError(f"{path}: {where}: size {size} must be positive")
        clean = {"size": size}
        for key, _ in PERCENTILES:
            clean[key] = _number(path, where, row, key, True)
        for key in ("p95_ns", "mbps", "gbps", "model_gbps"):  # optional: nicbench gives p95 (Table 1)
            clean[key] = _number(path, where, row, key, False)
        if clean["mbps"] is None and clean["gbps"] is not None:
            clean["mbps"] = clean["gbps"] * 1000 / 8  # Gb/s -> MB/s, as the doc defines both
        ps = [clean[k] for k, _ in PERCENTILES]
        if any(b < a for a, b in zip(ps, ps[1:])):
            raise InputError(f"{path}: {where}: percentiles out of order "
                             f"(min <= p50 <= ... <= max): {ps}")
        sim = _row_simulated(path, where, row, doc["simulated"])
        series.setdefault((op, sim), Series(op, source, sim)).rows.append(clean)
    if not series:
        raise InputError(f"{path}: \"results\" is empty: nothing to plot")
    return list(series.values())


def _model_series(path, doc):
    if not isinstance(doc["rows"], list) or not doc["rows"]:
        raise InputError(f"{path}: \"rows\" must be a non-empty list")
    out = {k: Series(k.replace("_gbps", ""), "pcie model", True) for k in MODEL_SERIES}
    for i, row in enumerate(doc["rows"]):
        where = f"rows[{i}]"
        if not isinstance(row, dict):
            raise InputError(f"{path}: {where} is not an object")
        size = _number(path, where, row, "size", True)
        for k in MODEL_SERIES:
            g = _number(path, where, row, k, True)
            out[k].rows.append({"size": size, "mbps": g * 1000 / 8, "gbps": g})
    return list(out.values())


def load(path):
    """Series of the result file @path (sorted by size), or InputError."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                         "run the tool with --json") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: the top level is a {type(doc).__name__}, expected one JSON object")
    series = _model_series(path, doc) if "rows" in doc and "results" not in doc else _report_series(path, doc)
    for s in series:
        s.rows.sort(key=lambda r: r["size"])
    return doc, series
