"""lx's mounts, /proc, /dev and the remaining file calls (docs/linux/files.md).  The
self-test's `proc` mode (user/linux/selftest/proc.c) runs against an initramfs built here
(no /dev nodes: lx adds the standard ones at boot): mount/umount2 of proc and tmpfs with
Linux's errors, statfs magics, st_dev per mount, EXDEV across mounts; /proc/self and
/proc/N files in Linux's format, a zombie's stat, the directory gone after wait4;
/proc/meminfo, mounts, lx/syscalls, ...; /dev/fd, stdin/stdout, tty, urandom, full;
statx, utimensat/utimes, chown, sendfile, the sync family, flock, getdents, mknod,
O_TMPFILE, FIONREAD, sysinfo.  lx ends with every page free (mounts and proc's inodes
freed).  Where `make initramfs` has built busybox, the initramfs's /init (run by busybox sh:
it mounts /proc, then runs an rcS hook added here) and in it busybox's mount, cat
/proc/meminfo, free, df, ps, uptime, ls /proc/self/fd and umount run under lx with their
output checked (skipped otherwise)."""
import re

import pytest

from harness import ROOT
from lx_initramfs import INITRAMFS, archive, boot_archive, newc
from test_lx import SELFTEST, check_ended, section


def build_initramfs():
    return archive("lxproc.cpio", [
        newc.directory("bin"), newc.directory("etc"), newc.directory("proc", 0o555),
        newc.directory("mnt"), newc.directory("tmp", 0o1777),
        newc.regular("bin/lxselftest", (ROOT / SELFTEST).read_bytes(), 0o755),
        newc.regular("etc/hello.txt", b"hello file\n")])


def test_proc_selftest():
    result = boot_archive(build_initramfs(), "init=/bin/lxselftest proc")
    check_ended(result)
    out = section(result, 1)
    assert "FAIL" not in out, out
    for line in ("ok: mount proc on /proc", "ok: statfs /proc: PROC_SUPER_MAGIC",
                 "ok: st_dev differs per mount", "ok: umount with an open file: EBUSY",
                 "ok: /proc/mounts", "ok: umount /proc", "ok: /proc/self -> pid",
                 "ok: /proc/self/stat: pid (comm) R ppid ..., 52 fields",
                 "ok: /proc/self/status", "ok: /proc/self/cmdline", "ok: /proc/self/maps",
                 "ok: /proc/self/fd/1 -> /dev/console", "ok: open /proc/self/fd/N: the same file",
                 "ok: /proc/meminfo: MemTotal:%8lu kB ...",
                 "ok: /proc/lx/syscalls counts ENOSYS calls",
                 "ok: a child's stat: a zombie, its parent",
                 "ok: reaped: its /proc directory is gone", "via /dev/stdout",
                 "ok: /dev/urandom", "ok: statx", "ok: utimensat sets atime and mtime",
                 "ok: AT_SYMLINK_NOFOLLOW: the link's times", "ok: chown; set-id bits dropped",
                 "ok: sendfile to the console", "hello file", "ok: getdents (the old one)",
                 "ok: mknod of a null device", "ok: O_TMPFILE: an unnamed file", "ok: sysinfo",
                 "ok: statfs: EFAULT", "ok: readlink into 1 byte: truncated",
                 "ok: nested mounts, left at the exit",
                 "selftest: all passed", "lx: pid 1 exited with status 0"):
        assert line in out, f"no `{line}` in the proc self-test's output\n{out}"
    # The report at the end of the run names the unimplemented call the test made.
    assert re.search(r"^lx: ENOSYS tuxcall \(184\): 2$", result.output, re.M), result.output


BUSYBOX_COMMANDS = [
    ("grep proc /proc/mounts", r"^proc /proc proc rw,relatime 0 0$"),     # /init mounted it
    ("mount -t tmpfs -o nosuid scratch /tmp", None),
    ("mount", r"^proc on /proc type proc \(rw,relatime\)\n"
              r"devpts on /dev/pts type devpts \(rw,relatime,gid=5,mode=620,ptmxmode=000\)\n"
              r"scratch on /tmp type tmpfs \(rw,nosuid,relatime,inode64\)$"),
    ("cat /proc/meminfo", r"^MemTotal: +\d+ kB\nMemFree: +\d+ kB$"),
    ("free", r"^Mem: +\d+ +\d+ +\d+ +0 +0 +\d+$"),
    ("df", r"^scratch +\d+ +\d+ +\d+ +\d+% /tmp$"),
    # The shell runs rcS (no #! in lx's execve yet) by executing /proc/self/exe, hence
    # "{exe} ash" (comm is exe's); ps is a NOEXEC applet: a forked shell, which Linux shows
    # as {ps} after prctl(PR_SET_NAME).
    ("ps", r"^PID +USER +COMMAND\n +1 root +/bin/sh /init\n +\d+ root +.*/etc/init.d/rcS\n"
           r" +\d+ root +.*/etc/init.d/rcS$"),
    ("uptime", r"up .*load average: 0\.00, 0\.00, 0\.00$"),
    ("ls /proc/self/fd", r"^0\s+1\s+2"),     # columns: stdout is the console tty
    ("umount /tmp", None),
    ("umount /tmp", r"Invalid argument"),
]


def busybox_initramfs():
    """The initramfs with an rcS hook that runs each command between markers."""
    script = "".join(f"echo '=== {cmd}'\n{cmd} 2>&1\necho \"=== status $?\"\n"
                     for cmd, _ in BUSYBOX_COMMANDS)
    return archive("lxproc-busybox.cpio", INITRAMFS.read_bytes(),
                   [newc.directory("etc/init.d"),
                    newc.regular("etc/init.d/rcS", ("#!/bin/sh\n" + script).encode(), 0o755)])


@pytest.mark.skipif(not INITRAMFS.is_file(), reason=f"{INITRAMFS} not built (make initramfs)")
def test_busybox_proc_tools():
    result = boot_archive(busybox_initramfs(), "init=/bin/sh /init",
                          memory=256)     # the whole initramfs
    check_ended(result)
    out = result.output.replace("\r\n", "\n")
    assert "lx: pid 1 exited with status 0" in out, result.describe()
    pos = 0
    for cmd, pattern in BUSYBOX_COMMANDS:
        m = re.compile(rf"^=== {re.escape(cmd)}\n(.*?)^=== status (\d+)$", re.M | re.S).search(
            out, pos)
        assert m, f"no output of `{cmd}`\n{out}"
        text, status, pos = m.group(1), int(m.group(2)), m.end()
        assert status == (1 if pattern == r"Invalid argument" else 0), f"{cmd}: {status}\n{text}"
        if pattern:
            assert re.search(pattern, text, re.M), f"{cmd}: no {pattern!r}\n{text}"
