#!/usr/bin/env python3
"""Plots of make bench's results (tools/bench.py runs this; it needs matplotlib).

    tools/plot.py build/bench/results.json build/bench

Reads the records of results.json and writes, into the output directory, the PNGs it has data
for, printing their paths one per line:

  ipc_roundtrip.png  round-trip guest instructions against untyped words, inter-space,
                     intra-space and local IPC, fast and general path, with the Linux pipe and
                     futex round trips as reference lines (cf. figures 7/8 of the SOSP'93 paper)
  ipc_strings.png    string-IPC round trip against string size, log-log, marginal cost per byte
  vm.png             the SOSP'97 Table 5 operations, Pecan beside Linux
  lx.png             the Linux personality's rows (lx_*): the same program under lx and on
                     native Linux, n/a where lx lacks a call

Only guest instructions (icount) are plotted: they are deterministic, so the plots change only
when the code does.  The functions that pick the series out of the records need no matplotlib
(tests/host/test_bench.py).
"""
from __future__ import annotations

import json
import math
import pathlib
import re
import sys

GUEST = "guest_instructions"
ROUNDTRIP_RE = re.compile(r"^ipc_roundtrip_(inter|intra|lipc)_(\d+)w(_slowpath)?$")
STRING_RE = re.compile(r"^ipc_string_inter_(\d+)b$")
VM_OPS = ("vm_fault", "vm_trap", "vm_appel1", "vm_appel2")
LINUX_REFS = ("pipe_pingpong_1b", "futex_pingpong")
LX_PREFIX = "lx_"


def _guest(records, system):
    return [r for r in records if r["unit"] == GUEST and r["system"] == system]


def roundtrip_series(records) -> dict:
    """'inter', 'inter_slowpath', ... -> [(words, instructions)] sorted by words."""
    series: dict = {}
    for r in _guest(records, "pecan"):
        m = ROUNDTRIP_RE.match(r["name"])
        if m:
            series.setdefault(m.group(1) + (m.group(3) or ""), []).append(
                (int(m.group(2)), r["value"]))
    return {k: sorted(v) for k, v in series.items()}


def string_series(records) -> list:
    """[(bytes, instructions)] sorted by size."""
    return sorted((int(m.group(1)), r["value"]) for r in _guest(records, "pecan")
                  if (m := STRING_RE.match(r["name"])))


def marginal_per_byte(series) -> float | None:
    """Instructions per extra byte between the two largest sizes."""
    if len(series) < 2:
        return None
    (n0, v0), (n1, v1) = series[-2], series[-1]
    return (v1 - v0) / (n1 - n0)


def linux_refs(records) -> dict:
    return {r["name"]: r["value"] for r in _guest(records, "linux") if r["name"] in LINUX_REFS}


def vm_pairs(records) -> list:
    """[(name, pecan, linux, linux_name)] for the VM operations measured, in Table 5 order."""
    by_name = {r["name"]: r for r in _guest(records, "pecan")}
    return [(n, by_name[n]["value"], by_name[n]["linux"], by_name[n]["linux_name"])
            for n in VM_OPS if n in by_name]


def lx_pairs(records) -> list:
    """[(row, lx, linux)] for the personality's rows in record order; lx None where the row
    is n/a under lx, linux None where Linux was not run."""
    return [(r["name"][len(LX_PREFIX):], r["value"], r["linux"]) for r in _guest(records, "pecan")
            if r["name"].startswith(LX_PREFIX)]


# ------------------------------------------------------------------------------ drawing

STYLE = {"inter": ("tab:blue", "o"), "intra": ("tab:green", "s"), "lipc": ("tab:orange", "^")}
REF_STYLE = {"pipe_pingpong_1b": ("tab:red", "-.", "Linux pipe round trip"),
             "futex_pingpong": ("tab:purple", ":", "Linux futex round trip")}
SUBTITLE = "QEMU TCG, -icount shift=0: guest instructions"


