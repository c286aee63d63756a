#!/usr/bin/env python3
"""Write the lx personality's initramfs: build/linux/initramfs.cpio (newc, uncompressed).

Inputs: Debian packages (build/linux/debs/PACKAGE.deb, tools/initramfs/fetch_deb.sh), the static Linux test
programs (user/linux/tests/build.mk) and the small files in tools/initramfs/rootfs/.  Layout:

  /bin/busybox, /bin/<applet> -> busybox (one symlink per applet, /bin/sh among them)
  /sbin -> bin, /usr/bin -> ../bin, /usr/sbin -> ../bin
  /init                                  the init script (rootfs/init)
  /etc/{passwd,group,profile}
  /dev/{console,ttyS0,tty,null,zero,full,random,urandom,ptmx,kmsg}   character devices (Linux numbers)
  /dev/pts                               where /init mounts devpts
  /proc /root /tmp                       empty directories (/tmp is 1777)
  /test/<variant>/<program>              variant: glibc, glibc-pie, musl
  /test/corpus/...                       with --corpus: the Linux comparison corpus (corpus.py)

Uncompressed: lx loads the module itself and unpacks it without a decompressor.  Reproducible:
entries sorted by path (parents first), every mtime 0, uid/gid 0, inode numbers in order.
Nothing in the packages is run on the host; the busybox applet list comes from applets.py.

Files are read out of a .deb with `dpkg-deb --fsys-tarfile` (the package's data as a tar
stream), never unpacked under build/.

  tools/initramfs/mkinitramfs.py [--debs DIR] [--tests DIR] [--corpus DIR] [-o FILE]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import io
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
sys.path.insert(0, str(HERE))
import applets  # noqa: E402
import corpus as corpus_files  # noqa: E402
import newc  # noqa: E402

ROOTFS = HERE / "rootfs"
DEFAULT_DEBS = ROOT / "build" / "linux" / "debs"
DEFAULT_TESTS = ROOT / "build" / "linux" / "tests"
DEFAULT_OUT = ROOT / "build" / "linux" / "initramfs.cpio"

# What each Debian package contributes: archive path -> path in the package's data.  Only
# the named files go in (no docs, man pages or packaging hooks).  Add packages here.
PACKAGES = {
    "busybox-static": {"bin/busybox": "bin/busybox"},
}
TEST_VARIANTS = ("glibc", "glibc-pie", "musl")

# name, major, minor, mode: the Linux device numbers, which lx interprets the same way.
# /dev/console is needed by Linux itself (init's stdin/out/err) in the reference guest.
# /dev/ttyS0 is where busybox's cttyhack (in /init) finds the serial console, as a tty that can
# become the shell's controlling terminal (/dev/console never can on Linux).
DEVICES = [
    ("console", 5, 1, 0o600), ("ttyS0", 4, 64, 0o600), ("tty", 5, 0, 0o666),
    ("null", 1, 3, 0o666),
    ("zero", 1, 5, 0o666), ("full", 1, 7, 0o666), ("random", 1, 8, 0o666),
    ("urandom", 1, 9, 0o666), ("ptmx", 5, 2, 0o666),
    ("kmsg", 1, 11, 0o644),
]
ETC_FILES = ("passwd", "group", "profile")


class BuildError(RuntimeError):
    pass


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise BuildError(f"{what}: cannot read {path}: {e.strerror} "
                         "(run `make initramfs`, which fetches and builds the inputs)") from e


def deb_files(deb: Path, wanted: list[str]) -> dict[str, bytes]:
    """The regular files named in wanted (paths without "./") from a .deb's data."""
    if not deb.is_file():
        raise BuildError(f"{deb} missing (run `make initramfs`, which fetches it)")
    try:
        r = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True)
    except FileNotFoundError as e:
        raise BuildError("dpkg-deb not found (Debian package: dpkg)") from e
    if r.returncode != 0:
        raise BuildError(f"dpkg-deb --fsys-tarfile {deb} failed: {r.stderr.decode().strip()}")
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tar:
        for m in tar:
            name = m.name.removeprefix("./")
            if name in wanted and m.isfile():
                found[name] = tar.extractfile(m).read()
    missing = [w for w in wanted if w not in found]
    if missing:
        raise BuildError(f"{deb.name} has no regular file {', '.join(missing)}")
    return found


