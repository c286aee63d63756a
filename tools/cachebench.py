#!/usr/bin/env python3
"""The cache-partitioning experiment of the 1997 paper's section 6.3 on Pecan, measured with
the cachesim QEMU plugin (docs/cache-partitioning.md).

Three runs, each one boot of the release kernel under -icount with the plugin:
  alone          the real-time task (user/rt/rt_matmul.c) by itself, uninterrupted
  coloured       the task alone with the partitioned run's colours: its misses in its own
                 partition (self-conflict), the floor of the partitioned run's
  interrupted    lx runs a cache-hostile load (user/rt/cachehog.c sweeping 1 MiB), and the
                 real-time task is interrupted about every 100 us, in one of two ways
                 (--interrupt):
                   flood  (default) a kernel with a 100 us tick (build/kernel-tick100.bin) and
                          an interrupter task above the real-time task's priority
                          (user/rt/rt_flood.c) that sweeps a buffer of the L2's size at every
                          tick: preempted every 100 us of virtual time, as in the paper
                   step   the default kernel (1 ms tick); the real-time task steps aside for
                          one tick after every CHUNK rows (about 100 us of its own work), so
                          lx's load runs between the pieces
  partitioned    the same as interrupted, but the root task gives every page of the
                 real-time task exclusive L2 colours and lx's and the interrupter's pages
                 the others (colours=MASK)
Per run: worst-case and average modelled cycles of a period's multiplication (the plugin's
"own" cycles: the task's instructions and data accesses), missed deadlines and release
jitter (the task's own report, kernel clock).  Periods before the load has started are left
out of the loaded runs, and the first period (cold caches) out of every run.

  tools/cachebench.py [--periods N] [--interrupt flood|step] [--chunk R] [--rt-colours LIST]
                      [--l2 SIZE:WAYS:LINE] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import insnprof  # noqa: E402
import qemu_run  # noqa: E402

BUILD = ROOT / "build"
KERNEL = BUILD / "kernel.bin"
KERNEL_TICK100 = BUILD / "kernel-tick100.bin"       # for --interrupt flood
PLUGIN = BUILD / "qemu_plugins" / "cachesim.so"
RT = BUILD / "user" / "rt_matmul.elf"
FLOOD = BUILD / "user" / "rt_flood.elf"
HOG = BUILD / "linux" / "cachehog.elf"
LX = BUILD / "user" / "lx.elf"
BASE = [BUILD / "user" / n for n in ("sigma0.elf", "root.elf")]
# The paper's 133 MHz Pentium figures: worst case (ms) and its ratio to alone, as printed.
PAPER = {"alone": (10.9, 1.0), "interrupted": (96.1, 8.85), "partitioned": (24.9, 2.29)}
RT_PRIO = 150                   # above lx (100) and its processes
FLOOD_PRIO = 200                # above the real-time task, below the root task (255)
LX_HEAP_MIB = 32
HOG_KIB = 1024
PERIOD_RE = re.compile(r"^rt: period (\d+) late_us=(\d+) end_us=(\d+) missed=(\d) sum=(\w+)", re.M)
DONE_RE = re.compile(r"^rt: done periods=(\d+) missed=(\d+)", re.M)
REGION_RE = re.compile(r"^region 1 (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$", re.M)
MODEL_RE = re.compile(r"^model (.*)$", re.M)


class CacheBenchError(RuntimeError):
    pass


def colour_mask(colours: list, ncolours: int) -> int:
    """The root task's 64-bit colour mask (user/root/pagemap.h: colour = page % 64) for the
    given colours of a cache with `ncolours` colours."""
    if 64 % ncolours:
        raise ValueError(f"{ncolours} colours do not divide the root task's 64")
    return sum(1 << c for c in range(64) if c % ncolours in colours)


def l2_geometry(l2: str) -> tuple:
    """SIZE:WAYS:LINE -> (bytes, ways, line)."""
    size, ways, line = l2.split(":")
    size = int(size[:-1]) << {"K": 10, "M": 20}[size[-1].upper()] if size[-1] in "KkMm" \
        else int(size)
    return size, int(ways), int(line)


def l2_colours(l2: str) -> int:
    size, ways, _ = l2_geometry(l2)
    return max(1, size // ways // 4096)


def configuration(name: str, args) -> tuple:
    """A run's kernel, its boot modules (sigma0, root, then (path, command line) pairs) and
    the real-time task's colour mask (None: any page)."""
    loaded = name in ("interrupted", "partitioned")
    mask = None
    flood = args.interrupt == "flood"
    rt_args = (f"prio={RT_PRIO} heap=1 periods={args.periods} period_us={args.period_us} "
               f"chunk={args.chunk if loaded and not flood else 0}")
    lx_args = f"heap={LX_HEAP_MIB} heapx=1 -- cachehog.elf {HOG_KIB}"
    l2_bytes, _, l2_line = l2_geometry(args.l2)
    flood_args = f"prio={FLOOD_PRIO} heap=1 kib={l2_bytes >> 10} line={l2_line}"
    if name in ("coloured", "partitioned"):
        mask = colour_mask(args.rt_colours, l2_colours(args.l2))
        rt_args += f" colours={mask:#x}"
        lx_args = f"colours={~mask & (2**64 - 1):#x} " + lx_args
        flood_args += f" colours={~mask & (2**64 - 1):#x}"
    modules = [str(p.relative_to(ROOT)) for p in BASE]
    modules.append((str(RT.relative_to(ROOT)), rt_args))
    if loaded:
        modules += [(str(LX.relative_to(ROOT)), lx_args), (str(HOG.relative_to(ROOT)), "data")]
        if flood:
            modules.append((str(FLOOD.relative_to(ROOT)), flood_args))
    return KERNEL_TICK100 if flood else KERNEL, modules, mask


