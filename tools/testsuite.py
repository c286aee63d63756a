#!/usr/bin/env python3
"""Run Pecan's test suites (make test) and summarise them.

    tools/testsuite.py                          every suite
    tools/testsuite.py --suite system -k boot   one suite, pytest -k filter
    tools/testsuite.py --suite host -- -x -vv   further arguments go to pytest

Suites (docs/testing.md):
    host     tests/host     host unit tests (pytest; compile and run C on the host)
    system   tests/system   boots of Pecan in QEMU (pytest; tests/system/harness.py)

Each suite runs as pytest processes (-q, -p no:cacheprovider); its results are counted from the
JUnit XML reports they write to build/test-results/<part>.xml.  The system suite runs in two
parts: the one long boot of the Linux comparison (test_lx_compare.py: the corpus on lx, one
QEMU) and everything else; with --jobs 2 (the default on a machine with two or more CPUs) the
parts run at the same time, each QEMU a single-threaded process in virtual time, so results do
not change, only the wall time halves.  Each part's output is printed when it ends.  Prints one
line per suite and finally "N passed, M failed"; exits 1 if anything failed (a part that could
not run, or collected nothing without a -k filter, counts as one failure).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import pathlib
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "build" / "test-results"
SUITES = {
    "host": "tests/host",
    "system": "tests/system",
}

# Parts of a suite: (part name, pytest paths and options).  The Linux comparison's single boot
# takes about as long as the rest of the system suite together, so it is a part of its own.
COMPARE = "tests/system/test_lx_compare.py"
PARTS = {
    "host": [("host", ["tests/host"])],
    "system": [("system-compare", [COMPARE]),
               ("system", ["tests/system", f"--ignore={COMPARE}"])],
}

# pytest exit codes
OK, TESTS_FAILED, NO_TESTS = 0, 1, 5


def count_junit(path: pathlib.Path) -> tuple:
    """(passed, failed, skipped, names of failed tests) from a pytest JUnit XML report.  A test
    case with a <failure> or <error> (collection and fixture errors included) has failed."""
    passed = failed = skipped = 0
    failed_names = []
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
            failed_names.append(f"{case.get('classname', '')}::{case.get('name', '')}")
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failed_names


def run_part(name: str, paths, keyword, pytest_args, quiet=False) -> dict:
    """Runs one part as a pytest process; quiet: its output goes to build/test-results/
    <name>.log and is printed when it ends (parts running at the same time do not interleave)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = RESULTS / f"{name}.xml"
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
           f"--junit-xml={report}", "-o", "junit_family=xunit2", *paths]
    if keyword:
        cmd += ["-k", keyword]
    cmd += list(pytest_args)
    header = f"=== {name}: {shlex.join(cmd[1:])}"
    start = time.monotonic()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if quiet:
        log = RESULTS / f"{name}.log"
        with open(log, "w") as out:
            rc = subprocess.call(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        print(f"{header}\n{log.read_text()}", end="", flush=True)
    else:
        print(header, flush=True)
        rc = subprocess.call(cmd, cwd=ROOT, env=env)
    duration = time.monotonic() - start

    result = {"name": name, "duration": duration, "rc": rc, "problem": None,
              "passed": 0, "failed": 0, "skipped": 0, "failed_names": []}
    if report.is_file():
        try:
            p, f, s, names = count_junit(report)
            result.update(passed=p, failed=f, skipped=s, failed_names=names)
        except ET.ParseError as e:
            result["problem"] = f"unreadable report {report}: {e}"
    else:
        result["problem"] = f"pytest wrote no report (exit status {rc})"
    if result["problem"] is None:
        if rc == NO_TESTS and not keyword:
            result["problem"] = "no tests collected"
        elif rc not in (OK, TESTS_FAILED, NO_TESTS):
            result["problem"] = f"pytest exit status {rc}"
        elif rc == TESTS_FAILED and result["failed"] == 0:
            result["problem"] = "pytest reported failures the report does not show"
        elif rc == OK and result["failed"]:
            result["problem"] = "report shows failures but pytest passed"
    if result["problem"]:
        result["failed"] += 1
        result["failed_names"].append(f"(part {name}: {result['problem']})")
    return result


def run_suites(suites, keyword, pytest_args, jobs) -> list:
    """Every part of the suites, jobs at a time; one summed result per suite."""
    parts = [part for suite in suites for part in PARTS[suite]]
    quiet = jobs > 1 and len(parts) > 1
    # The longest part (the comparison boot) first, so that it overlaps everything else.
    parts.sort(key=lambda part: COMPARE not in part[1])
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {name: pool.submit(run_part, name, paths, keyword, pytest_args, quiet)
                   for name, paths in parts}
        done = {name: f.result() for name, f in futures.items()}
    results = []
    for suite in suites:
        mine = [done[name] for name, _ in PARTS[suite]]
        r = {"name": suite, "duration": max(m["duration"] for m in mine),
             "failed_names": [n for m in mine for n in m["failed_names"]]}
        for k in ("passed", "failed", "skipped"):
            r[k] = sum(m[k] for m in mine)
        results.append(r)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("--suite", action="append", choices=sorted(SUITES),
                    help="run only this suite (repeatable; default: all)")
    ap.add_argument("-k", dest="keyword", default=None, help="pytest -k expression")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="parts run at the same time (default: 2 with two or more CPUs)")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = ap.parse_args(argv)

    suites = args.suite or list(SUITES)
    start = time.monotonic()
    results = run_suites(suites, args.keyword, args.pytest_args, max(1, args.jobs))
    total = time.monotonic() - start

    print()
    for r in results:
        extra = f", {r['skipped']} skipped" if r["skipped"] else ""
        print(f"suite {r['name']:<8} {r['passed']:4d} passed, {r['failed']:3d} failed{extra}"
              f"  ({r['duration']:.1f} s)")
    failed_names = [n for r in results for n in r["failed_names"]]
    if failed_names:
        print("failed:")
        for n in failed_names:
            print(f"  {n}")
    passed = sum(r["passed"] for r in results)
    failed = sum(r["failed"] for r in results)
    print(f"total time {total:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
