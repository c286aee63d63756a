#!/usr/bin/env python3
"""Boot Pecan in QEMU (TCG) and collect what it prints on the serial line.

Library:
    from qemu_run import run
    r = run("build/kernel.bin", ["build/user/sigma0.elf", ("build/user/test_ipc.elf", "")],
            cmdline="kdb=batch")
    r.status, r.timed_out, r.output, r.duration, r.passed_all(), r.cases(), r.kdb_entered()

Module 0 is sigma0, module 1 the root task, further modules are data for the root task.  A
module is a path or a (path, args) pair; its command line as the kernel sees it is the path
followed by the args (QEMU splits -initrd on commas, so neither may contain one).

QEMU exit status: a guest write of V to the isa-debug-exit port (0xf4) ends QEMU with
(V << 1) | 1, so 1 = the in-system tests passed, 3 = some failed, 5 = the kernel debugger was
entered with kdb=batch.  0 is a normal QEMU exit (quit from the monitor); None: timed out.

CLI (see --help):
    tools/qemu_run.py [--iso] [--memory N] [--cpu C] [--timeout S] [--interactive]
                      [--profile FILE] kernel module[:args] ...
"""
from __future__ import annotations

import argparse
import codecs
import dataclasses
import os
import pathlib
import re
import selectors
import shlex
import subprocess
import sys
import time
from typing import Iterable, Optional, Sequence, Union

ROOT = pathlib.Path(__file__).resolve().parents[1]
QEMU = os.environ.get("QEMU", "qemu-system-x86_64")

DONE_RE = re.compile(r"^PECAN-TEST-DONE passed=(\d+) failed=(\d+)\s*$", re.M)
CASE_RE = re.compile(r"^(ok|not ok) (\d+) - (\S+)(?: # (.*))?$")

Module = Union[str, os.PathLike, Sequence[str]]


class QemuError(RuntimeError):
    """QEMU could not be started or the boot setup is invalid."""


@dataclasses.dataclass
class RunResult:
    status: Optional[int]        # QEMU exit status, None if it was killed on timeout
    timed_out: bool
    output: str                  # serial output, decoded, CR stripped
    duration: float              # seconds, wall clock
    command: list = dataclasses.field(default_factory=list)
    stderr: str = ""             # QEMU's own diagnostics

    def done_line(self) -> Optional[str]:
        """The PECAN-TEST-DONE line, or None."""
        m = DONE_RE.search(self.output)
        return m.group(0).strip() if m else None

    def done_counts(self) -> Optional[tuple]:
        """(passed, failed) from the PECAN-TEST-DONE line, or None."""
        m = DONE_RE.search(self.output)
        return (int(m.group(1)), int(m.group(2))) if m else None

    def cases(self) -> dict:
        """name -> (ok, reason) for every `ok N - name` / `not ok N - name # reason` line."""
        result = {}
        for line in self.output.splitlines():
            m = CASE_RE.match(line)
            if m:
                result[m.group(3)] = (m.group(1) == "ok", m.group(4) or "")
        return result

    def kdb_entered(self) -> bool:
        return self.status == 5 or "KDB: batch mode" in self.output

    def passed_all(self) -> bool:
        counts = self.done_counts()
        return self.status == 1 and counts is not None and counts[1] == 0

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.output.splitlines()[-lines:])

    def describe(self, lines: int = 40) -> str:
        """A short account of the run for failure messages: how it ended, command, output tail."""
        if self.timed_out:
            end = f"timed out after {self.duration:.1f} s (QEMU killed)"
        else:
            end = f"QEMU exit status {self.status} after {self.duration:.1f} s"
            end += {0: " (the guest reset, e.g. a triple fault, or QEMU was told to quit)",
                    1: " (guest success)", 3: " (guest reported failure)",
                    5: " (kernel debugger, kdb=batch)"}.get(self.status, "")
        text = f"{end}\ncommand: {shlex.join(self.command)}\n"
        if self.stderr.strip():
            text += f"QEMU stderr:\n{self.stderr.strip()}\n"
        text += f"--- last {lines} lines of serial output ---\n{self.tail(lines)}"
        return text


