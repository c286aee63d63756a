"""Host unit tests of the binary-interface headers (include/l4/) against the contract.

Compiles tests/host/abi_test.c with the host gcc (-Iinclude -Wall -Werror, and with
UndefinedBehaviorSanitizer where available), runs it, and fails listing every failed check.
"""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "host" / "abi_test.c"
CFLAGS = ["-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'include'}"]
SANITIZE = ["-fsanitize=undefined", "-fno-sanitize-recover=all"]


def compile_test(tmp_path):
    exe = tmp_path / "abi_test"
    for extra in (SANITIZE, []):
        cmd = ["gcc", *CFLAGS, *extra, str(SOURCE), "-o", str(exe)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            return exe
        # -Werror diagnostics are real failures; only a missing sanitizer runtime is not.
        if "sanitize" not in proc.stderr and "ubsan" not in proc.stderr:
            break
    pytest.fail(f"compiling {SOURCE.name} failed:\n{' '.join(cmd)}\n{proc.stderr}")


def test_abi_headers_match_contract(tmp_path):
    exe = compile_test(tmp_path)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    passed = [line for line in lines if line.startswith("ok")]
    assert not failed, f"{len(failed)} contract check(s) failed:\n" + "\n".join(failed)
    assert proc.returncode == 0, f"abi_test exited with {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert len(passed) > 300, "abi_test ran fewer checks than expected:\n" + proc.stdout
