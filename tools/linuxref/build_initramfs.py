#!/usr/bin/env python3
"""Build the native-Linux reference guest's initramfs.

Compiles user/bench/linux/*.c into one static /init (host gcc, glibc static
from libc6-dev) and packs it, with the few nodes the kernel and /init need,
into build/linuxref/initramfs.cpio.gz (newc cpio written by newc.py).

The binary is only ever executed inside the QEMU guest, never on the host.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import newc  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SRC_DIR = ROOT / "user" / "bench" / "linux"
OUT_DIR = ROOT / "build" / "linuxref"
CFLAGS = ["-static", "-O2", "-Wall", "-Wextra", "-s"]


class BuildError(RuntimeError):
    pass


def compile_init(cc: str, out: Path) -> Path:
    srcs = sorted(SRC_DIR.glob("*.c"))
    if not srcs:
        raise BuildError(f"no C sources in {SRC_DIR}")
    if shutil.which(cc) is None:
        raise BuildError(f"compiler {cc!r} not found (Debian package: gcc)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    cmd = [cc, *CFLAGS, "-o", str(tmp), *map(str, srcs)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        hint = ""
        if "cannot find -lc" in r.stderr:
            hint = "\n(static glibc missing: install the Debian package libc6-dev)"
        raise BuildError(f"{' '.join(cmd)} failed:\n{r.stderr}{hint}")
    if r.stderr.strip():
        sys.stderr.write(r.stderr)
    tmp.replace(out)
    return out


def initramfs_entries(init_binary: bytes) -> list[newc.Entry]:
    # The kernel opens /dev/console for init's stdin/out/err before /init
    # runs, so the node must be in the archive (no devtmpfs yet). /proc and
    # /sys are mount points for init.
    return [
        newc.directory("dev"),
        newc.chardev("dev/console", 5, 1),
        newc.chardev("dev/null", 1, 3, perm=0o666),
        newc.directory("proc"),
        newc.directory("sys"),
        newc.directory("tmp", perm=0o1777),
        newc.regular("init", init_binary, perm=0o755),
    ]


def build(cc: str = "gcc", out_dir: Path = OUT_DIR) -> Path:
    init = compile_init(cc, out_dir / "init")
    cpio = newc.pack(initramfs_entries(init.read_bytes()))
    # mtime=0 in the gzip header keeps the image reproducible.
    data = gzip.compress(cpio, compresslevel=9, mtime=0)
    target = out_dir / "initramfs.cpio.gz"
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    args = ap.parse_args()
    try:
        target = build(args.cc, args.out_dir)
    except BuildError as e:
        print(f"build_initramfs: ERROR: {e}", file=sys.stderr)
        return 1
    print(f"build_initramfs: wrote {target} ({target.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
