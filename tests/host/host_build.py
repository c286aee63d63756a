"""Building a host unit-test program from C sources with the host gcc: -Wall -Wextra -Werror,
with address and undefined-behaviour sanitizers where the host has them, else fewer."""
import pathlib
import subprocess

import pytest

SANITIZERS = (["-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
              ["-fsanitize=undefined", "-fno-sanitize-recover=all"], [])


def build_c_test(out: pathlib.Path, sources, includes) -> pathlib.Path:
    """Compile `sources` into `out`; fails the test with the compiler's message."""
    base = ["gcc", "-std=gnu11", "-g", "-O2", "-Wall", "-Wextra", "-Werror",
            *(f"-I{i}" for i in includes), *map(str, sources), "-o", str(out)]
    for extra in SANITIZERS:
        proc = subprocess.run(base + extra, capture_output=True, text=True)
        if proc.returncode == 0:
            return out
    pytest.fail(f"building {out.name} failed:\n{proc.stderr}", pytrace=False)


def listed_cases(program: pathlib.Path) -> list:
    """The case names a unit-test program (tests/host/unit_check.h) lists with --list."""
    return subprocess.run([str(program), "--list"], capture_output=True, text=True,
                          timeout=30).stdout.split()


def check_case(program: pathlib.Path, case: str, timeout: int = 300) -> None:
    """Run one case; every FAIL line and the program's stderr make the assertion message."""
    proc = subprocess.run([str(program), case], capture_output=True, text=True, timeout=timeout)
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert not failed and proc.returncode == 0, "\n".join(failed[:40]) + proc.stderr[-3000:]
    assert "checks passed" in proc.stdout
