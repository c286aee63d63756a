#!/usr/bin/env python3
"""A longer campaign of lx's Linux-side fuzzer (docs/linux/robustness.md): the checks of
tests/system/test_lx_fuzz.py over many seeds, several seeds per boot.

  tools/lxfuzz.py --seeds 100 --first-seed 1000 --children 40 --calls 1000
  make lxfuzz LXFUZZ_ARGS="--seeds 200"
  tools/lxfuzz.py --threads ...            the fuzzer's threads=1: children also clone
                                           threads and make futex calls (make test runs
                                           three seeds of it: test_lx_fuzz.py)
  tools/lxfuzz.py --linux --threads ...    the same seeds on native Linux (Debian's kernel in
                                           QEMU, the lx initramfs plus the fuzzer): the
                                           option's own check on the reference

Prints one line per boot; a failing boot prints its seeds (rerun them with --first-seed S
--seeds 1) and the tail of its console, and the exit status is 1."""
import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "system"))
import test_lx_fuzz  # noqa: E402

sys.path.insert(0, str(ROOT / "tools" / "initramfs"))
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import linuxref_run  # noqa: E402
import newc  # noqa: E402

THREADS_RE = re.compile(r"^lxfuzz: seed (\d+): (\d+) threads started", re.M)


def run_on_linux(seeds, children, calls, options, timeout):
    """One boot of Debian's kernel with the lx initramfs and /lxfuzz.elf: the summary lines
    of every seed (raises AssertionError if one is missing)."""
    initramfs = linuxref_run.DEFAULT_INITRAMFS
    fuzz = ROOT / test_lx_fuzz.FUZZ
    combined = initramfs.parent / "lxfuzz-linux.cpio"
    combined.write_bytes(initramfs.read_bytes() + newc.pack(
        [newc.regular("lxfuzz.elf", fuzz.read_bytes(), 0o755)]))
    cmd = f"/lxfuzz.elf fuzz {seeds[0]} {children} {calls} 6 {len(seeds)}{options}"
    res = linuxref_run.run_commands([cmd], initramfs=combined, timeout=timeout)[0]
    found = {int(m.group(1)) for m in test_lx_fuzz.SUMMARY.finditer(res.output)}
    assert sorted(found) == seeds and res.status == 0, res.output[-2000:]
    return res.output


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first-seed", type=int, default=1000)
    ap.add_argument("--children", type=int, default=40)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--per-boot", type=int, default=10, help="seeds per boot")
    ap.add_argument("--threads", action="store_true",
                    help="threads=1: clone threads and futex calls")
    ap.add_argument("--linux", action="store_true",
                    help="run on native Linux in QEMU instead of lx")
    args = ap.parse_args()
    options = " threads=1" if args.threads else ""
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    failed, calls, t0 = [], 0, time.time()
    for i in range(0, len(seeds), args.per_boot):
        batch = seeds[i:i + args.per_boot]
        try:
            if args.linux:
                out = run_on_linux(batch, args.children, args.calls, options, timeout=1800)
            else:
                out = test_lx_fuzz.run_seeds(batch, args.children, args.calls, timeout=1800,
                                             options=options).output
            threads = sum(int(m.group(2)) for m in THREADS_RE.finditer(out))
            status = "ok" + (f", {threads} threads started" if args.threads else "")
            calls += len(batch) * args.children * args.calls
        except (AssertionError, linuxref_run.RunError) as e:
            status = "FAILED"
            failed += batch
            print(str(e)[:600])
        print(f"seeds {batch[0]}..{batch[-1]}: {status} ({time.time() - t0:.0f} s)", flush=True)
    print(f"lxfuzz: {calls} calls in {time.time() - t0:.0f} s, "
          f"{len(failed)} failing seeds {failed if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
