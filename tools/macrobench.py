#!/usr/bin/env python3
"""The macro benchmarks of issue 14 item 4, after the 1997 paper's §5.2: a compile (make -j1
and -j2 of Lua 5.4 from Debian's source package) and a multi-user mix in the way of AIM VII
(N simulated users, each running user/bench/macro/user.sh once; jobs per minute against N,
the paper's Figures 8 and 9), on the same Debian root (build/debroot/root.cpio) booted on
Debian's own kernel and on Pecan with lx, in the same invocation.  Guest time under -icount
(one virtual nanosecond per guest instruction: the figure is guest instructions) and TCG
wall time; ratios against Linux.  docs/performance.md "Macro benchmarks" explains them.

  tools/macrobench.py                      both systems, icount and wall, every benchmark
  tools/macrobench.py --quick              icount only, users 1,4,16
  tools/macrobench.py --users 1,2 --no-compile --no-linux
  tools/macrobench.py --profile --users 16 --no-compile     an instruction profile of each
                                           run (docs/profiling.md; --users 0: the baseline)
  make bench                               runs it after the micro benchmarks (bench.py)

Outputs in build/bench/: macro.json (records), macro-*.log (consoles), macro_users.png and
macro_compile.png (tools/plot.py style, if matplotlib is there)."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import qemu_run  # noqa: E402
import newc  # noqa: E402
import run as linuxref  # noqa: E402
import insnprof  # noqa: E402

BUILD = ROOT / "build"
OUT = BUILD / "macrobench"
DEBROOT = BUILD / "debroot" / "root.cpio"
SCRIPTS = ROOT / "user" / "bench" / "macro"
# Lua 5.4.4 as Debian 12 ships it (source package lua5.4): the upstream tarball of the
# package, from Debian's pool, checked by its SHA-256 (the .dsc's checksum).
LUA_URL = "http://deb.debian.org/debian/pool/main/l/lua5.4/lua5.4_5.4.4.orig.tar.gz"
LUA_SHA256 = "164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61"
LUA = OUT / "lua5.4_5.4.4.orig.tar.gz"

KERNEL = BUILD / "kernel.bin"               # the release kernel, as bench.py's
PECAN_BASE = [BUILD / "user" / n for n in ("sigma0.elf", "root.elf", "serial.elf")]
LX = BUILD / "user" / "lx.elf"
LX_HEAP = 1024                              # MiB for lx: 32 users' gcc and the files
PECAN_MEMORY = LX_HEAP + 192                # + the root archive (a module) and the servers
LINUX_MEMORY = 2048                         # the kernel unpacks the archive into its rootfs
USERS = (1, 2, 4, 8, 16, 32)
QUICK_USERS = (1, 4, 16)
TIMEOUT = 3600

# Not anchored at the line's start: firmware text can precede the first line on Linux.
_LINE = re.compile(r"@@macro (\S+)((?: \w+=\S+)*)\s*$", re.M)
_ERR = re.compile(r"@@macro-error (.*)$", re.M)


class MacroError(RuntimeError):
    pass


@dataclass
class Run:
    system: str                 # "pecan" or "linux"
    mode: str                   # "icount" or "wall"
    seconds: float
    command: str
    results: dict = field(default_factory=dict)   # name -> {"us", "jobs", "sum"}


def log(msg: str) -> None:
    print(f"macrobench: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------ inputs

def fetch_lua() -> Path:
    """The Lua tarball, downloaded once into build/macrobench/ and checked."""
    if not LUA.is_file() or hashlib.sha256(LUA.read_bytes()).hexdigest() != LUA_SHA256:
        OUT.mkdir(parents=True, exist_ok=True)
        log(f"downloading {LUA_URL}")
        data = urllib.request.urlopen(LUA_URL, timeout=120).read()
        if hashlib.sha256(data).hexdigest() != LUA_SHA256:
            raise MacroError(f"{LUA_URL}: SHA-256 differs from {LUA_SHA256}")
        LUA.write_bytes(data)
    return LUA


def prepare() -> None:
    """The Debian root, Debian's kernel, the Lua source; raises MacroError."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "debroot"], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0 or not DEBROOT.is_file():
        raise MacroError(f"make debroot failed:\n{(r.stdout + r.stderr).strip()[-2000:]}")
    r = subprocess.run(["bash", str(ROOT / "tools" / "linuxref" / "fetch_kernel.sh")],
                       capture_output=True, text=True)
    if r.returncode != 0 or not linuxref.DEFAULT_KERNEL.is_file():
        raise MacroError(f"fetch_kernel.sh failed:\n{(r.stdout + r.stderr).strip()[-2000:]}")
    fetch_lua()


