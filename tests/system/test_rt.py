"""The real-time task of docs/cache-partitioning.md (user/rt/rt_matmul.c) meets its periods
while lx runs a cache-hostile Linux load (user/rt/cachehog.c), in the partitioned
configuration of tools/cachebench.py (the root task gives the task's heap pages of colours 0-2
of 16 and lx's pages of the others, colours=MASK): every period released on its tick, every
multiplication done before the next release and equal to the first, no deadline missed.  The
cache model is not part of this boot (tools/cachebench.py measures with it)."""
import re

import pytest

from harness import BUILD, boot, kernel_trouble

RT = "build/user/rt_matmul.elf"
LX = "build/user/lx.elf"
HOG = BUILD / "linux" / "cachehog.elf"
PERIODS = 6
RT_MASK = 0x0007000700070007                        # colours 0-2 of a 16-colour L2
PERIOD_RE = re.compile(r"^rt: period (\d+) late_us=(\d+) end_us=(\d+) missed=(\d) sum=(\w+)$",
                       re.M)


@pytest.fixture(scope="module")
def run():
    if not HOG.is_file():
        pytest.skip("build/linux/cachehog.elf needs the host's static glibc")
    return boot("root", cmdline="kdb=batch", memory=160, extra_modules=[
        (RT, f"prio=150 heap=1 periods={PERIODS} period_us=50000 chunk=3 colours={RT_MASK:#x}"),
        (LX, f"colours={~RT_MASK & (2**64 - 1):#x} heap=32 heapx=1 -- cachehog.elf 1024"),
        (str(HOG.relative_to(BUILD.parent)), "data")])


def test_rt_task_meets_every_period_beside_the_load(run):
    problems = kernel_trouble(run)
    assert not problems and run.status == 1 and not run.timed_out, \
        "; ".join(problems) + "\n" + run.describe()
    out = run.output
    hog = out.find("cachehog: sweeping")
    periods = [(m.start(),) + tuple(m.groups()) for m in PERIOD_RE.finditer(out)]
    assert len(periods) == PERIODS, run.describe()
    assert hog >= 0 and sum(1 for p in periods if p[0] > hog) >= 2, \
        "the load ran during too few periods\n" + run.describe()
    for _, k, late, end, missed, checksum in periods:
        assert missed == "0" and int(end) <= 50000, f"period {k} ended at {end} us"
        assert int(late) < 1000, f"period {k} released {late} us late (more than a tick)"
        assert checksum == periods[0][5], f"period {k}: another product"
    assert re.search(rf"^rt: done periods={PERIODS} missed=0 ", out, re.M)