def _mkiso():
    """tools/mkiso.py, imported on first use (it lives beside this file)."""
    here = str(pathlib.Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import mkiso
    return mkiso


def normalize_module(module: Module) -> tuple:
    """(path, args) from a (path, args) pair, a PathLike, or a string: a path, or a whole
    command line "path args..." (split at the first blank unless the string names a file)."""
    if isinstance(module, os.PathLike):
        path, args = os.fspath(module), ""
    elif isinstance(module, str):
        path, args = module, ""
        if not os.path.isfile(module) and len(module.split(None, 1)) == 2:
            path, args = module.split(None, 1)
    else:
        path, args = module
        path, args = os.fspath(path), args or ""
    if any(c.isspace() for c in path):
        raise QemuError(f"module path {path!r}: a blank would split its command line")
    if "," in path or "," in args:
        raise QemuError(f"module {path!r} {args!r}: QEMU -initrd cannot carry commas")
    return path, " ".join(args.split())


def qemu_command(kernel=None, modules=(), cmdline="", memory=128, cpu="max", machine="q35",
                 iso=None, icount=False, extra=(), interactive=False) -> list:
    cmd = [QEMU, "-machine", machine, "-accel", "tcg", "-cpu", cpu, "-m", str(memory),
           "-display", "none", "-no-reboot", "-net", "none",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
           "-serial", "mon:stdio" if interactive else "stdio"]
    if not interactive:
        cmd += ["-monitor", "none"]
    if icount:
        cmd += ["-icount", "shift=0,sleep=off", "-rtc", "clock=vm"]
    if iso is not None:
        if not os.path.isfile(iso):
            raise QemuError(f"ISO image {iso} does not exist (make iso, or tools/mkiso.py)")
        cmd += ["-cdrom", os.fspath(iso), "-boot", "d"]
    else:
        mods = [normalize_module(m) for m in modules]
        if len(mods) < 2:
            raise QemuError("need at least two modules: sigma0 and the root task")
        for path, _ in mods:
            if not os.path.isfile(path):
                raise QemuError(f"module {path} does not exist (run make)")
        if not os.path.isfile(kernel):
            raise QemuError(f"kernel {kernel} does not exist (run make)")
        initrd = ",".join(f"{p} {a}".rstrip() for p, a in mods)
        cmd += ["-kernel", os.fspath(kernel), "-initrd", initrd, "-append", cmdline]
    cmd += list(extra)
    return cmd


def _expect_list(serial_input):
    """serial_input: None, str/bytes (sent at once), or [(regex, text), ...] (each text sent
    when its regex first matches the output after the previous one was sent)."""
    if serial_input is None:
        return []
    if isinstance(serial_input, (str, bytes)):
        return [(None, serial_input)]
    return [(re.compile(p) if p is not None else None, t) for p, t in serial_input]


def run(kernel, modules=(), cmdline="", memory=128, cpu="max", machine="q35", timeout=120,
        iso=None, icount=False, extra=(), serial_input=None, echo=None,
        timeout_from=None, hang_timeout=180) -> RunResult:
    """Boot and wait until QEMU exits or `timeout` seconds have passed (then kill it).

    timeout_from: a regular expression; the `timeout` seconds count from its first
    appearance in the output instead of from the start (so a test that expects a run to time
    out after printing something does not depend on how fast a loaded host boots); until it
    appears, the run ends after `hang_timeout` seconds.

    iso: boot from this ISO image (-cdrom, GRUB).  If `kernel` is given too, the image is
    (re)built first from kernel, modules and cmdline (tools/mkiso.py); kernel=None boots the
    image as it is.  serial_input: text for the serial line, see _expect_list.  echo: a text
    stream that receives the serial output as it arrives (e.g. sys.stdout), all of it: what
    came after a deadline too.
    """
    if iso is not None and kernel is not None:
        _mkiso().build_iso(iso, kernel, [normalize_module(m) for m in modules], cmdline)
    cmd = qemu_command(None if iso else kernel, modules, cmdline, memory, cpu, machine, iso,
                       icount, extra)
    expects = _expect_list(serial_input)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if expects else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise QemuError(f"cannot start {cmd[0]}: {e} (run tools/deps.sh)") from e

    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    deadline = start + timeout if timeout else None
    started = re.compile(timeout_from) if timeout_from else None
    if started is not None:
        deadline = start + hang_timeout
    timed_out = False
    searched = 0            # output offset after which the next expectation is looked for

    def feed():
        nonlocal searched
        while expects:
            pattern, text = expects[0]
            if pattern is not None:
                m = pattern.search(out.decode("utf-8", "replace").replace("\r", ""), searched)
                if not m:
                    return
                searched = m.end()
            data = text.encode() if isinstance(text, str) else text
            try:
                proc.stdin.write(data)
                proc.stdin.flush()
            except BrokenPipeError:
                pass
            expects.pop(0)

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    try:
        feed()
        while sel.get_map():
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                timed_out = True
                break
            for key, _ in sel.select(wait):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if key.data is out:
                    if started is not None and started.search(
                            out.decode("utf-8", "replace").replace("\r", "")):
                        started = None
                        deadline = time.monotonic() + timeout if timeout else None
                    if echo is not None:
                        try:
                            echo.write(decoder.decode(chunk).replace("\r", ""))
                            echo.flush()
                        except BrokenPipeError:
                            echo = None
                    if expects:
                        feed()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        sel.close()
    if timed_out:
        proc.kill()
    status = proc.wait()
    duration = time.monotonic() - start
    if proc.stdin:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    # Whatever arrived between the deadline and the kill; the echo gets it too, so that it
    # holds the whole output.
    for stream, buf in ((proc.stdout, out), (proc.stderr, err)):
        rest = stream.read()
        if rest:
            buf.extend(rest)
        stream.close()
        if buf is out and echo is not None:
            try:
                echo.write(decoder.decode(rest or b"", final=True).replace("\r", ""))
                echo.flush()
            except BrokenPipeError:
                pass
    return RunResult(status=None if timed_out else status, timed_out=timed_out,
                     output=out.decode("utf-8", "replace").replace("\r", ""),
                     duration=duration, command=cmd,
                     stderr=err.decode("utf-8", "replace"))


def run_interactive(kernel, modules=(), cmdline="", memory=128, cpu="max", machine="q35",
                    iso=None, icount=False, extra=()) -> int:
    """Boot with the serial console (and the QEMU monitor, Ctrl-A c; quit: Ctrl-A x) on this
    terminal.  Returns QEMU's exit status."""
    if iso is not None and kernel is not None:
        _mkiso().build_iso(iso, kernel, [normalize_module(m) for m in modules], cmdline)
    cmd = qemu_command(None if iso else kernel, modules, cmdline, memory, cpu, machine, iso,
                       icount, extra, interactive=True)
    try:
        return subprocess.call(cmd)
    except OSError as e:
        raise QemuError(f"cannot start {cmd[0]}: {e} (run tools/deps.sh)") from e


def resolve_program(path: str) -> str:
    """A path as given, or a bare program name (sigma0, test_ipc) -> build/user/NAME.elf."""
    if os.path.exists(path) or "/" in path:
        return path
    candidate = ROOT / "build" / "user" / (path if path.endswith(".elf") else path + ".elf")
    return os.path.relpath(candidate) if candidate.exists() else path


def parse_module_arg(text: str) -> tuple:
    """'path[:args]' -> (path, args)."""
    path, _, args = text.partition(":")
    return resolve_program(path), args


def exit_code(status: Optional[int]) -> int:
    """The CLI's exit status: 0 when QEMU quit normally (0) or the guest reported success (1);
    124 on timeout; otherwise QEMU's status (3: guest reported failure, 5: kernel debugger)."""
    if status is None:
        return 124
    return 0 if status in (0, 1) else status


def main(argv: Optional[Iterable[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        description="Boot Pecan in QEMU (TCG). Module 0 = sigma0, module 1 = root task, "
                    "further modules are boot modules for the root task.",
        epilog="Modules are given as path[:args], e.g. build/user/test_boot.elf:'mem=128'; a "
               "bare name like sigma0 means build/user/sigma0.elf. Exit status: 0 if QEMU quit "
               "or the guest reported success, 3 guest failure, 5 kernel debugger "
               "(kdb=batch), 124 timeout.")
    ap.add_argument("kernel", help="kernel image (build/kernel.bin)")
    ap.add_argument("modules", nargs="+", metavar="module[:args]")
    ap.add_argument("--iso", nargs="?", const=str(ROOT / "build" / "run.iso"), default=None,
                    metavar="PATH", help="boot through GRUB from an ISO built from the same "
                    "kernel and modules (default PATH: build/run.iso)")
    ap.add_argument("--memory", "-m", type=int, default=128, help="MiB (default 128)")
    ap.add_argument("--cpu", default="max", help="QEMU CPU model (default max)")
    ap.add_argument("--machine", default="q35")
    ap.add_argument("--cmdline", default=None,
                    help="kernel command line (default: 'kdb=batch', or empty with "
                         "--interactive so that the kernel debugger waits for input)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds before QEMU is killed (default 120; none with --interactive)")
    ap.add_argument("--icount", action="store_true",
                    help="-icount shift=0,sleep=off -rtc clock=vm (one TSC tick per instruction)")
    ap.add_argument("--interactive", "-i", action="store_true",
                    help="serial console and QEMU monitor on this terminal (-serial mon:stdio); "
                         "Ctrl-A x quits, Ctrl-A c switches to the monitor")
    ap.add_argument("--input", default=None,
                    help="text to send on the serial line (non-interactive; \\n for newline)")
    ap.add_argument("--qemu-arg", action="append", default=[], metavar="ARG",
                    help="extra QEMU argument (repeatable)")
    ap.add_argument("--profile", metavar="FILE", default=None,
                    help="an instruction profile of the run into FILE (the insnprof plugin; "
                         "docs/profiling.md; fold it with tools/insnprof.py report FILE)")
    args = ap.parse_args(argv)
    if args.profile:
        import insnprof     # tools/, as this file
        args.qemu_arg += ["-plugin", insnprof.plugin_arg(
            "pecan", pathlib.Path(args.profile).resolve(), insnprof.build_plugin())]

    modules = [parse_module_arg(m) for m in args.modules]
    try:
        if args.interactive:
            cmdline = "" if args.cmdline is None else args.cmdline
            if args.timeout:
                ap.error("--timeout does not apply to --interactive")
            status = run_interactive(args.kernel, modules, cmdline, args.memory, args.cpu,
                                     args.machine, args.iso, args.icount, args.qemu_arg)
            return exit_code(status)
        cmdline = "kdb=batch" if args.cmdline is None else args.cmdline
        text = args.input.encode().decode("unicode_escape") if args.input else None
        r = run(args.kernel, modules, cmdline, args.memory, args.cpu, args.machine,
                args.timeout or 120, args.iso, args.icount, args.qemu_arg, text,
                echo=sys.stdout)
    except QemuError as e:
        print(f"qemu_run: {e}", file=sys.stderr)
        return 2
    if r.stderr.strip():
        sys.stderr.write(r.stderr)
    if r.timed_out:
        print(f"\nqemu_run: timed out after {r.duration:.1f} s, QEMU killed", file=sys.stderr)
    return exit_code(r.status)


if __name__ == "__main__":
    sys.exit(main())
