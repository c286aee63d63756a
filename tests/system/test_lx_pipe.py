"""lx's pipes and poll/select (docs/linux/pipes.md), with user/linux/tests/pipes.c built for
musl and glibc: pipe/pipe2 and their errors, 64 KiB capacity, EAGAIN/EPIPE/EOF, FIONREAD,
S_IFIFO, a 1 MiB blocking write that parks many times, PIPE_BUF atomicity with four
writers, ends counted across fork and dup, parked readers and writers woken by a close;
poll/ppoll/select/pselect with timeouts, POLLNVAL/POLLHUP/POLLERR, EFAULT/EINVAL/EBADF;
epoll (create, ctl and its errors, a parked wait, timeout, EPOLLONESHOT); a
pipeline of ten processes moving 1 MiB with a checksum; a FIFO (mkfifo, mknod).  Busybox pipelines run through
/bin/sh where the initramfs (make initramfs) has busybox, with sleep and date.  Every run ends with lx's page
pool complete."""
import re

import pytest

from lx_initramfs import (INITRAMFS, VARIANTS, archive, boot_archive, newc, program_entries,
                          variant_programs)
from test_lx import check_ended, section

PROGRAM = variant_programs("pipes")
MODES = ("pipe", "poll", "epoll", "chain")
SCRIPT = b"""echo a b c | wc -w
seq 1000 | sort -rn | head -3
echo one two three | tr ' ' '\\n' | sort | tail -1
seq 5 | while read n; do echo x$n; done | wc -l
sleep 0.1 && echo slept
echo year $(date -u +%Y)
"""


def build_initramfs(name):
    """The project's initramfs when built (busybox), else a small one; the test programs and
    the script appended as a second archive."""
    base = INITRAMFS.read_bytes() if INITRAMFS.is_file() else [newc.directory("bin"),
                                                               newc.directory("tmp", 0o1777)]
    return archive(name, base, [newc.directory("test"),
                                newc.regular("test/pipeline.sh", SCRIPT, 0o755),
                                *program_entries(PROGRAM)])


def boot_with(programs, name="lxpipe.cpio"):
    # 256 MiB: the archive holds busybox's initramfs, which the corpus has grown past what a
    # 128 MiB machine can place beside the kernel's pool.
    return boot_archive(build_initramfs(name), programs, memory=256)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pipes_poll_and_a_pipeline(variant):
    if not PROGRAM[variant].is_file():
        pytest.skip(f"{PROGRAM[variant]} not built (make linux-tests)")
    prog = f"/test/{variant}/pipes"
    result = boot_with("init=" + " -- ".join(f"{prog} {m}" for m in MODES))
    check_ended(result)
    out = result.output
    # The modes fork: pids are not the modes' order, but every process must exit with 0.
    assert "FAIL" not in out and not re.search(r"exited with status [1-9]|killed", out), \
        result.describe()
    for mode in MODES:
        assert f"pipes {mode}: all passed" in out, result.describe()
    for line in ("ok: a pipe holds 64 KiB, then EAGAIN", "ok: one blocking write of 1 MiB",
                 "ok: 160 records of 4096 bytes, none mixed", "ok: no reader: EPIPE",
                 "ok: poll parks until the child writes", "ok: select: times out after 30 ms",
                 "ok: a pipeline of 10 processes moves 1 MiB intact",
                 "ok: a FIFO's reader gets the writer's bytes", "ok: mknod S_IFDIR: EPERM",
                 "ok: epoll_wait parks until the child writes", "ok: EPOLLONESHOT: once"):
        assert line in out, f"no `{line}`\n{out}"


def test_busybox_pipelines():
    if not INITRAMFS.is_file():
        pytest.skip(f"{INITRAMFS} not built (make initramfs)")
    result = boot_with("init=/bin/sh /test/pipeline.sh")
    check_ended(result)
    out = section(result, 1)
    assert re.search(r"^3\r?$", out, re.M), out
    assert re.search(r"^1000\r?\n999\r?\n998\r?$", out, re.M), out
    assert re.search(r"^two\r?$", out, re.M), out
    assert re.search(r"^5\r?$", out, re.M), out
    assert re.search(r"^slept\r?$", out, re.M), out
    m = re.search(r"^year (\d+)\r?$", out, re.M)
    assert m and int(m.group(1)) >= 2024, out
    assert "lx: pid 1 exited with status 0" in out, out
