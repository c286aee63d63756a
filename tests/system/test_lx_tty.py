"""lx's console tty (user/linux/tty/tty.c, console.c; docs/linux/tty.md), driven through QEMU's
serial line as a user types: sigma0, the root task, the serial driver and lx with
`console=serial` and the initramfs (`make initramfs`; these tests skip without it).

Input is deterministic: each piece is typed only after the output that asks for it has
appeared (tools/qemu_run.py's expect list), so nothing reaches the UART before its reader
is there, and the virtual clock (-icount) makes the runs repeat exactly.

* The C program /test/{musl,glibc}/tty (user/linux/tests/tty.c), run by `setsid cttyhack`
  as a session leader with the console as its controlling terminal: the ioctls and their
  errors, O_NONBLOCK, raw mode with VMIN/VTIME, canonical editing, echo off, EOF, ^C.
* busybox sh as `make run` starts it (/init through sh): a prompt, commands, redirection,
  ash's line editing (backspace, cursor keys, history), ^C at the prompt, `stty -echo`,
  `stty -a`, `read -n`; `exit` ends the run with lx's pool complete.
"""
import re

import pytest

import qemu_run
from harness import BOOT_TIMEOUT, BUILD, LOGS, ROOT, kernel_path, kernel_trouble, require_built
from test_lx import HEAP_MIB, check_ended

INITRAMFS = BUILD / "linux" / "initramfs.cpio"
TTY_PROGRAMS = {v: BUILD / "linux" / "tests" / v / "tty" for v in ("musl", "glibc")}
BASE = [BUILD / "user" / n for n in ("sigma0.elf", "root.elf", "serial.elf")]
LX_ARGS = f"heap={HEAP_MIB} heapx=1 poweroff=1 console=serial initrd=initramfs.cpio"

_cache = {}


def boot_console(programs, session, name):
    """Boot lx on the serial driver with `programs` (its command line's program part) and
    type `session` ([(regex, text)]: text once regex has appeared)."""
    if not INITRAMFS.is_file():
        pytest.skip("no initramfs (make initramfs: needs Debian's busybox-static)")
    key = (programs, tuple(session))
    if key in _cache:
        return _cache[key]
    kernel = kernel_path("kernel-debug")
    require_built(kernel, *BASE, BUILD / "user" / "lx.elf")
    modules = [str(p.relative_to(ROOT)) for p in BASE]
    modules += [("build/user/lx.elf", f"{LX_ARGS} {programs}"),
                ("build/linux/initramfs.cpio", "data")]
    # 256 MiB: the initramfs (with the corpus, some 50 MiB) no longer fits in 128 with lx's pool
    result = qemu_run.run(str(kernel.relative_to(ROOT)), modules, cmdline="kdb=batch",
                          memory=256, icount=True, timeout=BOOT_TIMEOUT, serial_input=session)
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / f"lx-tty-{name}.log").write_text(
        f"# {' '.join(result.command)}\n# status {result.status}\n{result.output}")
    _cache[key] = result
    return result


# --- the C program -------------------------------------------------------------------------

# What the program asks for and what is typed (one variant's run).
PROGRAM_SESSION = [
    (r"tty: type 5 raw bytes\n", "ab\x7f\x03d"),
    (r"tty: type 2 raw bytes\n", "\x1b["),
    (r"tty: type a secret line\n", "secret\r"),
    (r"tty: type a line for a bad pointer\n", "bad\r"),
    (r"tty: type an edited line\n", "abc\x7fd\x15xy zz\x17q\r"),  # ERASE, KILL, WERASE
    (r"tty: type a line ending in EOF\n", "end\x04\x04"),
    (r"tty: type a short read\n", "four\r"),
    (r"tty: type two lines at once\n", "one\rtwo\r"),
    (r"tty: type a line and \^C, then another line\n", "abc\x03after\r"),
]

