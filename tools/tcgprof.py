#!/usr/bin/env python3
"""Where QEMU's host CPU time goes while it emulates Pecan or Linux (issue 14 item 5).

    tools/tcgprof.py [--repeat K] [--runs N] [--record | --count | --fills] [--qemu PATH]
                     SCENARIO[@K]...

A scenario is one QEMU boot without icount (TCG as `make bench`'s wall-clock runs), under
`perf stat` (QEMU's task-clock: host CPU time of all its threads) or, with --record, under
`perf record` (samples of QEMU's own code; the code TCG generated shows as [unknown]):

  lx:ROW       /test/musl/lxbench repeat=K ROW as lx's first process on Pecan (the release
               kernel, the bench's lx command line, -m 256)
  linux:ROW    the same program and row on Debian's kernel (the initramfs, busybox's /init)
  pecan:PROG   build/user/PROG.elf as Pecan's root task (pingpong, foreign, vmbench)

SCENARIO@K repeats that scenario's row K times instead of --repeat's.  ROW `none` matches
no row: the boot alone, the baseline that the per-operation figure subtracts.  For lx: and linux: rows it prints, per run, QEMU's CPU time, the row's BENCH
figure (without icount the guest TSC is the host's: tsc_per_op is host TSC cycles per
operation, ns at the host's TSC rate) and, given the `none` baseline of the same system,
CPU ns per operation = (CPU time - the baseline's) / (iterations run, warm-ups included).
Repeat with --runs N: the machine is shared, so the figures carry the spread of N boots.

--record adds a flat profile: the share of samples per QEMU function (dynamic symbols: Debian
strips the static ones, which show as the nearest unnamed address) grouped into the classes of
docs/performance.md "Where TCG's wall time goes".  Never run guests on the host: every guest
here runs inside QEMU.
"""
from __future__ import annotations

import argparse
import bisect
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
sys.path.insert(0, str(ROOT / "tools" / "initramfs"))
import bench  # noqa: E402  (the images, lxbench, the host's TSC rate)
import qemu_run  # noqa: E402
import run as linuxref  # noqa: E402  (tools/linuxref/run.py)
import linuxref_run  # noqa: E402  (tools/initramfs/linuxref_run.py)

KERNEL, SIGMA0, ROOT_TASK, LX = bench.KERNEL, bench.SIGMA0, bench.ROOT_TASK, bench.LX
INITRAMFS, PROGRAM = bench.INITRAMFS, bench.LX_PROGRAM
LINUX_KERNEL = linuxref_run.DEFAULT_KERNEL
PERF = "/usr/bin/perf"
PROBE_GROUP = "probe_qemu"
# QEMU 7.2 functions counted by --count (dynamic symbols of Debian's binary): the full flush
# (cpu_x86_update_cr3 calls tlb_flush), its jump-cache clear, per-page flushes (invlpg), TLB
# refills (x86_cpu_tlb_fill: one page walk each), translations, retranslation after writes to
# pages holding code, exceptions and interrupts, CR0 writes (lazy FPU's TS bit).
ACCESS = ("read", "write", "fetch")     # MMUAccessType
FILL_PROBE = "tlbfill=x86_cpu_tlb_fill addr=%si:x64 acc=%cx:s32 idx=%r8:s32"
PROBES = ["tlb_flush", "tcg_flush_jmp_cache", "tlb_flush_page", "tlb_flush_page_by_mmuidx",
          "x86_cpu_tlb_fill", "tb_gen_code", "tb_invalidate_phys_page_fast",
          "tb_invalidate_phys_range", "x86_cpu_do_interrupt", "cpu_loop_exit",
          "cpu_x86_update_cr0"]
OUT = ROOT / "build" / "tcgprof"

# Iterations a row runs per repetition, warm-up included (user/linux/tests/lxbench.c).
ROW_OPS = {"getpid": 11000, "getppid": 11000, "pipe_pingpong": 2200, "futex_pingpong": 2200,
           "ctxsw": 4400, "fork_exit": 44, "fork_execve": 22, "sh_c_exit": 22,
           "futex_pingpong_proc": 2200, "mutex_handoff": 1100, "signal_catch": 1100, "pagefault_anon": 512,
           "file_reread_64k": 110, "mmap_10k": 2200}

