#!/usr/bin/env python3
"""The Linux comparison corpus (docs/linux/compare.md): its files in the initramfs, the
runner's console protocol, and the native-Linux reference run.

Cases (tests/linux/):
  sh/NAME      scripts/NAME.sh, run as `/bin/sh /test/corpus/sh/NAME.sh`
  musl/NAME    progs/NAME.c built with musl-gcc -static  (build/linux/corpus/musl/NAME)
  glibc/NAME   progs/NAME.c built with gcc -static        (build/linux/corpus/glibc/NAME)

In the archive: /test/corpus/run (the runner, tests/linux/run.c), /test/corpus/cases (one
line per case: NAME PATH ARGS...), /test/corpus/{sh,musl,glibc}/..., /test/corpus/data/...

The runner prints, per case, `@@corpus-begin NAME`, the case's output (stdout and stderr,
from a file), `@@corpus-end NAME status=S nl=0|1`, and finally `@@corpus-done`.  On Linux
it is pid 1 (rdinit=/test/corpus/run -- -p: it powers off at the end); on Pecan, lx starts
it with init=/test/corpus/run.

  tools/initramfs/corpus.py                 run the corpus on Linux (cached) and print it
  tools/initramfs/corpus.py sh/text musl/files    only these cases (not cached)
  tools/initramfs/corpus.py --fresh         boot Linux even if a cached result exists
  tools/initramfs/corpus.py --smp 2 --repeat 3 musl/futex    the cases' stability: boot 3
                                            times with 2 CPUs, say whether outputs differ
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import newc  # noqa: E402
import run as linuxref  # noqa: E402

SRC = ROOT / "tests" / "linux"
DEFAULT_CORPUS = ROOT / "build" / "linux" / "corpus"
DEFAULT_INITRAMFS = ROOT / "build" / "linux" / "initramfs.cpio"
DEFAULT_KERNEL = ROOT / "build" / "linuxref" / "vmlinuz"
CACHE_DIR = ROOT / "build" / "linux" / "compare"
PREFIX = "test/corpus"
VARIANTS = ("glibc", "musl")
# Quiet, and the same on every boot: no address-space randomisation, no kaslr.
APPEND = "console=ttyS0 quiet panic=-1 nokaslr norandmaps rdinit=/test/corpus/run -- -p"

BEGIN, END, DONE = "@@corpus-begin ", "@@corpus-end ", "@@corpus-done"
_END_RE = re.compile(r"^@@corpus-end (\S+) status=(-?\d+) nl=([01])$")


class CorpusError(RuntimeError):
    pass


@dataclass
class Outcome:
    output: str       # what the case wrote, exactly (CRs removed)
    status: int       # wait4's status word (exit code << 8, or the signal)


def case_list(corpus: Path = DEFAULT_CORPUS) -> list[tuple[str, str]]:
    """(name, command line) of every case, sorted by name."""
    cases = []
    for s in sorted((SRC / "scripts").glob("*.sh")):
        cases.append((f"sh/{s.stem}", f"/bin/sh /{PREFIX}/sh/{s.name}"))
    for p in sorted((SRC / "progs").glob("*.c")):
        for v in VARIANTS:
            if not (corpus / v / p.stem).is_file():
                raise CorpusError(f"{corpus / v / p.stem} missing (make linux-corpus builds it)")
            cases.append((f"{v}/{p.stem}", f"/{PREFIX}/{v}/{p.stem}"))
    return sorted(cases)


def entries(corpus: Path = DEFAULT_CORPUS) -> list[newc.Entry]:
    """The archive entries under /test/corpus (parents first; the caller sorts)."""
    run = corpus / "run"
    if not run.is_file():
        raise CorpusError(f"{run} missing (make linux-corpus builds it)")
    cases = case_list(corpus)
    out = [newc.directory(PREFIX), newc.regular(f"{PREFIX}/run", run.read_bytes(), 0o755),
           newc.regular(f"{PREFIX}/cases",
                        "".join(f"{n} {c}\n" for n, c in cases).encode(), 0o644),
           newc.directory(f"{PREFIX}/sh"), newc.directory(f"{PREFIX}/data")]
    for s in sorted((SRC / "scripts").glob("*.sh")):
        out.append(newc.regular(f"{PREFIX}/sh/{s.name}", s.read_bytes(), 0o755))
    for d in sorted((SRC / "data").iterdir()):
        if d.is_file():
            out.append(newc.regular(f"{PREFIX}/data/{d.name}", d.read_bytes(), 0o644))
    for v in VARIANTS:
        out.append(newc.directory(f"{PREFIX}/{v}"))
        for p in sorted((SRC / "progs").glob("*.c")):
            out.append(newc.regular(f"{PREFIX}/{v}/{p.stem}", (corpus / v / p.stem).read_bytes(),
                                    0o755))
    return out


def archive_cases(initramfs: Path) -> list[str]:
    """The case names in an initramfs's /test/corpus/cases."""
    for e in newc.unpack(Path(initramfs).read_bytes()):
        if e.name == f"{PREFIX}/cases":
            return [line.split()[0] for line in e.data.decode().splitlines() if line.strip()]
    raise CorpusError(f"{initramfs} has no /{PREFIX}/cases (make initramfs)")


