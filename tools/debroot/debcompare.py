#!/usr/bin/env python3
"""The Debian-root comparison (docs/linux/debian-compare.md): the scripts of tests/debian run on
the Debian root (build/debroot/root.cpio) booted on Debian's own 6.1 kernel in QEMU and on
lx; tests/system/test_debian_compare.py compares their outputs and exit statuses case by case.

Both sides boot the same initramfs, build/debroot/compare.cpio: root.cpio followed by a
second, small newc archive (the overlay) holding /test/debian/{run,cases,cases-all,NAME.sh}.
Both kernels unpack the two archives in order.  The runner (tests/debian/run) is pid 1
(rdinit= on Linux, init= on lx) and prints each case between tools/initramfs/corpus.py's
markers, so corpus.parse reads either console.

A case is tests/debian/NAME.sh.  A line `# debian-compare: slow` in it keeps it out of
`cases` (what `make test` runs on lx) and in `cases-all` only (`make debian-compare`).  Linux
always runs `cases-all`; its results are cached in build/debroot/compare/, keyed by the root,
the overlay, the kernel and this file, so Linux boots only when one of them changed.

  tools/debroot/debcompare.py               Linux's results (cached), printed
  tools/debroot/debcompare.py --fresh       boot Linux even if a cached result exists
  tools/debroot/debcompare.py git perl      only these cases (not cached)
  tools/debroot/debcompare.py --memory 768 bash-jobs    a smaller guest (not cached)
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
sys.path.insert(0, str(ROOT / "tools" / "initramfs"))
import corpus  # noqa: E402
import newc  # noqa: E402
import run as linuxref  # noqa: E402

SRC = ROOT / "tests" / "debian"
DEBROOT = ROOT / "build" / "debroot" / "root.cpio"
INITRD = ROOT / "build" / "debroot" / "compare.cpio"
CACHE_DIR = ROOT / "build" / "debroot" / "compare"
DEFAULT_KERNEL = corpus.DEFAULT_KERNEL
PREFIX = "test/debian"
SLOW_MARK = "# debian-compare: slow"
APPEND = "console=ttyS0 quiet panic=-1 nokaslr norandmaps rdinit=/test/debian/run --"
# Linux unpacks the 343 MiB archive into its rootfs while the archive itself is still in
# memory (it frees it after unpacking): about 720 MB, plus what the cases write (tar-large:
# about 150 MB at once); docs/linux/debian-compare.md, "Memory".
LINUX_MEMORY_MIB = 1536

CompareError = corpus.CorpusError
Outcome = corpus.Outcome


def case_names(slow: bool = True) -> list[str]:
    """The cases, sorted; without the slow ones unless slow."""
    return sorted(s.stem for s in SRC.glob("*.sh")
                  if slow or SLOW_MARK not in s.read_text().splitlines())


def overlay(cases: list[str] | None = None) -> bytes:
    """The second archive: the runner, the two case lists (or one list of `cases` for a
    run of only those) and the scripts."""
    fast, every = (case_names(slow=False), case_names()) if cases is None else (cases, cases)
    out = [newc.directory("test"), newc.directory(PREFIX),
           newc.regular(f"{PREFIX}/run", (SRC / "run").read_bytes(), 0o755),
           newc.regular(f"{PREFIX}/cases", "".join(n + "\n" for n in fast).encode()),
           newc.regular(f"{PREFIX}/cases-all", "".join(n + "\n" for n in every).encode())]
    for n in case_names():
        out.append(newc.regular(f"{PREFIX}/{n}.sh", (SRC / f"{n}.sh").read_bytes(), 0o755))
    return newc.pack(out)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def make_initrd(cases: list[str] | None = None, out: Path = INITRD) -> Path:
    """Write root.cpio + the overlay to `out` (rewritten only when either changed) and return
    it."""
    if not DEBROOT.is_file():
        raise CompareError(f"{DEBROOT} missing: make debroot")
    extra = overlay(cases)
    stamp = out.with_suffix(".key")
    key = f"{DEBROOT.stat().st_size} {DEBROOT.stat().st_mtime_ns} " \
          f"{hashlib.sha256(extra).hexdigest()}"
    if out.is_file() and stamp.is_file() and stamp.read_text() == key:
        return out
    with open(out, "wb") as f, open(DEBROOT, "rb") as src:
        while chunk := src.read(1 << 24):
            f.write(chunk)
        f.write(extra)
    stamp.write_text(key)
    return out


def _cache_key(kernel: Path) -> str:
    h = hashlib.sha256()
    h.update(_digest(DEBROOT).encode())
    h.update(overlay())
    for f in (kernel, Path(__file__), SRC / "run"):
        h.update(Path(f).read_bytes())
    h.update(f"{APPEND} {LINUX_MEMORY_MIB}".encode())
    return h.hexdigest()[:20]


def linux_reference(kernel: Path = DEFAULT_KERNEL, timeout: float = 1800, fresh: bool = False,
                    cases: list[str] = (), qemu: str = "qemu-system-x86_64",
                    memory: int = LINUX_MEMORY_MIB) -> tuple[dict[str, Outcome], dict]:
    """Run every case (or only `cases`, not cached) on Debian's kernel in QEMU (-icount, no
    RDRAND) with `memory` MiB (not cached unless the default) and return ({case: Outcome},
    info)."""
    for f, how in ((kernel, "tools/linuxref/fetch_kernel.sh"), (DEBROOT, "make debroot")):
        if not Path(f).is_file():
            raise CompareError(f"{f} missing: run {how}")
    key = _cache_key(kernel)
    cache = CACHE_DIR / f"linux-{key}.json"
    cached = not cases and memory == LINUX_MEMORY_MIB
    if cached and not fresh and cache.is_file():
        return corpus.load_cache(cache)
    initrd = make_initrd(list(cases) or None)
    cmd = linuxref.qemu_command(Path(kernel), initrd, APPEND + " cases-all", icount=True,
                                qemu=qemu, deterministic=True, memory=memory)
    results, seconds = corpus.boot_reference(cmd, CACHE_DIR / "linux-console.log", timeout)
    info = {"seconds": round(seconds, 1), "kernel": Path(kernel).name, "key": key,
            "memory": memory}
    if cached:
        corpus.save_cache(cache, results, info)
    return results, info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--kernel", type=Path, default=DEFAULT_KERNEL)
    ap.add_argument("--fresh", action="store_true", help="boot even if a cached result exists")
    ap.add_argument("--memory", type=int, default=LINUX_MEMORY_MIB,
                    help=f"guest MiB (default {LINUX_MEMORY_MIB}; another size is not cached)")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.cases) - set(case_names()))
    if unknown:
        print(f"debcompare: no such cases {unknown} (tests/debian/NAME.sh)", file=sys.stderr)
        return 2
    try:
        results, info = linux_reference(args.kernel, fresh=args.fresh, cases=args.cases,
                                         memory=args.memory)
    except (CompareError, OSError) as e:
        print(f"debcompare: ERROR: {e}", file=sys.stderr)
        return 1
    corpus.print_results(results)
    print(f"debcompare: {len(results)} cases; {info}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