# Classes of the flat profile, first match wins, on "DSO SYMBOL" (QEMU 7.2.22's names).
# Debian's binary keeps only its dynamic symbols; a static function shows as "static after X"
# (X the dynamic symbol before it), placed by what calls it (perf record --call-graph dwarf):
# after plugin_gen_tb_end, accel/tcg/cputlb.c's statics (victim_tlb_hit,
# tlb_flush_vtlb_page_locked, probe_access_internal: called by tlb_set_page_full and
# probe_access_full, the fill); after do_smm_enter, target/i386/tcg/sysemu/excp_helper.c's
# mmu_translate (the page walk); after cpu_loop_exit_atomic and curr_cflags,
# accel/tcg/cpu-exec.c's (tb_lookup, cpu_tb_exec: TB lookup and the execution loop).
CLASSES = [
    ("generated code", re.compile(r"^\[JIT\]")),
    ("host kernel", re.compile(r"^\[kernel")),
    ("TLB flush", re.compile(r"tlb_flush|tcg_flush_jmp_cache|tlb_mmu_|memset")),
    ("TLB fill / page walk", re.compile(r"tlb_fill|tlb_set_page|mmu_translate|get_pg_mode|"
                                        r"x86_ldq_phys|x86_ldl_phys|address_space_|"
                                        r"flatview_|get_page_addr_code|probe_access|"
                                        r"victim_tlb|_mmu$|qemu_ram_|qemu_map_ram_ptr|"
                                        r"memory_region_get_ram_ptr|cpu_asidx_from_attrs|"
                                        r"get_ptr_rcu_reader|find_next_bit|"
                                        r"static after (do_smm_enter|plugin_gen_tb_end)")),
    ("TB lookup", re.compile(r"tb_htable_lookup|tb_lookup|qht_|tb_cmp|lookup_tb_ptr|"
                             r"tb_jmp_cache|static after (cpu_loop_exit_atomic|curr_cflags)")),
    ("translation", re.compile(r"tb_gen_code|tcg_|gen_|translator_|disas_|tb_link|"
                               r"tb_page|page_collection|i386_tr_")),
    ("helpers (syscall, interrupts, MSR, CR)", re.compile(r"helper_|do_interrupt|"
                                                           r"cpu_get_tsc|raise_|"
                                                           r"cpu_loop_exit|x86_cpu_exec|"
                                                           r"cpu_x86_|load_seg|cpu_handle")),
    ("execution loop", re.compile(r"cpu_exec|cpu_tb_exec|sigsetjmp|longjmp|rr_cpu|tcg_cpus")),
]