def parse(console: str, skip_prefix: str | None = None) -> tuple[dict[str, Outcome], bool, str]:
    """The runner's results from a console log: ({name: Outcome}, whether it got to the end,
    the name of a case that began and never ended or "").  Lines that start with
    skip_prefix (lx's own messages, "lx: ") are not part of any output."""
    results: dict[str, Outcome] = {}
    cur, buf, done = None, [], False
    for raw in console.replace("\r", "").split("\n"):
        line = linuxref._ESC_RE.sub("", raw) if cur is None else raw
        if cur is None and (at := line.find(BEGIN)) > 0:
            line = line[at:]          # firmware text without a newline before the marker
        if cur is None:
            if line.startswith(BEGIN):
                cur, buf = line[len(BEGIN):].strip(), []
            elif line == DONE:
                done = True
            continue
        m = _END_RE.match(line)
        if m and m.group(1) == cur:
            text = "".join(s + "\n" for s in buf)
            if m.group(3) == "0":
                text = text[:-1]
            results[cur] = Outcome(text, int(m.group(2)))
            cur = None
        elif skip_prefix is None or not line.startswith(skip_prefix):
            buf.append(line)
    return results, done, cur or ""


def _cache_key(initramfs: Path, kernel: Path) -> str:
    h = hashlib.sha256()
    for f in (initramfs, kernel, Path(__file__)):
        h.update(Path(f).read_bytes())
    h.update(APPEND.encode())
    return h.hexdigest()[:20]


def linux_reference(initramfs: Path = DEFAULT_INITRAMFS, kernel: Path = DEFAULT_KERNEL,
                    timeout: float = 600, fresh: bool = False, cases: list[str] = (),
                    qemu: str = "qemu-system-x86_64",
                    smp: int = 1) -> tuple[dict[str, Outcome], dict]:
    """Run the corpus on Debian's kernel in QEMU (-icount, no RDRAND: deterministic) and
    return ({case: Outcome}, info).  A full run is cached in build/linux/compare/ keyed by a
    hash of the initramfs, the kernel and this file, so the next run does not boot.  smp > 1
    (never cached) runs the guest with that many CPUs in real time, not -icount: the
    reference is one CPU, other counts show whether a case's output depends on how its
    threads interleave."""
    for f, how in ((kernel, "tools/linuxref/fetch_kernel.sh"), (initramfs, "make initramfs")):
        if not Path(f).is_file():
            raise CorpusError(f"{f} missing: run {how}")
    key = _cache_key(initramfs, kernel)
    cache = CACHE_DIR / f"linux-{key}.json"
    if not cases and not fresh and smp == 1 and cache.is_file():
        return load_cache(cache)
    append = APPEND + "".join(f" {c}" for c in cases)
    # More CPUs than one: in real time (QEMU's -icount with several CPUs did not get Linux
    # through its boot in 600 s here), so that each run interleaves threads differently.
    # 384 MiB: the rootfs (a tmpfs of half the memory) holds the unpacked initramfs (over 67
    # MB) and what the cases write; at 256 MiB it filled up and every later case came out
    # empty ("write failed").
    cmd = linuxref.qemu_command(Path(kernel), Path(initramfs), append, icount=smp == 1,
                                qemu=qemu, deterministic=True, memory=384)
    if smp != 1:
        cmd[cmd.index("-smp") + 1] = str(smp)
    results, seconds = boot_reference(cmd, CACHE_DIR / "linux-console.log", timeout)
    info = {"seconds": round(seconds, 1), "kernel": Path(kernel).name, "key": key, "smp": smp}
    if not cases and smp == 1:
        save_cache(cache, results, info)
    return results, info