def run_one(name: str, args, out_dir: Path) -> dict:
    kernel, modules, mask = configuration(name, args)
    lo, hi = insnprof.elf_range(RT)
    out = (out_dir / f"cachesim-{name}.txt").resolve()
    plugin = (f"{PLUGIN},out={out},own={lo:x}-{hi:x},l1={args.l1},l2={args.l2},"
              f"cost={args.cost}")
    r = qemu_run.run(str(kernel.relative_to(ROOT)), modules, cmdline="kdb=batch",
                     memory=128 + LX_HEAP_MIB, icount=True, timeout=args.timeout,
                     extra=["-plugin", plugin])
    (out_dir / f"cachebench-{name}.log").write_text(r.output)
    if r.timed_out or r.status != 1 or not DONE_RE.search(r.output):
        raise CacheBenchError(f"{name}: QEMU status {r.status}, timed out {r.timed_out}\n"
                              + r.tail())
    return analyse(name, r.output, out.read_text(), name in ("interrupted", "partitioned"), mask)


def analyse(name: str, console: str, plugin_out: str, loaded: bool, mask) -> dict:
    periods = [(m.start(), int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                m.group(5)) for m in PERIOD_RE.finditer(console)]
    regions = [tuple(int(x) for x in m.groups()) for m in REGION_RE.finditer(plugin_out)]
    if len(regions) != len(periods):
        raise CacheBenchError(f"{name}: {len(periods)} periods but {len(regions)} regions")
    if len({p[5] for p in periods}) != 1:
        raise CacheBenchError(f"{name}: the products differ between periods")
    first = 1
    if loaded:
        hog = console.find("cachehog: sweeping")
        if hog < 0:
            raise CacheBenchError(f"{name}: the load never started")
        first = max(first, next((i for i, p in enumerate(periods) if p[0] > hog), len(periods)))
    used = list(range(first, len(periods)))
    if len(used) < 2:
        raise CacheBenchError(f"{name}: only {len(used)} periods after the load started")
    cycles = [regions[i][1] for i in used]
    return {
        "name": name, "periods": len(used), "first_period": first,
        "cycles_max": max(cycles), "cycles_avg": statistics.mean(cycles),
        "cycles_min": min(cycles),
        "insns_avg": statistics.mean(regions[i][2] for i in used),
        "accesses_avg": statistics.mean(regions[i][3] for i in used),
        "l1_misses_avg": statistics.mean(regions[i][4] for i in used),
        "l2_misses_avg": statistics.mean(regions[i][5] for i in used),
        "l2_misses_max": max(regions[i][5] for i in used),
        "all_cycles_max": max(regions[i][6] for i in used),
        "missed": sum(periods[i][4] for i in used),
        "missed_all": sum(p[4] for p in periods),
        "late_max_us": max(periods[i][2] for i in used),
        "jitter_us": max(periods[i][2] for i in used) - min(periods[i][2] for i in used),
        "late_avg_us": statistics.mean(periods[i][2] for i in used),
        "end_max_us": max(periods[i][3] for i in used),
        "model": MODEL_RE.search(plugin_out).group(1),
        "rt_colour_mask": None if mask is None else f"{mask:#018x}",
    }


