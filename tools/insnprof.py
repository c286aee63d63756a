#!/usr/bin/env python3
"""Fold an instruction profile of the insnprof QEMU plugin (tools/qemu_plugins/insnprof.c)
into buckets and functions (docs/profiling.md).

The plugin counts executions per translation block (start address, number of instructions)
and "transitions" (a TB whose address class differs from the previous TB's).  QEMU 7.2's
plugin API cannot read registers (no CR3), so everything here is by virtual address:

  kernel   the high half (Pecan's kernel, symbols from build/kernel*.elf; Linux's kernel)
  lx       lx's link range (symbols from build/user/lx.elf; at 1 GiB, above non-PIE programs)
  sigma0, root   their link ranges (symbols from their ELFs)
  prog     a Linux process's program: 0x1000_0000 up to 0x7000_0000_0000 (PIE programs load at 2/3 of
           the user half, 0x5555_5555_4000 on both systems)
  libs     ld.so, libc and the other mmaps: 0x7000_0000_0000 up to the high half
  other    anything else: the firmware, Pecan's boot code, the serial driver, and non-PIE
           programs at 0x400000 (gcc's cc1, as and ld on Debian 12)

  tools/insnprof.py report PROFILE [--system pecan|linux] [--jobs N] [--top K]
  tools/insnprof.py compare A B [--jobs-a N] [--jobs-b M] [--base PROFILE] [--top K]
                    [--system-a S --base-a P --system-b S --base-b P]
      per-job difference, B against A: the functions whose cost per job grows (two systems:
      Linux as A, Pecan as B, each with its own baseline)
  tools/insnprof.py args --system pecan --out FILE      the -plugin argument
"""
from __future__ import annotations

import argparse
import bisect
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
PLUGIN = BUILD / "qemu_plugins" / "insnprof.so"

HIGH_HALF = 0xFFFF800000000000
PROG_LO = 0x10000000           # above the firmware, the boot code and the servers
LIBS_LO = 0x700000000000
USER_TOP = 0x800000000000

PECAN_ELFS = {"kernel": BUILD / "kernel.elf", "lx": BUILD / "user" / "lx.elf",
              "sigma0": BUILD / "user" / "sigma0.elf", "root": BUILD / "user" / "root.elf"}


def build_plugin(plugin: Path = PLUGIN) -> Path:
    """make -C tools/qemu_plugins (fetches QEMU's plugin header once); the plugin's path
    (insnprof's, or another plugin of tools/qemu_plugins/ built by the same make)."""
    r = subprocess.run(["make", "-s", "-C", str(ROOT / "tools" / "qemu_plugins")],
                       capture_output=True, text=True)
    if r.returncode != 0 or not plugin.is_file():
        raise RuntimeError(f"building the {plugin.stem} plugin failed:\n{r.stdout}{r.stderr}")
    return plugin


