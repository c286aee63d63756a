#!/usr/bin/env python3
"""Pecan's benchmarks beside native Linux, in the same QEMU (make bench).

One invocation boots, under TCG:

  Pecan, icount       the benchmark root tasks (build/user/pingpong.elf, build/user/vmbench.elf)
                      on the release kernel with -icount shift=0,sleep=off: the guest TSC then
                      advances once per guest instruction, so tsc_per_op = instructions per op
  Pecan, icount,      pingpong once more with the kernel option fastpath=off: the IPC round
    fastpath=off      trips through the general path, reported as <name>_slowpath
  Pecan, wall         the same programs without icount: TCG wall-clock ns per op
  Linux, icount/wall  the native reference programs in Debian's kernel (tools/linuxref)
  lx, icount          the Linux personality's rows: one static program (user/linux/tests/
                      lxbench.c, musl) under lx on Pecan, and the same program on native
                      Linux (the initramfs guest of tools/initramfs/linuxref_run.py), as
                      lx_<row>; a row whose calls lx lacks is n/a with the errno
  lx, wall            the same two without icount: their TSC is then the host's, so the rows'
                      host ticks per op x the host's TSC period are TCG ns per op
  Table 4             the paper's §6.2 rows (tools/table4bench.py): user/linux/tests/table4.c
                      under lx (icount, and wall), beside lxbench's pipe rows on lx and Linux

and writes, under --out (default build/bench):

  results.json  records {"name", "unit", "value", "linux", "linux_name", ...}: one per Pecan
                measurement and unit ("guest_instructions", "tcg_ns") with the value of its
                nearest Linux equivalent from the same invocation, then the Linux measurements
                themselves (system "linux", linux = null)
  meta.json     date, commit, QEMU and Linux versions, host CPU, the runs and the bars
  *.png         plots drawn by tools/plot.py (matplotlib: if no usable Python has it,
                tools/deps.sh --bench installs python3-matplotlib, as root)
  *.log         the consoles of the runs

It prints the table, with the project's performance bars checked (PASS/FAIL; a failed bar
does not fail the command: this is a measurement, not a test), and puts the table and the
plots into docs/performance.md (between its bench markers; plots copied to docs/perf/).
Exit status: 0, or 1 if a run failed (no BENCH-DONE, timeout, kernel debugger, ...).

Options: --quick (no wall-clock runs, fewer Linux iterations), --no-linux (ratios n/a),
--pingpong (only pingpong under icount, with and without the fast path: a few seconds; implies
--quick --no-linux), --no-lx (no personality rows), --repeat N (wall-clock boots per system;
minimum per benchmark), --no-docs, --out DIR, --timeout S (per Pecan boot).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Iterable, Optional

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
sys.path.insert(0, str(ROOT / "tools" / "initramfs"))

import macrobench  # noqa: E402  (the compile and multi-user benchmarks)
import table4bench  # noqa: E402  (the paper's Table 4: pipes, L4 pipe, RPC, mapping RPC)
import qemu_run  # noqa: E402
import run as linuxref  # noqa: E402  (tools/linuxref/run.py)
import linuxref_run  # noqa: E402  (tools/initramfs/linuxref_run.py)

KERNEL = ROOT / "build" / "kernel.bin"          # the release kernel, never kernel-debug
SIGMA0 = ROOT / "build" / "user" / "sigma0.elf"
ROOT_TASK = ROOT / "build" / "user" / "root.elf"
LX = ROOT / "build" / "user" / "lx.elf"
INITRAMFS = ROOT / "build" / "linux" / "initramfs.cpio"
DOC = ROOT / "docs" / "performance.md"
DOC_PLOTS = ROOT / "docs" / "perf"
DOC_BEGIN = "<!-- bench:begin -->"
DOC_END = "<!-- bench:end -->"
MACRO_BEGIN = "<!-- macro:begin -->"
MACRO_END = "<!-- macro:end -->"
TABLE4_BEGIN = "<!-- table4:begin -->"
TABLE4_END = "<!-- table4:end -->"

GUEST = "guest_instructions"    # under icount: TSC delta per op == guest instructions per op
WALL = "tcg_ns"                 # without icount: wall-clock ns per op in the emulator
SLOWPATH = "_slowpath"

# The benchmark root tasks: (program, required).  vmbench may not be built yet.
PROGRAMS = (("pingpong", True), ("vmbench", False), ("foreignbench", False))
SLOWPATH_PROGRAM = "pingpong"
SLOWPATH_RE = re.compile(r"^ipc_(roundtrip|pistachio)_")   # what a fastpath=off run reports

# Linux reference programs (user/bench/linux), each run in one boot per mode.
LINUX_BENCHES = ("tsc_calib", "getpid", "pipe_pingpong_1b", "futex_pingpong", "trap",
                 "pagefault_anon", "appel1", "appel2")
# --quick: fewer iterations (the warm-ups, which reach the steady state, stay the same).
LINUX_QUICK_ITERS = {"getpid": 20000, "pipe_pingpong_1b": 2000, "futex_pingpong": 2000,
                     "trap": 2000, "pagefault_anon": 2000, "appel1": 2000, "appel2": 2000}

SAME = "="  # PAIRS: the Linux figure of the same name (the same program)
# Pecan measurement (without the _slowpath suffix) -> its nearest Linux equivalent (None: there
# is none), a second one where there are two, and a note where the pairing needs one.
# docs/performance.md explains each choice.
PAIRS = (
    (re.compile(r"^ipc_pistachio_"), None, None,
     "one-way IPC (half a round trip) in Pistachio's calling convention, the figure "
     "Pistachio's own pingpong reports"),
    (re.compile(r"^ipc_"), "pipe_pingpong_1b", "futex_pingpong", None),
    (re.compile(r"^syscall_null$"), "getpid", None, None),
    (re.compile(r"^foreign_syscall_null$"), "getpid", None,
     "a Linux-style getpid by a thread of a foreign space, reflected to its handler as IPC "
     "and answered at once (docs/linux-abi.md): the personality's system-call round trip"),
    (re.compile(r"^syscall_system_clock$"), None, None,
     "SystemClock runs in its user-mode stub (no kernel entry); the Linux counterpart, a "
     "vDSO clock_gettime, is not among the reference programs"),
    (re.compile(r"^vm_fault$"), "pagefault_anon", None,
     "Linux has no user-level pager: its kernel-resolved first-touch fault on anonymous "
     "memory is the closest operation"),
    (re.compile(r"^vm_trap$"), "trap", None, None),
    (re.compile(r"^vm_appel1$"), "appel1", None, None),
    (re.compile(r"^vm_appel2$"), "appel2", None, None),
    (re.compile(r"^lx_"), SAME, None,
     "the personality: the same static program (lxbench, musl) under lx and on native Linux"),
)

# The project's bars (docs/performance.md).
BAR_INTER_0W = 220          # (a) instructions per inter-space 0-word round trip, at most
BAR_PIPE_RATIO = 50         # (b) Linux pipe round trip / inter_0w, at least
BAR_WORD_COST = 1.0         # (d) instructions per extra untyped word and message, "about" ...
BAR_WORD_SLACK = 1.1        #     ... read as: at most 10% above
# (e), (f) Pistachio's own figures: guest instructions per one-way IPC, as its pingpong reports
# them, by mode and untyped words, on its own kernel in the same QEMU.  Every row of that
# convention on Pecan: at most.  Measured 2026-11-27 (issue 12 item 6) from l4ka/pistachio
# 8be66aa9b85a774ad1b71dbd3a79c5c745a96273 built outside this repository (docs/ipc.md §4.1):
# the kernel (amd64, K8, IPC fast path, KDB on COM1 without asserts) under kickstart, with its
# sigma0 and its unmodified user/apps/bench/pingpong (gcc 12.2, -O2, incoming stack alignment
# 8), `qemu-system-x86_64 -machine q35 -cpu max -m 128 -icount shift=0,sleep=off -rtc
# clock=vm -kernel kickstart -initrd x86-kernel,sigma0,pingpong`, menu keys 1, 2, 3 (QEMU
# 7.2.22).  0-7 words cost the same there (inter 99.79, intra 98.79, Lipc 111.29-111.35).
PISTACHIO_FIGURES = {"inter": {0: 99.79, 8: 111.79, 63: 166.79},
                     "intra": {0: 98.79, 8: 110.79, 63: 165.79},
                     "lipc": {0: 111.35, 8: 123.35, 63: 178.29}}
PISTACHIO_PREFIX = "ipc_pistachio_"
PISTACHIO_RE = re.compile(r"^ipc_pistachio_([a-z]+)_(\d+)w$")
BAR_FOREIGN_NULL = 250      # (g) reflected null system call round trip, user code included
BAR_LX_GETPID = 1.5         # (h) getpid through lx / native Linux getpid, at most

# The Linux personality's rows (issue 8 item 11): user/linux/tests/lxbench.c, built static
# with musl into the initramfs (make initramfs), run as lx's first process and on Linux.
LX_PREFIX = "lx_"
LX_PROGRAM = "/test/musl/lxbench"
LX_ARGS = f"heap=32 heapx=1 poweroff=1 initrd={INITRAMFS.name} init={LX_PROGRAM}"
LX_MEMORY = 256                 # MiB: the initramfs module (8 MB) besides lx's heap
LX_TIMEOUT = 120                # s: the whole run takes a few
_NA_RE = re.compile(r"(?:^|\s)BENCH-NA name=(\S+) errno=(\d+) what=(\S+)\s*$")
ERRNO_NAMES = {1: "EPERM", 2: "ENOENT", 8: "ENOEXEC", 9: "EBADF", 10: "ECHILD", 11: "EAGAIN",
               12: "ENOMEM", 14: "EFAULT", 22: "EINVAL", 24: "EMFILE", 28: "ENOSPC",
               32: "EPIPE", 38: "ENOSYS"}


class BenchError(RuntimeError):
    """A benchmark run failed."""


def log(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- runs and parsing

def parse_pecan(text: str, icount: bool) -> dict:
    """name -> {"value", "iters"} from a Pecan benchmark console.  Under icount the value is
    tsc_per_op (guest instructions); otherwise ns/iters (the kernel's clock: the TSC is then
    the host's).  Raises BenchError unless the console reached BENCH-DONE with results."""
    parsed = linuxref.parse_console(text)
    if parsed.errors:
        raise BenchError(f"BENCH-ERROR lines: {parsed.errors}")
    if not parsed.done:
        raise BenchError("no BENCH-DONE line")
    if not parsed.results:
        raise BenchError("no BENCH lines")
    out = {}
    for name, r in parsed.results.items():
        iters = r.get("iters")
        per = r.get("tsc_per_op") if icount else (
            r["ns"] / iters if isinstance(r.get("ns"), int) and iters else None)
        if not isinstance(iters, int) or iters <= 0 or not isinstance(per, (int, float)):
            raise BenchError(f"malformed BENCH line for {name}: {r}")
        out[name] = {"value": round(float(per), 2), "iters": iters}
    return out


def parse_linux(results: dict, icount: bool) -> dict:
    """name -> {"value", "iters"} from linuxref's parsed BENCH lines."""
    key = "tsc_per_op" if icount else "ns_per_op"
    return {name: {"value": round(float(r[key]), 2), "iters": r.get("iters")}
            for name, r in results.items() if isinstance(r.get(key), (int, float))}


def merge_min(runs: Iterable[dict]) -> dict:
    """The minimum value per name over repeated wall-clock runs (host noise only adds time)."""
    merged: dict = {}
    for run in runs:
        for name, m in run.items():
            if name not in merged or m["value"] < merged[name]["value"]:
                merged[name] = dict(m)
    return merged


def slowpath_names(measurements: dict) -> dict:
    """The round trips of a fastpath=off run, renamed <name>_slowpath."""
    return {name + SLOWPATH: m for name, m in measurements.items() if SLOWPATH_RE.match(name)}


def host_tsc_ns() -> float:
    """Nanoseconds per host TSC tick: without icount QEMU gives the guest the host's TSC
    (cpu_get_tsc), so lxbench's wall-clock figures are host ticks on both systems."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return 1000.0 / float(line.split(":")[1])
    except (OSError, ValueError):
        pass
    raise BenchError("no host TSC rate (cpu MHz in /proc/cpuinfo)")


def parse_lx(text: str, partial: bool = False, ns_per_tick: Optional[float] = None) -> dict:
    """name -> {"value", "iters"} (value None and "na" the reason for a BENCH-NA row) from
    a console of lxbench.  Raises BenchError unless it reached BENCH-DONE (partial: the rows
    before a hang or a crash, maybe none).  ns_per_tick: a run without icount, whose TSC is
    the host's; the values are then ns (tsc_per_op x ns_per_tick)."""
    parsed = linuxref.parse_console(text)
    if not parsed.done and not partial:
        raise BenchError("no BENCH-DONE line")
    out = {}
    for name, r in parsed.results.items():
        if not isinstance(r.get("iters"), int) or not isinstance(r.get("tsc_per_op"),
                                                                  (int, float)):
            raise BenchError(f"malformed BENCH line for {name}: {r}")
        per = float(r["tsc_per_op"]) * (ns_per_tick or 1.0)
        out[name] = {"value": round(per, 2), "iters": r["iters"]}
    for raw in text.splitlines():
        if m := _NA_RE.search(linuxref._ESC_RE.sub("", raw.replace("\r", ""))):
            err = int(m.group(2))
            why = f"{m.group(3)}: errno {err}" + (f" ({ERRNO_NAMES[err]})"
                                                  if err in ERRNO_NAMES else "")
            out[m.group(1)] = {"value": None, "iters": None, "na": why}
    if not out and not partial:
        raise BenchError("no BENCH lines")
    order = re.findall(r"BENCH(?:-NA)? name=(\S+)", text)     # the program's order
    return {n: out[n] for n in sorted(out, key=order.index)}


@dataclass
class RunLog:
    what: str
    seconds: float
    command: str
    ok: bool


class Runner:
    """Runs the guests, keeps their consoles under out_dir and an account of every run."""

    def __init__(self, out_dir: pathlib.Path, timeout: float):
        self.out_dir = out_dir
        self.timeout = timeout
        self.runs: list = []
        self.failures: list = []

    def _account(self, what, seconds, command, ok):
        self.runs.append(RunLog(what, round(seconds, 1), command, ok))
        log(f"{what}: {'ok' if ok else 'FAILED'}, {seconds:.1f} s")

    def pecan(self, program: str, icount: bool, cmdline: str = "kdb=batch",
              label: str = "") -> Optional[dict]:
        """One boot of build/user/<program>.elf as root task: name -> {"value", "iters"}, or
        None if it failed (recorded in self.failures)."""
        mode = "icount" if icount else "wall"
        what = f"pecan {program} {mode}{' ' + label if label else ''}"
        path = ROOT / "build" / "user" / f"{program}.elf"
        try:
            r = qemu_run.run(KERNEL, [SIGMA0, path], cmdline=cmdline, memory=128,
                             icount=icount, timeout=self.timeout)
        except qemu_run.QemuError as e:
            self._account(what, 0, "", False)
            self.fail(what, str(e))
            return None
        (self.out_dir / f"pecan-{program}-{mode}{'-' + label if label else ''}.log").write_text(
            r.output)
        try:
            if r.timed_out or r.status != 1:
                raise BenchError("QEMU did not exit with status 1, the benchmark's own exit")
            result = parse_pecan(r.output, icount)
        except BenchError as e:
            self._account(what, r.duration, shlex.join(r.command), False)
            self.fail(what, f"{e}\n{r.describe()}")
            return None
        self._account(what, r.duration, shlex.join(r.command), True)
        return result

    def linux(self, icount: bool, iters) -> Optional[linuxref.GuestRun]:
        """One boot of the Linux guest with every reference program, or None if it failed."""
        mode = "icount" if icount else "wall"
        what = f"linux {mode}"
        t0 = time.monotonic()
        try:
            words = linuxref.selection_args(LINUX_BENCHES, iters)
            run = linuxref.run_guest(words, icount=icount,
                                     log_path=self.out_dir / f"linux-{mode}.log")
        except linuxref.LinuxBenchError as e:
            self._account(what, time.monotonic() - t0, "", False)
            self.fail(what, str(e))
            return None
        self._account(what, run.seconds, shlex.join(run.command), True)
        return run

    def lx(self, icount: bool = True, program: str = LX_PROGRAM) -> Optional[dict]:
        """lxbench (or another program of the initramfs printing BENCH lines) as lx's first
        process on Pecan: parse_lx's dict (without icount in ns), or None."""
        mode = "icount" if icount else "wall"
        name = pathlib.PurePosixPath(program).name
        what = f"pecan lx {name} {mode}"
        args = LX_ARGS.replace(f"init={LX_PROGRAM}", f"init={program}")
        modules = [SIGMA0, ROOT_TASK, (LX, args), (INITRAMFS, "data")]
        try:
            r = qemu_run.run(KERNEL, modules, cmdline="kdb=batch", memory=LX_MEMORY,
                             icount=icount, timeout=min(self.timeout, LX_TIMEOUT))
        except qemu_run.QemuError as e:
            self._account(what, 0, "", False)
            self.fail(what, str(e))
            return None
        suffix = "" if program == LX_PROGRAM else f"-{name}"
        (self.out_dir / f"pecan-lx{suffix}-{mode}.log").write_text(r.output)
        ns_per_tick = None if icount else host_tsc_ns()
        try:
            if r.timed_out or r.status != 1:
                raise BenchError("QEMU did not exit with status 1, lx's poweroff=1")
            result = parse_lx(r.output, ns_per_tick=ns_per_tick)
        except BenchError as e:
            self._account(what, r.duration, shlex.join(r.command), False)
            self.fail(what, f"{e}\n{r.describe()}")
            # A row that hangs or kills lx (a call being built) keeps the rows before it.
            return parse_lx(r.output, partial=True, ns_per_tick=ns_per_tick)
        self._account(what, r.duration, shlex.join(r.command), True)
        return result

    def linux_lx(self, icount: bool = True) -> Optional[dict]:
        """The same program on native Linux (Debian's kernel, the initramfs with busybox):
        parse_lx's dict (without icount in ns), or None."""
        mode = "icount" if icount else "wall"
        what = f"linux lxbench {mode}"
        t0 = time.monotonic()
        try:
            # 512 MiB: the initramfs (80 MB) unpacks into the guest's memory beside itself.
            res = linuxref_run.run_commands([LX_PROGRAM], initramfs=INITRAMFS,
                                            timeout=max(self.timeout, 300), icount=icount,
                                            memory=512)[0]
            if res.status != 0:
                raise BenchError(f"{LX_PROGRAM} exited with status {res.status}")
            result = parse_lx(res.output, ns_per_tick=None if icount else host_tsc_ns())
        except (linuxref_run.RunError, BenchError, OSError) as e:
            self._account(what, time.monotonic() - t0, "", False)
            self.fail(what, str(e))
            return None
        finally:
            log_src = INITRAMFS.parent / "linuxref-console.log"
            if log_src.is_file():
                shutil.copyfile(log_src, self.out_dir / f"linux-lxbench-{mode}.log")
        self._account(what, time.monotonic() - t0, f"tools/initramfs/linuxref_run.py "
                      f"{LX_PROGRAM}", True)
        return result

    def fail(self, what: str, why: str) -> None:
        self.failures.append(f"{what}: {why}")
        log(f"ERROR: {what}: {why}")


# --------------------------------------------------------------------------- records

def linux_pair(name: str):
    """(linux_name, linux_alt_name, note) for a Pecan measurement; Nones if it has none."""
    base = name[:-len(SLOWPATH)] if name.endswith(SLOWPATH) else name
    for pattern, linux, alt, note in PAIRS:
        if pattern.search(base):
            return (base if linux == SAME else linux), alt, note
    return None, None, None


def _ratio(linux, value):
    return round(linux / value, 2) if linux is not None and value else None


def pistachio_figure(name: str) -> Optional[float]:
    """Pistachio's own figure for a Pistachio-convention row (None for any other)."""
    m = PISTACHIO_RE.match(name)
    return PISTACHIO_FIGURES.get(m.group(1), {}).get(int(m.group(2))) if m else None


def build_records(pecan: dict, linux: Optional[dict]) -> list:
    """The records of results.json.  pecan, linux: unit -> name -> {"value", "iters"};
    linux None when Linux was not run (the ratios are then null)."""
    linux = linux or {}
    records = []
    for unit in (GUEST, WALL):
        ref = linux.get(unit, {})
        for name, m in pecan.get(unit, {}).items():
            lname, alt, note = linux_pair(name)
            if m.get("na"):
                note = f"n/a under lx: {m['na']}"
            lval = ref.get(lname, {}).get("value") if lname else None
            aval = ref.get(alt, {}).get("value") if alt else None
            records.append({
                "name": name, "unit": unit, "value": m["value"],
                "linux": lval, "linux_name": lname,
                "system": "pecan", "iters": m["iters"], "ratio": _ratio(lval, m["value"]),
                "linux_alt": aval, "linux_alt_name": alt, "ratio_alt": _ratio(aval, m["value"]),
                "note": note,
            })
            if unit == GUEST and pistachio_figure(name) is not None:
                records[-1]["pistachio"] = pistachio_figure(name)
    for unit in (GUEST, WALL):
        for name, m in linux.get(unit, {}).items():
            records.append({
                "name": name, "unit": unit, "value": m["value"],
                "linux": None, "linux_name": None,
                "system": "linux", "iters": m["iters"], "ratio": None,
                "linux_alt": None, "linux_alt_name": None, "ratio_alt": None, "note": None,
            })
    return records


def values(records: list, system: str, unit: str) -> dict:
    """name -> value of one system's records in one unit, in record order."""
    return {r["name"]: r["value"] for r in records if r["system"] == system and r["unit"] == unit}


# --------------------------------------------------------------------------- bars

@dataclass
class Bar:
    key: str                # "a".."d"
    text: str               # what is required
    measured: str           # what was measured
    passed: Optional[bool]  # None: could not be evaluated (n/a)
    rows: tuple             # the table rows it annotates

    @property
    def verdict(self) -> str:
        return "n/a" if self.passed is None else "PASS" if self.passed else "FAIL"


def word_slope(g: dict, kind: str, lo: int, hi: int) -> Optional[float]:
    """Extra instructions per round trip per untyped word, between lo and hi words."""
    a, b = g.get(f"ipc_roundtrip_{kind}_{lo}w"), g.get(f"ipc_roundtrip_{kind}_{hi}w")
    return None if a is None or b is None else (b - a) / (hi - lo)


def evaluate_bars(records: list) -> list:
    g = values(records, "pecan", GUEST)
    lin = values(records, "linux", GUEST)
    inter = g.get("ipc_roundtrip_inter_0w")
    intra = g.get("ipc_roundtrip_intra_0w")
    lipc = g.get("ipc_roundtrip_lipc_0w")
    pipe = lin.get("pipe_pingpong_1b")
    na = "n/a"
    bars = []

    bars.append(Bar("a", f"ipc_roundtrip_inter_0w <= {BAR_INTER_0W} guest instructions",
                    na if inter is None else f"{inter:.1f}",
                    None if inter is None else inter <= BAR_INTER_0W,
                    ("ipc_roundtrip_inter_0w",)))

    ratio = pipe / inter if pipe is not None and inter else None
    bars.append(Bar("b", f"Linux pipe round trip / inter_0w >= {BAR_PIPE_RATIO}",
                    na if ratio is None else f"{pipe:.0f} / {inter:.1f} = {ratio:.1f}",
                    None if ratio is None else ratio >= BAR_PIPE_RATIO,
                    ("ipc_roundtrip_inter_0w",)))

    ok = None
    if None not in (inter, intra, lipc):
        ok = intra <= inter and lipc <= inter
    bars.append(Bar("c", "intra_0w <= inter_0w and lipc_0w <= inter_0w",
                    na if ok is None else
                    f"intra {intra:.1f}, lipc {lipc:.1f}, inter {inter:.1f}",
                    ok, ("ipc_roundtrip_intra_0w", "ipc_roundtrip_lipc_0w")))

    # Both directions of a round trip carry the words (the server echoes them), so the
    # per-message cost of a word is half the round-trip slope.
    s8, s0 = word_slope(g, "inter", 8, 63), word_slope(g, "inter", 0, 63)
    if s8 is None:
        measured = na
    else:
        measured = f"8->63 words: {s8:.2f}/round trip = {s8 / 2:.2f}/word/message"
        if s0 is not None:
            measured += f"; 0->63: {s0:.2f} = {s0 / 2:.2f}"
    bars.append(Bar("d", f"per extra untyped word <~ {BAR_WORD_COST:g} instruction per message "
                         f"(inter, 8->63 words; <= {BAR_WORD_SLACK:g})",
                    measured, None if s8 is None else s8 / 2 <= BAR_WORD_SLACK,
                    ("ipc_roundtrip_inter_8w", "ipc_roundtrip_inter_63w")))

    for key, words, what in (("e", (0,), "0 words"), ("f", (8, 63), "8 and 63 words")):
        names = [f"{PISTACHIO_PREFIX}{mode}_{n}w" for mode in PISTACHIO_FIGURES for n in words]
        ok = None if any(g.get(n) is None for n in names) else all(
            g[n] <= pistachio_figure(n) for n in names)
        bars.append(Bar(key, f"every {PISTACHIO_PREFIX}*_{'/'.join(map(str, words))}w <= "
                             f"Pistachio's own figure ({what}, one-way IPC in its calling "
                             f"convention)",
                        na if ok is None else ", ".join(
                            f"{n[len(PISTACHIO_PREFIX):]} {g[n]:.2f} <= {pistachio_figure(n):g}"
                            for n in names),
                        ok, tuple(names)))
    fnull = g.get("foreign_syscall_null")
    bars.append(Bar("g", f"foreign_syscall_null <= {BAR_FOREIGN_NULL} guest instructions per "
                         f"reflected system call (native Linux getpid beside it)",
                    na if fnull is None else f"{fnull:.1f}",
                    None if fnull is None else fnull <= BAR_FOREIGN_NULL,
                    ("foreign_syscall_null",)))
    # (h) The same program's getpid on Linux in the same run; failing that, the reference
    # program's (also one bare `syscall`).  lx's figure is the larger of getpid alone and
    # getpid while another process waits with a timeout (issue 13 item 7: the same).
    lx_rows = [r for r in (LX_PREFIX + "getpid", LX_PREFIX + "getpid_sleeper") if r in g]
    lxg = max(g[r] for r in lx_rows) if lx_rows else None
    ref_name = LX_PREFIX + "getpid" if lin.get(LX_PREFIX + "getpid") else "getpid"
    ref = lin.get(ref_name)
    ok = None if lxg is None or not ref else lxg <= BAR_LX_GETPID * ref
    bars.append(Bar("h", f"getpid through lx <= {BAR_LX_GETPID:g}x native Linux getpid in "
                         f"guest instructions, also while another process waits with a timeout",
                    na if ok is None else f"{lxg:.1f} vs Linux {ref_name} {ref:.1f} "
                                          f"(<= {BAR_LX_GETPID * ref:.1f}): {lxg / ref:.2f}x",
                    ok, tuple(lx_rows) or (LX_PREFIX + "getpid",)))
    return bars


# --------------------------------------------------------------------------- tables

HEADER = ("benchmark", "Linux equivalent", "Pecan instr/op", "Linux instr/op", "Linux/Pecan",
          "Pecan TCG ns/op", "Linux TCG ns/op", "Linux/Pecan (ns)", "bars")
LINUX_HEADER = ("Linux benchmark", "instr/op", "TCG ns/op")
PISTACHIO_HEADER = ("Pistachio's convention", "Pistachio instr/IPC", "Pecan instr/IPC",
                    "Pistachio/Pecan", "Pecan fastpath=off", "bars")


def fmt(v, ratio: bool = False) -> str:
    if v is None:
        return "n/a"
    if ratio:
        return f"{v:.2f}" if v < 10 else f"{v:.1f}"
    return f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def bar_checks(bars: list) -> dict:
    """Row name -> the verdicts of the bars that annotate it, "(a) PASS" and so on."""
    checks: dict = {}
    for b in bars:
        for name in b.rows:
            checks.setdefault(name, []).append(f"({b.key}) {b.verdict}")
    return checks


def fmt2(v) -> str:
    """Two decimals: one-way IPC beside Pistachio's figures, which differ by fractions."""
    return "n/a" if v is None else f"{v:.2f}"


def table_rows(records: list, bars: list) -> list:
    """One row per Pecan measurement (HEADER's columns), cells as strings."""
    rows = {}
    for r in records:
        if r["system"] != "pecan":
            continue
        row = rows.setdefault(r["name"], {"linux_name": r["linux_name"]})
        row[r["unit"]] = (r["value"], r["linux"], r["ratio"])
    checks = bar_checks(bars)
    out = []
    for name, row in rows.items():
        if name.startswith(PISTACHIO_PREFIX):
            continue                    # their own table (pistachio_rows)
        gv, gl, gr = row.get(GUEST, (None, None, None))
        wv, wl, wr = row.get(WALL, (None, None, None))
        lname = "(same program)" if row["linux_name"] == name else row["linux_name"] or "-"
        out.append([name, lname, fmt(gv), fmt(gl), fmt(gr, True),
                    fmt(wv), fmt(wl), fmt(wr, True), " ".join(checks.get(name, []))])
    return out


def pistachio_rows(records: list, bars: list) -> list:
    """The Pistachio-convention rows beside Pistachio's own figures (PISTACHIO_HEADER)."""
    g = values(records, "pecan", GUEST)
    checks = bar_checks(bars)
    out = []
    for name, value in g.items():
        ref = pistachio_figure(name)
        if ref is None:
            continue
        out.append([name, f"{ref:.2f}", fmt2(value), fmt(_ratio(ref, value), True),
                    fmt(g.get(name + SLOWPATH)), " ".join(checks.get(name, []))])
    return out


def linux_rows(records: list) -> list:
    """The Linux reference programs (the personality's rows are in the main table)."""
    g = {n: v for n, v in values(records, "linux", GUEST).items() if not n.startswith(LX_PREFIX)}
    w = {n: v for n, v in values(records, "linux", WALL).items() if not n.startswith(LX_PREFIX)}
    return [[name, fmt(g.get(name)), fmt(w.get(name))] for name in dict.fromkeys([*g, *w])]


def _text_columns(header) -> set:
    """The left-aligned columns: the names (first two) and the bars (last) of a HEADER table,
    the name and the bars of PISTACHIO_HEADER's, only the name of a short one; the numbers are
    right-aligned."""
    if header == PISTACHIO_HEADER:
        return {0, len(header) - 1}
    return {0, 1, len(header) - 1} if len(header) > 3 else {0}


def format_text(header, rows) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    left = _text_columns(header)

    def line(cells):
        return "  ".join(str(c).ljust(w) if i in left else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(header), line("-" * w for w in widths), *map(line, rows)])