def archive() -> Path:
    """The Debian root followed by a second newc archive with /bench (the scripts, the C job,
    the Lua tarball): both kernels unpack the two in order.  Rewritten only when it changes."""
    files = [newc.directory("bench")]
    for name in ("init.sh", "user.sh", "job.c"):
        mode = 0o755 if name.endswith(".sh") else 0o644
        files.append(newc.regular(f"bench/{name}", (SCRIPTS / name).read_bytes(), mode))
    files.append(newc.regular("bench/lua.tar.gz", LUA.read_bytes(), 0o644))
    extra = newc.pack(files)
    out = OUT / "root-bench.cpio"
    stamp = OUT / "root-bench.stamp"
    key = hashlib.sha256(extra).hexdigest() + f" {DEBROOT.stat().st_size} {DEBROOT.stat().st_mtime_ns}"
    if not out.is_file() or not stamp.is_file() or stamp.read_text() != key:
        OUT.mkdir(parents=True, exist_ok=True)
        with open(out, "wb") as f:
            f.write(DEBROOT.read_bytes())
            f.write(extra)
        stamp.write_text(key)
    return out


# ------------------------------------------------------------------------------ runs

def parse(console: str, what: str) -> dict:
    err = _ERR.search(console)
    if err:
        raise MacroError(f"{what}: the guest reported: {err.group(1)}")
    if "@@macro-done" not in console:
        raise MacroError(f"{what}: no @@macro-done")
    results = {}
    for m in _LINE.finditer(console):
        kv = dict(w.split("=", 1) for w in m.group(2).split())
        results[m.group(1)] = {"us": int(kv["us"]), "jobs": int(kv.get("jobs", 0)),
                               "sum": kv.get("sum", "")}
    return results


def tail(text: str, n: int = 30) -> str:
    return "\n".join(text.replace("\r", "").splitlines()[-n:])


def profile_extra(system: str, args: list, profile: bool, out_dir: Path) -> list:
    """QEMU's -plugin option for an instruction profile (--profile, docs/profiling.md) into
    out_dir/insnprof-SYSTEM-WHAT.txt; none without --profile."""
    if not profile:
        return []
    what = "-".join(a.replace(":", "").replace("+", "_") for a in args) or "none"
    out = out_dir / f"insnprof-{system}-{what}.txt"
    log(f"{system}: instruction profile into {out}")
    return ["-plugin", insnprof.plugin_arg(system, out.resolve(), insnprof.build_plugin())]


def run_pecan(cpio: Path, args: list, icount: bool, out_dir: Path, profile: bool = False) -> Run:
    mode = "icount" if icount else "wall"
    lx_args = (f"heap={LX_HEAP} heapx=1 poweroff=1 quiet=1 console=serial initrd={cpio.name} "
               f"init=/bench/init.sh {' '.join(args)}")
    modules = [str(p.relative_to(ROOT)) for p in PECAN_BASE]
    modules += [(str(LX.relative_to(ROOT)), lx_args), (str(cpio.relative_to(ROOT)), "data")]
    memory = PECAN_MEMORY + cpio.stat().st_size // 2**20
    log_path = out_dir / f"macro-pecan-{mode}.log"
    with open(log_path, "w") as echo:       # the console as it comes (all of it): the log
        r = qemu_run.run(str(KERNEL.relative_to(ROOT)), modules, cmdline="kdb=batch",
                         memory=memory, icount=icount, timeout=TIMEOUT, echo=echo,
                         extra=profile_extra("pecan", args, profile, out_dir))
    if r.timed_out or r.status != 1:
        raise MacroError(f"pecan {mode}: QEMU status {r.status}, timed out {r.timed_out}\n"
                         + tail(r.output))
    return Run("pecan", mode, r.duration, shlex.join(r.command), parse(r.output, f"pecan {mode}"))