PROGRAM_CHECKS = [
    "TCGETS on the console", "the default termios", "TCSETS then TCGETS gives the same",
    "TCSETSW restores it", "tcgetattr, isatty", "TIOCGWINSZ: 80x24", "TIOCSWINSZ: 100x30",
    "TIOCGPGRP: our group is the foreground", "TIOCGSID: our session",
    "TIOCSPGRP to our own group", "FIONREAD: nothing typed", "TCFLSH TCIFLUSH",
    "TIOCOUTQ: 0", "TIOCGSERIAL", "TIOCSCTTY on our own terminal",
    "TCGETS to a bad pointer: EFAULT", "TCSETS from a bad pointer: EFAULT",
    "TIOCGWINSZ to a bad pointer: EFAULT", "TCFLSH 7: EINVAL", "TIOCSPGRP -1: EINVAL",
    "TIOCSPGRP of no process: ESRCH", "an unknown tty ioctl: ENOTTY", "TCGETS on fd 99: EBADF",
    "TCGETS on a tmpfs file: ENOTTY", "isatty of a file: 0, ENOTTY",
    "TIOCGWINSZ on /dev/null: ENOTTY", "open /dev/tty",
    "O_NONBLOCK read with nothing typed: EAGAIN", "a write of 0 bytes", "a read of 0 bytes",
    "fork a background child, wait", "background read: EINTR (SIGTTIN)",
    "still the foreground group",
    "raw, MIN 0 TIME 0, nothing typed", "raw, MIN 0 TIME 2, nothing typed",
    "raw, MIN 5: five bytes", "raw, MIN 2 TIME 3: two bytes", "ECHO off: the line",
    "a read into a bad pointer: EFAULT", "ERASE, KILL, WERASE edit the line",
    "EOF ends a line without a newline", "EOF on an empty line", "a line read in two parts",
    "one line per read", "the second line", "^C throws the line away",
]


def program_run():
    progs = [f"init=/bin/setsid cttyhack /test/musl/tty"]
    session = list(PROGRAM_SESSION)
    if TTY_PROGRAMS["glibc"].is_file():
        progs.append("-- /bin/setsid cttyhack /test/glibc/tty")
        session += PROGRAM_SESSION
    return boot_console(" ".join(progs), session, "program")


def program_section(result, index):
    """The output of the index-th run of the program (0 musl, 1 glibc) and its exit status:
    up to its `tty: done` line and lx's line about its end."""
    out = result.output
    ends = list(re.finditer(r"^tty: done, \d+ failed\nlx: pid \d+ exited with status (\d+)$",
                            out, re.M))
    assert len(ends) > index, f"run {index} did not end\n" + result.describe()
    begin = ends[index - 1].end() if index else out.index("lx: Linux server")
    return out[begin:ends[index].end()], int(ends[index].group(1))


@pytest.mark.parametrize("variant", ["musl", "glibc"])
def test_tty_program(variant):
    if not TTY_PROGRAMS[variant].is_file():
        pytest.skip(f"{TTY_PROGRAMS[variant]} not built")
    result = program_run()
    out, status = program_section(result, 0 if variant == "musl" else 1)
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert not fails, "\n".join(fails) + "\n" + out
    for check in PROGRAM_CHECKS:
        assert f"ok: {check}" in out, f"no `ok: {check}`\n{out}"
    assert "tty: done, 0 failed" in out and status == 0, out
    # Echo: on for the edited line (the ERASE/WERASE/KILL erasing is "\b \b"), off for the
    # secret; ^C echoed as ^C; the EOF character is not echoed.
    assert "tty: type a secret line\nok: ECHO off" in out, out
    assert "abc^Cafter" in out, out
    assert "\nendok: EOF ends a line" in out, out
    assert "\b \b" in out, out
    # SIGINT is recorded for the foreground group today; with the signal layer delivering
    # it, the handler runs once (this line then says 1).
    assert re.search(r"tty: SIGINT handler ran [01] time", out), out
    assert re.search(r"SIGTTIN handler ran [01], SIGTTOU [01] time", out), out


