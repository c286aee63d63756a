"""The root task starts boot modules as tasks (user/tests/test_tasks.c): booted with the real
root task (build/user/root.elf), the test program as a boot module with a command line and a
data module (tests/data/greeting.txt), the program finds its command line and start record,
gets its heap paged on demand, and uses the root task's task, thread, data-module and name
services.  The boot uses a 4 MiB kernel pool, so that creating tasks runs out of kernel memory
before the root task's tables fill.  A second boot adds broken program modules before the
test program: the root task refuses them, gives back what it took for them, and the rest of
the boot works as without them."""
import pathlib
import re
import struct

import pytest

from harness import ROOT, boot, cases_of, check_case, check_complete

SOURCE = "user/tests/test_tasks.c"
MODULE = ("build/user/test_tasks.elf", "alpha=1 beta")
DATA = ("tests/data/greeting.txt", "data")
CMDLINE = "kdb=batch kmem=4M"
BROKEN_DIR = ROOT / "build" / "test-data"


def boot_tasks():
    return boot("root", cmdline=CMDLINE, extra_modules=[MODULE, DATA])


def elf(segments, entry=0x400000):
    """A static x86-64 ELF executable with PT_LOAD segments (vaddr, filesz, memsz), each
    file part filled with 0xCC."""
    phoff, phnum = 64, len(segments)
    data_off = phoff + 56 * phnum
    header = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"\0" * 7,
                         2, 0x3E, 1, entry, phoff, 0, 0, 64, 56, phnum, 0, 0, 0)
    phdrs, body, off = b"", b"", data_off
    for vaddr, filesz, memsz in segments:
        phdrs += struct.pack("<IIQQQQQQ", 1, 7, off, vaddr, vaddr, filesz, memsz, 0x1000)
        body += b"\xcc" * filesz
        off += filesz
    return header + phdrs + body


def broken_modules():
    """Program modules the root task must refuse: not an ELF file; a good segment and then
    one larger than all memory (out of memory after the first copy); a good segment and
    then one past the end of the user area."""
    BROKEN_DIR.mkdir(parents=True, exist_ok=True)
    files = {
        "garbage.elf": b"this is not an ELF file\n" * 40,
        "huge.elf": elf([(0x400000, 0x3000, 0x3000), (0x10000000, 0x10, 512 << 20)]),
        "outside.elf": elf([(0x400000, 0x2000, 0x5000), (0x7FFFFFFF0000, 0x10, 0x20000)]),
    }
    mods = []
    for name, content in files.items():
        path = BROKEN_DIR / name
        path.write_bytes(content)
        mods.append((str(path.relative_to(ROOT)), ""))
    return mods


def boot_with_broken():
    return boot("root", cmdline=CMDLINE, extra_modules=broken_modules() + [MODULE, DATA])


def pages_in_use(result):
    m = re.search(r"^root: modules loaded, (\d+) pages in use", result.output, re.M)
    assert m, "the root task did not report its memory after loading\n" + result.describe()
    return int(m.group(1))


def test_run_completes():
    check_complete(boot_tasks(), SOURCE)


def test_root_task_reports_started_module():
    result = boot_tasks()
    assert re.search(r"^root: .*test_tasks", result.output, re.M), (
        "the root task did not report starting test_tasks\n" + result.describe())
    assert re.search(r"^root: data module greeting.txt, 67 bytes", result.output, re.M), (
        "the root task did not keep the data module\n" + result.describe())


def test_failed_loads_give_memory_back():
    broken, clean = boot_with_broken(), boot_tasks()
    for line in (r"root: garbage.elf: .*magic", r"root: huge.elf: out of memory",
                 r"root: outside.elf: segment outside the user area"):
        assert re.search("^" + line, broken.output, re.M | re.I), (
            f"no line matching {line!r}\n" + broken.describe())
    assert pages_in_use(broken) == pages_in_use(clean), (
        f"{pages_in_use(broken)} pages in use after the broken modules, "
        f"{pages_in_use(clean)} without them")
    check_complete(broken, SOURCE)


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_tasks(), case, SOURCE)