def run_linux(cpio: Path, args: list, icount: bool, out_dir: Path, profile: bool = False) -> Run:
    mode = "icount" if icount else "wall"
    append = f"{linuxref.BASE_APPEND} rdinit=/bench/init.sh -- {' '.join(args)}"
    cmd = linuxref.qemu_command(linuxref.DEFAULT_KERNEL, cpio, append, icount,
                                deterministic=True, memory=LINUX_MEMORY)
    cmd += profile_extra("linux", args, profile, out_dir)
    log_path = out_dir / f"macro-linux-{mode}.log"
    t0 = time.monotonic()
    with open(log_path, "wb") as f:
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                           timeout=TIMEOUT)
        except subprocess.TimeoutExpired as e:
            raise MacroError(f"linux {mode}: no end within {TIMEOUT} s; {log_path}") from e
    seconds = time.monotonic() - t0
    console = log_path.read_bytes().decode("utf-8", "replace").replace("\r", "")
    try:
        results = parse(console, f"linux {mode}")
    except MacroError as e:
        raise MacroError(f"{e}\n{tail(console)}") from e
    return Run("linux", mode, seconds, shlex.join(cmd), results)


# ------------------------------------------------------------------------------ results

def records(runs: list) -> list:
    """One record per benchmark and unit: the Pecan figure, Linux's, the ratio Pecan/Linux
    (above 1: lx slower) and, for the users rows, jobs per minute of guest or wall time."""
    by = {(r.system, r.mode): r.results for r in runs}
    out = []
    for mode, unit in (("icount", "guest_ns"), ("wall", "tcg_ns")):
        p, l = by.get(("pecan", mode), {}), by.get(("linux", mode), {})
        for name in sorted(set(p) | set(l), key=_order):
            rp, rl = p.get(name), l.get(name)
            rec = {"name": name, "unit": unit,
                   "pecan_ns": rp["us"] * 1000 if rp else None,
                   "linux_ns": rl["us"] * 1000 if rl else None}
            if rp and rl:
                rec["ratio"] = rp["us"] / rl["us"]
                rec["same_output"] = rp["sum"] == rl["sum"]
            if name.startswith("users_"):
                rec["users"] = int(name.split("_")[1])
                for sysname, r in (("pecan", rp), ("linux", rl)):
                    rec[f"{sysname}_jobs_per_min"] = (r["jobs"] * 60e6 / r["us"]) if r else None
            out.append(rec)
    return out


def _order(name: str):
    return (0, name) if name.startswith("compile") else (1, int(name.split("_")[1]))


def bars(recs: list) -> list:
    """Issue 14 item 4's bars, on guest instructions: compile at most 1.10x Linux; the
    multi-user curve within 10% of Linux's at every N."""
    g = [r for r in recs if r["unit"] == "guest_ns" and "ratio" in r]
    out = []
    comp = [r for r in g if r["name"].startswith("compile")]
    if comp:
        worst = max(r["ratio"] for r in comp)
        out.append(("M1", "compile (make -j1, -j2) <= 1.10x Linux in guest instructions",
                    ", ".join(f"{r['name']} {r['ratio']:.3f}x" for r in comp), worst <= 1.10))
    users = [r for r in g if r["name"].startswith("users_")]
    if users:
        worst = max(abs(r["ratio"] - 1) for r in users)
        out.append(("M2", "multi-user jobs/min within 10% of Linux's at every N (guest time)",
                    ", ".join(f"N={r['users']} {1 / r['ratio']:.3f}" for r in users),
                    worst <= 0.10))
    return out


def fmt_ms(ns) -> str:
    return "n/a" if ns is None else f"{ns / 1e6:,.1f}"


def table(recs: list, bar_list: list) -> str:
    """A markdown table of the records and the bars' verdicts."""
    lines = ["| benchmark | time | lx (ms) | Linux (ms) | lx/Linux | jobs/min lx | jobs/min Linux "
             "| same output |", "|---|---|---|---|---|---|---|---|"]
    for r in recs:
        jp, jl = r.get("pecan_jobs_per_min"), r.get("linux_jobs_per_min")
        cells = [r["name"], "guest (1 ms = 1 M instr)" if r["unit"] == "guest_ns" else "TCG wall",
                 fmt_ms(r["pecan_ns"]), fmt_ms(r["linux_ns"]),
                 f"{r['ratio']:.3f}" if "ratio" in r else "n/a",
                 f"{jp:,.1f}" if jp else "n/a", f"{jl:,.1f}" if jl else "n/a",
                 {True: "yes", False: "NO"}.get(r.get("same_output"), "n/a")]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for key, text, measured, ok in bar_list:
        lines.append(f"* ({key}) {'PASS' if ok else 'FAIL'}: {text}: {measured}")
    return "\n".join(lines)


def plot_panels(users: list) -> list:
    """(unit, title) of each time the users records have: --quick has no wall rows, and an
    empty panel would look like a measurement of nothing."""
    return [(unit, title) for unit, title in (("guest_ns", "guest time (-icount)"),
                                              ("tcg_ns", "TCG wall time"))
            if any(r["unit"] == unit for r in users)]


