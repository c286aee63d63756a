"""Host unit test of the descriptor fuzzer's model of segment operations
(user/tests/fuzz_segmodel.c, compiled for the host as it is, with sanitizers): the outcome of
every kind of operation over Pecan's GDT and a null LDT, over descriptors planted in an LDT at
linear 0, and with QEMU 7.2's supervisor-mode stack accesses (tests/host/segmodel_test.c).  The
in-system side is test_fuzz's descriptor_attacks case, which checks QEMU against the same
model."""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOST = ROOT / "tests" / "host"
SOURCES = [HOST / "segmodel_test.c", ROOT / "user" / "tests" / "fuzz_segmodel.c"]
FLAGS = ["-std=gnu11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", f"-I{HOST}",
         f"-I{ROOT / 'user' / 'tests'}"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    exe = tmp_path_factory.mktemp("segmodel") / "segmodel_test"
    for extra in (SANITIZE, []):                    # (a host without the sanitizer runtimes)
        proc = subprocess.run(["gcc", *FLAGS, *extra, *map(str, SOURCES), "-o", str(exe)],
                              capture_output=True, text=True)
        if proc.returncode == 0:
            return exe
    pytest.fail(f"build failed:\n{proc.stderr}")


def cases():
    src = (HOST / "segmodel_test.c").read_text()
    start = src.index("static const struct uc_case cases[]")
    return [line.split('"')[1] for line in src[start:].splitlines() if line.strip().startswith('{ "')]


@pytest.mark.parametrize("case", cases())
def test_model(program, case):
    proc = subprocess.run([str(program), case], capture_output=True, text=True, timeout=60)
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert proc.returncode == 0 and not failed, "\n".join(failed) or proc.stdout + proc.stderr
