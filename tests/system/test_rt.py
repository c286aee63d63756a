"""The real-time task of docs/cache-partitioning.md (user/rt/rt_matmul.c) beside lx running a
cache-hostile Linux load (user/rt/cachehog.c), in the partitioned configuration of
tools/cachebench.py (the root task gives the task's pages colours 0-2 of 16 and lx's pages the
others, colours=MASK), in one boot under the cachesim plugin (tools/qemu_plugins/cachesim.c):

* the periods are met: every period released on its tick, every multiplication done before
  the next release and equal to the first, no deadline missed;
* the colours take effect: every data access of the multiplication (its matrices in the heap,
  its stack frame in .bss, both pages the root task gave the task) falls on a page of the
  task's colours, and every access of the load's sweep on a page of the others.  With the
  root task's colour search disabled (any page for a coloured task) or its ELF segments
  uncoloured, the first check fails.

The plugin measures nothing here: the figures are tools/cachebench.py's (make bench)."""
import os
import re
import subprocess
import sys

import pytest

from harness import BUILD, LOGS, ROOT, SIGMA0, kernel_path, kernel_trouble, require_built

sys.path.insert(0, str(ROOT / "tools"))
import insnprof  # noqa: E402
import qemu_run  # noqa: E402

RT = BUILD / "user" / "rt_matmul.elf"
LX = BUILD / "user" / "lx.elf"
ROOT_TASK = BUILD / "user" / "root.elf"
HOG = BUILD / "linux" / "cachehog.elf"
PERIODS = 4
PERIOD_US = 30000                                   # a response is 21 ms (21 steps aside)
COLOURS = 16                                        # the plugin's default L2: 256 KiB 4-way
RT_COLOURS = {0, 1, 2}
RT_MASK = sum(1 << c for c in range(64) if c % COLOURS in RT_COLOURS)   # 0x0007000700070007
PERIOD_RE = re.compile(r"^rt: period (\d+) late_us=(\d+) end_us=(\d+) missed=(\d) sum=(\w+)$",
                       re.M)


def symbol_range(elf, prefix: str) -> tuple:
    """[start, end) of the one function whose name starts with `prefix` (gcc may rename a
    static function, e.g. multiply.constprop.0)."""
    out = subprocess.run(["nm", "-S", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    found = [(int(w[0], 16), int(w[0], 16) + int(w[1], 16)) for w in map(str.split,
             out.splitlines()) if len(w) == 4 and w[2] in "tT" and
             (w[3] == prefix or w[3].startswith(prefix + "."))]
    assert len(found) == 1, f"{elf}: {prefix}: {found}"
    return found[0]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not HOG.is_file():
        pytest.skip("build/linux/cachehog.elf needs the host's static glibc")
    try:
        plugin = insnprof.build_plugin(BUILD / "qemu_plugins" / "cachesim.so")
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    kern = kernel_path("kernel-debug")
    require_built(kern, SIGMA0, ROOT_TASK, RT, LX)
    own = symbol_range(RT, "multiply")
    load = symbol_range(HOG, "main")
    out = tmp_path_factory.mktemp("rt") / "cachesim.txt"
    arg = f"{plugin},out={out},own={own[0]:x}-{own[1]:x},load={load[0]:x}-{load[1]:x}"
    modules = [(os.path.relpath(p), a) for p, a in (
        (SIGMA0, ""), (ROOT_TASK, ""),
        (RT, f"prio=150 heap=1 periods={PERIODS} period_us={PERIOD_US} chunk=3 "
             f"colours={RT_MASK:#x}"),
        (LX, f"colours={~RT_MASK & (2**64 - 1):#x} heap=32 heapx=1 -- cachehog.elf 1024"),
        (HOG, "data"))]
    r = qemu_run.run(os.path.relpath(kern), modules, cmdline="kdb=batch", memory=160,
                     icount=True, timeout=300, extra=["-plugin", arg])
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / "rt-partitioned-cachesim.log").write_text(r.output)
    assert out.is_file(), f"the plugin wrote nothing:\n{r.stderr}"
    return r, out.read_text()


def accesses_by_colour(plugin_out: str, side: str) -> list:
    m = re.search(rf"^accesses_by_colour {side} (.*)$", plugin_out, re.M)
    assert m, plugin_out
    counts = [int(x) for x in m.group(1).split()]
    assert len(counts) == COLOURS, m.group(0)
    return counts


def test_rt_task_meets_every_period_beside_the_load(run):
    run, _ = run
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
        assert missed == "0" and int(end) <= PERIOD_US, f"period {k} ended at {end} us"
        assert int(late) < 1000, f"period {k} released {late} us late (more than a tick)"
        assert checksum == periods[0][5], f"period {k}: another product"
    assert re.search(rf"^rt: done periods={PERIODS} missed=0 ", out, re.M)


def test_multiplication_uses_only_its_colours(run):
    _, plugin_out = run
    own = accesses_by_colour(plugin_out, "own")
    # 6 multiplications of 64x64x64 (two loads each) and their stack frames
    assert sum(own) > PERIODS * 2 * 64 ** 3, own
    outside = {c: n for c, n in enumerate(own) if n and c not in RT_COLOURS}
    assert not outside, f"accesses of the multiplication outside colours {RT_COLOURS}: {outside}"


def test_load_uses_only_the_other_colours(run):
    _, plugin_out = run
    load = accesses_by_colour(plugin_out, "load")
    assert sum(load) > 100_000, load
    inside = {c: n for c, n in enumerate(load) if n and c in RT_COLOURS}
    assert not inside, f"accesses of the load in the real-time colours {RT_COLOURS}: {inside}"