def elf_range(elf: Path) -> tuple:
    """[lowest, highest) address of an ELF's PT_LOAD segments in the low half."""
    out = subprocess.run(["readelf", "-lW", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    lo, hi = None, None
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "LOAD":
            va, memsz = int(w[2], 16), int(w[5], 16)
            if va >= HIGH_HALF:
                continue
            lo = va if lo is None else min(lo, va)
            hi = va + memsz if hi is None else max(hi, va + memsz)
    if lo is None:
        raise ValueError(f"{elf}: no PT_LOAD in the low half")
    return lo, hi


def classes(system: str, elfs: Optional[dict] = None) -> list:
    """(name, lo, hi) in the plugin's order (first match wins; hi 0 = the top)."""
    out = [("kernel", HIGH_HALF, 0)]
    if system == "pecan":
        for name in ("lx", "sigma0", "root"):
            lo, hi = elf_range((elfs or PECAN_ELFS)[name])
            out.append((name, lo, hi))
    out += [("prog", PROG_LO, LIBS_LO), ("libs", LIBS_LO, USER_TOP)]
    return out


def plugin_arg(system: str, out: Path, plugin: Optional[Path] = None) -> str:
    """The value of QEMU's -plugin option for a profile of `system` written to `out`."""
    parts = [str(plugin or PLUGIN), f"out={out}"]
    parts += [f"class={n}:{lo:x}-{hi:x}" for n, lo, hi in classes(system)]
    return ",".join(parts)


# ------------------------------------------------------------------------------ folding

@dataclass
class Profile:
    classes: dict = field(default_factory=dict)      # id -> (name, transitions in)
    tbs: list = field(default_factory=list)          # (vaddr, ninsns, executions, entries, cls)

    def bucket(self, cls: int) -> str:
        return self.classes[cls][0]


def parse(text: str) -> Profile:
    p = Profile()
    lines = text.splitlines()
    if not lines or lines[0].strip() != "# insnprof 1":
        raise ValueError("not an insnprof 1 profile")
    for line in lines[1:]:
        w = line.split()
        if not w:
            continue
        if w[0] == "class":
            p.classes[int(w[1])] = (w[2], int(w[3]))
        elif w[0] == "tb":
            p.tbs.append((int(w[1], 16), int(w[2]), int(w[3]), int(w[4]), int(w[5])))
        else:
            raise ValueError(f"unknown line {line!r}")
    return p


def load(path: Path) -> Profile:
    return parse(Path(path).read_text())


class Symbols:
    """Function symbols of some ELFs: address -> name (the nearest symbol at or below)."""

    def __init__(self, pairs: list):
        pairs = sorted(pairs)
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]

    @classmethod
    def from_elfs(cls, elfs: list) -> "Symbols":
        pairs = []
        for elf in elfs:
            if not Path(elf).is_file():
                continue
            out = subprocess.run(["nm", "--defined-only", str(elf)], capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                w = line.split()
                if len(w) == 3 and w[1] in "tTwW":
                    pairs.append((int(w[0], 16), w[2]))
        return cls(pairs)

    def name(self, addr: int) -> Optional[str]:
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else None


@dataclass
class Folded:
    insns: dict          # bucket -> guest instructions
    transitions: dict    # bucket -> transitions into it
    functions: dict      # (bucket, function) -> guest instructions
    total: int


def fold(p: Profile, symbols: Optional[Symbols] = None, named=("kernel", "lx", "sigma0", "root")) -> Folded:
    """Instructions per bucket and per function (buckets without symbols: one "(all)"
    entry per bucket), transitions per bucket."""
    insns, funcs = {}, {}
    for vaddr, n, execs, _entries, cls in p.tbs:
        b = p.bucket(cls)
        k = n * execs
        insns[b] = insns.get(b, 0) + k
        if b not in named:
            key = (b, "(all)")
        else:
            key = (b, (symbols.name(vaddr) if symbols else None) or f"?{vaddr:#x}")
        funcs[key] = funcs.get(key, 0) + k
    trans = {name: t for name, t in p.classes.values()}
    for b in trans:
        insns.setdefault(b, 0)
    return Folded(insns, trans, funcs, sum(insns.values()))


def subtract(a: Folded, base: Folded) -> Folded:
    """a less a baseline (the same boot without the work)."""
    def sub(x, y):
        return {k: x.get(k, 0) - y.get(k, 0) for k in set(x) | set(y)}
    return Folded(sub(a.insns, base.insns), sub(a.transitions, base.transitions),
                  sub(a.functions, base.functions), a.total - base.total)


def scale(f: Folded, jobs: float) -> Folded:
    return Folded({k: v / jobs for k, v in f.insns.items()},
                  {k: v / jobs for k, v in f.transitions.items()},
                  {k: v / jobs for k, v in f.functions.items()}, f.total / jobs)


def symbols_for(system: str) -> Optional[Symbols]:
    return Symbols.from_elfs(list(PECAN_ELFS.values())) if system == "pecan" else None


# ------------------------------------------------------------------------------ reports

def report(f: Folded, top: int = 30, unit: str = "") -> str:
    lines = [f"total {f.total:,.0f} instructions{unit}", "",
             f"{'bucket':10} {'instructions':>16} {'share':>7} {'transitions in':>15}"]
    for b, v in sorted(f.insns.items(), key=lambda kv: -kv[1]):
        share = v / f.total * 100 if f.total else 0
        lines.append(f"{b:10} {v:16,.0f} {share:6.1f}% {f.transitions.get(b, 0):15,.0f}")
    lines += ["", f"{'function':48} {'bucket':8} {'instructions':>16}"]
    for (b, fn), v in sorted(f.functions.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"{fn[:48]:48} {b:8} {v:16,.0f}")
    return "\n".join(lines)


def compare(a: Folded, b: Folded, top: int = 30) -> str:
    """b against a (both per job): buckets and the functions that grew most."""
    lines = [f"per job: A {a.total:,.0f}, B {b.total:,.0f} instructions "
             f"({b.total / a.total if a.total else 0:.2f}x)", "",
             f"{'bucket':10} {'A':>14} {'B':>14} {'B-A':>14} {'trans A':>10} {'trans B':>10}"]
    for k in sorted(set(a.insns) | set(b.insns), key=lambda k: -b.insns.get(k, 0)):
        va, vb = a.insns.get(k, 0), b.insns.get(k, 0)
        lines.append(f"{k:10} {va:14,.0f} {vb:14,.0f} {vb - va:+14,.0f} "
                     f"{a.transitions.get(k, 0):10,.0f} {b.transitions.get(k, 0):10,.0f}")
    lines += ["", f"{'function':44} {'bucket':8} {'A':>13} {'B':>13} {'B-A':>13}"]
    keys = set(a.functions) | set(b.functions)
    for k in sorted(keys, key=lambda k: -(b.functions.get(k, 0) - a.functions.get(k, 0)))[:top]:
        va, vb = a.functions.get(k, 0), b.functions.get(k, 0)
        lines.append(f"{k[1][:44]:44} {k[0]:8} {va:13,.0f} {vb:13,.0f} {vb - va:+13,.0f}")
    return "\n".join(lines)


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report")
    r.add_argument("profile")
    r.add_argument("--system", default="pecan", choices=("pecan", "linux"))
    r.add_argument("--jobs", type=float, default=1)
    r.add_argument("--base", help="a profile of the same boot without the work, subtracted")
    r.add_argument("--top", type=int, default=30)
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--system", default="pecan", choices=("pecan", "linux"))
    c.add_argument("--system-a", choices=("pecan", "linux"), help="default: --system")
    c.add_argument("--system-b", choices=("pecan", "linux"), help="default: --system")
    c.add_argument("--jobs-a", type=float, default=1)
    c.add_argument("--jobs-b", type=float, default=1)
    c.add_argument("--base", help="a profile of the same boot without the work, subtracted")
    c.add_argument("--base-a", help="A's baseline (default: --base)")
    c.add_argument("--base-b", help="B's baseline (default: --base)")
    c.add_argument("--top", type=int, default=30)
    g = sub.add_parser("args")
    g.add_argument("--system", default="pecan", choices=("pecan", "linux"))
    g.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "args":
        print(plugin_arg(args.system, Path(args.out)))
        return 0

    def per_job(path, system, base, jobs):
        syms = symbols_for(system)
        f = fold(load(path), syms)
        if base:
            f = subtract(f, fold(load(base), syms))
        return scale(f, jobs)
    if args.cmd == "report":
        unit = " per job" if args.jobs != 1 else ""
        print(report(per_job(args.profile, args.system, args.base, args.jobs), args.top, unit))
    else:
        a = per_job(args.a, args.system_a or args.system, args.base_a or args.base, args.jobs_a)
        b = per_job(args.b, args.system_b or args.system, args.base_b or args.base, args.jobs_b)
        print(compare(a, b, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
