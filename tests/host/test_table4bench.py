"""Host tests for tools/table4bench.py (Table 4 in make bench): the rows taken from the lx
group's and table4's measurements, the unit conversions, the two bars, a missing row, and
bench.parse_lx on table4's console lines.  Canned values only: no QEMU."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import bench  # noqa: E402
import table4bench as t4  # noqa: E402

G, W = t4.GUEST, t4.WALL


def m(v):
    return {"value": v, "iters": 10}


MEASURED = {
    "linux": {G: {"lx_pipe_pingpong": m(12000.0), "lx_pipe_64k": m(218453.0)}, W: {}},
    "lx": {G: {"lx_pipe_pingpong": m(9600.0), "lx_pipe_64k": m(45000.0),
               "t4_l4pipe_rtt": m(2800.0), "t4_l4pipe_64k": m(1570000.0),
               "t4_rpc_rtt": m(1500.0), "t4_rpc_64k": m(1840000.0),
               "t4_maprpc_rtt": m(4900.0), "t4_maprpc_64k": m(8000.0)},
           W: {"t4_rpc_rtt": m(30000.0)}},
}


def by_key(table):
    return {r["key"]: r for r in table}


def test_rows_convert_instructions_to_microseconds_and_megabytes():
    rows = by_key(t4.rows(MEASURED))
    assert list(rows) == ["1", "1a", "2", "3", "4"]
    assert rows["1"][f"us_{G}"] == 12.0
    assert round(rows["1"][f"mbs_{G}"], 1) == 300.0       # 65536 B / 218453 ns
    assert rows["3"][f"us_{G}"] == 1.5
    assert rows["3"][f"us_{W}"] == 30.0                   # TCG ns, where measured
    assert rows["2"][f"us_{W}"] is None and rows["1"][f"mbs_{W}"] is None
    assert rows["4"]["paper_us"] == "12" and rows["1"]["paper_mbs"] == "41"


def test_bars_pass_and_fail_by_their_ratios():
    bars = t4.bars(t4.rows(MEASURED))
    assert [b[2] for b in bars] == ["PASS", "PASS"]       # 12 / 1.5 = 8x; 8192 / 300 = 27x
    slow = {"linux": MEASURED["linux"],
            "lx": {G: {**MEASURED["lx"][G], "t4_rpc_rtt": m(2500.0),
                       "t4_maprpc_64k": m(16400.0)}, W: {}}}
    assert [b[2] for b in t4.bars(t4.rows(slow))] == ["FAIL", "FAIL"]   # 4.8x, 13.3x


def test_a_missing_row_is_na_and_its_bar_too():
    partial = {"linux": {G: {}, W: {}}, "lx": MEASURED["lx"]}
    table = t4.rows(partial)
    assert by_key(table)["1"][f"us_{G}"] is None
    assert [b[2] for b in t4.bars(table)] == ["n/a", "n/a"]
    text = t4.text(table)
    assert "n/a" in text and "paper us" in text
    md = t4.markdown(table)
    assert md.startswith("| row | IPC |") and "| 4 | mapping RPC (64 KiB) |" in md


def test_parse_lx_reads_table4_lines():
    console = ("lx: init /test/musl/table4\n"
               "BENCH name=t4_rpc_rtt iters=5000 tsc_per_op=1510.30 tsc=7551500\n"
               "BENCH-NA name=t4_maprpc_64k errno=2 what=open_dev_l4chan\n"
               "BENCH-DONE\n")
    parsed = bench.parse_lx(console)
    assert parsed["t4_rpc_rtt"] == {"value": 1510.3, "iters": 5000}
    assert parsed["t4_maprpc_64k"]["value"] is None
    assert "ENOENT" in parsed["t4_maprpc_64k"]["na"]
