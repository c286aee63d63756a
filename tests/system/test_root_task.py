"""The root task starts boot modules as tasks (user/tests/test_tasks.c): booted with the real
root task (build/user/root.elf) and the test program as a boot module with a command line,
the program finds its command line and start record, gets its heap paged on demand, and
uses the root task's thread, task and name services."""
import re

import pytest

from harness import boot, cases_of, check_case, check_complete

SOURCE = "user/tests/test_tasks.c"
MODULE = ("build/user/test_tasks.elf", "alpha=1 beta")


def boot_tasks():
    return boot("root", extra_modules=[MODULE])


def test_run_completes():
    check_complete(boot_tasks(), SOURCE)


def test_root_task_reports_started_module():
    result = boot_tasks()
    assert re.search(r"^root: .*test_tasks", result.output, re.M), (
        "the root task did not report starting test_tasks\n" + result.describe())


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_tasks(), case, SOURCE)
