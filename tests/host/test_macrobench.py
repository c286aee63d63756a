"""Host tests for tools/macrobench.py (the compile and multi-user benchmarks): console
parsing, records and ratios, the bars, the table.  Canned console text only: no QEMU."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import macrobench  # noqa: E402
from macrobench import MacroError, Run  # noqa: E402

LINUX = ("Booting from ROM..\x1b[2J@@macro compile_j1 us=30000000 sum=333833500\n"
         "@@macro compile_j2 us=30100000 sum=333833500\n"
         "@@macro users_1 us=600000 jobs=7 sum=5d07cafa\n"
         "@@macro users_2 us=1000000 jobs=14 sum=5d07cafa\n@@macro-done\n"
         "[    4.8] Kernel panic - not syncing: Attempted to kill init!\n")
PECAN = ("lx: initramfs root-bench.cpio: 7314 entries\n"
         "@@macro compile_j1 us=32400000 sum=333833500\n"
         "@@macro compile_j2 us=32300000 sum=333833500\n"
         "@@macro users_1 us=660000 jobs=7 sum=5d07cafa\n"
         "@@macro users_2 us=1250000 jobs=14 sum=deadbeef\n@@macro-done\n")


def test_parse_finds_lines_after_firmware_text():
    r = macrobench.parse(LINUX, "linux")
    assert r["compile_j1"] == {"us": 30000000, "jobs": 0, "sum": "333833500"}
    assert r["users_2"]["jobs"] == 14 and len(r) == 4


def test_parse_needs_done_and_reports_guest_errors():
    with pytest.raises(MacroError, match="no @@macro-done"):
        macrobench.parse("@@macro users_1 us=1 jobs=7 sum=x\n", "lx")
    with pytest.raises(MacroError, match="make -j1"):
        macrobench.parse("@@macro-error make -j1\n@@macro-done\n", "lx")


def records():
    runs = [Run("linux", "icount", 1, "", macrobench.parse(LINUX, "l")),
            Run("pecan", "icount", 1, "", macrobench.parse(PECAN, "p"))]
    return macrobench.records(runs)


def test_records_pair_the_systems_in_order():
    recs = records()
    assert [r["name"] for r in recs] == ["compile_j1", "compile_j2", "users_1", "users_2"]
    c1 = recs[0]
    assert c1["pecan_ns"] == 32_400_000_000 and c1["linux_ns"] == 30_000_000_000
    assert c1["ratio"] == pytest.approx(1.08) and c1["same_output"]
    u1 = recs[2]
    assert u1["users"] == 1
    assert u1["linux_jobs_per_min"] == pytest.approx(700.0)       # 7 jobs in 0.6 s
    assert u1["pecan_jobs_per_min"] == pytest.approx(7 * 60 / 0.66)
    assert recs[3]["same_output"] is False


def test_bars_compile_and_users():
    bars = {k: ok for k, _, _, ok in macrobench.bars(records())}
    assert bars["M1"] is True           # 1.08 and 1.073 <= 1.10
    assert bars["M2"] is False          # users_2: 1.25x the time, 20% fewer jobs/min


def test_users_order_numerically():
    names = ["users_16", "users_2", "compile_j2", "users_1", "compile_j1"]
    assert sorted(names, key=macrobench._order) == [
        "compile_j1", "compile_j2", "users_1", "users_2", "users_16"]


def test_table_marks_a_differing_transcript():
    text = macrobench.table(records(), macrobench.bars(records()))
    assert "| users_2 | guest (1 ms = 1 M instr) | 1,250.0 | 1,000.0 | 1.250 |" in text
    assert text.count("| NO |") == 1 and "(M2) FAIL" in text and "(M1) PASS" in text


def test_plot_draws_only_the_times_measured():
    users = [r for r in records() if "users" in r]
    assert [u for u, _ in macrobench.plot_panels(users)] == ["guest_ns"]     # --quick: icount
    wall = [dict(r, unit="tcg_ns") for r in users]
    assert [u for u, _ in macrobench.plot_panels(users + wall)] == ["guest_ns", "tcg_ns"]
