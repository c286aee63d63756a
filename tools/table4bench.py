"""Table 4 of the 1997 paper (§6.2) in make bench (issue 15 item 2): pipes, the L4 pipe, RPC
and mapping RPC between two Linux processes, beside the paper's 133 MHz Pentium figures.

Where each row comes from (all in the same make bench run):

  (1)  pipe, native Linux   lxbench's lx_pipe_pingpong / lx_pipe_64k on Debian's kernel
  (1a) pipe through lx      the same rows of the same program under lx
  (2)  L4 pipe              table4's t4_l4pipe_rtt / t4_l4pipe_64k under lx (user/lib/include/
                            l4pipe.h over a /dev/l4chan channel; data by string items: the
                            kernel copies each write into the reader's buffer, long IPC)
  (3)  L4 RPC               t4_rpc_rtt / t4_rpc_64k (a call per 56 bytes, MR1-MR7)
  (4)  mapping RPC          t4_maprpc_rtt / t4_maprpc_64k (a 64 KiB aligned region mapped per
                            call, unmapped after), when table4 reports them

Each measurement is per operation: guest instructions under -icount shift=0 (1 ns each: the
guest TSC's rate) or TCG wall-clock ns.  Latency: microseconds per 1-byte round trip.
Bandwidth: 10^6 bytes per second for 64 KiB blocks.  bench.py runs table4 and calls
rows()/bars()/text()/markdown() with what it measured."""
from __future__ import annotations

from typing import Optional

PROGRAM = "/test/musl/table4"       # user/linux/tests/table4.c, in the initramfs
BLOCK = 65536
GUEST = "guest_instructions"
WALL = "tcg_ns"
BAR_RPC_LATENCY = 6.0               # (3)'s latency at least 6x lower than (1)'s
BAR_MAP_BANDWIDTH = 20.0            # (4)'s bandwidth at least 20x (1)'s

# key, what, (system, latency row), (system, bandwidth row), paper's latency (us), paper's MB/s
ROWS = (
    ("1", "pipe, native Linux", ("linux", "lx_pipe_pingpong"), ("linux", "lx_pipe_64k"),
     "29", "41"),
    ("1a", "pipe through lx", ("lx", "lx_pipe_pingpong"), ("lx", "lx_pipe_64k"), "46", "40"),
    ("2", "L4 pipe (string items)", ("lx", "t4_l4pipe_rtt"), ("lx", "t4_l4pipe_64k"),
     "22", "48-70"),
    ("3", "L4 RPC (register words)", ("lx", "t4_rpc_rtt"), ("lx", "t4_rpc_64k"), "5",
     "65-105"),
    ("4", "mapping RPC (64 KiB)", ("lx", "t4_maprpc_rtt"), ("lx", "t4_maprpc_64k"), "12",
     "2,470-2,900"),
)
HEADER = ("row", "IPC", "us (guest)", "MB/s (guest)", "us (TCG)", "MB/s (TCG)",
          "paper us", "paper MB/s")


def latency_us(ns_per_op: Optional[float]) -> Optional[float]:
    return None if ns_per_op is None else ns_per_op / 1000.0


def bandwidth_mbs(ns_per_block: Optional[float]) -> Optional[float]:
    return None if not ns_per_block else BLOCK / ns_per_block * 1000.0


def _get(measured: dict, unit: str, where: tuple) -> Optional[float]:
    system, name = where
    m = measured.get(system, {}).get(unit, {}).get(name)
    return None if m is None else m.get("value")


def rows(measured: dict) -> list:
    """measured: {"linux"|"lx": {unit: {name: {"value", ...}}}} -> one dict per Table 4 row:
    key, what, latency/bandwidth per unit (None: not measured), the paper's figures."""
    out = []
    for key, what, lat, bw, paper_us, paper_mbs in ROWS:
        out.append({"key": key, "what": what, "paper_us": paper_us, "paper_mbs": paper_mbs,
                    "latency_row": lat[1], "bandwidth_row": bw[1],
                    **{f"us_{u}": latency_us(_get(measured, u, lat)) for u in (GUEST, WALL)},
                    **{f"mbs_{u}": bandwidth_mbs(_get(measured, u, bw)) for u in (GUEST, WALL)}})
    return out


def _bar(text: str, value, ref, need: float, unit: str) -> tuple:
    """(text, measured, verdict): value / ref at least need (n/a if either is missing)."""
    if not value or not ref:
        return (text, "n/a", "n/a")
    r = value / ref
    return (text, f"{value:.2f} / {ref:.2f} {unit} = {r:.1f}x", "PASS" if r >= need else "FAIL")


def bars(table: list) -> list:
    """(text, measured, verdict) for the issue's two bars, in guest time."""
    by = {r["key"]: r for r in table}
    return [_bar(f"(3) latency at least {BAR_RPC_LATENCY:g}x lower than (1)",
                 by["1"][f"us_{GUEST}"], by["3"][f"us_{GUEST}"], BAR_RPC_LATENCY, "us"),
            _bar(f"(4) bandwidth at least {BAR_MAP_BANDWIDTH:g}x (1)'s",
                 by["4"][f"mbs_{GUEST}"], by["1"][f"mbs_{GUEST}"], BAR_MAP_BANDWIDTH, "MB/s")]


def _f(v: Optional[float]) -> str:
    if v is None:
        return "n/a"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def cells(table: list) -> list:
    return [[r["key"], r["what"], _f(r[f"us_{GUEST}"]), _f(r[f"mbs_{GUEST}"]),
             _f(r[f"us_{WALL}"]), _f(r[f"mbs_{WALL}"]), r["paper_us"], r["paper_mbs"]]
            for r in table]


def text(table: list) -> str:
    rows_ = cells(table)
    widths = [max(len(c) for c in col) for col in zip(HEADER, *rows_)]

    def line(cs):
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cs, widths))).rstrip()
    lines = ["Table 4 (SOSP'97 §6.2): latency per 1-byte round trip, bandwidth in 64 KiB "
             "blocks; guest time = 1 ns per instruction", line(HEADER),
             line(["-" * w for w in widths]), *map(line, rows_)]
    lines += [f"{verdict}: {what}: {measured}" for what, measured, verdict in bars(table)]
    return "\n".join(lines)


def markdown(table: list) -> str:
    align = ["---", "---"] + ["---:"] * (len(HEADER) - 2)
    lines = ["| " + " | ".join(c) + " |" for c in [HEADER, align, *cells(table)]]
    lines += [""] + [f"* {verdict}: {what}: {measured}" for what, measured, verdict in
                     bars(table)]
    return "\n".join(lines) + "\n"
