"""Host tests for tools/linuxref: the cpio writer, the console parser and the
QEMU command construction. No guest is booted here (that takes ~15 s per
run and is exercised by tools/linuxref/run.py itself)."""

import gzip
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))

import build_initramfs  # noqa: E402
import newc  # noqa: E402
import run  # noqa: E402


# ---------------------------------------------------------------- cpio/newc

def sample_entries():
    return [
        newc.directory("dev"),
        newc.chardev("dev/console", 5, 1),
        newc.directory("proc"),
        newc.regular("init", b"\x7fELF" + bytes(range(256)) * 3 + b"x", perm=0o755),
        newc.regular("empty", b""),
        newc.symlink("sbin", "/"),
    ]


def test_pack_unpack_round_trip():
    entries = sample_entries()
    blob = newc.pack(entries)
    assert len(blob) % 4 == 0
    back = newc.unpack(blob)
    assert [(e.name, e.mode, e.data, e.rdevmajor, e.rdevminor) for e in back] == \
           [(e.name, e.mode, e.data, e.rdevmajor, e.rdevminor) for e in entries]


def test_header_layout_is_exact():
    blob = newc.pack([newc.regular("ab", b"xyz", perm=0o644)])
    hdr = blob[:110]
    assert hdr[:6] == b"070701"
    fields = [int(hdr[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
    ino, mode, uid, gid, nlink, mtime, size, dmaj, dmin, rmaj, rmin, namesize, check = fields
    assert (ino, mode, nlink, size, namesize, check) == (1, 0o100644, 1, 3, 3, 0)
    # 110 + "ab\0" = 113 -> name padded to 116; data "xyz" padded to 4.
    assert blob[110:116] == b"ab\0\0\0\0"
    assert blob[116:120] == b"xyz\0"
    assert blob[120:126] == b"070701"
    assert b"TRAILER!!!\0" in blob[120:]


def test_pack_is_reproducible():
    assert newc.pack(sample_entries()) == newc.pack(sample_entries())


def test_pack_rejects_bad_entries():
    with pytest.raises(ValueError):
        newc.pack([newc.regular("a", b""), newc.regular("/a", b"")])
    with pytest.raises(ValueError):
        newc.pack([newc.regular("", b"")])
    with pytest.raises(ValueError):
        newc.pack([newc.Entry("d", stat.S_IFDIR | 0o755, b"data")])


def test_unpack_rejects_garbage():
    blob = newc.pack(sample_entries())
    with pytest.raises(ValueError):
        newc.unpack(b"070707" + blob[6:])
    with pytest.raises(ValueError):
        newc.unpack(blob[:200])


@pytest.mark.skipif(shutil.which("cpio") is None, reason="host cpio not installed")
def test_gnu_cpio_lists_archive():
    r = subprocess.run(["cpio", "-t", "--quiet"], input=newc.pack(sample_entries()),
                       capture_output=True, check=True)
    assert r.stdout.decode().split() == ["dev", "dev/console", "proc", "init", "empty", "sbin"]


@pytest.mark.skipif(shutil.which("cpio") is None, reason="host cpio not installed")
def test_unpack_reads_gnu_cpio_archive(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"hello")
    r = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], input=b"d\nd/f\n",
                       cwd=tmp_path, capture_output=True, check=True)
    got = {e.name: e for e in newc.unpack(r.stdout)}
    assert set(got) == {"d", "d/f"}
    assert stat.S_ISDIR(got["d"].mode) and got["d/f"].data == b"hello"


def test_initramfs_layout():
    entries = build_initramfs.initramfs_entries(b"ELF")
    names = [e.name for e in entries]
    by_name = {e.name: e for e in entries}
    console = by_name["dev/console"]
    assert stat.S_ISCHR(console.mode) and (console.rdevmajor, console.rdevminor) == (5, 1)
    assert stat.S_ISREG(by_name["init"].mode) and by_name["init"].mode & 0o111
    for d in ("proc", "sys"):
        assert stat.S_ISDIR(by_name[d].mode)
    # The kernel does not create missing parents: every parent comes first.
    for i, n in enumerate(names):
        if "/" in n:
            assert n.rsplit("/", 1)[0] in names[:i]
    blob = gzip.decompress(gzip.compress(newc.pack(entries), mtime=0))
    assert [e.name for e in newc.unpack(blob)] == names


# ------------------------------------------------------------ console parser

CONSOLE = (
    "\x1bc\x1b[?7l\x1b[2JSeaBIOS (version 1.16.2)\r\n"
    "INFO kernel=6.1.0-56-amd64 #1 SMP\r\n"
    "INFO start name=getpid iters=100 warmup=10\r\n"
    "BENCH name=getpid iters=100 tsc_per_op=314.00 ns_per_op=314.04 tsc=31400 ns=31404\r\n"
    "INFO start name=trap iters=50 warmup=5\r\n"
    "[    1.5] some kernel message BENCH name=trap iters=50 tsc_per_op=3113.60 "
    "ns_per_op=3113.61 tsc=155680 ns=155680\r\n"
    "BENCH name=trap_unprot iters=50 tsc_per_op=12460.19 ns_per_op=12460.23 tsc=1 ns=2\n"
    "BENCH-DONE\r\n"
    "[    1.78] reboot: Power down\r\n"
)


def test_parse_console_results():
    p = run.parse_console(CONSOLE)
    assert p.done and not p.errors
    assert set(p.results) == {"getpid", "trap", "trap_unprot"}
    g = p.results["getpid"]
    assert g["iters"] == 100 and isinstance(g["iters"], int)
    assert g["tsc_per_op"] == pytest.approx(314.0)
    assert g["ns_per_op"] == pytest.approx(314.04)
    assert p.results["trap"]["tsc"] == 155680
    assert p.started == ["getpid", "trap"]
    assert p.info[0].startswith("kernel=6.1.0")


def test_parse_console_after_escape_sequences():
    """SeaBIOS clears the screen right before the guest's first line."""
    p = run.parse_console("\x1bc\x1b[?7l\x1b[2JINFO kernel=6.1.0-56-amd64 #1 SMP\r\n")
    assert p.info == ["kernel=6.1.0-56-amd64 #1 SMP"]


def test_parse_console_errors_and_incomplete():
    p = run.parse_console("BENCH-ERROR name=foo reason=unknown-benchmark\r\n"
                          "BENCH name=x iters=1 tsc_per_op=1")
    assert not p.done
    assert p.errors == [{"name": "foo", "reason": "unknown-benchmark"}]
    assert p.results["x"]["tsc_per_op"] == 1
    # BENCH-DONE / BENCH-ERROR are never mistaken for results.
    assert "BENCH-DONE" not in run.parse_console("BENCH-DONE\n").results


def test_parse_kv_types():
    assert run.parse_kv("a=1 b=2.5 c=x-y") == {"a": 1, "b": 2.5, "c": "x-y"}


# ------------------------------------------------------------ command line

def test_selection_args():
    assert run.selection_args(["pipe", "getpid"], 1000) == "bench=pipe,getpid iters=1000"
    assert run.selection_args("all") == "bench=all"
    assert run.selection_args(["pipe", "vm"], {"pipe": 5}, warmup=0) == "bench=pipe:5,vm warmup=0"
    for bad in ([], ["a b"], ["x;y"]):
        with pytest.raises(ValueError):
            run.selection_args(bad)
    with pytest.raises(ValueError):
        run.selection_args(["pipe"], 0)


def test_qemu_command_icount_and_wall():
    ic = run.qemu_command(Path("k"), Path("i"), "console=ttyS0", icount=True)
    joined = " ".join(ic)
    assert "-icount shift=0,sleep=off" in joined and "clock=vm" in joined
    assert ic[ic.index("-cpu") + 1] == "max"
    assert ic[ic.index("-accel") + 1] == "tcg"
    assert ic[ic.index("-append") + 1] == "console=ttyS0"
    wall = run.qemu_command(Path("k"), Path("i"), "", icount=False)
    assert "-icount" not in wall
    det = run.qemu_command(Path("k"), Path("i"), "", icount=True, deterministic=True)
    assert det[det.index("-cpu") + 1] == "max,-rdrand,-rdseed"


def test_run_guest_reports_missing_kernel(tmp_path):
    with pytest.raises(run.LinuxBenchError, match="fetch_kernel.sh"):
        run.run_guest("bench=getpid", kernel=tmp_path / "nope", initrd=tmp_path / "nope")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_guest_sources_compile():
    # Syntax/type check only: the programs must never run on the host.
    srcs = sorted(str(p) for p in (ROOT / "user" / "bench" / "linux").glob("*.c"))
    assert srcs
    subprocess.run(["gcc", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", *srcs], check=True)
