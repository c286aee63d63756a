#!/usr/bin/env python3
"""Run the native-Linux reference benchmarks inside a QEMU guest.

Boots Debian 12's stock kernel (fetch_kernel.sh) with our static /init
(build_initramfs.py) in qemu-system-x86_64 under TCG, reads the BENCH lines
from the serial console and returns them.

Two kinds of run, both on the same QEMU setup we measure our own kernel on:
  icount=True   -icount shift=0,sleep=off -rtc clock=vm: the guest TSC
                counts executed guest instructions, so tsc_per_op is
                instructions per operation (deterministic).
  icount=False  plain TCG: ns_per_op is wall-clock time per operation in the
                emulator (noisy, host dependent); TSC figures are host ticks.

Library use:
    from run import run_linux_bench
    run_linux_bench(["pipe", "getpid"], iters=10000)
      -> {"getpid": {"instr_per_op": 314.9, "ns_per_op": 314.9, ...}, ...}

CLI: tools/linuxref/run.py --help
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "build" / "linuxref"
DEFAULT_KERNEL = OUT_DIR / "vmlinuz"
DEFAULT_INITRD = OUT_DIR / "initramfs.cpio.gz"

# quiet: keep kernel messages from interleaving with BENCH lines.
# panic=-1 (+ -no-reboot): a panic ends QEMU at once instead of hanging.
# nokaslr/norandmaps: same kernel and user addresses on every boot, one less
# source of run-to-run differences in instruction counts.
BASE_APPEND = "console=ttyS0 quiet panic=-1 nokaslr norandmaps"

# sleep=off: when the guest idles (the benchmarks never do, see the idle_ms
# INFO lines, but the console driver briefly does between them), virtual time
# jumps to the next timer instead of following the host clock. With sleep=on
# those idle gaps last host-dependent virtual time, shift the phase of the
# timer tick and make results vary by ~0.1-1% from run to run. See README.md.
# base=: the RTC otherwise starts at the host's current time, which the guest
# reads at boot; a fixed date removes that input (needed for bit-identical
# runs, see deterministic=).
RTC_ARGS = ["-rtc", "clock=vm,base=2024-01-01T00:00:00"]
ICOUNT_ARGS = ["-icount", "shift=0,sleep=off", *RTC_ARGS]
ICOUNT_ARGS_SLEEP_ON = ["-icount", "shift=0,sleep=on", *RTC_ARGS]

_BENCH_RE = re.compile(r"(?:^|\s)BENCH name=(\S+)((?:\s+[A-Za-z_]\w*=\S+)*)\s*$")
_ERROR_RE = re.compile(r"(?:^|\s)BENCH-ERROR\s+(.*?)\s*$")
_DONE_RE = re.compile(r"(?:^|\s)BENCH-DONE\s*$")
_INFO_RE = re.compile(r"(?:^|\s)INFO (.*?)\s*$")
_KV_RE = re.compile(r"([A-Za-z_]\w*)=(\S+)")
# Terminal control sequences (SeaBIOS clears the screen right before the guest's first line).
_ESC_RE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_]|c)")


class LinuxBenchError(RuntimeError):
    """A guest run failed; the message ends with the console tail."""


@dataclass
class ParsedConsole:
    results: dict[str, dict] = field(default_factory=dict)
    errors: list[dict] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    done: bool = False


def _number(s: str):
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


def parse_kv(text: str) -> dict:
    """'a=1 b=2.5 c=x' -> {'a': 1, 'b': 2.5, 'c': 'x'}"""
    return {k: _number(v) for k, v in _KV_RE.findall(text)}


def parse_console(text: str) -> ParsedConsole:
    """Extract BENCH / BENCH-ERROR / BENCH-DONE / INFO lines from console
    output. Tolerates CRs, escape sequences and other text before the marker
    on the same line (a kernel message can precede it)."""
    p = ParsedConsole()
    for raw in text.splitlines():
        line = _ESC_RE.sub("", raw.replace("\r", ""))
        if m := _BENCH_RE.search(line):
            rec = parse_kv(m.group(2))
            rec["name"] = m.group(1)
            p.results[m.group(1)] = rec
        elif m := _ERROR_RE.search(line):
            p.errors.append(parse_kv(m.group(1)) or {"raw": m.group(1)})
        elif _DONE_RE.search(line):
            p.done = True
        elif m := _INFO_RE.search(line):
            p.info.append(m.group(1))
            if m.group(1).startswith("start "):
                name = parse_kv(m.group(1)).get("name")
                if name:
                    p.started.append(str(name))
    return p


def selection_args(benches: Iterable[str] | str, iters: int | Mapping[str, int] | None = None,
                   warmup: int | None = None) -> str:
    """Kernel command-line words selecting benchmarks, e.g.
    (['pipe','getpid'], 1000) -> 'bench=pipe,getpid iters=1000'.
    iters may be a dict name -> count for per-benchmark counts."""
    names = [benches] if isinstance(benches, str) else list(benches)
    if not names:
        raise ValueError("no benchmarks selected")
    entries = []
    for n in names:
        if not re.fullmatch(r"[A-Za-z0-9_]+(:\d+)?", n):
            raise ValueError(f"bad benchmark name {n!r}")
        if isinstance(iters, Mapping) and n in iters:
            n = f"{n}:{int(iters[n])}"
        entries.append(n)
    words = ["bench=" + ",".join(entries)]
    if isinstance(iters, int):
        if iters <= 0:
            raise ValueError("iters must be positive")
        words.append(f"iters={iters}")
    if warmup is not None:
        words.append(f"warmup={int(warmup)}")
    return " ".join(words)


def qemu_command(kernel: Path, initrd: Path, append: str, icount: bool,
                 qemu: str = "qemu-system-x86_64", icount_sleep: bool = False,
                 deterministic: bool = False, memory: int = 256) -> list[str]:
    # memory: guest MiB (the Debian root's 343 MiB initramfs needs more than the default).
    # deterministic: hide RDRAND/RDSEED, the only host entropy the guest
    # kernel can read; its RNG then depends on nothing but the (icount)
    # TSC, and icount runs repeat bit for bit. Off by default so the CPU is
    # exactly the "-cpu max" our own kernel is measured on.
    cpu = "max,-rdrand,-rdseed" if deterministic else "max"
    cmd = [qemu, "-machine", "pc", "-accel", "tcg", "-cpu", cpu, "-m", str(memory),
           "-smp", "1", "-nographic", "-no-reboot", "-net", "none",
           "-kernel", str(kernel), "-initrd", str(initrd), "-append", append]
    if icount:
        cmd += ICOUNT_ARGS_SLEEP_ON if icount_sleep else ICOUNT_ARGS
    else:
        cmd += RTC_ARGS
    return cmd


_ANSI_RE = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[A-Za-z])")


def _tail(text: str, lines: int = 40) -> str:
    # SeaBIOS clears the screen with escape sequences; keep the tail readable.
    return "\n".join(_ANSI_RE.sub("", text).replace("\r", "").splitlines()[-lines:])


@dataclass
class GuestRun:
    parsed: ParsedConsole
    console: str
    command: list[str]
    seconds: float
    log_path: Path


def run_guest(append_words: str, icount: bool = True, timeout: float = 900, *,
              kernel: Path | None = None, initrd: Path | None = None,
              qemu: str = "qemu-system-x86_64", extra_append: str = "",
              log_path: Path | None = None, icount_sleep: bool = False,
              deterministic: bool = False) -> GuestRun:
    """Boot the guest once and return everything it printed, raising
    LinuxBenchError unless it reached BENCH-DONE with no BENCH-ERROR."""
    kernel = Path(kernel or DEFAULT_KERNEL)
    initrd = Path(initrd or DEFAULT_INITRD)
    if not kernel.is_file():
        raise LinuxBenchError(f"kernel {kernel} missing: run tools/linuxref/fetch_kernel.sh "
                              "(or run.py --prepare)")
    if not initrd.is_file():
        raise LinuxBenchError(f"initramfs {initrd} missing: run tools/linuxref/build_initramfs.py "
                              "(or run.py --prepare)")
    if shutil.which(qemu) is None:
        raise LinuxBenchError(f"{qemu} not found (Debian package: qemu-system-x86)")

    append = " ".join(w for w in (BASE_APPEND, append_words, extra_append) if w)
    cmd = qemu_command(kernel, initrd, append, icount, qemu, icount_sleep, deterministic)
    if log_path is None:
        log_path = OUT_DIR / f"console-{'icount' if icount else 'wall'}.log"
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)

    # Console goes straight to a file: no pipe to drain, and the log survives
    # for inspection whatever happens to this process.
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT)
        try:
            rc = proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rc, timed_out = proc.returncode, True
    seconds = time.monotonic() - t0
    console = log_path.read_bytes().decode("utf-8", "replace")
    parsed = parse_console(console)

    def fail(why: str):
        raise LinuxBenchError(f"{why}\ncommand: {shlex.join(cmd)}\nconsole log: {log_path}\n"
                              f"--- console tail ---\n{_tail(console)}")

    if timed_out:
        fail(f"guest did not finish within {timeout:.0f} s (killed)")
    if parsed.errors:
        fail("guest reported errors: " + "; ".join(
            " ".join(f"{k}={v}" for k, v in e.items()) for e in parsed.errors))
    if not parsed.done:
        fail(f"guest ended (qemu exit status {rc}) without printing BENCH-DONE")
    missing = [n for n in parsed.started if n not in parsed.results]
    if missing:
        fail(f"benchmarks started but printed no result: {', '.join(missing)}")
    if rc != 0:
        fail(f"qemu exited with status {rc}")
    return GuestRun(parsed, console, cmd, seconds, log_path)


def run_linux_bench(benches: Iterable[str] | str = ("all",),
                    iters: int | Mapping[str, int] | None = None,
                    icount: bool = True, timeout: float = 900, *,
                    warmup: int | None = None, **kw) -> dict[str, dict]:
    """Run benchmarks in one guest boot.

    Returns name -> {"instr_per_op", "ns_per_op", "tsc_per_op", "iters"}.
    instr_per_op is the TSC delta per operation when icount=True (== guest
    instructions) and None otherwise (the TSC is then host ticks). ns_per_op
    is virtual ns under icount (== instructions) and wall-clock TCG ns
    without. Extra keyword arguments go to run_guest().
    """
    run = run_guest(selection_args(benches, iters, warmup), icount, timeout, **kw)
    return {name: {
        "instr_per_op": r.get("tsc_per_op") if icount else None,
        "ns_per_op": r.get("ns_per_op"),
        "tsc_per_op": r.get("tsc_per_op"),
        "iters": r.get("iters"),
    } for name, r in run.parsed.results.items()}


def prepare() -> None:
    """Fetch the kernel and build the initramfs (both cached/idempotent)."""
    here = Path(__file__).resolve().parent
    for cmd in (["bash", str(here / "fetch_kernel.sh")],
                [sys.executable, str(here / "build_initramfs.py")]):
        if subprocess.run(cmd).returncode != 0:
            raise LinuxBenchError(f"{shlex.join(cmd)} failed (see its output above)")


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Run native-Linux reference benchmarks in a QEMU guest.")
    ap.add_argument("--bench", default="all",
                    help="comma list of benchmarks/groups, NAME[:ITERS] (default: all)")
    ap.add_argument("--iters", type=int, help="iterations for every benchmark (default: per-benchmark)")
    ap.add_argument("--warmup", type=int, help="untimed warm-up iterations")
    ap.add_argument("--mode", choices=("both", "icount", "wall"), default="both",
                    help="icount: instructions/op; wall: TCG ns/op; both (default): one run each")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per guest boot")
    ap.add_argument("--repeat", type=int, default=1,
                    help="boots per mode; the table shows the minimum per benchmark")
    ap.add_argument("--append", default="", help="extra kernel command-line words")
    ap.add_argument("--icount-sleep", action="store_true",
                    help="use -icount sleep=on instead of sleep=off")
    ap.add_argument("--deterministic", action="store_true",
                    help="-cpu max,-rdrand,-rdseed: bit-identical icount runs")
    ap.add_argument("--qemu", default="qemu-system-x86_64")
    ap.add_argument("--prepare", action="store_true",
                    help="run fetch_kernel.sh and build_initramfs.py first")
    ap.add_argument("--json", metavar="FILE", help="also write results as JSON ('-' = stdout)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    try:
        if args.prepare:
            prepare()
        words = selection_args(args.bench.split(","), args.iters, args.warmup)
        runs: dict[str, list[GuestRun]] = {}
        for mode in (("icount", "wall") if args.mode == "both" else (args.mode,)):
            for i in range(args.repeat):
                r = run_guest(words, icount=mode == "icount", timeout=args.timeout,
                              qemu=args.qemu, extra_append=args.append,
                              icount_sleep=args.icount_sleep,
                              deterministic=args.deterministic)
                print(f"{mode} run {i + 1}/{args.repeat}: {r.seconds:.1f} s, "
                      f"console log {r.log_path}", file=sys.stderr)
                runs.setdefault(mode, []).append(r)
    except (LinuxBenchError, ValueError) as e:
        print(f"run.py: ERROR: {e}", file=sys.stderr)
        return 1

    def best(mode: str, name: str, key: str):
        # Minimum over repeats: host noise only ever adds time.
        vals = [r.parsed.results[name][key] for r in runs.get(mode, [])
                if name in r.parsed.results and key in r.parsed.results[name]]
        return (min(vals), max(vals)) if vals else (None, None)

    first = (runs.get("icount") or runs["wall"])[0]
    merged = {}
    for n, rec in first.parsed.results.items():
        instr, instr_max = best("icount", n, "tsc_per_op")
        wall, wall_max = best("wall", n, "ns_per_op")
        merged[n] = {"iters": rec.get("iters"), "instr_per_op": instr,
                     "wall_ns_per_op": wall, "instr_per_op_max": instr_max,
                     "wall_ns_per_op_max": wall_max}
    for r in runs.get("icount", []):
        for line in r.parsed.info:
            if line.startswith("tsc_calib "):
                ok = parse_kv(line).get("exact") == 1
                print(f"icount check {'ok' if ok else 'FAILED (TSC != instructions?)'}: {line}",
                      file=sys.stderr)

    print(f"{'benchmark':<18} {'iters':>8} {'instr/op':>12} {'TCG ns/op':>12}")
    for n, r in merged.items():
        print(f"{n:<18} {r['iters']:>8} {_fmt(r['instr_per_op']):>12} "
              f"{_fmt(r['wall_ns_per_op']):>12}")
    if args.json:
        doc = {"results": merged,
               "info": first.parsed.info,
               "runs": {m: [{"seconds": round(r.seconds, 1), "command": shlex.join(r.command)}
                            for r in rs] for m, rs in runs.items()}}
        text = json.dumps(doc, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