def format_markdown(header, rows) -> str:
    left = _text_columns(header)
    align = ["---" if i in left else "---:" for i in range(len(header))]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in [header, align, *rows])


def summary_lines(records: list, bars: list) -> list:
    """Bars and the fast path's gain, as plain lines (also used in the doc)."""
    lines = [f"({b.key}) {b.verdict}: {b.text}: {b.measured}" for b in bars]
    g = values(records, "pecan", GUEST)
    for kind in ("inter", "intra", "lipc"):
        fast, slow = g.get(f"ipc_roundtrip_{kind}_0w"), g.get(f"ipc_roundtrip_{kind}_0w{SLOWPATH}")
        if fast and slow:
            lines.append(f"fast path: {kind}_0w {fast:.1f} vs {slow:.1f} instructions with "
                         f"fastpath=off ({slow / fast:.2f}x)")
    lin = values(records, "linux", GUEST)
    inter, futex = g.get("ipc_roundtrip_inter_0w"), lin.get("futex_pingpong")
    if inter and futex:
        lines.append(f"Linux futex round trip / inter_0w: {futex:.0f} / {inter:.1f} = "
                     f"{futex / inter:.1f}")
    for r in records:
        if r["system"] == "pecan" and r["unit"] == GUEST and r["value"] is None and r["note"]:
            lines.append(f"{r['name']}: {r['note']}")
    return lines


