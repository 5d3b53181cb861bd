"""Drawing result series (pioc_results.Series) onto matplotlib axes.

One rule everywhere: simulated series are dashed with hollow markers and say
SIMULATED in the legend; measured series are solid with filled markers and
say measured. A reader must never mistake a model for a measurement.
"""

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from pioc_results import PERCENTILES  # noqa: E402

# Paper reference numbers (hardware) are drawn in this colour, always.
PAPER_COLOR = "black"
COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def kind_label(simulated):
    return "SIMULATED" if simulated else "measured"


def style(simulated, color):
    """Line style of a series: dashed/hollow when simulated, solid/filled when measured."""
    if simulated:
        return dict(color=color, linestyle="--", marker="o", markerfacecolor="white", markersize=4)
    return dict(color=color, linestyle="-", marker="o", markersize=4)


def human_bytes(v, _pos=None):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= scale:
            q = v / scale
            return f"{q:g} {unit}" if q == int(q) else f"{q:.1f} {unit}"
    return f"{v:g} B"


def human_ns(v, _pos=None):
    if v >= 1e6:
        return f"{v / 1e6:.3g} ms"
    if v >= 1e3:
        return f"{v / 1e3:.3g} µs"
    return f"{v:.4g} ns"


def size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(human_bytes))
    ax.set_xlabel("size (bytes per operation)")
    for t in ax.get_xticklabels():
        t.set_rotation(30)


def time_axis(ax, log=True, axis="y"):
    """Nanoseconds as ns/µs/ms; on a log scale ticks at 1, 2 and 5 of every
    decade, so a range of less than a decade still has labels."""
    a = ax.yaxis if axis == "y" else ax.xaxis
    if log:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        a.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
        a.set_minor_formatter(NullFormatter())
    a.set_major_formatter(FuncFormatter(human_ns))


def positive(values):
    """Values for a log axis: 0 (e.g. completions that arrived together) cannot
    be drawn there, so it becomes a gap instead of a line to nowhere."""
    return [v if v is not None and v > 0 else float("nan") for v in values]


def series_label(s, show_source):
    base = f"{s.op} ({s.source})" if show_source else s.op
    return f"{base} [{kind_label(s.simulated)}]"


def color_of(s, i):
    """The series' colour (s.color, set once so every panel agrees) or the i-th of the cycle."""
    return getattr(s, "color", None) or COLORS[i % len(COLORS)]


def percentiles_vs_size(ax, series, show_source=False):
    """p50 against size per series, with the band from min to p99 shaded and
    max as a thin line: the shape and the spread in one panel."""
    drawn = 0
    for i, s in enumerate(series):
        if len(s.rows) < 2:
            continue
        c = color_of(s, i)
        x = s.sizes()
        ax.plot(x, positive(s.values("p50_ns")), label=series_label(s, show_source) + " p50",
                **style(s.simulated, c))
        ax.fill_between(x, positive(s.values("min_ns")), positive(s.values("p99_ns")), color=c, alpha=0.12,
                        linewidth=0)
        ax.plot(x, positive(s.values("max_ns")), color=c, linewidth=0.6, linestyle=":", alpha=0.8)
        drawn += 1
    size_axis(ax)
    time_axis(ax)
    ax.set_ylabel("latency (p50; band min..p99, dotted max)")
    ax.grid(True, which="major", alpha=0.3)
    return drawn


def throughput_vs_size(ax, series, show_source=False):
    drawn = 0
    for i, s in enumerate(series):
        if not s.has("mbps"):
            continue
        rows = [r for r in s.rows if r.get("mbps") is not None]
        ax.plot([r["size"] for r in rows], [r["mbps"] for r in rows], label=series_label(s, show_source),
                **style(s.simulated, color_of(s, i)))
        drawn += 1
    size_axis(ax)
    ax.set_ylabel("throughput (MB/s, 10^6 bytes/s)")
    ax.grid(True, which="major", alpha=0.3)
    return drawn


def cdf_points(row):
    """(latency, fraction) at the reported percentiles: the CDF is known at
    these points only (the tools keep a histogram, not the samples)."""
    return [row[k] for k, _ in PERCENTILES], [q for _, q in PERCENTILES]


def few_sizes(series, most=8):
    """The sizes a CDF panel can show legibly: all when the curves are few,
    else the smallest, a middle and the largest size of the runs."""
    every = sorted({r["size"] for s in series for r in s.rows})
    if sum(len(s.rows) for s in series) <= most:
        return set(every)
    return {every[0], every[len(every) // 2], every[-1]}


def latency_cdf(ax, series, show_source=False, sizes=None, log_x=True):
    """One CDF per (op, size): through min, p50, p90, p99, p99.9 and max.
    Without @sizes, few_sizes() chooses."""
    drawn = 0
    sizes = sizes or few_sizes(series)
    for s in series:
        for r in s.rows:
            if r["size"] not in sizes:
                continue
            x, q = cdf_points(r)
            x = positive(x) if log_x else x
            label = f"{series_label(s, show_source)} {human_bytes(r['size'])}"
            ax.plot(x, q, label=label, drawstyle="steps-post" if x[0] == x[-1] else "default",
                    **style(s.simulated, COLORS[drawn % len(COLORS)]))
            drawn += 1
    time_axis(ax, log=log_x, axis="x")
    ax.set_xlabel("latency")
    ax.set_ylabel("fraction of operations at or below")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    return drawn


def save(fig, path):
    """SVG/PNG/PDF by extension; SVG without a date or random ids, so the same
    data gives the same file."""
    fmt = path.rsplit(".", 1)[-1].lower()
    if fmt == "svg":
        plt.rcParams["svg.hashsalt"] = "pioc"
        plt.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, and a test can read it
    fig.savefig(path, format=fmt, dpi=130, bbox_inches="tight",
                metadata={"Date": None} if fmt in ("svg", "pdf") else None)
    plt.close(fig)