def _plain_log_labels(axis):
    """Label a log axis 200, 500, 1000, ... instead of 2x10^2."""
    from matplotlib.ticker import FuncFormatter

    def label(v, _pos, keep=(1, 2, 5)):
        return f"{v:.0f}" if v > 0 and round(v / 10 ** math.floor(math.log10(v))) in keep else ""
    axis.set_major_formatter(FuncFormatter(label))
    axis.set_minor_formatter(FuncFormatter(label))


def _save(fig, path) -> bool:
    # No "Software" text chunk: the file depends on the figures only.
    fig.savefig(path, dpi=110, metadata={"Software": None})
    return True


def plot_roundtrip(plt, records, path):
    series, refs = roundtrip_series(records), linux_refs(records)
    if not series:
        return False
    fig, (detail, overview) = plt.subplots(1, 2, figsize=(12, 5))
    for ax, with_slow in ((detail, False), (overview, True)):
        for kind, (color, marker) in STYLE.items():
            for suffix, dash, fill in (("", "-", color), ("_slowpath", "--", "none")):
                pts = series.get(kind + suffix)
                if not pts or (suffix and not with_slow):
                    continue
                ax.plot([p[0] for p in pts], [p[1] for p in pts], dash, color=color,
                        marker=marker, markerfacecolor=fill,
                        label=kind + (", fastpath=off" if suffix else ""))
        words = sorted({w for pts in series.values() for w, _ in pts})
        ax.set_xticks([w for w in words if w == 0 or w >= 4])  # 0, 1, 2 would overlap
        ax.set_xlabel("untyped words per message (each direction)")
        ax.grid(True, which="both", alpha=0.3)
    detail.set_title("Pecan, fast path")
    detail.set_ylabel("guest instructions per round trip")
    detail.set_ylim(bottom=0)
    for name, value in refs.items():
        color, dash, label = REF_STYLE[name]
        overview.axhline(value, color=color, linestyle=dash, label=f"{label} ({value:.0f})")
    overview.set_yscale("log")
    overview.set_ylim(top=2 * max([v for pts in series.values() for _, v in pts]
                                  + list(refs.values())))
    _plain_log_labels(overview.yaxis)
    overview.set_title("against native Linux (log scale)")
    detail.legend(fontsize="small", loc="upper left")
    # Between the slow path (~10^3) and Linux (~10^4) the plot is empty: the legend goes there.
    overview.legend(fontsize="x-small", loc="center", bbox_to_anchor=(0.5, 0.62), ncol=2)
    fig.suptitle(f"IPC round trip ({SUBTITLE})")
    fig.tight_layout()
    return _save(fig, path)


def plot_strings(plt, records, path):
    pts, refs = string_series(records), linux_refs(records)
    if not pts:
        return False
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.loglog([p[0] for p in pts], [p[1] for p in pts], "-o", color="tab:blue",
              label="Pecan, one string item, inter-space")
    base = {r["name"]: r["value"] for r in _guest(records, "pecan")}.get("ipc_roundtrip_inter_0w")
    if base:
        ax.axhline(base, color="tab:blue", linestyle=":", label=f"Pecan, 0 words ({base:.0f})")
    if "pipe_pingpong_1b" in refs:
        ax.axhline(refs["pipe_pingpong_1b"], color="tab:red", linestyle="-.",
                   label=f"Linux pipe round trip, 1 byte ({refs['pipe_pingpong_1b']:.0f})")
    per_byte = marginal_per_byte(pts)
    if per_byte:
        (n0, _), (n1, _) = pts[-2], pts[-1]
        ax.text(0.03, 0.6, f"{n0}->{n1} bytes: {per_byte:.2f} instructions/byte\n"
                f"= {1 / per_byte:.2f} bytes/instruction\n"
                "(icount counts every iteration of a rep string instruction)",
                transform=ax.transAxes, va="center", fontsize="small")
    ax.set_ylim(top=3 * max([v for _, v in pts] + list(refs.values())))
    _plain_log_labels(ax.yaxis)
    ax.set_xlabel("string size [bytes]")
    ax.set_ylabel("guest instructions per round trip")
    ax.set_title(f"String IPC round trip\n({SUBTITLE})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return _save(fig, path)


def plot_vm(plt, records, path):
    pairs = vm_pairs(records)
    if not pairs:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    xs = range(len(pairs))
    ax.bar([x - 0.2 for x in xs], [p[1] for p in pairs], 0.4, color="tab:blue", label="Pecan")
    linux = [(x + 0.2, p[2]) for x, p in zip(xs, pairs) if p[2]]
    if linux:
        ax.bar([x for x, _ in linux], [v for _, v in linux], 0.4, color="tab:red", label="Linux")
    for x, (_, pecan, linux, _) in zip(xs, pairs):
        ax.text(x - 0.2, pecan, f"{pecan:.0f}", ha="center", va="bottom", fontsize="small")
        if linux:
            ax.text(x + 0.2, linux, f"{linux:.0f}\n({linux / pecan:.1f}x)", ha="center",
                    va="bottom", fontsize="small")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{n[3:]}\n(Linux: {ln or 'n/a'})" for n, _, _, ln in pairs],
                       fontsize="small")
    ax.set_yscale("log")
    ax.set_ylim(100, 4 * max(v for p in pairs for v in p[1:3] if v))
    _plain_log_labels(ax.yaxis)
    ax.set_ylabel("guest instructions per operation")
    ax.set_title(f"Virtual-memory operations, SOSP'97 Table 5\n({SUBTITLE})")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    return _save(fig, path)


