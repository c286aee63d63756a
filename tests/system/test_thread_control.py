"""ThreadControl validates and allocates before it changes anything (user/tests/test_tcontrol.c):
booted with a 4 MiB kernel pool, a migration or activation that runs out of kernel memory fails
with "no memory", the thread stays in its space, and nothing leaks."""
import pytest

from harness import boot, cases_of, check_case, check_complete

SOURCE = "user/tests/test_tcontrol.c"


def boot_tcontrol():
    return boot("test_tcontrol", cmdline="kdb=batch kmem=4M")


def test_run_completes():
    check_complete(boot_tcontrol(), SOURCE)


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_tcontrol(), case, SOURCE)
