#!/usr/bin/env python3
"""Run commands from the lx initramfs on native Linux: the reference side of the Linux
comparison tests (issue 8 item 10).

Boots Debian's kernel (build/linuxref/vmlinuz, tools/linuxref/fetch_kernel.sh) in QEMU with
build/linux/initramfs.cpio followed by a second, small newc archive holding
/etc/init.d/rcS; the kernel unpacks both, in order.  /init runs rcS, which runs each command
between marker lines and then `reboot -f` (QEMU runs with -no-reboot, so that ends it).

  tools/initramfs/linuxref_run.py                  every /test/<variant>/<program>
  tools/initramfs/linuxref_run.py '/test/musl/hello 3' 'ls /bin | wc -l'

Library use: run_commands(["/test/glibc/hello"]) -> [Result(command, output, status)].
Output is what the command wrote to the console (stdout and stderr), with CRs removed.
The same overlay (an rcS in a second archive) can drive lx later.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import newc  # noqa: E402
import run as linuxref  # noqa: E402

DEFAULT_KERNEL = ROOT / "build" / "linuxref" / "vmlinuz"
DEFAULT_INITRAMFS = ROOT / "build" / "linux" / "initramfs.cpio"
BEGIN = "@@lx-begin"
END = "@@lx-end"
DONE = "@@lx-done"
_END_RE = re.compile(rf"^{END} status=(\d+)$")
# The quiet kernel still prints a few lines (e.g. the reboot); rcS output is what lies
# between the markers.
APPEND = "console=ttyS0 quiet panic=-1 nokaslr norandmaps"


class RunError(RuntimeError):
    pass


@dataclass
class Result:
    command: str
    output: str
    status: int


def default_commands(initramfs: Path) -> list[str]:
    """Every test program in the archive, in archive order (arguments for auxv)."""
    cmds = []
    for e in newc.unpack(initramfs.read_bytes()):
        if e.name.startswith("test/") and e.name.count("/") == 2 and e.mode & 0o111:
            path = "/" + e.name
            cmds.append(f"{path} one two" if path.endswith("/auxv") else path)
    return cmds


def rcs_script(commands: list[str]) -> str:
    """The rcS that runs each command with a fixed environment between markers."""
    lines = ["#!/bin/sh", "# Written by tools/initramfs/linuxref_run.py."]
    for i, c in enumerate(commands):
        lines.append(f"echo '{BEGIN} {i}'")
        # env -i: the same environment on Linux and on lx, whatever the kernel passed to init.
        lines.append(f"env -i PATH=/bin HOME=/root TERM=vt100 sh -c {shlex.quote(c)} </dev/null")
        lines.append(f"echo \"{END} status=$?\"")
    lines += [f"echo '{DONE}'", "reboot -f", ""]
    return "\n".join(lines)


def overlay(commands: list[str]) -> bytes:
    """The second archive: /etc/init.d/rcS (etc/ exists in the first one)."""
    return newc.pack([newc.directory("etc/init.d"),
                      newc.regular("etc/init.d/rcS", rcs_script(commands).encode(), 0o755)])


def parse(console: str, commands: list[str]) -> list[Result]:
    results: list[Result] = []
    cur: int | None = None
    buf: list[str] = []
    done = False
    for raw in console.replace("\r", "").split("\n"):
        line = linuxref._ESC_RE.sub("", raw)
        # Firmware text can precede the first marker on its line (no newline before it).
        if (at := line.find(BEGIN + " ")) > 0 and cur is None:
            line = line[at:]
        if line.startswith(BEGIN + " "):
            cur, buf = int(line.split()[1]), []
        elif cur is not None and (m := _END_RE.match(line)):
            results.append(Result(commands[cur], "".join(s + "\n" for s in buf), int(m.group(1))))
            cur = None
        elif line == DONE:
            done = True
        elif cur is not None:
            buf.append(line)
    if not done or len(results) != len(commands):
        raise RunError(f"the guest ran {len(results)} of {len(commands)} commands "
                       f"and {'did' if done else 'did not'} finish")
    return results


def run_commands(commands: list[str], kernel: Path = DEFAULT_KERNEL,
                 initramfs: Path = DEFAULT_INITRAMFS, timeout: float = 300,
                 qemu: str = "qemu-system-x86_64", icount: bool = True,
                 memory: int = 256) -> list[Result]:
    for f, how in ((kernel, "tools/linuxref/fetch_kernel.sh"), (initramfs, "make initramfs")):
        if not Path(f).is_file():
            raise RunError(f"{f} missing: run {how}")
    out_dir = Path(initramfs).parent
    initrd = out_dir / "linuxref-initrd.cpio"
    initrd.write_bytes(Path(initramfs).read_bytes() + overlay(commands))
    # icount and no RDRAND: the same instruction stream, hence the same output, on every run
    # (icount=False: make bench's wall-clock run of lxbench).
    cmd = linuxref.qemu_command(Path(kernel), initrd, APPEND, icount=icount, qemu=qemu,
                                deterministic=True, memory=memory)
    log = out_dir / "linuxref-console.log"
    try:
        with open(log, "wb") as f:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                               stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise RunError(f"guest did not finish within {timeout:.0f} s; console log {log}") from e
    console = log.read_bytes().decode("utf-8", "replace")
    try:
        results = parse(console, commands)
    except RunError as e:
        raise RunError(f"{e}; qemu status {r.returncode}; console log {log}\n"
                       f"--- console tail ---\n{linuxref._tail(console)}") from e
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("commands", nargs="*", help="shell commands (default: every /test program)")
    ap.add_argument("--kernel", type=Path, default=DEFAULT_KERNEL)
    ap.add_argument("--initramfs", type=Path, default=DEFAULT_INITRAMFS)
    ap.add_argument("--timeout", type=float, default=300, help="seconds for the whole boot")
    ap.add_argument("--qemu", default="qemu-system-x86_64")
    args = ap.parse_args(argv)
    try:
        cmds = args.commands or default_commands(args.initramfs)
        results = run_commands(cmds, args.kernel, args.initramfs, args.timeout, args.qemu)
    except (RunError, OSError, ValueError) as e:
        print(f"linuxref_run: ERROR: {e}", file=sys.stderr)
        return 1
    for r in results:
        print(f"$ {r.command}")
        sys.stdout.write(r.output)
        print(f"[status {r.status}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