def entries(debs: Path, tests: Path, corpus: Path | None = None) -> list[newc.Entry]:
    """Every archive entry, sorted with parents before children."""
    out: dict[str, newc.Entry] = {}

    def add(e: newc.Entry) -> None:
        if e.name in out:
            raise BuildError(f"two entries for /{e.name}")
        out[e.name] = e

    for d, perm in (("bin", 0o755), ("dev", 0o755), ("etc", 0o755), ("proc", 0o555),
                    ("root", 0o700), ("test", 0o755), ("tmp", 0o1777), ("usr", 0o755)):
        add(newc.directory(d, perm))
    add(newc.symlink("sbin", "bin"))
    add(newc.symlink("usr/bin", "../bin"))
    add(newc.symlink("usr/sbin", "../bin"))

    for pkg, files in PACKAGES.items():
        data = deb_files(debs / f"{pkg}.deb", list(files.values()))
        for dst, src in files.items():
            add(newc.regular(dst, data[src], perm=0o755))

    names = applets.applet_names(out["bin/busybox"].data)
    if "sh" not in names:
        raise BuildError("busybox has no 'sh' applet")
    for name in names:
        if name != "busybox":
            add(newc.symlink(f"bin/{name}", "busybox"))

    add(newc.regular("init", _read(ROOTFS / "init", "rootfs"), perm=0o755))
    for f in ETC_FILES:
        add(newc.regular(f"etc/{f}", _read(ROOTFS / f, "rootfs"), perm=0o644))
    for name, major, minor, perm in DEVICES:
        add(newc.chardev(f"dev/{name}", major, minor, perm))
    add(newc.directory("dev/pts"))

    for variant in TEST_VARIANTS:
        vdir = tests / variant
        # Programs have no suffix; dependency files (.d) and the like stay out.
        progs = sorted(p for p in vdir.iterdir()
                       if p.is_file() and not p.suffix) if vdir.is_dir() else []
        if not progs:
            raise BuildError(f"no test programs in {vdir} (make linux-tests builds them)")
        add(newc.directory(f"test/{variant}"))
        for p in progs:
            add(newc.regular(f"test/{variant}/{p.name}", _read(p, "test program"), perm=0o755))

    # The Linux comparison corpus (docs/linux/compare.md), when asked for.
    if corpus is not None:
        try:
            for e in corpus_files.entries(corpus):
                add(e)
        except corpus_files.CorpusError as e:
            raise BuildError(str(e)) from e

    return [out[k] for k in sorted(out, key=lambda n: n.split("/"))]


def build(debs: Path = DEFAULT_DEBS, tests: Path = DEFAULT_TESTS, out: Path = DEFAULT_OUT,
          corpus: Path | None = None) -> Path:
    blob = newc.pack(entries(debs, tests, corpus))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(blob)
    os.replace(tmp, out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--debs", type=Path, default=DEFAULT_DEBS,
                    help="directory with PACKAGE.deb files (fetch_deb.sh)")
    ap.add_argument("--tests", type=Path, default=DEFAULT_TESTS,
                    help="built test programs, one directory per variant")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="built corpus (build/linux/corpus): add /test/corpus")
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    try:
        out = build(args.debs, args.tests, args.output, args.corpus)
    except (BuildError, applets.AppletError, ValueError) as e:
        print(f"mkinitramfs: ERROR: {e}", file=sys.stderr)
        return 1
    n = len(newc.unpack(out.read_bytes()))
    print(f"mkinitramfs: wrote {out} ({out.stat().st_size} bytes, {n} entries)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
