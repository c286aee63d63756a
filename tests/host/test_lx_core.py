"""Host unit tests of lx's core data structures, compiled from the real sources with the host
gcc (-Wall -Wextra -Werror, AddressSanitizer and UndefinedBehaviorSanitizer where the compiler
has them): tests/host/lx_core_test.c with user/linux/task/pid.c (the pid table: cyclic
allocation, the wrap above RESERVED_PIDS, every number once, leaves freed, random operations
against a model) and user/linux/park/timer.c (the pairing heap of deadlines: order, cancel,
re-arm, 300,000 random operations against a model)."""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOST = ROOT / "tests" / "host"
LX = ROOT / "user" / "linux"
SOURCES = [HOST / "lx_core_test.c", LX / "task" / "pid.c", LX / "park" / "timer.c"]
CASES = ["pid_cyclic", "pid_wrap", "pid_random", "timer_basic", "timer_random"]


def _sanitizers(out):
    probe = out / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    for flags in (["-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
                  ["-fsanitize=undefined", "-fno-sanitize-recover=all"], []):
        if subprocess.run(["gcc", *flags, str(probe), "-o", str(out / "probe")],
                          capture_output=True).returncode == 0:
            return flags
    pytest.fail("the host compiler cannot build a trivial program")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    out = tmp_path_factory.mktemp("lx_core")
    exe = out / "lx_core_test"
    cmd = ["gcc", "-std=gnu11", "-g", "-O1", "-Wall", "-Wextra", "-Werror", *_sanitizers(out),
           f"-I{HOST}", f"-I{LX}", *map(str, SOURCES), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        pytest.fail(f"cannot build lx_core_test:\n{proc.stderr}")
    return exe


@pytest.mark.parametrize("case", CASES)
def test_lx_core(program, case):
    proc = subprocess.run([str(program), case], capture_output=True, text=True, timeout=120)
    fails = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert proc.returncode == 0 and not fails, "\n".join(fails[:20]) + proc.stderr[-3000:]
