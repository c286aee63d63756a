"""lx's time (docs/linux/time.md), with user/linux/tests/pipes.c's time mode for musl and
glibc (no vDSO: both C libraries fall back to the system calls): eight clocks with
clock_gettime/clock_getres and their errors, the wall clock from the RTC (only its year is
checked: QEMU's RTC starts from the host's time), MONOTONIC never going back, gettimeofday
and time agreeing, nanosleep and clock_nanosleep (relative, TIMER_ABSTIME, errors), two
sleepers waking in deadline order while lx serves their parent, times/getrusage and a CPU
clock that grows.  lx prints the date it read from the RTC at its start."""
import re

import pytest

from test_lx import check_ended
from test_lx_pipe import PROGRAM, VARIANTS, boot_with


@pytest.mark.parametrize("variant", VARIANTS)
def test_time_calls(variant):
    if not PROGRAM[variant].is_file():
        pytest.skip(f"{PROGRAM[variant]} not built (make linux-tests)")
    result = boot_with(f"init=/test/{variant}/pipes time", "lxtime.cpio")
    check_ended(result)
    out = result.output
    assert "FAIL" not in out and not re.search(r"exited with status [1-9]|killed", out), \
        result.describe()
    for line in ("ok: clock_gettime and clock_getres of eight clocks",
                 "ok: the wall clock is past 2024", "ok: CLOCK_MONOTONIC never goes back",
                 "ok: two sleepers wake in deadline order", "ok: the process's CPU time grows",
                 "pipes time: all passed"):
        assert line in out, result.describe()
    m = re.search(r"^lx: wall clock from the RTC: (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) UTC",
                  out, re.M)
    assert m and int(m.group(1)) >= 2024 and 1 <= int(m.group(2)) <= 12, result.describe()