# --------------------------------------------------------------------------- metadata

def _command_output(cmd: list, cwd=ROOT) -> str:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def host_cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def linux_kernel_version() -> Optional[str]:
    """The Debian package and version fetch_kernel.sh extracted, e.g.
    linux-image-6.1.0-56-amd64=6.1.192-2."""
    kv = ROOT / "build" / "linuxref" / "kernel-version"
    return kv.read_text().strip() if kv.is_file() else None


def collect_meta() -> dict:
    commit = _command_output(["git", "rev-parse", "HEAD"])
    dirty = bool(_command_output(["git", "status", "--porcelain", "--untracked-files=no"]))
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": commit or "unknown",
        "git_dirty": dirty,
        "qemu": (_command_output([qemu_run.QEMU, "--version"]).splitlines() or ["unknown"])[0],
        "linux_kernel": linux_kernel_version(),
        "host_cpu": host_cpu(),
        "host_cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def linux_info(run: linuxref.GuestRun, meta: dict) -> None:
    """The guest's kernel release and its TSC = instructions self-check, into meta."""
    for line in run.parsed.info:
        if line.startswith("kernel="):
            meta["linux_uname"] = line[len("kernel="):]
        if line.startswith("tsc_calib "):
            meta["icount_check"] = line
            if linuxref.parse_kv(line).get("exact") != 1:
                log(f"WARNING: TSC != guest instructions under icount? {line}")


