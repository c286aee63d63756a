#!/usr/bin/env python3
"""A longer campaign of lx's Linux-side fuzzer (docs/linux/robustness.md): the checks of
tests/system/test_lx_fuzz.py over many seeds, several seeds per boot.

  tools/lxfuzz.py --seeds 100 --first-seed 1000 --children 40 --calls 1000
  make lxfuzz LXFUZZ_ARGS="--seeds 200"

Prints one line per boot; a failing boot prints its seeds (rerun them with --first-seed S
--seeds 1) and the tail of its console, and the exit status is 1."""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "system"))
import test_lx_fuzz  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first-seed", type=int, default=1000)
    ap.add_argument("--children", type=int, default=40)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--per-boot", type=int, default=10, help="seeds per boot")
    args = ap.parse_args()
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    failed, calls, t0 = [], 0, time.time()
    for i in range(0, len(seeds), args.per_boot):
        batch = seeds[i:i + args.per_boot]
        try:
            test_lx_fuzz.run_seeds(batch, args.children, args.calls, timeout=1800)
            status = "ok"
            calls += len(batch) * args.children * args.calls
        except AssertionError as e:
            status = "FAILED"
            failed += batch
            print(str(e)[:600])
        print(f"seeds {batch[0]}..{batch[-1]}: {status} ({time.time() - t0:.0f} s)", flush=True)
    print(f"lxfuzz: {calls} calls in {time.time() - t0:.0f} s, "
          f"{len(failed)} failing seeds {failed if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
