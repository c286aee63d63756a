#!/usr/bin/env python3
"""Run Pecan's test suites (make test) and summarise them.

    tools/testsuite.py                          every suite
    tools/testsuite.py --suite system -k boot   one suite, pytest -k filter
    tools/testsuite.py --suite host -- -x -vv   further arguments go to pytest

Suites (docs/testing.md):
    host     tests/host     host unit tests (pytest; compile and run C on the host)
    system   tests/system   boots of Pecan in QEMU (pytest; tests/system/harness.py)

Each suite runs as one pytest process (-q, -p no:cacheprovider); its results are counted from
the JUnit XML report it writes to build/test-results/<suite>.xml.  Prints one line per suite and
finally "N passed, M failed"; exits 1 if anything failed (a suite that could not run, or
collected nothing without a -k filter, counts as one failure).
"""
from __future__ import annotations

import argparse
import os
import pathlib
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


def run_suite(name: str, keyword, pytest_args) -> dict:
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = RESULTS / f"{name}.xml"
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
           f"--junit-xml={report}", "-o", "junit_family=xunit2", SUITES[name]]
    if keyword:
        cmd += ["-k", keyword]
    cmd += list(pytest_args)
    print(f"=== suite {name}: {' '.join(cmd[1:])}", flush=True)
    start = time.monotonic()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
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
        result["failed_names"].append(f"(suite {name}: {result['problem']})")
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("--suite", action="append", choices=sorted(SUITES),
                    help="run only this suite (repeatable; default: all)")
    ap.add_argument("-k", dest="keyword", default=None, help="pytest -k expression")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = ap.parse_args(argv)

    suites = args.suite or list(SUITES)
    start = time.monotonic()
    results = [run_suite(s, args.keyword, args.pytest_args) for s in suites]
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
