"""Helpers for the system tests: boot Pecan in QEMU with an in-system test program as the
root task and read its results (protocol: user/tests/testlib.h, docs/testing.md).

    r = boot("test_ipc")                      # build/user/test_ipc.elf, sigma0 as module 0
    r.cases()["call_reply_same_space"]        # (ok, reason)
    cases_of("user/tests/test_ipc.c")         # the TEST names declared in the source

boot() results are cached per identical arguments for the whole pytest session, so tests
parametrized over the cases of one configuration share a single boot.  Nothing is built here:
`make test` builds first; a missing file fails the test with a pointer to `make`.
Every boot's serial output is kept in build/system-tests/<name>.log.
"""
from __future__ import annotations

import os
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
KERNEL = BUILD / "kernel.bin"
SIGMA0 = BUILD / "user" / "sigma0.elf"
LOGS = BUILD / "system-tests"

sys.path.insert(0, str(ROOT / "tools"))
import qemu_run  # noqa: E402  (tools/ is not a package)

# Seconds per boot: only a hang reaches it.  A test boot takes 0.2-6 s of host time on an idle
# machine (test_fuzz is the longest); with five QEMUs on two cores it takes several times
# that, so the limit leaves a factor of 30 over the longest one.
BOOT_TIMEOUT = 180
TEST_RE = re.compile(r"^TEST\((\w+)\)", re.M)
NO_CASES = "no_TEST_cases_found"   # the single "case" cases_of() returns when it finds none

_cache: dict = {}


def program_path(program) -> pathlib.Path:
    """'test_boot' or 'test_boot.elf' -> build/user/test_boot.elf; paths are taken as given."""
    p = pathlib.Path(program)
    if len(p.parts) == 1:
        p = BUILD / "user" / (p.name if p.suffix == ".elf" else p.name + ".elf")
    return p if p.is_absolute() else ROOT / p


def require_built(*paths) -> None:
    missing = [str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p)
               for p in paths if not p.is_file()]
    if missing:
        pytest.fail(f"not built: {', '.join(missing)} (make test builds everything; or run "
                    f"`make all programs`)", pytrace=False)


def kernel_path(kernel) -> pathlib.Path:
    """None -> build/kernel.bin; a name ('kernel-debug') -> build/<name>.bin; else a path."""
    if kernel is None:
        return KERNEL
    p = pathlib.Path(kernel)
    if len(p.parts) == 1:
        p = BUILD / (p.name if p.suffix == ".bin" else p.name + ".bin")
    return p if p.is_absolute() else ROOT / p


def _log_name(program, args, memory, cpu, cmdline, iso, extra_modules, kernel) -> str:
    words = [pathlib.Path(str(program)).stem, f"m{memory}", cpu]
    if kernel is not None:
        words.append(pathlib.Path(str(kernel)).stem)
    words += [w for w in re.split(r"[^A-Za-z0-9_.-]+", args) if w]
    if cmdline != "kdb=batch":
        words += ["cmd"] + [w for w in re.split(r"[^A-Za-z0-9_.-]+", cmdline) if w]
    if extra_modules:
        words.append(f"{len(extra_modules)}mods")
    if iso:
        words.append("iso")
    return "-".join(words)[:120]


# Tests boot the debug kernel (kernel invariants checked at every kernel entry and exit) in
# deterministic virtual time (-icount): timeouts and time slices then do not depend on how
# busy the host is, and a failure repeats exactly.
DEFAULT_KERNEL = "kernel-debug"