def _short(v) -> str:
    """137471 -> 137k, 1326479 -> 1.33M: the labels of plot_lx fit their bars."""
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    return f"{v / 1e3:.0f}k" if v >= 1e4 else f"{v:.0f}"


def plot_lx(plt, records, path):
    pairs = lx_pairs(records)
    if not pairs:
        return False
    fig, ax = plt.subplots(figsize=(11, 5))
    xs = range(len(pairs))
    top = max([v for p in pairs for v in p[1:] if v] or [1000])
    labelled = set()

    def label(text):
        first = text not in labelled
        labelled.add(text)
        return text if first else None
    for x, (_, lx, linux) in zip(xs, pairs):
        if lx:
            ax.bar(x - 0.2, lx, 0.4, color="tab:blue", label=label("Pecan, lx"))
            ax.text(x - 0.2, lx, _short(lx), ha="center", va="bottom", fontsize="x-small")
        else:
            ax.text(x - 0.2, 150, "n/a", ha="center", va="bottom", fontsize="small",
                    color="tab:blue", rotation=90)
        if linux:
            ax.bar(x + 0.2, linux, 0.4, color="tab:red", label=label("Linux (native)"))
            ax.text(x + 0.2, linux, _short(linux) + (f"\n({linux / lx:.2f}x)" if lx else ""),
                    ha="center", va="bottom", fontsize="x-small")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([n for n, _, _ in pairs], fontsize="small", rotation=20)
    ax.set_yscale("log")
    ax.set_ylim(100, 8 * top)
    _plain_log_labels(ax.yaxis)
    ax.set_ylabel("guest instructions per operation")
    ax.set_title(f"The Linux personality: one static program under lx and on Linux\n({SUBTITLE})")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(loc="upper left")
    fig.tight_layout()
    return _save(fig, path)


PLOTS = (("ipc_roundtrip.png", plot_roundtrip), ("ipc_strings.png", plot_strings),
         ("vm.png", plot_vm), ("lx.png", plot_lx))


def draw(records, out: pathlib.Path) -> list:
    """Draw every plot there is data for; returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    written = []
    for name, plot in PLOTS:
        path = out / name
        if plot(plt, records, path):
            written.append(path)
        else:
            path.unlink(missing_ok=True)    # no data this time (vmbench not built): no stale plot
        plt.close("all")
    return written


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: tools/plot.py RESULTS.json OUT_DIR", file=sys.stderr)
        return 2
    records = json.loads(pathlib.Path(argv[0]).read_text())
    out = pathlib.Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for path in draw(records, out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