def test_tty_program_run_ends_with_all_memory_free():
    result = program_run()
    assert not kernel_trouble(result), result.describe()
    check_ended(result)


# --- busybox sh ----------------------------------------------------------------------------

PROMPT = r"root:~# "
SHELL_SESSION = [
    (PROMPT, "echo hi > /tmp/x; cat /tmp/x\r"),
    (r"\nhi\n", ""),
    (PROMPT, "ls /bin/\r"),
    (r"cttyhack", ""),
    (PROMPT, "echo abcd\x7f\x7fXY\r"),                      # backspace in ash's editor
    (r"\nabXY\n", ""),
    (PROMPT, "echo ac\x1b[Db\r"),                             # cursor left
    (r"\nabc\n", ""),
    (PROMPT, "\x1b[A\r"),                                     # cursor up: the last line
    (r"\nabc\n", ""),
    (PROMPT, "stty -a\r"),
    (r"rows 24; columns 80", ""),
    # ash's `read -n` polls before each read: "[xyz]" once poll(2) exists; before, "[]" and
    # the typed "xyz" is a command of its own.
    (PROMPT, "read -n 3 v; echo \"[$v]\"\r"),
    (r"\[", "xyz"),
    (PROMPT, "stty -echo\r"),
    (PROMPT, "echo hidden$((40+2))\r"),                      # not echoed by the tty
    (r"hidden42\n", ""),
    (PROMPT, "stty echo\r"),
    # ^C at the prompt: ash echoes it and raises SIGINT, whose handler gives a new prompt.
    # Until the signal layer delivers signals, raise() fails and ash ends as if by EOF
    # (status 130), which ends the run as `exit` does.
    (PROMPT, "abc\x03"),
    (PROMPT, "exit\r"),
]


def shell_run():
    return boot_console("init=/bin/sh /init", SHELL_SESSION, "shell")


def test_shell_prompt_commands_and_redirection():
    out = shell_run().output
    assert "BusyBox v1." in out and PROMPT in out, out[-3000:]
    assert re.search(r"^hi$", out, re.M), out[-3000:]
    assert re.search(r"busybox", out) and "cttyhack" in out, out[-3000:]
    # /init made the console the shell's controlling terminal: job control is on.
    assert "job control turned off" not in out, out[-3000:]


def test_shell_line_editing():
    out = shell_run().output
    assert re.search(r"^abXY$", out, re.M), out[-3000:]
    assert len(re.findall(r"^abc$", out, re.M)) == 2, out[-3000:]     # typed, then recalled


def test_shell_ctrl_c_at_the_prompt():
    out = shell_run().output
    # ^C at the prompt: the tty echoes it and raises SIGINT for the foreground group; ash's
    # handler discards the line and prints a new prompt.  ash's `exit` then ends with the
    # status of the interrupted line, 130, as on Linux.
    assert re.search(r"abc\^C\n" + PROMPT, out), out[-3000:]
    assert "lx: pid 1 exited with status 130" in out, out[-3000:]


def test_shell_stty_and_read():
    out = shell_run().output
    assert re.search(r"speed 115200 baud; rows 24; columns 80;", out), out[-3000:]
    # With echo off, ash reads without line editing and the typed line (and its newline)
    # is not echoed, so the output follows the prompt on the same line, as on Linux.
    assert re.search(r"hidden42$", out, re.M), out[-3000:]
    assert "echo hidden" not in out, "echoed with stty -echo\n" + out[-3000:]


def test_shell_read_n():
    out = shell_run().output
    if "ENOSYS poll (7)" in out:
        pytest.xfail("ash's read -n needs poll(2), which lx does not have yet")
    assert re.search(r"^\[xyz\]$", out, re.M), out[-3000:]


def test_shell_exit_ends_the_run_with_all_memory_free():
    result = shell_run()
    assert not kernel_trouble(result), result.describe()
    check_ended(result)
