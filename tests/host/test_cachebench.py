"""tools/cachebench.py (docs/cache-partitioning.md): the root task's colour masks, the L2's
colour count, and folding a run's console and plugin output into the figures, on hand-made
input."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import cachebench  # noqa: E402


def test_colour_mask_repeats_a_cache_colour_over_the_root_tasks_64():
    assert cachebench.colour_mask([0, 1], 16) == 0x0003000300030003
    assert cachebench.colour_mask([0, 1, 2], 64) == 0x7
    with pytest.raises(ValueError):
        cachebench.colour_mask([0], 12)


def test_l2_colours():
    assert cachebench.l2_colours("256K:4:64") == 16
    assert cachebench.l2_colours("256K:1:32") == 64
    assert cachebench.l2_colours("1M:16:64") == 16
    assert cachebench.l2_colours("4096:4:64") == 1


def args_of(*argv):
    """cachebench's parsed options, as main() sees them."""
    return cachebench.parse_args(list(argv))


def test_configurations_of_the_runs():
    rt, lx, flood = "build/user/rt_matmul.elf", "build/user/lx.elf", "build/user/rt_flood.elf"
    a = args_of()
    kernel, mods, mask = cachebench.configuration("alone", a)
    assert kernel == cachebench.KERNEL_TICK100 and mask is None
    assert [m[0] for m in mods[2:]] == [rt] and "chunk=0" in mods[2][1]
    kernel, mods, mask = cachebench.configuration("coloured", a)
    assert [m[0] for m in mods[2:]] == [rt] and f"colours={0x0003000300030003:#x}" in mods[2][1]
    kernel, mods, mask = cachebench.configuration("partitioned", a)
    named = dict(mods[2:])
    assert mask == 0x0003000300030003 and "chunk=0" in named[rt]
    rest = f"colours={~mask & (2**64 - 1):#x}"
    assert rest in named[lx] and rest in named[flood]
    assert "prio=200" in named[flood] and "kib=256 line=64" in named[flood]
    # --interrupt step: the default kernel, the task steps aside every CHUNK rows, no flood
    kernel, mods, mask = cachebench.configuration("interrupted", args_of("--interrupt", "step"))
    assert kernel == cachebench.KERNEL and mask is None
    assert flood not in dict(mods[2:]) and "chunk=3" in dict(mods[2:])[rt]
    p5 = args_of("--l2", "256K:1:32", "--rt-colours", "0,1,2")
    assert "kib=256 line=32" in dict(cachebench.configuration("interrupted", p5)[1][2:])[flood]


CONSOLE = """lx: Linux server
rt: period 0 late_us=3 end_us=900 missed=0 sum=ab
rt: period 1 late_us=5 end_us=1900 missed=0 sum=ab
cachehog: sweeping 1024 KiB
rt: period 2 late_us=1 end_us=2100 missed=1 sum=ab
rt: period 3 late_us=9 end_us=1800 missed=0 sum=ab
rt: done periods=4 missed=1 late_max_us=9 late_avg_us=4
"""
PLUGIN = """# cachesim 1
model l1 16K:4:64 l2 256K:4:64 colours 16 cost 1 0 10 100
region 1 0 1000 900 300 10 5 1100
region 1 1 3000 900 300 40 30 9000
region 1 2 5000 900 300 60 50 9900
region 1 3 2000 900 300 20 10 8000
total 1 2 3 4
"""


def test_analyse_leaves_out_the_periods_before_the_load():
    r = cachebench.analyse("interrupted", CONSOLE, PLUGIN, True, None)
    assert r["first_period"] == 2 and r["periods"] == 2
    assert r["cycles_max"] == 5000 and r["cycles_avg"] == 3500
    assert r["missed"] == 1 and r["missed_all"] == 1
    assert r["late_max_us"] == 9 and r["l2_misses_max"] == 50 and r["all_cycles_max"] == 9900
    assert r["model"].startswith("l1 16K:4:64")


def test_analyse_alone_leaves_out_the_cold_first_period():
    r = cachebench.analyse("alone", CONSOLE, PLUGIN, False, None)
    assert r["first_period"] == 1 and r["periods"] == 3 and r["cycles_max"] == 5000


def test_analyse_rejects_mismatched_output():
    with pytest.raises(cachebench.CacheBenchError):
        cachebench.analyse("alone", CONSOLE, PLUGIN.replace("region 1 3 2000", "x"), False, None)
    with pytest.raises(cachebench.CacheBenchError):
        cachebench.analyse("alone", CONSOLE.replace("sum=ab\nrt: period 3", "sum=ac\nrt: period 3"),
                           PLUGIN, False, None)
