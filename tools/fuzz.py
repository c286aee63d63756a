#!/usr/bin/env python3
"""A fuzzing campaign: the system-call fuzzer (user/tests/test_fuzz.c) with many seeds across
the kernel configurations, at most two QEMUs at a time.

Each run boots test_fuzz as the root task with seed=N rounds=R desc=D (and the
configuration's own options) and counts the fuzzer's calls (the unprivileged phases' and the
privileged one's) and the descriptor-attack phase's operations; a run fails if a test case
fails, the kernel drops into its debugger, or QEMU times out.  The descriptor phase executes
D selectors of each of its operations exhaustively per run, the slice chosen by the seed
(seed mod 65536/D), so 65536/D consecutive seeds cover all 65,536 selectors; the summary says
how many each configuration covered.  At the end (or when the time budget is spent: no new
run starts then) it prints the runs, calls, calls per minute and every failure with the
command line that repeats it.  Runs under -icount are exact repetitions; the real-time
configuration (release-rt) is not.

    tools/fuzz.py --seeds 100 --rounds 50 --configs fast,slow,kmem,release --budget 3600
    tools/fuzz.py --seeds 16 --desc 4096 --rounds 10     # every selector, every configuration
    make fuzz FUZZ_ARGS="--seeds 20 --budget 600"

Logs of failed runs and a summary go to build/fuzz/."""
import argparse
import concurrent.futures
import pathlib
import re
import shlex
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "fuzz"
QEMU_RUN = ROOT / "tools" / "qemu_run.py"

# name: (kernel, kernel command line, extra fuzzer options, -icount, QEMU CPU)
CONFIGS = {
    "fast": ("build/kernel-debug.bin", "kdb=batch", "", True, "max"),
    "slow": ("build/kernel-debug.bin", "kdb=batch fastpath=off", "", True, "max"),
    # A 4 MiB kernel pool: rounds with the pool full, a leak check after every round.
    "kmem": ("build/kernel-debug.bin", "kdb=batch kmem=4M", "squeeze=3 leak=1", True, "max"),
    "release": ("build/kernel.bin", "kdb=batch", "squeeze=8", True, "max"),
    # No SMEP, SMAP, FSGSBASE: far transfers from user mode complete (under SMAP QEMU 7.2
    # faults on their stack accesses, docs/testing.md), and FS/GS bases go through MSRs.
    "qemu64": ("build/kernel-debug.bin", "kdb=batch", "", True, "qemu64"),
    "release-rt": ("build/kernel.bin", "kdb=batch", "", False, "max"),
}
DEFAULT_CONFIGS = "fast,slow,kmem,release,qemu64"

CALLS_RE = re.compile(r"^# [^:]+: \d+ rounds, .*?, (\d+) calls,", re.M)
PRIV_RE = re.compile(r"^# privileged: (\d+) calls", re.M)
DESC_RE = re.compile(r"^# descriptors: \d+ rounds, .*?, (\d+) ops .*?selectors (0x[0-9a-f]+|0)-"
                     r"(0x[0-9a-f]+|0) and 0-0x3f of each of (\d+) operations", re.M)
DONE_RE = re.compile(r"PECAN-TEST-DONE passed=(\d+) failed=(\d+)")
SELECTORS = 65536


def fuzz_args(config, seed, rounds, desc):
    extra = CONFIGS[config][2]
    return f"seed={seed} rounds={rounds} desc={desc}" + (f" {extra}" if extra else "")


def command(config, seed, rounds, desc, timeout):
    kernel, cmdline, _, icount, cpu = CONFIGS[config]
    cmd = [sys.executable, str(QEMU_RUN), "--timeout", str(timeout), "--cmdline", cmdline,
           "--cpu", cpu]
    if icount:
        cmd.append("--icount")
    cmd += [kernel, "sigma0", f"test_fuzz:{fuzz_args(config, seed, rounds, desc)}"]
    return cmd


def repro(config, seed, rounds, desc):
    kernel, cmdline, _, icount, cpu = CONFIGS[config]
    args = fuzz_args(config, seed, rounds, desc)
    return ("tools/qemu_run.py" + (" --icount" if icount else "") + f" --cpu {cpu}" +
            f" --cmdline {shlex.quote(cmdline)} {kernel} sigma0 {shlex.quote('test_fuzz:' + args)}")