def boot_reference(cmd: list[str], log: Path, timeout: float) -> tuple[dict[str, Outcome], float]:
    """Run the Linux guest of `cmd` (its console into `log`) until the runner is done:
    ({case: Outcome}, wall seconds).  Also the Debian-root comparison's (tools/debroot)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    try:
        with open(log, "wb") as f:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                               stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise CorpusError(f"the Linux guest did not finish within {timeout:.0f} s; "
                          f"console log {log}") from e
    seconds = time.monotonic() - start
    console = log.read_bytes().decode("utf-8", "replace")
    results, done, hung = parse(console)
    if not done:
        raise CorpusError(f"the Linux guest did not finish the cases (qemu status "
                          f"{r.returncode}{', stuck in ' + hung if hung else ''}); console log "
                          f"{log}\n--- console tail ---\n{linuxref._tail(console)}")
    return results, seconds


def load_cache(cache: Path) -> tuple[dict[str, Outcome], dict]:
    data = json.loads(cache.read_text())
    return ({k: Outcome(**v) for k, v in data["results"].items()},
            dict(data["info"], cached=str(cache.relative_to(ROOT))))


def save_cache(cache: Path, results: dict[str, Outcome], info: dict) -> None:
    """Write a reference result; older ones beside it (linux-*.json) go."""
    cache.write_text(json.dumps({"info": info, "results": {k: v.__dict__ for k, v in
                                                           results.items()}}, indent=1))
    for old in cache.parent.glob("linux-*.json"):
        if old != cache:
            old.unlink()


def print_results(results: dict[str, Outcome]) -> None:
    for name, o in results.items():
        print(f"=== {name} (status {o.status})")
        sys.stdout.write(o.output if o.output.endswith("\n") or not o.output else o.output + "\n")


def run_problems(output: str, status: int, timed_out: bool, results: dict[str, Outcome],
                 done: bool, hung: str, expected: list[str], heap_mib: int) -> list[str]:
    """What went wrong in a Pecan run of a runner (empty if nothing): it did not finish, a
    case has no result, lx's pool (heap= MiB) is not whole at the end, QEMU's status."""
    problems = []
    if not done:
        problems.append("the runner did not finish" + (f" (stuck in {hung})" if hung else ""))
    if sorted(results) != sorted(expected):
        problems.append(f"cases without a result: {sorted(set(expected) - set(results))}")
    m = re.search(r"^lx: no processes left, (\d+) pages free", output, re.M)
    if not m:
        problems.append("no end-of-run line from lx")
    elif int(m.group(1)) != heap_mib << 8:
        problems.append(f"{m.group(1)} pages free at the end, expected {heap_mib << 8}")
    if timed_out or status != 1:
        problems.append(f"QEMU status {status}, timed out {timed_out}")
    return problems


def difference(case: str, want: Outcome, got: Outcome,
               rules: list[tuple[str, str]] = ()) -> str | None:
    """None if two results of `case` are the same after the (regex, replacement) rules,
    else what differs: the statuses and a unified diff, Linux's side first."""
    w, g = want.output, got.output
    for pattern, repl in rules:
        w, g = (re.sub(pattern, repl, t, flags=re.M) for t in (w, g))
    if (w, want.status) == (g, got.status):
        return None
    diff = "".join(difflib.unified_diff(w.splitlines(True), g.splitlines(True),
                                        "linux", "pecan", n=1))
    return f"{case}: status {got.status} on Pecan, {want.status} on Linux\n{diff}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--initramfs", type=Path, default=DEFAULT_INITRAMFS)
    ap.add_argument("--kernel", type=Path, default=DEFAULT_KERNEL)
    ap.add_argument("--fresh", action="store_true", help="boot even if a cached result exists")
    ap.add_argument("--smp", type=int, default=1, help="CPUs of the guest (default 1)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="boot this many times (fresh) and report cases whose output differs")
    args = ap.parse_args(argv)
    runs = []
    try:
        for _ in range(args.repeat):
            runs.append(linux_reference(args.initramfs, args.kernel,
                                        fresh=args.fresh or args.repeat > 1, cases=args.cases,
                                        smp=args.smp))
    except (CorpusError, OSError) as e:
        print(f"corpus: ERROR: {e}", file=sys.stderr)
        return 1
    results, info = runs[0]
    if args.repeat > 1:
        unstable = sorted(n for n in results
                          if any(r.get(n) != results[n] for r, _ in runs[1:]))
        print(f"corpus: {args.repeat} boots with -smp {args.smp}: "
              f"{len(unstable)} cases differ between them {unstable}", file=sys.stderr)
        for n in unstable:
            other = next(r[n] for r, _ in runs[1:] if r.get(n) != results[n])
            print(f"--- {n}: status {results[n].status} / {other.status if other else None}",
                  file=sys.stderr)
            sys.stderr.writelines(difflib.unified_diff(
                results[n].output.splitlines(True),
                other.output.splitlines(True) if other else [], "boot 1", "other boot", n=0))
    print_results(results)
    print(f"corpus: {len(results)} cases; {info}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
