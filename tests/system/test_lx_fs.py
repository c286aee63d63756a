"""lx's files (docs/linux-server.md, "Files"): lx unpacks an initramfs module (two newc
archives concatenated, built here with tools/linuxref/newc.py: no download needed) into its
RAM file system and starts its programs from paths in it.  The self-test's `fs` mode
exercises open/read/write/stat/getdents64/links/rename/dup/fcntl/... with Linux's results
and error codes; an ELF that is not in the tree, a directory and a non-executable file are
refused; lx ends with every page free (all fds closed at exit, the file system freed).
Where `make linux-tests` has built them, the musl and glibc hello programs run from the
initramfs too (skipped otherwise)."""
import re

import pytest

from harness import ROOT
from lx_initramfs import archive, boot_archive, newc, program_entries, variant_programs
from test_lx import SELFTEST, check_ended, section

HELLOS = variant_programs("hello")


def raw(name, ino, mode, nlink, data=b"", uid=0, gid=0, mtime=0):
    """A newc record with the inode number and link count given (newc.pack numbers them)."""
    fields = dict(ino=ino, mode=mode, uid=uid, gid=gid, nlink=nlink, mtime=mtime,
                  filesize=len(data), devmajor=0, devminor=0, rdevmajor=0, rdevminor=0,
                  namesize=len(name) + 1, check=0)
    return newc._record(fields, name.encode(), data)


def build_initramfs():
    one = [newc.directory("bin"), newc.directory("etc"), newc.directory("dev"),
           newc.directory("tmp", 0o1777), newc.directory("test"),
           newc.regular("bin/lxselftest", (ROOT / SELFTEST).read_bytes(), 0o755),
           newc.regular("etc/hello.txt", b"hello file\n"),
           newc.regular("etc/motd", b"one\n"),
           newc.symlink("link", "etc/hello.txt"),
           newc.chardev("dev/null", 1, 3, 0o666), newc.chardev("dev/zero", 1, 5, 0o666),
           newc.chardev("dev/full", 1, 7, 0o666), *program_entries(HELLOS)]
    # A second archive, as a test's rcS overlay is appended: it replaces and adds.
    two = [newc.regular("etc/motd", b"two\n"), newc.regular("etc/extra", b"", 0o600)]
    # A third, after zero padding: hard links (the data with the last name, as cpio writes
    # them), an owner and a time.
    three = (raw("etc/hl1", 500, 0o100644, 2) + raw("etc/hl2", 500, 0o100644, 2, b"linked\n") +
             raw("etc/owned", 501, 0o100640, 1, b"x", uid=5, gid=6, mtime=1000000000) +
             newc.pack([]))
    return archive("lxfs.cpio", one, two, b"\0" * 512, three)


def boot_fs(programs):
    return boot_archive(build_initramfs(), programs)


PROGRAMS = ("init=/bin/lxselftest fs -- /bin/lxselftest one -- /etc/hello.txt -- /etc "
            "-- /nonexistent -- /bin/lxselftest efault -- /bin/lxselftest fsfill")


def test_fs_calls():
    result = boot_fs(PROGRAMS)
    check_ended(result)
    assert re.search(r"^lx: initramfs lxfs.cpio: \d+ entries", result.output, re.M)
    out = section(result, 1)
    assert "FAIL" not in out, out
    for line in ("ok: read", "ok: a second archive replaces a file", "ok: readlink",
                 "ok: hard links of the archive", "ok: owner and mtime of the archive",
                 "ok: a symlink to itself: ELOOP", "ok: a 298-byte name: ENAMETOOLONG",
                 "ok: rename over a file", "ok: getdents64", "ok: rmdir of the cwd",
                 "dup works", "ok: F_DUPFD_CLOEXEC", "ok: /dev/full: ENOSPC",
                 "ok: write to an initramfs file", "ok: EMFILE after fd 1023 (RLIMIT_NOFILE)",
                 "ok: a sparse file past 2 MiB", "ok: a write past the largest offset: EINVAL",
                 "ok: user.* on a tmpfs file", "ok: user.* on a symlink: EPERM, ENODATA",
                 "selftest: all passed", "lx: pid 1 exited with status 0"):
        assert line in out, f"no `{line}` in the fs self-test's output\n{out}"


def test_programs_start_from_paths():
    result = boot_fs(PROGRAMS)
    out = result.output
    two = section(result, 2)
    assert "argv[0] /bin/lxselftest" in two and "selftest: all passed" in two, two
    assert "lx: pid 2 exited with status 42" in two, two
    for pattern in (r"lx: cannot run /etc/hello.txt \(error 13\)", r"lx: cannot run /etc \(error 13\)",
                    r"lx: cannot run /nonexistent \(error 2\)"):
        assert re.search("^" + pattern, out, re.M), f"no {pattern!r}\n" + result.describe()
    assert "lx: pid 3 exited with status 0" in out, out


def test_filling_tmp_is_enospc_for_the_writer_only():
    """/tmp (the root tmpfs, limited to half of lx's memory as Linux's tmpfs) filled by one
    file: ENOSPC for the writer, while another process goes on (it touches new pages and
    forks); lx ends with every page free.  (Before the size limit every process was killed
    "out of memory".)"""
    result = boot_fs(PROGRAMS)
    check_ended(result)
    out = section(result, 4)
    for line in ("ok: the file grows until /tmp is full: ENOSPC",
                 "ok: no per-file limit (more than 2 MiB)", "ok: another process still runs",
                 "ok: the room is back", "selftest: all passed"):
        assert line in out, f"no `{line}` in the fsfill output\n{out}"


@pytest.mark.parametrize("variant", sorted(HELLOS))
def test_hello_from_initramfs(variant):
    if not HELLOS[variant].is_file():
        pytest.skip(f"{HELLOS[variant]} not built (make linux-tests)")
    result = boot_fs(f"init=/test/{variant}/hello 3")
    check_ended(result)
    out = section(result, 1)
    assert "hello, world" in out and "lx: pid 1 exited with status 3" in out, \
        out + result.describe()
