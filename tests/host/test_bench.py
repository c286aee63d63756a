"""Host tests for tools/bench.py and the data side of tools/plot.py: console parsing, record
building and pairing, bar evaluation, tables, the docs section.  Canned console text only: no
QEMU, no matplotlib."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import bench  # noqa: E402
import plot  # noqa: E402

# Excerpt of a pingpong console under icount (boot lines included: they must be ignored).
PINGPONG_ICOUNT = """\
Pecan 0.1 (L4 X.2, amd64)
kernel: IPC fast path on
# pingpong: 2000 round trips per measurement
BENCH name=syscall_null iters=10000 tsc_per_op=138.01 tsc=1380155 ns=1380000
BENCH name=syscall_system_clock iters=10000 tsc_per_op=12.00 tsc=120009 ns=120000
BENCH name=ipc_roundtrip_inter_0w iters=2000 tsc_per_op=208.00 tsc=416009 ns=416000
BENCH name=ipc_roundtrip_inter_8w iters=2000 tsc_per_op=236.07 tsc=472159 ns=472000
BENCH name=ipc_roundtrip_inter_63w iters=2000 tsc_per_op=346.07 tsc=692157 ns=693000
BENCH name=ipc_roundtrip_intra_0w iters=2000 tsc_per_op=191.00 tsc=382009 ns=382000
BENCH name=ipc_roundtrip_lipc_0w iters=2000 tsc_per_op=205.00 tsc=410009 ns=410000
BENCH name=ipc_string_inter_4096b iters=2000 tsc_per_op=1840.50 tsc=3681000 ns=3681000
BENCH name=ipc_string_inter_65536b iters=200 tsc_per_op=15282.00 tsc=3056400 ns=3056000
BENCH name=ipc_pistachio_inter_0w iters=4000 tsc_per_op=91.75 tsc=367026 ns=367000
BENCH name=ipc_pistachio_inter_8w iters=4000 tsc_per_op=104.80 tsc=419200 ns=420000
BENCH name=ipc_pistachio_inter_63w iters=4000 tsc_per_op=159.75 tsc=639026 ns=639000
BENCH name=ipc_pistachio_intra_0w iters=4000 tsc_per_op=90.75 tsc=363026 ns=363000
BENCH name=ipc_pistachio_intra_8w iters=4000 tsc_per_op=103.80 tsc=415202 ns=415000
BENCH name=ipc_pistachio_intra_63w iters=4000 tsc_per_op=158.75 tsc=635026 ns=635000
BENCH name=ipc_pistachio_lipc_0w iters=4000 tsc_per_op=96.75 tsc=387029 ns=387000
BENCH name=ipc_pistachio_lipc_8w iters=4000 tsc_per_op=109.80 tsc=439205 ns=439000
BENCH name=ipc_pistachio_lipc_63w iters=4000 tsc_per_op=164.75 tsc=659029 ns=659000
BENCH-DONE
"""

# The same program without icount: tsc is the host's, ns is the kernel's clock (us x 1000).
PINGPONG_WALL = """\
BENCH name=syscall_null iters=10000 tsc_per_op=491.60 tsc=4916002 ns=1902000
BENCH name=ipc_roundtrip_inter_0w iters=2000 tsc_per_op=26789.55 tsc=53579110 ns=20641000\r
BENCH-DONE
"""

VMBENCH_ICOUNT = """\
# vmbench: tester 3c00000001
BENCH name=vm_fault iters=2000 tsc_per_op=2344.10 tsc=4688200 ns=4688000
BENCH name=vm_trap iters=2000 tsc_per_op=642.20 tsc=1284400 ns=600000
BENCH name=vm_appel1 iters=2000 tsc_per_op=3156.00 tsc=6312000 ns=6312000
BENCH name=vm_appel2 iters=2000 tsc_per_op=2497.00 tsc=4994000 ns=4994000
BENCH-DONE
"""

LINUX_RESULTS = {   # linuxref.parse_console(...).results of an icount boot
    "getpid": {"name": "getpid", "iters": 100000, "tsc_per_op": 314.36, "ns_per_op": 314.36},
    "pipe_pingpong_1b": {"name": "pipe_pingpong_1b", "iters": 10000, "tsc_per_op": 13025.11,
                         "ns_per_op": 13025.12},
    "futex_pingpong": {"name": "futex_pingpong", "iters": 10000, "tsc_per_op": 12646.85,
                       "ns_per_op": 12646.86},
    "pagefault_anon": {"name": "pagefault_anon", "iters": 10000, "tsc_per_op": 6950.0,
                       "ns_per_op": 6950.0},
    "trap": {"name": "trap", "iters": 10000, "tsc_per_op": 3101.0, "ns_per_op": 3101.0},
}


def measurements(text, icount=True):
    return bench.parse_pecan(text, icount)


FOREIGN_ICOUNT = """\
# foreign: 10000 reflected system calls per measurement
BENCH name=foreign_syscall_null iters=10000 tsc_per_op=242.05 tsc=2420535 ns=2474000
BENCH-DONE
"""


def full_records(linux=True):
    pecan = {bench.GUEST: measurements(PINGPONG_ICOUNT), bench.WALL: {}}
    pecan[bench.GUEST].update(measurements(VMBENCH_ICOUNT))
    pecan[bench.GUEST].update(measurements(FOREIGN_ICOUNT))
    pecan[bench.GUEST].update(bench.slowpath_names(measurements(
        PINGPONG_ICOUNT.replace("tsc_per_op=208.00", "tsc_per_op=1097.22"))))
    pecan[bench.WALL] = measurements(PINGPONG_WALL, icount=False)
    ref = None
    if linux:
        ref = {bench.GUEST: bench.parse_linux(LINUX_RESULTS, icount=True),
               bench.WALL: bench.parse_linux(
                   {"pipe_pingpong_1b": {"iters": 10000, "tsc_per_op": 9e6, "ns_per_op": 83017.4}},
                   icount=False)}
    return bench.build_records(pecan, ref)


def find(records, name, unit=bench.GUEST, system="pecan"):
    hits = [r for r in records if r["name"] == name and r["unit"] == unit and r["system"] == system]
    assert len(hits) == 1, (name, unit, system, hits)
    return hits[0]


# ------------------------------------------------------------------------------- parsing

def test_parse_icount_uses_tsc_per_op():
    m = measurements(PINGPONG_ICOUNT)
    assert list(m)[:3] == ["syscall_null", "syscall_system_clock", "ipc_roundtrip_inter_0w"]
    assert m["ipc_roundtrip_inter_0w"] == {"value": 208.0, "iters": 2000}
    assert m["ipc_string_inter_65536b"] == {"value": 15282.0, "iters": 200}


def test_parse_wall_uses_kernel_clock_not_host_tsc():
    m = measurements(PINGPONG_WALL, icount=False)
    assert m["syscall_null"]["value"] == pytest.approx(190.2)
    assert m["ipc_roundtrip_inter_0w"]["value"] == pytest.approx(10320.5)


@pytest.mark.parametrize("text, why", [
    (PINGPONG_ICOUNT.replace("BENCH-DONE\n", ""), "BENCH-DONE"),
    ("Pecan 0.1\nBENCH-DONE\n", "no BENCH lines"),
    ("BENCH name=x iters=0 tsc_per_op=1.00 tsc=0 ns=0\nBENCH-DONE\n", "malformed"),
    ("BENCH name=x iters=10 tsc=10 ns=10\nBENCH-DONE\n", "malformed"),
    ("BENCH-ERROR name=x reason=y\nBENCH-DONE\n", "BENCH-ERROR"),
])
def test_parse_rejects_incomplete_consoles(text, why):
    with pytest.raises(bench.BenchError, match=why):
        bench.parse_pecan(text, icount=True)


def test_merge_min_takes_the_minimum_per_name():
    a = {"x": {"value": 5.0, "iters": 1}, "y": {"value": 1.0, "iters": 1}}
    b = {"x": {"value": 4.0, "iters": 1}, "z": {"value": 9.0, "iters": 1}}
    merged = bench.merge_min([a, b])
    assert {k: v["value"] for k, v in merged.items()} == {"x": 4.0, "y": 1.0, "z": 9.0}
    assert a["x"]["value"] == 5.0       # inputs untouched


def test_slowpath_names_keep_only_round_trips():
    names = bench.slowpath_names(measurements(PINGPONG_ICOUNT))
    assert "ipc_roundtrip_inter_0w_slowpath" in names
    assert not any(n.startswith(("syscall", "ipc_string")) for n in names)


# ------------------------------------------------------------------------------- records

def test_records_have_the_schema_and_pairings():
    records = full_records()
    for r in records:
        assert {"name", "unit", "value", "linux", "linux_name"} <= set(r)
        assert r["unit"] in (bench.GUEST, bench.WALL)
    inter = find(records, "ipc_roundtrip_inter_0w")
    assert (inter["linux_name"], inter["linux"]) == ("pipe_pingpong_1b", 13025.11)
    assert inter["ratio"] == pytest.approx(62.62, abs=0.01)
    assert (inter["linux_alt_name"], inter["linux_alt"]) == ("futex_pingpong", 12646.85)
    assert find(records, "ipc_string_inter_4096b")["linux_name"] == "pipe_pingpong_1b"
    assert find(records, "syscall_null")["linux_name"] == "getpid"
    clock = find(records, "syscall_system_clock")
    assert clock["linux_name"] is None and clock["ratio"] is None and clock["note"]
    fault = find(records, "vm_fault")
    assert fault["linux_name"] == "pagefault_anon" and "pager" in fault["note"]
    assert find(records, "vm_trap")["linux"] == 3101.0
    appel1 = find(records, "vm_appel1")     # its Linux run is missing from LINUX_RESULTS
    assert appel1["linux_name"] == "appel1" and appel1["linux"] is None and appel1["ratio"] is None
    slow = find(records, "ipc_roundtrip_inter_0w_slowpath")
    assert slow["linux_name"] == "pipe_pingpong_1b" and slow["value"] == 1097.22


def test_wall_records_pair_with_linux_wall_figures():
    records = full_records()
    wall = find(records, "ipc_roundtrip_inter_0w", bench.WALL)
    assert wall["linux"] == 83017.4
    assert wall["ratio"] == pytest.approx(83017.4 / 10320.5, abs=0.01)
    assert find(records, "syscall_null", bench.WALL)["linux"] is None   # getpid wall not run


def test_linux_records_are_included_raw():
    records = full_records()
    pipe = find(records, "pipe_pingpong_1b", system="linux")
    assert pipe["value"] == 13025.11 and pipe["linux"] is None and pipe["linux_name"] is None
    assert find(records, "pipe_pingpong_1b", bench.WALL, "linux")["value"] == 83017.4
    # Pecan records come first, Linux records after them.
    systems = [r["system"] for r in records]
    assert systems == sorted(systems, key=lambda s: s != "pecan")
    json.dumps(records)                 # serialisable as is


def test_records_without_linux_have_no_ratios():
    records = full_records(linux=False)
    assert all(r["system"] == "pecan" for r in records)
    inter = find(records, "ipc_roundtrip_inter_0w")
    assert inter["linux"] is None and inter["ratio"] is None
    assert inter["linux_name"] == "pipe_pingpong_1b"    # the pairing is still documented


# ------------------------------------------------------------------------------- bars

def bars_by_key(records):
    return {b.key: b for b in bench.evaluate_bars(records)}


def test_bars_pass_on_the_canned_figures():
    bars = bars_by_key(full_records())
    assert [bars[k].verdict for k in "abcdefg"] == ["PASS"] * 7
    assert bars["e"].measured == ("inter_0w 91.75 <= 99.79, intra_0w 90.75 <= 98.79, "
                                  "lipc_0w 96.75 <= 111.35")
    assert bars["f"].rows == tuple(f"ipc_pistachio_{m}_{n}w" for m in ("inter", "intra", "lipc")
                                   for n in (8, 63))
    assert "inter_63w 159.75 <= 166.79" in bars["f"].measured
    assert bars["g"].measured == "242.1"
    assert "62.6" in bars["b"].measured
    assert "2.00/round trip = 1.00/word/message" in bars["d"].measured
    assert "0->63: 2.19 = 1.10" in bars["d"].measured


def with_value(records, name, value):
    out = [dict(r) for r in records]
    find(out, name)["value"] = value
    return out


def test_bar_a_and_b_fail_on_a_slow_round_trip():
    bars = bars_by_key(with_value(full_records(), "ipc_roundtrip_inter_0w", 300.0))
    assert bars["a"].verdict == "FAIL"
    assert bars["b"].verdict == "FAIL"          # 13025 / 300 = 43 < 50
    assert bars["c"].verdict == "PASS"


def test_bar_c_fails_when_local_ipc_is_slower_than_inter_space():
    bars = bars_by_key(with_value(full_records(), "ipc_roundtrip_lipc_0w", 209.0))
    assert bars["c"].verdict == "FAIL"


def test_bar_d_fails_on_two_instructions_per_word_and_message():
    # 8 -> 63 words: 236 + 55 * 4.4 per round trip = 2.2 per word and message
    bars = bars_by_key(with_value(full_records(), "ipc_roundtrip_inter_63w", 236.07 + 55 * 4.4))
    assert bars["d"].verdict == "FAIL"


@pytest.mark.parametrize("row, value, failing, passing", [
    ("inter_0w", 99.8, "e", "f"), ("intra_0w", 98.8, "e", "f"), ("lipc_0w", 111.36, "e", "f"),
    ("inter_8w", 111.8, "f", "e"), ("intra_63w", 165.8, "f", "e"), ("lipc_63w", 178.3, "f", "e")])
def test_bars_e_f_fail_when_a_row_exceeds_pistachio(row, value, failing, passing):
    bars = bars_by_key(with_value(full_records(), f"ipc_pistachio_{row}", value))
    assert bars[failing].verdict == "FAIL"
    assert bars[passing].verdict == "PASS"


def test_bars_e_f_pass_at_pistachios_figure():
    records = full_records()
    for mode, figures in bench.PISTACHIO_FIGURES.items():
        for n, v in figures.items():
            records = with_value(records, f"ipc_pistachio_{mode}_{n}w", v)
    bars = bars_by_key(records)
    assert bars["e"].verdict == bars["f"].verdict == "PASS"


def test_bar_f_is_na_without_a_row():
    records = [r for r in full_records() if r["name"] != "ipc_pistachio_intra_63w"]
    assert bars_by_key(records)["f"].verdict == "n/a"


def test_bar_g_fails_above_250_per_reflected_system_call():
    bars = bars_by_key(with_value(full_records(), "foreign_syscall_null", 251.0))
    assert bars["g"].verdict == "FAIL"


def test_reflected_system_call_pairs_with_getpid():
    r = find(full_records(), "foreign_syscall_null")
    assert r["linux_name"] == "getpid" and r["ratio"] is not None and "reflected" in r["note"]


def test_pistachio_rows_are_one_way_and_beside_pistachios_figures():
    records = full_records()
    r = find(records, "ipc_pistachio_inter_0w")
    assert r["linux_name"] is None and r["ratio"] is None and "one-way" in r["note"]
    assert r["iters"] == 4000 and r["pistachio"] == 99.79
    assert find(records, "ipc_pistachio_lipc_63w")["pistachio"] == 178.29
    assert "pistachio" not in find(records, "ipc_pistachio_inter_0w_slowpath")
    assert "pistachio" not in find(records, "ipc_roundtrip_inter_0w")
    assert "ipc_pistachio_lipc_0w_slowpath" in bench.slowpath_names(measurements(PINGPONG_ICOUNT))
    bars = bench.evaluate_bars(records)
    assert not any(row[0].startswith("ipc_pistachio_") for row in bench.table_rows(records, bars))
    rows = {row[0]: row for row in bench.pistachio_rows(records, bars)}
    assert len(rows) == 9
    assert rows["ipc_pistachio_inter_0w"] == ["ipc_pistachio_inter_0w", "99.79", "91.75", "1.09",
                                              "91.8", "(e) PASS"]
    assert rows["ipc_pistachio_lipc_8w"][-1] == "(f) PASS"
    assert all(len(r) == len(bench.PISTACHIO_HEADER) for r in rows.values())


def test_pistachio_figure():
    assert bench.pistachio_figure("ipc_pistachio_intra_8w") == 110.79
    assert bench.pistachio_figure("ipc_pistachio_intra_9w") is None
    assert bench.pistachio_figure("ipc_pistachio_intra_8w_slowpath") is None
    assert bench.pistachio_figure("ipc_roundtrip_inter_0w") is None


def test_bars_not_measured_are_na():
    bars = bars_by_key(full_records(linux=False))
    assert bars["b"].verdict == "n/a" and bars["a"].verdict == "PASS"
    bars = bars_by_key([])
    assert [bars[k].verdict for k in "abcdefg"] == ["n/a"] * 7


def test_word_slope():
    g = {"ipc_roundtrip_inter_8w": 236.0, "ipc_roundtrip_inter_63w": 346.0}
    assert bench.word_slope(g, "inter", 8, 63) == pytest.approx(2.0)
    assert bench.word_slope(g, "inter", 0, 63) is None


# ------------------------------------------------------------------------------- tables

def test_table_rows_and_check_column():
    records = full_records()
    rows = {r[0]: r for r in bench.table_rows(records, bench.evaluate_bars(records))}
    assert rows["ipc_roundtrip_inter_0w"] == [
        "ipc_roundtrip_inter_0w", "pipe_pingpong_1b", "208.0", "13025", "62.6",
        "10320", "83017", "8.04", "(a) PASS (b) PASS"]
    assert rows["ipc_roundtrip_lipc_0w"][-1] == "(c) PASS"
    assert rows["ipc_roundtrip_inter_63w"][-1] == "(d) PASS"
    assert rows["syscall_system_clock"][1:5] == ["-", "12.0", "n/a", "n/a"]
    assert rows["vm_fault"][2] == "2344"
    assert all(len(r) == len(bench.HEADER) for r in rows.values())


def test_table_without_linux_marks_ratios_na():
    records = full_records(linux=False)
    rows = {r[0]: r for r in bench.table_rows(records, bench.evaluate_bars(records))}
    assert rows["ipc_roundtrip_inter_0w"][3:5] == ["n/a", "n/a"]
    assert rows["ipc_roundtrip_inter_0w"][-1] == "(a) PASS (b) n/a"


def test_text_table_is_aligned():
    text = bench.format_text(("name", "eq", "a", "b", "bars"),
                             [["x", "y", "1.0", "12345", "(a) PASS"],
                              ["longer", "-", "n/a", "2", ""]])
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines[2].index("12345") == lines[3].index("    2")    # numbers right-aligned
    assert lines[2].startswith("x" + " " * 7 + "y ")      # "longer" + 2 blanks


def test_markdown_table():
    md = bench.format_markdown(bench.LINUX_HEADER, [["getpid", "314.4", "n/a"]])
    assert md.splitlines() == ["| Linux benchmark | instr/op | TCG ns/op |",
                               "| --- | ---: | ---: |",
                               "| getpid | 314.4 | n/a |"]


@pytest.mark.parametrize("value, ratio, text", [
    (None, False, "n/a"), (208.0, False, "208.0"), (13025.11, False, "13025"),
    (62.62, True, "62.6"), (5.274, True, "5.27"), (None, True, "n/a")])
def test_fmt(value, ratio, text):
    assert bench.fmt(value, ratio) == text


def test_summary_reports_the_fast_path_gain_and_futex():
    lines = bench.summary_lines(full_records(), [])
    assert "fast path: inter_0w 208.0 vs 1097.2 instructions with fastpath=off (5.28x)" in lines
    assert any(line.startswith("Linux futex round trip / inter_0w: 12647 / 208.0")
               for line in lines)


# ------------------------------------------------------------------------------- docs

def test_replace_section():
    text = f"intro\n{bench.DOC_BEGIN}\nold\nlines\n{bench.DOC_END}\nrest\n"
    out = bench.replace_section(text, "new\n")
    assert out == f"intro\n{bench.DOC_BEGIN}\nnew\n{bench.DOC_END}\nrest\n"
    assert bench.replace_section(out, "new") == out         # idempotent
    with pytest.raises(ValueError):
        bench.replace_section("no markers", "x")
    with pytest.raises(ValueError):
        bench.replace_section(f"{bench.DOC_END}\n{bench.DOC_BEGIN}", "x")


def test_render_doc():
    records = full_records()
    meta = {"date": "2024-01-01T00:00:00+00:00", "git_commit": "0123456789abcdef",
            "git_dirty": True, "qemu": "QEMU emulator version 7.2.22", "linux_kernel": "linux-image-x=1",
            "linux_uname": "6.1.0-56-amd64 #1", "host_cpu": "CPU", "host_cpus": 2}
    doc = bench.render_doc(meta, records, bench.evaluate_bars(records),
                           [Path("build/bench/ipc_roundtrip.png")])
    assert "commit 0123456789ab (with uncommitted changes)" in doc
    assert "| ipc_roundtrip_inter_0w | pipe_pingpong_1b | 208.0 | 13025 | 62.6 |" in doc
    assert "* (a) PASS: ipc_roundtrip_inter_0w <= 220" in doc
    assert "| ipc_pistachio_intra_63w | 165.79 | 158.75 | 1.04 | 158.8 | (f) PASS |" in doc
    assert "| Pistachio's convention | Pistachio instr/IPC |" in doc
    assert "![IPC round trips](perf/ipc_roundtrip.png)" in doc
    assert "| pipe_pingpong_1b | 13025 | 83017 |" in doc


def test_the_doc_has_the_markers():
    bench.replace_section((ROOT / "docs" / "performance.md").read_text(), "x")


# ------------------------------------------------------------------------------- plot data

def test_plot_series():
    records = full_records()
    series = plot.roundtrip_series(records)
    assert series["inter"] == [(0, 208.0), (8, 236.07), (63, 346.07)]
    assert series["inter_slowpath"][0] == (0, 1097.22)
    assert series["intra"] == [(0, 191.0)]
    strings = plot.string_series(records)
    assert strings == [(4096, 1840.5), (65536, 15282.0)]
    assert plot.marginal_per_byte(strings) == pytest.approx((15282.0 - 1840.5) / 61440)
    assert plot.marginal_per_byte(strings[:1]) is None
    assert plot.linux_refs(records) == {"pipe_pingpong_1b": 13025.11, "futex_pingpong": 12646.85}
    assert plot.vm_pairs(records) == [
        ("vm_fault", 2344.1, 6950.0, "pagefault_anon"), ("vm_trap", 642.2, 3101.0, "trap"),
        ("vm_appel1", 3156.0, None, "appel1"), ("vm_appel2", 2497.0, None, "appel2")]


def test_plot_series_empty_without_data():
    records = full_records(linux=False)
    assert plot.linux_refs(records) == {}
    no_vm = [r for r in records if not r["name"].startswith("vm_")]
    assert plot.vm_pairs(no_vm) == []


# ------------------------------------------------------------------------------- runs

class FakeRunner:
    """Stands in for bench.Runner: canned consoles instead of QEMU."""

    def __init__(self):
        self.calls, self.failures = [], []

    def pecan(self, program, icount, cmdline="kdb=batch", label=""):
        self.calls.append((program, icount, cmdline))
        text = {"pingpong": PINGPONG_ICOUNT if icount else PINGPONG_WALL,
                "vmbench": VMBENCH_ICOUNT}[program]
        return bench.parse_pecan(text, icount)

    def fail(self, what, why):
        self.failures.append(what)


def fake_build(monkeypatch, tmp_path, programs):
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    (tmp_path / "build" / "user").mkdir(parents=True)
    for p in programs:
        (tmp_path / "build" / "user" / f"{p}.elf").write_bytes(b"\x7fELF")


def test_measure_pecan_skips_an_optional_program_not_built(monkeypatch, tmp_path):
    fake_build(monkeypatch, tmp_path, ["pingpong"])
    runner, skipped = FakeRunner(), []
    pecan = bench.measure_pecan(runner, quick=False, repeat=2, skipped=skipped)
    assert skipped == ["vmbench: build/user/vmbench.elf not built",
                       "foreignbench: build/user/foreignbench.elf not built"]
    assert not runner.failures
    assert runner.calls == [("pingpong", True, "kdb=batch"),
                            ("pingpong", True, "kdb=batch fastpath=off"),
                            ("pingpong", False, "kdb=batch"), ("pingpong", False, "kdb=batch")]
    assert "ipc_roundtrip_inter_0w_slowpath" in pecan[bench.GUEST]
    assert pecan[bench.WALL]["ipc_roundtrip_inter_0w"]["value"] == pytest.approx(10320.5)
    assert not any(n.startswith("vm_") for n in pecan[bench.GUEST])


def test_measure_pecan_quick_has_no_wall_runs_and_needs_pingpong(monkeypatch, tmp_path):
    fake_build(monkeypatch, tmp_path, ["vmbench"])
    runner = FakeRunner()
    pecan = bench.measure_pecan(runner, quick=True, repeat=1, skipped=[])
    assert runner.failures == ["pecan pingpong"]
    assert runner.calls == [("vmbench", True, "kdb=batch")]
    assert set(pecan[bench.GUEST]) == {"vm_fault", "vm_trap", "vm_appel1", "vm_appel2"}
    assert pecan[bench.WALL] == {}


def test_measure_pecan_only_pingpong(monkeypatch, tmp_path):
    fake_build(monkeypatch, tmp_path, ["pingpong", "vmbench"])
    runner, skipped = FakeRunner(), []
    pecan = bench.measure_pecan(runner, quick=True, repeat=1, skipped=skipped, only="pingpong")
    assert skipped == ["vmbench: not selected", "foreignbench: not selected"]
    assert runner.calls == [("pingpong", True, "kdb=batch"),
                            ("pingpong", True, "kdb=batch fastpath=off")]
    assert "ipc_pistachio_inter_0w_slowpath" in pecan[bench.GUEST]


def test_linux_info_finds_the_kernel_behind_escape_sequences():
    console = ("\x1bc\x1b[?7l\x1b[2JINFO kernel=6.1.0-56-amd64 #1 SMP Debian\r\n"
               "INFO tsc_calib n=100000 exact=1\r\nBENCH-DONE\r\n")
    run = bench.linuxref.GuestRun(bench.linuxref.parse_console(console), console, [], 1.0,
                                  Path("x.log"))
    meta = {}
    bench.linux_info(run, meta)
    assert meta == {"linux_uname": "6.1.0-56-amd64 #1 SMP Debian",
                    "icount_check": "tsc_calib n=100000 exact=1"}


# ------------------------------------------------------------------------------- lx rows

# lxbench under lx (boot lines and lx's own messages around it) and on Linux.
LXBENCH_LX = """\
lx: Linux server, 32768 KiB of memory, 1 program(s)
BENCH name=lx_getpid iters=10000 tsc_per_op=321.05 tsc=3210534
BENCH name=lx_fork_exit iters=40 tsc_per_op=371081.52 tsc=14843261
lx: pid 1: system call 22 (pipe) not implemented
BENCH-NA name=lx_pipe_pingpong errno=38 what=pipe\r
BENCH name=lx_pagefault_anon iters=256 tsc_per_op=3131.62 tsc=801695
BENCH-NA name=lx_signal_catch errno=38 what=kill
BENCH-NA name=lx_odd errno=200 what=child_status_11
BENCH-DONE
lx: no processes left, 8192 pages free
"""
LXBENCH_LINUX = """\
BENCH name=lx_getpid iters=10000 tsc_per_op=310.07 tsc=3100724
BENCH name=lx_fork_exit iters=40 tsc_per_op=205216.30 tsc=8208652
BENCH name=lx_pipe_pingpong iters=2000 tsc_per_op=11578.96 tsc=23157930
BENCH name=lx_pagefault_anon iters=256 tsc_per_op=6759.08 tsc=1730327
BENCH name=lx_signal_catch iters=1000 tsc_per_op=4203.30 tsc=4203301
BENCH-DONE
"""


def lx_records(lx=LXBENCH_LX, linux=True):
    pecan = {bench.GUEST: measurements(PINGPONG_ICOUNT), bench.WALL: {}}
    pecan[bench.GUEST].update(bench.parse_lx(lx))
    ref = None
    if linux:
        ref = {bench.GUEST: bench.parse_linux(LINUX_RESULTS, icount=True), bench.WALL: {}}
        ref[bench.GUEST].update(bench.parse_lx(LXBENCH_LINUX))
    return bench.build_records(pecan, ref)


def test_parse_lx_rows_and_na_in_the_programs_order():
    m = bench.parse_lx(LXBENCH_LX)
    assert list(m) == ["lx_getpid", "lx_fork_exit", "lx_pipe_pingpong", "lx_pagefault_anon",
                       "lx_signal_catch", "lx_odd"]
    assert m["lx_getpid"] == {"value": 321.05, "iters": 10000}
    assert m["lx_pipe_pingpong"] == {"value": None, "iters": None,
                                     "na": "pipe: errno 38 (ENOSYS)"}
    assert m["lx_odd"]["na"] == "child_status_11: errno 200"


def test_parse_lx_without_icount_gives_ns_from_host_ticks():
    m = bench.parse_lx(LXBENCH_LX, ns_per_tick=0.5)
    assert m["lx_getpid"] == {"value": pytest.approx(160.53), "iters": 10000}
    assert m["lx_pipe_pingpong"]["value"] is None


@pytest.mark.parametrize("text, why", [
    (LXBENCH_LX.replace("BENCH-DONE\n", ""), "BENCH-DONE"),
    ("lx: hello\nBENCH-DONE\n", "no BENCH lines"),
    ("BENCH name=lx_x iters=10 tsc=10\nBENCH-DONE\n", "malformed"),
])
def test_parse_lx_rejects_incomplete_consoles(text, why):
    with pytest.raises(bench.BenchError, match=why):
        bench.parse_lx(text)


def test_lx_rows_pair_with_the_same_program_on_linux():
    records = lx_records()
    g = find(records, "lx_getpid")
    assert (g["linux_name"], g["linux"]) == ("lx_getpid", 310.07)
    assert g["ratio"] == pytest.approx(0.97, abs=0.01) and "same static program" in g["note"]
    pipe = find(records, "lx_pipe_pingpong")
    assert pipe["value"] is None and pipe["ratio"] is None and pipe["linux"] == 11578.96
    assert pipe["note"] == "n/a under lx: pipe: errno 38 (ENOSYS)"
    assert find(records, "lx_getpid", system="linux")["value"] == 310.07
    json.dumps(records)


def test_bar_h_getpid_through_lx():
    bars = bars_by_key(lx_records())
    assert bars["h"].verdict == "PASS"
    assert bars["h"].measured == "321.1 vs Linux lx_getpid 310.1 (<= 465.1): 1.04x"
    slow = bars_by_key(lx_records(LXBENCH_LX.replace("tsc_per_op=321.05", "tsc_per_op=466.00")))
    assert slow["h"].verdict == "FAIL"
    assert bars_by_key(lx_records(linux=False))["h"].verdict == "n/a"
    assert bars_by_key(full_records())["h"].verdict == "n/a"        # lx not run
    na = bars_by_key(lx_records(LXBENCH_LX.replace(
        "BENCH name=lx_getpid iters=10000 tsc_per_op=321.05 tsc=3210534",
        "BENCH-NA name=lx_getpid errno=38 what=getpid")))
    assert na["h"].verdict == "n/a"


def test_bar_h_takes_the_slower_of_getpid_alone_and_beside_a_sleeper():
    text = LXBENCH_LX.replace(
        "BENCH name=lx_fork_exit",
        "BENCH name=lx_getpid_sleeper iters=10000 tsc_per_op=470.00 tsc=4700000\n"
        "BENCH name=lx_fork_exit")
    bars = bars_by_key(lx_records(text))
    assert bars["h"].verdict == "FAIL" and bars["h"].measured.startswith("470.0 vs")
    assert bars["h"].rows == ("lx_getpid", "lx_getpid_sleeper")
    same = bars_by_key(lx_records(text.replace("tsc_per_op=470.00", "tsc_per_op=322.00")))
    assert same["h"].verdict == "PASS" and same["h"].measured.startswith("322.0 vs")


def test_bar_h_falls_back_to_the_reference_getpid():
    pecan = {bench.GUEST: bench.parse_lx(LXBENCH_LX), bench.WALL: {}}
    ref = {bench.GUEST: bench.parse_linux(LINUX_RESULTS, icount=True), bench.WALL: {}}
    bars = bars_by_key(bench.build_records(pecan, ref))
    assert bars["h"].verdict == "PASS" and "Linux getpid 314.4" in bars["h"].measured


def test_lx_rows_in_the_table_and_the_summary():
    records = lx_records()
    bars = bench.evaluate_bars(records)
    rows = {r[0]: r for r in bench.table_rows(records, bars)}
    assert rows["lx_getpid"][:5] == ["lx_getpid", "(same program)", "321.1", "310.1", "0.97"]
    assert rows["lx_getpid"][-1] == "(h) PASS"
    assert rows["lx_pipe_pingpong"][2:5] == ["n/a", "11579", "n/a"]
    assert not any(r[0].startswith("lx_") for r in bench.linux_rows(records))
    lines = bench.summary_lines(records, bars)
    assert "lx_pipe_pingpong: n/a under lx: pipe: errno 38 (ENOSYS)" in lines
    assert any(line.startswith("(h) PASS: getpid through lx <= 1.5x") for line in lines)


def test_plot_lx_pairs():
    assert plot.lx_pairs(lx_records())[:3] == [
        ("getpid", 321.05, 310.07), ("fork_exit", 371081.52, 205216.3),
        ("pipe_pingpong", None, 11578.96)]
    assert plot.lx_pairs(full_records()) == []


def test_parse_lx_partial_keeps_the_rows_before_a_hang():
    hung = LXBENCH_LX[:LXBENCH_LX.index("BENCH name=lx_pagefault_anon")]
    assert list(bench.parse_lx(hung, partial=True)) == ["lx_getpid", "lx_fork_exit",
                                                        "lx_pipe_pingpong"]
    assert bench.parse_lx("lx: hello\n", partial=True) == {}


class FakeLxRunner(FakeRunner):
    """lxbench's consoles: the same figures under icount and without (then host ticks)."""

    def lx(self, icount=True):
        self.calls.append(("lx", icount))
        return bench.parse_lx(LXBENCH_LX, ns_per_tick=None if icount else 0.5)

    def linux_lx(self, icount=True):
        self.calls.append(("linux_lx", icount))
        return bench.parse_lx(LXBENCH_LINUX, ns_per_tick=None if icount else 0.5)


@pytest.mark.parametrize("quick", [True, False])
def test_measure_lx_adds_wall_rows_unless_quick(monkeypatch, quick):
    monkeypatch.setattr(bench, "prepare_lx", lambda: None)
    runner = FakeLxRunner()
    pecan, ref = bench.measure_lx(runner, linux=True, quick=quick)
    assert pecan[bench.GUEST]["lx_getpid"]["value"] == 321.05
    assert ref[bench.GUEST]["lx_getpid"]["value"] == 310.07
    if quick:
        assert runner.calls == [("lx", True), ("linux_lx", True)]
        assert pecan[bench.WALL] == {} and ref[bench.WALL] == {}
    else:
        assert runner.calls == [("lx", True), ("linux_lx", True), ("lx", False),
                                ("linux_lx", False)]
        assert pecan[bench.WALL]["lx_getpid"]["value"] == pytest.approx(160.53)
        rows = {r[0]: r for r in bench.table_rows(
            bench.build_records(pecan, ref), [])}
        assert rows["lx_getpid"][5:8] == ["160.5", "155.0", "0.97"]