# --------------------------------------------------------------------------- plots

def plot_python() -> Optional[str]:
    """An interpreter that imports matplotlib: this one, or Debian's (python3-matplotlib
    installs for /usr/bin/python3, which need not be the one running make)."""
    for py in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return py
    return None


def ensure_matplotlib() -> Optional[str]:
    py = plot_python()
    if py:
        return py
    # tools/deps.sh --bench installs python3-matplotlib as root; otherwise it prints the
    # apt-get command and fails.
    log("matplotlib not found: tools/deps.sh --bench")
    env = dict(os.environ, PYTHON=sys.executable)
    subprocess.run(["sh", str(ROOT / "tools" / "deps.sh"), "--bench"], env=env,
                   stdout=sys.stderr)      # apt's chatter: keep stdout for the table
    py = plot_python()
    if not py:
        log("WARNING: no plots (matplotlib missing). Install it with:\n"
            "    sudo apt-get install -y --no-install-recommends python3-matplotlib")
    return py


def make_plots(results: pathlib.Path, out_dir: pathlib.Path) -> list:
    """Draw the PNGs with tools/plot.py; returns their paths (empty if there is no
    matplotlib or plotting failed, which is reported but is not a failed run)."""
    py = ensure_matplotlib()
    if not py:
        return []
    r = subprocess.run([py, str(ROOT / "tools" / "plot.py"), str(results), str(out_dir)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        log(f"WARNING: tools/plot.py failed:\n{r.stderr.strip()}")
        return []
    return [pathlib.Path(p) for p in r.stdout.split()]


def make_macro_plots(out_dir: pathlib.Path) -> list:
    """macro_users.png from macro.json (tools/macrobench.py --plot, with a Python that has
    matplotlib)."""
    py = ensure_matplotlib()
    data = out_dir / "macro.json"
    if not py or not data.is_file():
        return []
    r = subprocess.run([py, str(ROOT / "tools" / "macrobench.py"), "--plot", str(data),
                        "--out", str(out_dir)], capture_output=True, text=True)
    if r.returncode != 0:
        log(f"WARNING: macrobench.py --plot failed:\n{r.stderr.strip()}")
        return []
    return [pathlib.Path(p) for p in r.stdout.split()]


# --------------------------------------------------------------------------- docs

def replace_section(text: str, body: str, begin_mark: str = DOC_BEGIN,
                    end_mark: str = DOC_END) -> str:
    """text with everything between the two markers replaced by body."""
    begin, end = text.find(begin_mark), text.find(end_mark)
    if begin < 0 or end < begin:
        raise ValueError(f"markers {begin_mark} ... {end_mark} missing or out of order")
    return text[:begin + len(begin_mark)] + "\n" + body.strip("\n") + "\n" + text[end:]


def render_doc(meta: dict, records: list, bars: list, plots: list) -> str:
    commit = meta["git_commit"][:12] + (" (with uncommitted changes)" if meta["git_dirty"] else "")
    linux = meta.get("linux_uname") or meta.get("linux_kernel") or "n/a"
    out = [f"Figures of {meta['date']}, commit {commit}; {meta['qemu']}; Linux {linux} "
           f"(`{meta.get('linux_kernel')}`); host {meta['host_cpu']} "
           f"({meta['host_cpus']} CPUs).", ""]
    out += [format_markdown(HEADER, table_rows(records, bars)), ""]
    prows = pistachio_rows(records, bars)
    if prows:
        out += ["Pistachio's calling convention (`docs/ipc.md` §4.1): one-way IPC, Pecan beside "
                "Pistachio's own kernel running its own pingpong in the same QEMU:", "",
                format_markdown(PISTACHIO_HEADER, prows), ""]
    out += ["Bars and notes:", ""] + [f"* {line}" for line in summary_lines(records, bars)]
    lrows = linux_rows(records)
    if lrows:
        out += ["", "The Linux reference programs themselves:", "",
                format_markdown(LINUX_HEADER, lrows)]
    titles = {"ipc_roundtrip.png": "IPC round trips", "ipc_strings.png": "String IPC",
              "vm.png": "Virtual-memory operations", "lx.png": "The Linux personality"}
    for p in plots:
        out += ["", f"![{titles.get(p.name, p.stem)}](perf/{p.name})"]
    return "\n".join(out) + "\n"


def update_docs(meta, records, bars, plots, macro: Optional[dict] = None,
                table4: Optional[list] = None) -> None:
    DOC_PLOTS.mkdir(parents=True, exist_ok=True)
    names = {p.name for p in plots}
    for old in DOC_PLOTS.glob("*.png"):
        if old.name not in names:
            old.unlink()                # e.g. vm.png from a run that had vmbench
    for p in plots:
        shutil.copyfile(p, DOC_PLOTS / p.name)
    text = replace_section(DOC.read_text(), render_doc(meta, records, bars, plots))
    if macro is not None:
        body = macrobench.doc_section(macro)
        body += "".join(f"\n![Multi-user mix](perf/{p.name})\n" for p in plots
                        if p.name.startswith("macro_"))
        text = replace_section(text, body, MACRO_BEGIN, MACRO_END)
    if table4 is not None:
        text = replace_section(text, table4bench.markdown(table4), TABLE4_BEGIN, TABLE4_END)
    DOC.write_text(text)


# --------------------------------------------------------------------------- kernel bounds

BOUNDS_PROGRAM = "unmapbench"   # user/bench/unmapbench.c; docs/scheduling.md "Interrupts off"


def measure_bounds(runner: Runner, out_dir: pathlib.Path) -> None:
    """Guest instructions the longest kernel operations run with interrupts off (one Unmap of
    a large region, one space deletion), under icount: printed and written to bounds.json;
    not part of the Linux comparison, the bars or docs/performance.md."""
    if not (ROOT / "build" / "user" / f"{BOUNDS_PROGRAM}.elf").is_file():
        log(f"build/user/{BOUNDS_PROGRAM}.elf not built: no interrupts-off bounds")
        return
    if runner.pecan(BOUNDS_PROGRAM, icount=True) is None:
        return
    console = (out_dir / f"pecan-{BOUNDS_PROGRAM}-icount.log").read_text()
    rows = [{"name": n, "mappings": r["iters"], "instructions_per_mapping": r["tsc_per_op"],
             "instructions": r["tsc"]} for n, r in linuxref.parse_console(console).results.items()]
    (out_dir / "bounds.json").write_text(json.dumps(rows, indent=1) + "\n")
    for r in rows:
        print(f"{r['name']:<20} {r['mappings']:>7} mappings {r['instructions_per_mapping']:>7.2f}"
              f" instr/mapping {r['instructions']:>9} instr with interrupts off")


# --------------------------------------------------------------------------- main

def measure_pecan(runner: Runner, quick: bool, repeat: int, skipped: list,
                  only: Optional[str] = None) -> dict:
    """unit -> name -> {"value", "iters"} from every Pecan run (only: that program alone)."""
    programs = []
    for program, required in PROGRAMS:
        if only and program != only:
            skipped.append(f"{program}: not selected")
            continue
        if (ROOT / "build" / "user" / f"{program}.elf").is_file():
            programs.append(program)
        elif required:
            runner.fail(f"pecan {program}", f"build/user/{program}.elf missing (run make)")
        else:
            skipped.append(f"{program}: build/user/{program}.elf not built")
            log(f"build/user/{program}.elf does not exist (not built yet): "
                f"skipping its measurements")

    pecan: dict = {GUEST: {}, WALL: {}}
    for program in programs:
        pecan[GUEST].update(runner.pecan(program, icount=True) or {})
    if SLOWPATH_PROGRAM in programs:
        slow = runner.pecan(SLOWPATH_PROGRAM, icount=True, cmdline="kdb=batch fastpath=off",
                            label="fastpath-off")
        pecan[GUEST].update(slowpath_names(slow or {}))
    if not quick:
        for program in programs:
            runs = [runner.pecan(program, icount=False) for _ in range(repeat)]
            pecan[WALL].update(merge_min(r for r in runs if r))
    return pecan


def measure_linux(runner: Runner, quick: bool, repeat: int, meta: dict) -> Optional[dict]:
    """unit -> name -> {"value", "iters"} from the Linux runs; None if the guest could not
    be prepared."""
    try:
        linuxref.prepare()
    except linuxref.LinuxBenchError as e:
        runner.fail("linux prepare", str(e))
        return None
    meta["linux_kernel"] = linux_kernel_version()      # prepare() may have fetched a newer one
    iters = LINUX_QUICK_ITERS if quick else None
    linux: dict = {GUEST: {}, WALL: {}}
    run = runner.linux(icount=True, iters=iters)
    if run:
        linux[GUEST] = parse_linux(run.parsed.results, icount=True)
        linux_info(run, meta)
    if not quick:
        runs = [runner.linux(icount=False, iters=iters) for _ in range(repeat)]
        linux[WALL] = merge_min(parse_linux(r.parsed.results, icount=False) for r in runs if r)
    return linux


def prepare_lx() -> None:
    """make initramfs: the test programs (lxbench among them) and Debian's busybox-static
    (downloaded once, cached under build/linux/).  Raises BenchError."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "initramfs"], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0 or not INITRAMFS.is_file():
        raise BenchError(f"make initramfs failed:\n{(r.stdout + r.stderr).strip()}")


def measure_lx(runner: Runner, linux: bool, quick: bool = True) -> tuple:
    """The personality's rows: (Pecan's, Linux's), each unit -> name -> {"value", "iters"[,
    "na"]}; Linux's is empty without linux.  Guest instructions under icount; without quick
    also TCG ns (lxbench's TSC deltas without icount are host ticks, docs/performance.md
    "Where TCG's wall time goes")."""
    pecan: dict = {GUEST: {}, WALL: {}}
    ref: dict = {GUEST: {}, WALL: {}}
    try:
        prepare_lx()
    except BenchError as e:
        runner.fail("lx prepare", str(e))
        return pecan, ref
    for unit, icount in ((GUEST, True),) + (() if quick else ((WALL, False),)):
        pecan[unit] = runner.lx(icount=icount) or {}
        if linux:
            ref[unit] = {n: m for n, m in (runner.linux_lx(icount=icount) or {}).items()
                         if m["value"] is not None}
    return pecan, ref


def measure_table4(runner: Runner, lx_pecan: dict, lx_linux: dict, quick: bool) -> list:
    """Table 4's rows (tools/table4bench.py): table4 under lx (guest instructions; without
    quick also TCG ns) beside lxbench's pipe rows on lx and on Linux from measure_lx."""
    t4: dict = {GUEST: {}, WALL: {}}
    for unit, icount in ((GUEST, True),) + (() if quick else ((WALL, False),)):
        t4[unit] = {n: m for n, m in (runner.lx(icount=icount, program=table4bench.PROGRAM)
                                      or {}).items() if m["value"] is not None}
    lx = {u: {**lx_pecan.get(u, {}), **t4[u]} for u in (GUEST, WALL)}
    return table4bench.rows({"linux": lx_linux, "lx": lx})


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(description="Pecan benchmarks beside native Linux in the "
                                 "same QEMU; see docs/performance.md.")
    ap.add_argument("--quick", action="store_true",
                    help="no wall-clock runs; fewer iterations for Linux")
    ap.add_argument("--no-linux", action="store_true",
                    help="skip the Linux runs (ratios n/a; docs not updated)")
    ap.add_argument("--pingpong", action="store_true",
                    help="only pingpong under icount, with and without the fast path "
                         "(implies --quick --no-linux)")
    ap.add_argument("--no-lx", action="store_true",
                    help="skip the Linux personality's rows (lxbench under lx and on Linux) "
                         "and Table 4")
    ap.add_argument("--no-macro", action="store_true",
                    help="skip the macro benchmarks (compile, multi-user: tools/macrobench.py)")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="wall-clock boots per system; the minimum per benchmark counts")
    ap.add_argument("--no-docs", action="store_true", help="leave docs/performance.md alone")
    ap.add_argument("--out", default=str(ROOT / "build" / "bench"), metavar="DIR",
                    help="output directory (default build/bench)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds per Pecan boot (a Linux boot has tools/linuxref's 900)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.pingpong:
        args.quick = args.no_linux = True

    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t_start = time.monotonic()
    runner = Runner(out_dir, args.timeout)
    meta = collect_meta()
    skipped: list = []
    pecan = measure_pecan(runner, args.quick, args.repeat, skipped,
                          only=SLOWPATH_PROGRAM if args.pingpong else None)
    if not args.pingpong:
        measure_bounds(runner, out_dir)
    linux = None
    if args.no_linux:
        skipped.append("linux: --no-linux")
    else:
        linux = measure_linux(runner, args.quick, args.repeat, meta)
    table4 = None
    if args.no_lx or args.pingpong:
        skipped.append("lx: " + ("--no-lx" if args.no_lx else "--pingpong"))
    else:
        lx_pecan, lx_linux = measure_lx(runner, linux is not None, args.quick)
        table4 = measure_table4(runner, lx_pecan, lx_linux, args.quick)
        for unit in (GUEST, WALL):
            pecan[unit].update(lx_pecan[unit])
            if linux is not None:
                linux[unit].update(lx_linux[unit])

    macro = None
    if args.no_macro or args.pingpong:
        skipped.append("macro: " + ("--no-macro" if args.no_macro else "--pingpong"))
    else:
        macro = macrobench.measure(out_dir, quick=args.quick, linux=linux is not None)
        for f in macro["failures"]:
            runner.fail("macro", f)
        for r in macro["runs"]:
            runner.runs.append(RunLog(f"macro {r['system']} {r['mode']}", round(r["seconds"], 1),
                                      r["command"], True))

    records = build_records(pecan, linux)
    bars = evaluate_bars(records)
    results = out_dir / "results.json"
    results.write_text(json.dumps(records, indent=1) + "\n")

    print(format_text(HEADER, table_rows(records, bars)))
    print()
    prows = pistachio_rows(records, bars)
    if prows:
        print(format_text(PISTACHIO_HEADER, prows))
        print()
    for line in summary_lines(records, bars):
        print(line)
    lrows = linux_rows(records)
    if lrows:
        print()
        print(format_text(LINUX_HEADER, lrows))

    plots = make_plots(results, out_dir)
    if macro is not None:
        print()
        print(macrobench.table(macro["records"], macrobench.bar_tuples(macro)))
        plots += make_macro_plots(out_dir)
    if table4 is not None:
        print()
        print(table4bench.text(table4))
    meta.update({
        "options": {"quick": args.quick, "no_linux": args.no_linux, "repeat": args.repeat,
                    "pingpong": args.pingpong, "no_lx": args.no_lx,
                    "no_macro": args.no_macro},
        "runs": [vars(r) for r in runner.runs],
        "bars": [{"bar": b.key, "text": b.text, "measured": b.measured, "verdict": b.verdict}
                 for b in bars],
        "skipped": skipped,
        "failures": runner.failures,
        "plots": [p.name for p in plots],
        "table4": table4,
        "seconds": round(time.monotonic() - t_start, 1),
    })
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")

    if args.no_docs:
        log(f"{DOC.relative_to(ROOT)} not updated (--no-docs)")
    elif args.quick or args.no_linux or runner.failures:
        log(f"{DOC.relative_to(ROOT)} not updated (it keeps the figures of complete runs: "
            f"no --quick, no --no-linux, no failed run)")
    else:
        update_docs(meta, records, bars, plots, macro, table4)
        log(f"updated {DOC.relative_to(ROOT)}"
            + (f" and {DOC_PLOTS.relative_to(ROOT)}/" if plots else ""))

    for s in skipped:
        log(f"skipped: {s}")
    log(f"wrote {results}, {out_dir / 'meta.json'}"
        + "".join(f", {p}" for p in plots) + f" in {meta['seconds']:.0f} s")
    if runner.failures:
        log(f"{len(runner.failures)} run(s) FAILED:\n  " + "\n  ".join(
            f.splitlines()[0] for f in runner.failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
