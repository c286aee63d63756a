"""The initramfs archives of the lx system tests (test_lx_*.py), and the boot of lx with one.

Each test file packs what it runs into a newc archive of its own (tools/linuxref/newc.py:
no download, no host cpio), written under build/test-data/ and handed to lx as a data module
named by `initrd=`:

    path = archive("lxl4chan.cpio", [newc.directory("test"), *program_entries(PROGRAM)])
    result = boot_archive(path, "init=/test/musl/l4chan")
    result = boot_program("lxl4chan.cpio", PROGRAM, "musl")    # the two above in one

What differs between the files is an argument: the entries, the programs per C library
(`variant_programs`, built by `make linux-tests`; a variant that is not built is left out, and
its test skips), a base archive to append to (busybox's initramfs, `make initramfs`), lx's
heap and the guest's memory.  Not in harness.py: that boots any root task and knows nothing
of lx or of archives; not in test_lx.py: pytest collects that file as tests.
"""
from __future__ import annotations

import pathlib
import sys

import pytest

from harness import BUILD, ROOT, boot
from test_lx import HEAP_MIB, LX

sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import newc  # noqa: E402

VARIANTS = ("musl", "glibc")
TEST_DATA = BUILD / "test-data"
INITRAMFS = BUILD / "linux" / "initramfs.cpio"      # busybox and the corpus (make initramfs)


def variant_programs(name: str, variants=VARIANTS) -> dict:
    """variant -> build/linux/tests/<variant>/<name>, a program of user/linux/tests/."""
    return {v: BUILD / "linux" / "tests" / v / name for v in variants}


def program_entries(programs: dict, place: str = "test/{variant}/") -> list:
    """newc entries for each program of `programs` (variant -> path) that is built, in that
    order: at place.format(variant=...), which ending in "/" is a directory of the variant's
    own (its entry first) holding the program under its file name, else the program's name."""
    entries = []
    for variant, path in programs.items():
        if not path.is_file():
            continue
        where = place.format(variant=variant)
        if where.endswith("/"):
            entries.append(newc.directory(where.rstrip("/")))
            where += path.name
        entries.append(newc.regular(where, path.read_bytes(), 0o755))
    return entries


def archive(name: str, *parts) -> pathlib.Path:
    """Write build/test-data/<name>: the parts one after the other, a list of newc entries
    packed as an archive of its own (lx, as Linux, unpacks concatenated archives: later ones
    replace and add), bytes as they are (a base archive, padding, hand-made records).
    Returns the path relative to the repository root, as a boot module is named."""
    data = b"".join(p if isinstance(p, (bytes, bytearray)) else newc.pack(p) for p in parts)
    path = TEST_DATA / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path.relative_to(ROOT)


def boot_archive(path: pathlib.Path, programs: str, heap: int = HEAP_MIB,
                 extra_modules=(), **kw):
    """The real root task with lx (`heap` MiB, powering off after its last process) unpacking
    the archive `path` and running `programs` (its init= and -- arguments), then the further
    data modules; keyword arguments go to harness.boot (memory, timeout)."""
    return boot("root", cmdline="kdb=batch",
                extra_modules=[(LX, f"heap={heap} heapx=1 poweroff=1 initrd={path.name} "
                                    f"{programs}"),
                               (path, "data"), *extra_modules], **kw)


def boot_program(name: str, programs: dict, variant: str, **kw):
    """lx running one variant's program of `programs` as init, from the archive `name` that
    holds every built variant under /test/<variant>/; the test skips when that one is not
    built.  Keyword arguments as boot_archive's."""
    path = programs[variant]
    if not path.is_file():
        pytest.skip(f"{path} not built (make linux-tests)")
    cpio = archive(name, [newc.directory("test"), *program_entries(programs)])
    return boot_archive(cpio, f"init=/test/{variant}/{path.name}", **kw)
