"""lxbench, the program behind make bench's personality rows (user/linux/tests/lxbench.c,
docs/performance.md "The Linux personality's rows"), runs under lx to its end: every row
prints a figure or, where a call fails, BENCH-NA with the errno, and the run goes on.  No
figures are checked here (they belong to make bench): what is checked is that the rows lx
supports today produce one, that a row whose program is missing (the initramfs here has no
/bin/sh) is n/a with ENOENT from the child's execve, that row selection works, and that
after some 90 processes lx's page pool is complete again.  The musl build is made here if
`make linux-tests` has not made it (skipped without musl-gcc)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from harness import BUILD, ROOT, boot
from test_lx import LX, LX_ARGS, check_ended, section

sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import newc  # noqa: E402

LXBENCH = BUILD / "linux" / "tests" / "musl" / "lxbench"
CPIO = BUILD / "test-data" / "lxbench.cpio"
ROWS = ("getpid", "getppid", "getpid_sleeper", "getppid_sleeper", "fork_exit", "fork_execve",
        "sh_c_exit", "pipe_pingpong", "pipe_64k", "pagefault_anon", "file_reread_64k",
        "signal_catch", "ctxsw", "mmap_10k", "thread_create_join", "futex_pingpong",
        "futex_pingpong_proc", "mutex_handoff")
# Every row gives a figure on lx now (threads: issue 13 item 2); only `sh -c exit` is n/a here.
WORKS_TODAY = tuple(r for r in ROWS if r != "sh_c_exit")
ROW_RE = re.compile(r"^(BENCH name=lx_(\w+) iters=\d+ tsc_per_op=[\d.]+ tsc=\d+"
                    r"|BENCH-NA name=lx_(\w+) errno=(\d+) what=(\S+))$", re.M)


@pytest.fixture(scope="module")
def initramfs():
    if not LXBENCH.is_file():
        if shutil.which("musl-gcc") is None:
            pytest.skip("musl-gcc missing: install Debian's musl-tools (make deps)")
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        r = subprocess.run(["make", "-s", "-C", str(ROOT), str(LXBENCH.relative_to(ROOT))],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
    CPIO.parent.mkdir(parents=True, exist_ok=True)
    CPIO.write_bytes(newc.pack([
        newc.directory("test"), newc.directory("test/musl"), newc.directory("tmp", 0o1777),
        newc.regular("test/musl/lxbench", LXBENCH.read_bytes(), 0o755)]))
    return CPIO.relative_to(ROOT)


def boot_bench(initramfs, programs):
    return boot("root", cmdline="kdb=batch", timeout=300,
                extra_modules=[(LX, f"{LX_ARGS} initrd={initramfs.name} {programs}"),
                               (initramfs, "data")])


def rows(text):
    """row -> None (a figure) or (errno, what) for BENCH-NA, in the order printed."""
    out = {}
    for m in ROW_RE.finditer(text):
        name = m.group(2) or m.group(3)
        assert name not in out, f"row {name} twice\n{text}"
        out[name] = None if m.group(2) else (int(m.group(4)), m.group(5))
    return out


def test_every_row_runs_or_is_na_and_lx_ends_clean(initramfs):
    result = boot_bench(initramfs, "init=/test/musl/lxbench -- /test/musl/lxbench getpid nosuch")
    check_ended(result)
    out = section(result, 1)
    assert "BENCH-DONE" in out and "lx: pid 1 exited with status 0" in out, out
    got = rows(out)
    assert tuple(got) == ROWS, out
    for row in WORKS_TODAY:
        assert got[row] is None, f"{row}: {got[row]}\n{out}"
    assert got["sh_c_exit"] == (2, "execve"), out          # no /bin/sh here: ENOENT
    for row, na in got.items():
        if na:
            assert na[0] > 0 and not na[1].startswith("child_status"), f"{row}: {na}\n{out}"
    # The second program, started after the first ends: only the row it names.
    last = result.output[result.output.rindex("lx: pid 1 exited"):]
    assert list(rows(last)) == ["getpid"], last
    assert last.count("BENCH-DONE") == 1, last