def plot(recs: list, out_dir: Path) -> list:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("no matplotlib: no plots")
        return []
    paths = []
    users = [r for r in recs if "users" in r]
    panels = plot_panels(users)
    if panels:
        fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False)
        for ax, (unit, title) in zip(axes[0], panels):
            rows = [r for r in users if r["unit"] == unit]
            for sysname, label, style in (("linux", "Linux 6.1", "s-"), ("pecan", "Pecan + lx", "o-")):
                pts = [(r["users"], r[f"{sysname}_jobs_per_min"]) for r in rows
                       if r.get(f"{sysname}_jobs_per_min")]
                if pts:
                    ax.plot(*zip(*pts), style, label=label)
            ax.set_xscale("log", base=2)
            ax.set_ylim(bottom=0)           # from zero: a 7% gap must look like one
            ax.set_xlabel("simulated users")
            ax.set_ylabel("jobs per minute")
            ax.set_title(f"Multi-user mix (AIM VII style), {title}")
            ax.grid(True, alpha=0.3)
            ax.legend()
        fig.tight_layout()
        p = out_dir / "macro_users.png"
        fig.savefig(p, dpi=90)
        plt.close(fig)
        paths.append(p)
    return paths


def measure(out_dir: Path, quick: bool = False, linux: bool = True, pecan: bool = True,
            compile_: bool = True, users: Optional[str] = None, profile: bool = False) -> dict:
    """Every run; returns {"records", "bars", "runs", "failures"} and writes macro.json.
    A run that fails is a failure, not an exception (the other system's figures stay)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    users = users if users is not None else ",".join(map(str, QUICK_USERS if quick else USERS))
    # "+" between the Ns: QEMU's -initrd list cannot carry commas
    what = (["compile"] if compile_ else []) + (
        [f"users:{users.replace(',', '+')}"] if users else [])
    runs, failures = [], []
    try:
        prepare()
        cpio = archive()
    except (MacroError, OSError) as e:
        failures.append(f"prepare: {e}")
        what = []
    modes = (True,) if quick else (True, False)
    for system, fn, on in (("linux", run_linux, linux), ("pecan", run_pecan, pecan)):
        for icount in modes if (on and what) else ():
            label = f"{system} {'icount' if icount else 'wall'}"
            try:
                run = fn(cpio, what, icount, out_dir, profile)
            except (MacroError, qemu_run.QemuError, OSError) as e:
                failures.append(f"{label}: {e}")
                log(f"{label}: FAILED: {e}")
                continue
            log(f"{label}: ok, {run.seconds:.0f} s")
            runs.append(run)
    recs = records(runs)
    bar_list = bars(recs)
    result = {"records": recs, "runs": [vars(r) for r in runs], "failures": failures,
              "bars": [{"bar": k, "text": t, "measured": m, "passed": ok}
                       for k, t, m, ok in bar_list]}
    (out_dir / "macro.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def bar_tuples(result: dict) -> list:
    return [(b["bar"], b["text"], b["measured"], b["passed"]) for b in result["bars"]]


def doc_section(result: dict) -> str:
    """The body of docs/performance.md's macro section."""
    out = [table(result["records"], bar_tuples(result))]
    for r in result["runs"]:
        out.append(f"* run: {r['system']} {r['mode']}, {r['seconds']:.0f} s of host time")
    return "\n".join(out) + "\n"


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="icount only, users 1,4,16")
    ap.add_argument("--no-linux", action="store_true")
    ap.add_argument("--no-pecan", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--users", help="comma-separated N (default 1,2,4,8,16,32)")
    ap.add_argument("--out", default=str(BUILD / "bench"))
    ap.add_argument("--profile", action="store_true", help="an instruction profile of each "
                    "run (QEMU plugin insnprof; docs/profiling.md): OUT/insnprof-SYSTEM-WHAT.txt")
    ap.add_argument("--plot", metavar="JSON", help="only draw the plots of a macro.json "
                    "into --out (bench.py runs this with a Python that has matplotlib)")
    args = ap.parse_args(argv)
    out_dir = Path(args.out)
    if args.plot:
        for p in plot(json.loads(Path(args.plot).read_text())["records"], out_dir):
            print(p)
        return 0
    result = measure(out_dir, args.quick, not args.no_linux, not args.no_pecan,
                     not args.no_compile, args.users, args.profile)
    print(table(result["records"], bar_tuples(result)))
    for f in result["failures"]:
        log(f"FAILED: {f.splitlines()[0]}")
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
