#!/usr/bin/env python3
"""Pecan benchmarks (make bench): not written yet."""
import sys


def main() -> int:
    print("bench: not yet (tools/bench.py is a placeholder)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
