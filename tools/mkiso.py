#!/usr/bin/env python3
"""Build a bootable GRUB ISO (grub-mkrescue) that boots Pecan through multiboot.

    tools/mkiso.py [-o build/pecan.iso] [--cmdline WORDS] kernel module[:args] ...

The image holds /boot/kernel.bin, every module as /boot/<file name>, and /boot/grub/grub.cfg:

    serial --unit=0 --speed=115200
    terminal_input serial
    terminal_output serial
    set timeout=0
    menuentry "Pecan" {
        multiboot /boot/kernel.bin <cmdline>
        module /boot/sigma0.elf /boot/sigma0.elf
        module /boot/root.elf /boot/root.elf <args>
    }

GRUB 2 does not put the file name into a module's command line, so it is repeated: the
kernel then sees "<path> <args>" for every module, as with QEMU -kernel/-initrd.  Module 0 is
sigma0, module 1 the root task, the rest are boot modules for the root task.

Needs grub-mkrescue (grub-common, grub-pc-bin), xorriso and mtools (tools/deps.sh).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SAFE_WORD = re.compile(r"^[A-Za-z0-9_=.,/:+@%-]+$")


def grub_word(word: str) -> str:
    """A word for grub.cfg, single-quoted when it holds anything GRUB's parser would treat
    specially."""
    if SAFE_WORD.match(word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def grub_cfg(modules, cmdline="", title="Pecan") -> str:
    """grub.cfg text; modules: [(file name inside /boot, args)]."""
    lines = [
        "serial --unit=0 --speed=115200",
        "terminal_input serial",
        "terminal_output serial",
        "set timeout=0",
        "set default=0",
        f"menuentry {grub_word(title)} {{",
        "    " + " ".join(["multiboot", "/boot/kernel.bin"]
                          + [grub_word(w) for w in cmdline.split()]),
    ]
    for name, args in modules:
        words = ["module", f"/boot/{name}", f"/boot/{name}"] + [grub_word(w) for w in args.split()]
        lines.append("    " + " ".join(words))
    lines.append("}")
    return "\n".join(lines) + "\n"


def build_iso(output, kernel, modules, cmdline="", title="Pecan") -> pathlib.Path:
    """Write the ISO to `output` (atomically: built beside it, then renamed).
    modules: [(path, args)] or paths."""
    output = pathlib.Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    mods = []
    for m in modules:
        path, args = (m, "") if isinstance(m, (str, os.PathLike)) else m
        mods.append((pathlib.Path(path), args or ""))
    if len(mods) < 2:
        raise SystemExit("mkiso: need at least two modules: sigma0 and the root task")
    names = [p.name for p, _ in mods]
    if len(set(names)) != len(names) or "kernel.bin" in names:
        raise SystemExit(f"mkiso: module file names must be distinct (and not kernel.bin): {names}")
    for p in [pathlib.Path(kernel)] + [p for p, _ in mods]:
        if not p.is_file():
            raise SystemExit(f"mkiso: {p} does not exist (run make)")
    if shutil.which("grub-mkrescue") is None:
        raise SystemExit("mkiso: grub-mkrescue not found; run tools/deps.sh "
                         "(packages grub-common grub-pc-bin xorriso mtools)")

    staging = pathlib.Path(tempfile.mkdtemp(prefix=".iso-", dir=output.parent))
    try:
        boot = staging / "boot"
        (boot / "grub").mkdir(parents=True)
        shutil.copyfile(kernel, boot / "kernel.bin")
        for path, _ in mods:
            shutil.copyfile(path, boot / path.name)
        (boot / "grub" / "grub.cfg").write_text(
            grub_cfg([(p.name, a) for p, a in mods], cmdline, title))
        tmp_iso = staging.with_suffix(".iso")
        proc = subprocess.run(["grub-mkrescue", "-o", str(tmp_iso), str(staging)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0 or not tmp_iso.is_file():
            raise SystemExit(f"mkiso: grub-mkrescue failed (status {proc.returncode}):\n"
                             f"{proc.stdout}")
        os.replace(tmp_iso, output)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        staging.with_suffix(".iso").unlink(missing_ok=True)
    return output


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Build a GRUB ISO that boots Pecan.")
    ap.add_argument("-o", "--output", default=str(ROOT / "build" / "pecan.iso"))
    ap.add_argument("--cmdline", default="", help="kernel command line, e.g. 'kdb=batch'")
    ap.add_argument("--title", default="Pecan", help="GRUB menu entry title")
    ap.add_argument("kernel")
    ap.add_argument("modules", nargs="+", metavar="module[:args]",
                    help="sigma0, the root task, then boot modules; path[:args]")
    args = ap.parse_args(argv)
    modules = []
    for m in args.modules:
        path, _, margs = m.partition(":")
        modules.append((path, margs))
    out = build_iso(args.output, args.kernel, modules, args.cmdline, args.title)
    print(f"  ISO     {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
