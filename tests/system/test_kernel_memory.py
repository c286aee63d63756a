"""Kernel memory exhaustion is an error return (user/tests/test_kmem.c): booted with a 4 MiB
kernel pool, creating spaces, threads and mappings until the pool is gone fails with the
contract's error codes, the kernel keeps running, and everything works again after the
program frees what it made."""
import re

import pytest

from harness import boot, cases_of, check_case, check_complete, kernel_lines

SOURCE = "user/tests/test_kmem.c"


def boot_kmem():
    return boot("test_kmem", cmdline="kdb=batch kmem=4M")


def test_run_completes():
    check_complete(boot_kmem(), SOURCE)


def test_pool_is_small():
    """The kmem= option took effect (otherwise the test would not reach exhaustion)."""
    result = boot_kmem()
    pools = [re.search(r"pool ([0-9a-f]+)-([0-9a-f]+)", l) for l in kernel_lines(result, "mem:")]
    pools = [m for m in pools if m]
    assert pools, "no `mem: ... pool <start>-<end>` line\n" + result.describe()
    start, end = (int(x, 16) for x in pools[0].groups())
    assert end - start == 4 << 20, f"kernel pool is {(end - start) >> 10} KiB, expected 4096"


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_kmem(), case, SOURCE)
