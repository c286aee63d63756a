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