def boot(program, args="", memory=128, cpu="max", cmdline="kdb=batch", timeout=BOOT_TIMEOUT,
         iso=False, extra_modules=(), kernel=DEFAULT_KERNEL, icount=True) -> qemu_run.RunResult:
    """Boot sigma0 + `program` (root task, module command line: its path and `args`) plus
    `extra_modules` ((path, args) pairs or paths) and return the RunResult.  iso=True boots
    through GRUB from an ISO built for this configuration under build/system-tests/.
    kernel: the kernel image, 'kernel-debug' (default) or None for the release kernel.
    icount: run in virtual time (-icount shift=0,sleep=off)."""
    extra_modules = tuple((str(m), "") if isinstance(m, (str, pathlib.Path)) else
                          (str(m[0]), m[1]) for m in extra_modules)
    key = (str(program), args, memory, cpu, cmdline, timeout, bool(iso), extra_modules,
           None if kernel is None else str(kernel), icount)
    if key in _cache:
        return _cache[key]
    prog = program_path(program)
    kern = kernel_path(kernel)
    require_built(kern, SIGMA0, prog, *(ROOT / p for p, _ in extra_modules))
    # Relative paths: the module command lines (and logs) stay short and machine-independent.
    modules = [(os.path.relpath(SIGMA0), ""), (os.path.relpath(prog), args)]
    modules += [(os.path.relpath(ROOT / p), a) for p, a in extra_modules]
    name = _log_name(program, args, memory, cpu, cmdline, iso, extra_modules, kernel)
    if not icount:
        name += "-realtime"
    LOGS.mkdir(parents=True, exist_ok=True)
    iso_path = LOGS / f"{name}.iso" if iso else None
    try:
        result = qemu_run.run(os.path.relpath(kern), modules, cmdline=cmdline,
                              memory=memory, cpu=cpu, timeout=timeout, iso=iso_path,
                              icount=icount)
    except (qemu_run.QemuError, SystemExit) as e:   # mkiso reports through SystemExit
        pytest.fail(f"cannot boot {name}: {e}", pytrace=False)
    (LOGS / f"{name}.log").write_text(
        f"# {' '.join(result.command)}\n# status {result.status}, timed out {result.timed_out}, "
        f"{result.duration:.2f} s\n{result.output}")
    _cache[key] = result
    return result


def cases_of(c_source) -> list:
    """The TEST(name) cases declared in a C source (path relative to the repository root), in
    source order; [NO_CASES] when the file is missing or declares none, so that a
    parametrized test fails instead of silently collecting nothing."""
    path = ROOT / c_source
    try:
        names = TEST_RE.findall(path.read_text())
    except OSError:
        names = []
    return names or [NO_CASES]


def check_case(result: qemu_run.RunResult, case: str, source: str) -> None:
    """Fail unless `case` reported `ok` in this run."""
    if case == NO_CASES:
        pytest.fail(f"{source}: missing or declares no TEST cases", pytrace=False)
    cases = result.cases()
    if case not in cases:
        pytest.fail(f"case {case} did not report a result\n{result.describe(15)}", pytrace=False)
    ok, reason = cases[case]
    if not ok:
        pytest.fail(f"case {case} failed: {reason}\n{result.describe(15)}", pytrace=False)


def check_complete(result: qemu_run.RunResult, source: str) -> None:
    """The run ended as a passing test program does: PECAN-TEST-DONE with failed=0, QEMU exit
    status 1, no kernel debugger, and exactly the cases the source declares."""
    problems = []
    if result.timed_out:
        problems.append("timed out")
    problems += kernel_trouble(result)
    counts = result.done_counts()
    if counts is None:
        problems.append("no PECAN-TEST-DONE line")
    elif counts[1]:
        problems.append(f"{counts[1]} case(s) failed")
    if result.status != 1:
        problems.append(f"QEMU exit status {result.status}, expected 1")
    declared = set(cases_of(source)) - {NO_CASES}
    reported = set(result.cases())
    if declared - reported:
        problems.append(f"no result for {sorted(declared - reported)}")
    if reported - declared:
        problems.append(f"results for cases {source} does not declare: "
                        f"{sorted(reported - declared)} (stale build?)")
    if counts is not None and counts[0] + counts[1] != len(reported):
        problems.append(f"{result.done_line()!r} does not match the {len(reported)} case lines")
    if problems:
        pytest.fail("; ".join(problems) + "\n" + result.describe(), pytrace=False)


def kernel_trouble(result: qemu_run.RunResult) -> list:
    """What the kernel log shows went wrong: kernel debugger entered (any `KDB:` line, or exit
    status 5), a panic."""
    problems = []
    kdb = re.findall(r"^KDB:.*$", result.output, re.M)
    if kdb or result.kdb_entered():
        problems.append("kernel debugger entered" + (f" ({kdb[0]})" if kdb else ""))
    if "PANIC" in result.output:
        problems.append("kernel panic")
    return problems


def kernel_lines(result: qemu_run.RunResult, prefix: str) -> list:
    """Output lines that start with `prefix` (e.g. 'cpu:')."""
    return [line for line in result.output.splitlines() if line.startswith(prefix)]
