"""tools/tcgprof.py's pure parts: perf's outputs parsed, samples classified, scenarios built."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
import tcgprof  # noqa: E402

STAT = """# started on Fri Nov 27 20:50:00 2026

4796.12,msec,task-clock,4796120000,100.00,0.995,CPUs utilized
110012,,probe_qemu:tlb_flush,4796120000,100.00,,
<not counted>,,probe_qemu:tb_gen_code,0,100.00,,
"""


def test_stat_counts_reads_task_clock_and_probes(tmp_path):
    f = tmp_path / "x.stat"
    f.write_text(STAT)
    assert tcgprof.stat_counts(f) == {"task-clock": 4796.12, "tlb_flush": 110012.0}


def test_stat_counts_without_task_clock_is_an_error(tmp_path):
    f = tmp_path / "x.stat"
    f.write_text("110012,,probe_qemu:tlb_flush,1,100.00,,\n")
    with pytest.raises(RuntimeError):
        tcgprof.stat_counts(f)


def test_name_static_names_the_dynamic_symbol_before():
    syms = [(0x1000, "a"), (0x2000, "b")]
    assert tcgprof.name_static(0x1800, syms) == "static after a"
    assert tcgprof.name_static(0x2000, syms) == "static after b"
    assert tcgprof.name_static(0x10, syms) == "0x10"


def test_classify_sums_shares_by_class():
    profile = [(20.9, "qemu-system-x86_64 tcg_flush_jmp_cache"),
               (9.9, "qemu-system-x86_64 tlb_set_page_full"),
               (8.4, "qemu-system-x86_64 static after do_smm_enter"),
               (4.0, "[JIT] generated code"),
               (3.0, "[kernel.kallsyms] clear_page_erms"),
               (1.6, "qemu-system-x86_64 qht_lookup_custom"),
               (0.5, "libfoo.so whatever")]
    shares = tcgprof.classify(profile)
    assert shares["TLB flush"] == pytest.approx(20.9)
    assert shares["TLB fill / page walk"] == pytest.approx(18.3)
    assert shares["generated code"] == 4.0 and shares["host kernel"] == 3.0
    assert shares["TB lookup"] == 1.6 and shares["other"] == 0.5


def test_lx_scenario_runs_lxbench_repeated_under_lx(tmp_path):
    cmd, _ = tcgprof.scenario_command("lx:getpid", 7, "qemu-system-x86_64", tmp_path)
    initrd = cmd[cmd.index("-initrd") + 1]
    assert "init=/test/musl/lxbench repeat=7 getpid" in initrd
    assert "-icount" not in cmd


def test_unknown_scenario_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        tcgprof.scenario_command("bsd:getpid", 1, "qemu-system-x86_64", tmp_path)


def test_spread():
    assert tcgprof.spread([2.0]) == "2.0"
    assert tcgprof.spread([3.0, 1.0, 2.0]) == "2.0 (min 1.0, max 3.0, n=3)"