def dynamic_symbols(binary: str) -> list:
    """(address, name) of a binary's defined dynamic symbols, sorted."""
    r = subprocess.run(["nm", "-D", "--defined-only", binary], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    syms = [(int(f[0], 16), f[2]) for f in (l.split() for l in r.stdout.splitlines())
            if len(f) == 3 and f[1] in "tTwW"]
    return sorted(syms)


def name_static(addr: int, syms: list) -> str:
    i = bisect.bisect_right([a for a, _ in syms], addr)
    return f"static after {syms[i - 1][1]}" if i else f"{addr:#x}"


def perf_prefix(kind: str, out: pathlib.Path, count: bool = False) -> list:
    if kind == "stat":
        events = "task-clock" + (f",{PROBE_GROUP}:*" if count else "")
        return [PERF, "stat", "-x", ",", "-e", events, "-o", str(out), "--"]
    return [PERF, "record", "-F", "2000", "-o", str(out), "--"]


def scenario_command(scen: str, repeat: int, qemu: str, tmp: pathlib.Path) -> tuple:
    """(QEMU command line, timeout) of a scenario."""
    system, _, what = scen.partition(":")
    if system == "lx":
        qemu_run.QEMU = qemu
        args = f"{bench.LX_ARGS} repeat={repeat} {what}"
        cmd = qemu_run.qemu_command(KERNEL, [SIGMA0, ROOT_TASK, (LX, args),
                                             (INITRAMFS, "data")], "kdb=batch",
                                    memory=bench.LX_MEMORY)
        return cmd, 900
    if system == "linux":
        initrd = tmp / "linux-initrd.cpio"
        initrd.write_bytes(INITRAMFS.read_bytes()
                           + linuxref_run.overlay([f"{PROGRAM} repeat={repeat} {what}"]))
        cmd = linuxref.qemu_command(LINUX_KERNEL, initrd, linuxref_run.APPEND, icount=False,
                                    qemu=qemu)
        return cmd, 900
    if system == "pecan":
        qemu_run.QEMU = qemu
        prog = ROOT / "build" / "user" / f"{what}.elf"
        return qemu_run.qemu_command(KERNEL, [SIGMA0, prog], "kdb=batch", memory=128), 600
    raise SystemExit(f"tcgprof: unknown scenario {scen!r} (lx:ROW, linux:ROW, pecan:PROG)")


def stat_counts(stat_file: pathlib.Path) -> dict:
    """event -> value of a `perf stat -x ,` file (task-clock in ms)."""
    out = {}
    for line in stat_file.read_text().splitlines():
        f = line.split(",")
        if len(f) > 2 and f[0].replace(".", "", 1).isdigit():
            out[f[2].split(":")[-1]] = float(f[0])
    if "task-clock" not in out:
        raise RuntimeError(f"no task-clock in {stat_file}")
    return out


def add_probes(qemu: str) -> None:
    """Uprobes on QEMU's functions that PROBES names (perf probe; root).  They stay defined
    until --del-probes: counting them slows QEMU, so timing runs are made without --count."""
    binary = shutil.which(qemu) or qemu
    for fn in PROBES:
        subprocess.run([PERF, "probe", "-q", "-x", binary, "--add", fn],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fill_histogram(data: pathlib.Path, ops: int) -> list:
    """(fills per operation, page, access, MMU index) from a `perf record` of the
    FILL_PROBE uprobe: which pages QEMU walks the page table for, how often per operation."""
    r = subprocess.run([PERF, "script", "-i", str(data), "-F", "trace"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    hist: dict = {}
    for line in r.stdout.splitlines():
        m = re.search(r"addr=0x([0-9a-f]+) acc=(-?\d+) idx=(-?\d+)", line)
        if m:
            key = (int(m.group(1), 16) & ~0xFFF, ACCESS[int(m.group(2)) % 3], int(m.group(3)))
            hist[key] = hist.get(key, 0) + 1
    return sorted(((n / ops, *k) for k, n in hist.items()), reverse=True)


def page_owner(page: int) -> str:
    """Which image a page of the lx scenario belongs to, by the symbols of the ELF files."""
    for elf in (ROOT / "build" / "kernel.elf", LX):
        r = subprocess.run(["nm", "-n", str(elf)], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        syms = [(int(f[0], 16), f[2]) for f in (l.split() for l in r.stdout.splitlines())
                if len(f) == 3]
        inside = [name for a, name in syms if page <= a < page + 0x1000]
        if inside:
            return f"{elf.name}: {', '.join(inside[:4])}{' ...' if len(inside) > 4 else ''}"
    return ""


def del_probes() -> None:
    subprocess.run([PERF, "probe", "-q", "--del", f"{PROBE_GROUP}:*"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def bench_lines(console: str) -> dict:
    """name -> tsc_per_op of the BENCH lines (the last of each name: the repeats agree)."""
    out = {}
    for m in re.finditer(r"BENCH name=(\S+) iters=(\d+) tsc_per_op=([\d.]+)", console):
        out.setdefault(m.group(1), []).append(float(m.group(3)))
    return out


def run_once(scen: str, repeat: int, qemu: str, record: bool, tag: str,
             count: bool = False) -> dict:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as td:
        tmp = pathlib.Path(td)
        cmd, timeout = scenario_command(scen, repeat, qemu, tmp)
        stat = OUT / f"{tag}.stat"
        data = OUT / f"{tag}.perf.data"
        full = perf_prefix("stat", stat, count) + (perf_prefix("record", data) if record else []) + cmd
        t0 = time.monotonic()
        r = subprocess.run(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        wall = time.monotonic() - t0
    console = r.stdout.decode("utf-8", "replace")
    (OUT / f"{tag}.log").write_text(console)
    counts = stat_counts(stat)
    res = {"scenario": scen, "cpu_ms": counts.pop("task-clock"), "counts": counts, "wall_s": wall,
           "bench": bench_lines(console), "done": "BENCH-DONE" in console}
    if record:
        res["profile"] = flat_profile(data, qemu)
    return res


def flat_profile(data: pathlib.Path, qemu: str) -> list:
    """(share %, "DSO SYMBOL") of QEMU's samples, the largest first; QEMU's static
    functions named by the dynamic symbol before them (name_static), summed."""
    r = subprocess.run([PERF, "report", "-i", str(data), "--no-children", "--stdio",
                        "--sort", "dso,sym", "-q", "--percent-limit", "0.01"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    binary = shutil.which(qemu) or qemu
    syms = dynamic_symbols(binary)
    shares: dict = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\[JIT\] tid \d+|\S+)\s+\[[.k]\]\s+(.*\S)", line)
        if not m:
            continue
        dso, sym = m.group(2), m.group(3)
        if dso.startswith("[JIT]"):
            dso, sym = "[JIT]", "generated code"
        elif dso == os.path.basename(binary) and sym.startswith("0x"):
            sym = name_static(int(sym, 16), syms)
        key = f"{dso} {sym}"
        shares[key] = shares.get(key, 0.0) + float(m.group(1))
    return sorted(((v, k) for k, v in shares.items()), reverse=True)


def classify(profile: list) -> dict:
    shares: dict = {}
    for pct, sym in profile:
        name = next((c for c, rx in CLASSES if rx.search(sym)), "other")
        shares[name] = shares.get(name, 0.0) + pct
    return shares


def spread(xs: list) -> str:
    if len(xs) == 1:
        return f"{xs[0]:.1f}"
    return f"{statistics.median(xs):.1f} (min {min(xs):.1f}, max {max(xs):.1f}, n={len(xs)})"


def fills(args) -> int:
    scen, _, k = args.scenarios[0].partition("@")
    repeat = int(k) if k else args.repeat
    binary = shutil.which(args.qemu) or args.qemu
    subprocess.run([PERF, "probe", "-q", "-x", binary, "--add", FILL_PROBE],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    OUT.mkdir(parents=True, exist_ok=True)
    data = OUT / "fills.perf.data"
    with tempfile.TemporaryDirectory() as td:
        cmd, timeout = scenario_command(scen, repeat, args.qemu, pathlib.Path(td))
        subprocess.run([PERF, "record", "-e", f"{PROBE_GROUP}:tlbfill", "-o", str(data), "--"]
                       + cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout)
    row = scen.partition(":")[2]
    ops = ROW_OPS.get(row, 1) * repeat
    hist = fill_histogram(data, ops)
    print(f"{scen}@{repeat}: {sum(h[0] for h in hist):.1f} TLB fills per operation "
          f"(boot included), the pages above 0.5 per operation:")
    for per, page, acc, idx in hist:
        if per >= 0.5:
            print(f"  {per:6.2f}  {page:#018x} {acc:5} mmu_idx {idx}  {page_owner(page)}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--repeat", type=int, default=20, help="repetitions of each lxbench row")
    ap.add_argument("--runs", type=int, default=1, help="boots per scenario")
    ap.add_argument("--record", action="store_true", help="perf record: a flat profile")
    ap.add_argument("--count", action="store_true",
                    help="count calls of QEMU's TLB, translation and interrupt functions "
                         "(uprobes, root; slows QEMU: no timing from these runs)")
    ap.add_argument("--fills", action="store_true",
                    help="record every TLB fill (uprobe with its address, access and MMU "
                         "index) of the first scenario and print the pages per operation")
    ap.add_argument("--del-probes", action="store_true", help="remove the uprobes and exit")
    ap.add_argument("--qemu", default=os.environ.get("QEMU", "qemu-system-x86_64"))
    args = ap.parse_args(argv)
    if args.del_probes:
        del_probes()
        return 0
    if not args.scenarios:
        ap.error("no scenario (lx:ROW, linux:ROW, pecan:PROG)")
    if args.count or args.fills:
        add_probes(args.qemu)
    if args.fills:
        return fills(args)
    ns_per_tick = bench.host_tsc_ns()
    results: dict = {}
    repeats: dict = {}
    for word in args.scenarios:
        scen, _, k = word.partition("@")
        repeats[scen] = int(k) if k else args.repeat
        for n in range(args.runs):
            tag = re.sub(r"[^\w.-]", "_", f"{scen}-r{repeats[scen]}-{n}")
            res = run_once(scen, repeats[scen], args.qemu, args.record, tag, args.count)
            results.setdefault(scen, []).append(res)
            b = "; ".join(f"{k} {min(v):.0f} TSC/op = {min(v) * ns_per_tick:.0f} ns"
                          for k, v in res["bench"].items())
            print(f"{scen} run {n}: QEMU CPU {res['cpu_ms']:.0f} ms, wall {res['wall_s']:.1f} s"
                  f"{'' if res['done'] else ' (no BENCH-DONE)'}; {b}", flush=True)
            if args.record:
                for cls, pct in sorted(classify(res["profile"]).items(), key=lambda x: -x[1]):
                    print(f"    {pct:5.1f}%  {cls}")
                for pct, sym in res["profile"][:25]:
                    print(f"        {pct:5.2f}%  {sym}")
    # CPU ns per operation against the same system's `none` baseline.
    for scen, runs in results.items():
        system, _, row = scen.partition(":")
        base = results.get(f"{system}:none")
        if row in ROW_OPS and base:
            b = statistics.median(r["cpu_ms"] for r in base)
            ops = ROW_OPS[row] * repeats[scen]
            per = [(r["cpu_ms"] - b) * 1e6 / ops for r in runs]
            print(f"{scen}: QEMU CPU ns per operation {spread(per)} (baseline {b:.0f} ms)")
            for ev in sorted(runs[0]["counts"]):
                b_ev = statistics.median(r["counts"].get(ev, 0) for r in base)
                per_ev = [(r["counts"][ev] - b_ev) / ops for r in runs]
                print(f"    {ev} per operation {spread(per_ev)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
