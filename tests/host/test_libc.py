"""Host unit tests of libl4's small libc: user/lib/printf.c, string.c and strtol.c are
compiled for the host with their public symbols renamed (l4t_*), linked with
tests/host/libc_test.c and compared with the host C library."""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBDIR = ROOT / "user" / "lib"
TEST = ROOT / "tests" / "host" / "libc_test.c"
LIB_SOURCES = ["printf.c", "string.c", "strtol.c"]
RENAMED = ["vsnprintf", "snprintf", "memcpy", "memmove", "memset", "memcmp", "strlen", "strnlen",
           "strcmp", "strncmp", "strchr", "strrchr", "strcpy", "strncpy", "strstr", "strtoul",
           "strtol", "strtoull", "strtoll", "atoi"]
WARN = ["-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"]
SANITIZE = ["-fsanitize=undefined,address", "-fno-sanitize-recover=all"]


def build(tmp_path, sanitize):
    objs = []
    # The library sources see libl4's own headers (user/lib/include shadows the host's
    # string.h, stdio.h, stdlib.h, limits.h), just as on the target.
    lib_flags = ["-std=gnu11", "-O2", "-fno-builtin", *WARN, f"-I{LIBDIR / 'include'}",
                 f"-I{ROOT / 'include'}", *[f"-D{name}=l4t_{name}" for name in RENAMED], *sanitize]
    for src in LIB_SOURCES:
        obj = tmp_path / (src[:-2] + ".o")
        cmd = ["gcc", *lib_flags, "-c", str(LIBDIR / src), "-o", str(obj)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            return None, cmd, proc.stderr
        objs.append(str(obj))
    exe = tmp_path / "libc_test"
    cmd = ["gcc", "-std=gnu11", "-O1", *WARN, "-Wno-format-truncation", *sanitize, str(TEST), *objs,
           "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, cmd, proc.stderr
    return exe, cmd, ""


def test_libc_against_host(tmp_path):
    exe, cmd, err = build(tmp_path, SANITIZE)
    if exe is None and ("sanitize" in err or "asan" in err or "ubsan" in err):
        exe, cmd, err = build(tmp_path, [])        # no sanitizer runtime on this host
    if exe is None:
        pytest.fail(f"build failed:\n{' '.join(cmd)}\n{err}")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    passed = [line for line in lines if line.startswith("ok")]
    assert not failed, f"{len(failed)} libc check(s) failed:\n" + "\n".join(failed)
    assert proc.returncode == 0, f"libc_test exited with {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert len(passed) > 50, "libc_test ran fewer checks than expected:\n" + proc.stdout