def run_one(config, seed, rounds, desc, timeout):
    t0 = time.monotonic()
    proc = subprocess.run(command(config, seed, rounds, desc, timeout), cwd=ROOT,
                          capture_output=True, text=True, errors="replace")
    out = proc.stdout + proc.stderr
    calls = sum(int(m) for m in CALLS_RE.findall(out)) + sum(int(m) for m in PRIV_RE.findall(out))
    d = DESC_RE.search(out)
    ops = int(d.group(1)) if d else 0
    # The exhaustive slice this run covered (plus 0-0x3f, which every run covers).
    covered = set(range(int(d.group(2), 16), int(d.group(3), 16) + 1)) if d else set()
    done = DONE_RE.search(out)
    why = None
    if proc.returncode == 124:
        why = "timeout"
    elif proc.returncode == 5:
        why = "kernel debugger (panic or invariant)"
    elif not done:
        why = f"no result line (exit {proc.returncode})"
    elif int(done.group(2)) != 0:
        first = next((l for l in out.splitlines() if l.startswith("not ok")), "")
        why = f"{done.group(2)} case(s) failed: {first}"
    elif proc.returncode != 0:
        why = f"exit {proc.returncode}"
    return dict(config=config, seed=seed, calls=calls, ops=ops, covered=covered,
                secs=time.monotonic() - t0, why=why, out=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=8, help="seeds per configuration (default 8)")
    ap.add_argument("--first-seed", type=int, default=1, help="seeds first-seed, first-seed+1, ...")
    ap.add_argument("--rounds", type=int, default=50, help="rounds per phase (default 50)")
    ap.add_argument("--desc", type=int, default=4096,
                    help="selectors per descriptor operation and run, exhaustively (a power of "
                         "two; default 4096: 16 seeds cover all 65,536)")
    ap.add_argument("--configs", default=DEFAULT_CONFIGS,
                    help=f"comma-separated, of {', '.join(CONFIGS)} (default {DEFAULT_CONFIGS})")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds; no run starts after that (default: no limit)")
    ap.add_argument("--jobs", type=int, default=2, help="QEMUs at once (1 or 2)")
    ap.add_argument("--timeout", type=int, default=0,
                    help="seconds per run (default: 60 + 3 per round)")
    a = ap.parse_args()
    configs = [c for c in a.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            ap.error(f"unknown configuration {c!r}")
    jobs = max(1, min(a.jobs, 2))
    timeout = a.timeout or 60 + 3 * a.rounds + a.desc // 64
    # Seed-major order: every configuration gets each seed before the next seed starts.
    plan = [(c, s) for s in range(a.first_seed, a.first_seed + a.seeds) for c in configs]
    OUT.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    results, lock = [], threading.Lock()
    pending = iter(plan)

    def worker():
        while True:
            with lock:
                if a.budget and time.monotonic() - start > a.budget:
                    return
                item = next(pending, None)
            if item is None:
                return
            r = run_one(item[0], item[1], a.rounds, a.desc, timeout)
            with lock:
                results.append(r)
                status = "ok" if not r["why"] else "FAIL " + r["why"]
                print(f"[{len(results)}/{len(plan)}] {r['config']:<10} seed {r['seed']:<6} "
                      f"{r['calls']:>7} calls {r['ops']:>6} descriptor ops {r['secs']:6.1f} s  "
                      f"{status}", flush=True)
                if r["why"]:
                    log = OUT / f"fail-{r['config']}-{r['seed']}.log"
                    log.write_text(r["out"])

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for f in [pool.submit(worker) for _ in range(jobs)]:
            f.result()

    minutes = (time.monotonic() - start) / 60
    calls = sum(r["calls"] for r in results)
    ops = sum(r["ops"] for r in results)
    failures = [r for r in results if r["why"]]
    coverage = []
    for c in configs:
        sels = set(range(0x40))
        for r in results:
            if r["config"] == c and not r["why"]:
                sels |= r["covered"]
        coverage.append(f"{c} {len(sels)}")
    lines = [f"fuzz campaign: {len(results)} runs ({', '.join(configs)}; seeds {a.first_seed}.."
             f"{a.first_seed + a.seeds - 1}, {a.rounds} rounds), {len(plan) - len(results)} not "
             f"started (time budget)",
             f"calls: {calls}   wall time: {minutes:.1f} min   calls per minute: "
             f"{calls / minutes if minutes else 0:.0f}   jobs: {jobs}",
             f"descriptor operations: {ops}; selectors each operation ran with, exhaustively, "
             f"of {SELECTORS} (runs without a failure): {', '.join(coverage)}",
             f"failures: {len(failures)}"]
    for r in sorted(failures, key=lambda r: (r["config"], r["seed"])):
        lines.append(f"  {r['config']} seed {r['seed']}: {r['why']}")
        lines.append(f"    {repro(r['config'], r['seed'], a.rounds, a.desc)}")
    text = "\n".join(lines)
    print(text)
    (OUT / "summary.txt").write_text(text + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
