"""tools/insnprof.py: folding an insnprof profile into buckets, functions and transitions,
on hand-made profiles (docs/profiling.md)."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import insnprof  # noqa: E402

PROFILE = """# insnprof 1
class 0 kernel 10
class 1 lx 4
class 2 prog 3
class 3 libs 2
class 4 other 0
tb ffffffff80106000 5 10 6 0
tb ffffffff80106010 3 4 4 0
tb ffffffff80107000 2 1 0 0
tb 401000 7 2 2 1
tb 401020 1 100 2 1
tb 555555554000 4 25 3 2
tb 7f0000001000 10 3 2 3
"""

SYMS = insnprof.Symbols([(0xFFFFFFFF80106000, "ipc_send"), (0xFFFFFFFF80107000, "sched_tick"),
                         (0x401000, "main_loop"), (0x401020, "lookup_pid")])


def test_parse_reads_classes_and_tbs():
    p = insnprof.parse(PROFILE)
    assert p.classes[0] == ("kernel", 10) and p.classes[4] == ("other", 0)
    assert len(p.tbs) == 7
    assert p.tbs[0] == (0xFFFFFFFF80106000, 5, 10, 6, 0)


def test_parse_rejects_other_formats():
    with pytest.raises(ValueError):
        insnprof.parse("tb 1 2 3 4 0\n")
    with pytest.raises(ValueError):
        insnprof.parse("# insnprof 1\nbogus line\n")


def test_fold_counts_instructions_per_bucket():
    f = insnprof.fold(insnprof.parse(PROFILE), SYMS)
    assert f.insns == {"kernel": 5 * 10 + 3 * 4 + 2, "lx": 7 * 2 + 100, "prog": 100,
                       "libs": 30, "other": 0}
    assert f.total == 64 + 114 + 100 + 30
    assert f.transitions == {"kernel": 10, "lx": 4, "prog": 3, "libs": 2, "other": 0}


def test_fold_names_functions_by_nearest_symbol_below():
    f = insnprof.fold(insnprof.parse(PROFILE), SYMS)
    # both kernel TBs below sched_tick belong to ipc_send
    assert f.functions[("kernel", "ipc_send")] == 62
    assert f.functions[("kernel", "sched_tick")] == 2
    assert f.functions[("lx", "lookup_pid")] == 100
    # Linux processes have no symbols: one entry per bucket
    assert f.functions[("prog", "(all)")] == 100 and f.functions[("libs", "(all)")] == 30


def test_address_below_every_symbol_is_named_by_address():
    f = insnprof.fold(insnprof.parse("# insnprof 1\nclass 0 lx 1\ntb 400010 2 3 1 0\n"), SYMS)
    assert f.functions == {("lx", "?0x400010"): 6}


def test_subtract_and_scale_give_the_cost_per_job():
    base = insnprof.fold(insnprof.parse(PROFILE), SYMS)
    heavier = PROFILE.replace("tb 401020 1 100 2 1", "tb 401020 1 500 2 1").replace(
        "class 1 lx 4", "class 1 lx 24")
    f = insnprof.fold(insnprof.parse(heavier), SYMS)
    d = insnprof.scale(insnprof.subtract(f, base), 4)
    assert d.insns["lx"] == 100 and d.insns["kernel"] == 0
    assert d.transitions["lx"] == 5
    assert d.functions[("lx", "lookup_pid")] == 100
    assert d.total == 100


def test_report_and_compare_list_the_growth():
    a = insnprof.fold(insnprof.parse(PROFILE), SYMS)
    b = insnprof.fold(insnprof.parse(PROFILE.replace("tb 401020 1 100", "tb 401020 1 900")), SYMS)
    text = insnprof.compare(a, b, top=3)
    first_function = text.split("B-A\n", 1)[1].splitlines()[0]
    assert first_function.startswith("lookup_pid") and "+800" in first_function
    assert "lx" in insnprof.report(a).splitlines()[3]


def test_classes_follow_the_elfs_and_end_with_the_linux_buckets(tmp_path):
    cls = insnprof.classes("linux")
    assert [c[0] for c in cls] == ["kernel", "prog", "libs"]
    assert cls[0][1] == 0xFFFF800000000000 and cls[0][2] == 0
    arg = insnprof.plugin_arg("linux", tmp_path / "p.txt", pathlib.Path("/x/insnprof.so"))
    assert arg.startswith("/x/insnprof.so,out=")
    assert ",class=kernel:ffff800000000000-0,class=prog:10000000-700000000000," in arg