def report(results: dict, args) -> str:
    any_run = next(iter(results.values()))
    alone = results["alone"]["cycles_max"] if "alone" in results else any_run["cycles_max"]
    lines = ["Cache partitioning (paper section 6.3): modelled cycles of one 64x64 matrix "
             "multiplication per period", f"model: {any_run['model']}",
             f"period {args.period_us} us, interrupted: " + (
                 "preempted at every 100 us tick by a task sweeping the L2"
                 if args.interrupt == "flood" else
                 f"one 1 ms timer tick of the load after every {args.chunk} rows") +
             f"; coloured, partitioned: L2 colours {args.rt_colours} for the real-time task",
             "",
             f"{'run':<12} {'periods':>7} {'worst cyc':>11} {'avg cyc':>11} {'worst/alone':>11} "
             f"{'paper':>14} {'L2 miss avg':>11} {'missed':>6} {'resp max us':>11} "
             f"{'late max/avg us':>15} {'jitter us':>9}"]
    for name in ("alone", "coloured", "interrupted", "partitioned"):
        r = results.get(name)
        if not r:
            continue
        paper = f"{PAPER[name][0]:.1f} ms {PAPER[name][1]:.2f}x" if name in PAPER else "-"
        lines.append(f"{name:<12} {r['periods']:>7} {r['cycles_max']:>11,} "
                     f"{r['cycles_avg']:>11,.0f} {r['cycles_max'] / alone:>10.2f}x {paper:>14} "
                     f"{r['l2_misses_avg']:>11,.0f} {r['missed']:>6} {r['end_max_us']:>11,} "
                     f"{r['late_max_us']:>8}/{r['late_avg_us']:<6.0f} {r['jitter_us']:>9}")
    return "\n".join(lines)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--periods", type=int, default=12)
    ap.add_argument("--period-us", type=int, default=50000)
    ap.add_argument("--interrupt", choices=("flood", "step"), default="flood",
                    help="flood: an interrupter task every 100 us tick (kernel-tick100); "
                    "step: the task steps aside for a 1 ms tick every CHUNK rows")
    ap.add_argument("--chunk", type=int, default=3,
                    help="--interrupt step: rows between interruptions (3 rows: about 90 us "
                    "of the task's work)")
    ap.add_argument("--rt-colours", default="0,1", help="L2 colours of the real-time task")
    ap.add_argument("--l1", default="16K:4:64")
    ap.add_argument("--l2", default="256K:4:64")
    ap.add_argument("--cost", default="1:0:10:100", help="INSN:L1HIT:L2HIT:MEM cycles")
    ap.add_argument("--runs", default="alone,coloured,interrupted,partitioned")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--out-dir", default=str(BUILD / "cachebench"))
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    args.rt_colours = [int(c) for c in args.rt_colours.split(",")]
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    needed = (KERNEL_TICK100, FLOOD) if args.interrupt == "flood" else (KERNEL,)
    missing = [p for p in (*needed, RT, LX, HOG, *BASE) if not p.is_file()]
    if missing:
        print(f"cachebench: skipped, not built: {', '.join(map(str, missing))} (make, make "
              "build/kernel-tick100.bin; the load needs the host's static glibc)")
        return 0
    try:
        insnprof.build_plugin(PLUGIN)
    except RuntimeError as e:           # e.g. no way to fetch QEMU's plugin header
        print(f"cachebench: skipped, {e}")
        return 0
    results = {}
    for name in args.runs.split(","):
        results[name] = run_one(name, args, out_dir)
        print(f"# {name}: done", file=sys.stderr, flush=True)
    print(report(results, args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
