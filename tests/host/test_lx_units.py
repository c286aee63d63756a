"""Host unit tests of lx's pure logic, compiled from the real sources (as test_kernel_units.py
does for the kernel): each C test program in tests/host/ is built with the host gcc
(-Wall -Wextra -Werror, AddressSanitizer and UndefinedBehaviorSanitizer where the compiler
has them) together with the unmodified lx source it tests, then run once per case.

  lx_vma_test.c   user/linux/mm/vma.c: the region tree (AVL with subtree gap summaries) against
                  a sorted-array model: structure, balance, lookups, in-order walks, the
                  top-down gap search; 65,530 regions mapped as mmap places them; random runs
"""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOST = ROOT / "tests" / "host"
LX = ROOT / "user" / "linux"

PROGRAMS = {
    "lx_vma_test": [LX / "mm" / "vma.c"],
}
CASES = {
    "lx_vma_test": ["test_empty", "test_gaps", "test_many_down", "test_ascending",
                    "test_random", "test_random_large"],
}


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def sanitizers(out):
    probe = out / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    for flags in (["-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
                  ["-fsanitize=undefined", "-fno-sanitize-recover=all"], []):
        if run(["gcc", *flags, probe, "-o", out / "probe"]).returncode == 0:
            return flags
    pytest.fail("the host compiler cannot build a trivial program")


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("lx-units")
    flags = ["-std=gnu11", "-g", "-O2", "-Wall", "-Wextra", "-Werror",
             "-fno-omit-frame-pointer", *sanitizers(out), f"-I{HOST}", f"-I{LX}"]
    built = {}
    for name, sources in PROGRAMS.items():
        exe = out / name
        proc = run(["gcc", *flags, HOST / f"{name}.c", *sources, "-o", exe])
        built[name] = exe if proc.returncode == 0 else proc.stderr
    return built


def program(programs, name):
    exe = programs[name]
    if isinstance(exe, str):
        pytest.fail(f"building {name} failed:\n{exe}", pytrace=False)
    return exe


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_lists_complete(programs, name):
    proc = run([program(programs, name), "--list"], timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == CASES[name]


@pytest.mark.parametrize("case", CASES["lx_vma_test"])
def test_vma_tree(programs, case):
    proc = run([program(programs, "lx_vma_test"), case], timeout=300)
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert not failed and proc.returncode == 0, \
        "\n".join(failed[:40]) + "\n" + proc.stderr[-4000:]
    assert "checks passed" in proc.stdout
