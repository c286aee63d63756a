"""Faults in user threads do not stop the system (user/tests/test_faults.c): the kernel halts
the faulting thread (and says so), everything else keeps running, and the program's cases
pass."""
import re

import pytest

from harness import boot, cases_of, check_case, check_complete

SOURCE = "user/tests/test_faults.c"
HALTED_RE = re.compile(r"^thread ([0-9a-f]+): .* halted", re.M)
START_RE = re.compile(r"^kernel: starting sigma0 ([0-9a-f]+) and root task ([0-9a-f]+)", re.M)


def boot_faults():
    return boot("test_faults")


def test_run_completes():
    check_complete(boot_faults(), SOURCE)


def test_kernel_reports_halted_threads():
    result = boot_faults()
    halted = HALTED_RE.findall(result.output)
    assert halted, "no `thread <id>: ... halted` line\n" + result.describe()
    start = START_RE.search(result.output)
    assert start, "no `kernel: starting sigma0 ... and root task ...` line\n" + result.describe()
    servers = set(start.groups())
    assert not servers & set(halted), (
        f"the kernel halted sigma0 or the root task ({sorted(servers & set(halted))}), "
        f"not just the faulting test threads\n" + result.describe())


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_faults(), case, SOURCE)
