"""Processes and threads limited by memory only (issue 13 item 1).

user/tests/test_root_limits.c, a boot module of the real root task on the release kernel (the
debug kernel checks every thread at every kernel entry: quadratic with thousands of threads),
in two configurations:

* processes: 1,000 foreign tasks alive at once, 10,000 threads created and deleted one after
  another in one foreign task, 256 threads alive at once in one; after each, the root task's
  pages, tasks and thread records and the kernel's free pool (64 MiB, probed to exhaustion)
  are as before;
* threads: 16,384 threads alive at once in one foreign task (a 160 MiB kernel pool), left
  alive to the end of the run (keep=1): deleting 16,385 threads costs 2.7 G guest
  instructions, because the kernel's thread deletion scans every thread (docs/root-task.md,
  section 7).  The processes configuration checks that deleting them gives everything back.

user/tests/test_root_oom.c, a boot module of a root task with a 4 MiB pool (pool=4), fills
that pool and finds tasks and threads refused with error 8, nothing half made, and the root
task still serving."""
import re

import pytest

from harness import boot, cases_of, check_case, check_complete

LIMITS = "user/tests/test_root_limits.c"
OOM = "user/tests/test_root_oom.c"
CONFIGS = {
    "processes": dict(args="tasks=1000 loop=10000 alive=256", memory=256, kmem="64M"),
    "threads": dict(args="tasks=16 loop=16 alive=16384 kernel=0 keep=1", memory=512,
                    kmem="160M"),
}


def boot_limits(config):
    c = CONFIGS[config]
    return boot("root", memory=c["memory"], cmdline=f"kdb=batch kmem={c['kmem']}", kernel=None,
                extra_modules=[("build/user/test_root_limits.elf", c["args"])])


def boot_oom():
    return boot("root", args="pool=4", extra_modules=["build/user/test_root_oom.elf"])


@pytest.mark.parametrize("config", list(CONFIGS))
def test_limits_run_completes(config):
    check_complete(boot_limits(config), LIMITS)


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("case", cases_of(LIMITS))
def test_limits_case(config, case):
    check_case(boot_limits(config), case, LIMITS)


def test_oom_run_completes():
    result = boot_oom()
    check_complete(result, OOM)
    assert re.search(r"^root: test_root_oom.elf: unresolvable page fault", result.output, re.M), (
        "the root task did not report the fault it could not serve\n" + result.describe())


@pytest.mark.parametrize("case", cases_of(OOM))
def test_oom_case(case):
    check_case(boot_oom(), case, OOM)
