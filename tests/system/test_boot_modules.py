"""Boot with large data modules (issue 12, item 5; docs/architecture.md, section 1).

QEMU's multiboot loader puts the modules right after the kernel, so a large one covers
15-64 MiB, which the kernel keeps free: it must move.  The kernel moves it to the highest place
it fits, anywhere in RAM, and the root task hands it out through ROOT_DATA_MAP: the in-system
program user/tests/test_datamod.c (a boot module of the real root task) reads the words the
test wrote at the start, middle and end of the file and compares them with the pattern.

* a 1.5 GiB module on a 4 GiB guest (q35: 2 GiB below 4 GiB, 2 GiB above) boots; the module
  goes above 4 GiB, so the kernel's physmap, the KIP, σ0 and the root task handle memory there;
* a 200 MiB module on a 384 MiB guest moves to a place that overlaps where it was (the copy
  runs from the top down); on a 1280 MiB guest it moves across physical 1 GiB, where the
  root task's heap is in its own space;
* a module that cannot fit (200 MiB in 256 MiB of RAM, and a module larger than the guest's
  RAM, which QEMU loads only in part) ends the boot with a panic that names the module, its
  size and the RAM it would need; a guest with that much RAM boots.

The modules are sparse files written at test time under build/test-data/; QEMU reads them
whole into guest RAM (the 4 GiB boot takes about 15 s of host time and 5 GB of host memory
while it runs)."""
import pathlib
import re
import struct

import pytest

from harness import BUILD, ROOT, boot, cases_of, check_case, check_complete, kernel_lines

SOURCE = "user/tests/test_datamod.c"
PROGRAM = "build/user/test_datamod.elf"
DATA_DIR = BUILD / "test-data"
MAGIC = 0x444F4D4E41434550          # "PECANMOD", as in test_datamod.c
MIB = 1 << 20
GIB = 1 << 30


def check_offsets(size):
    """The offsets test_datamod.c reads (its check_offsets)."""
    offsets = [0]
    for edge in (2 * MIB, GIB):
        if size >= edge + 8:
            offsets += [edge - 8, edge]
    return offsets + [(size // 2) & ~7, size - 8]


def data_module(name, size) -> str:
    """build/test-data/NAME: `size` bytes, zero except the word MAGIC ^ offset at each of
    check_offsets(size); sparse, so it costs no disk space.  Rewritten on every call."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = DATA_DIR / name
    with open(path, "wb") as f:
        f.truncate(size)
        for off in check_offsets(size):
            f.seek(off)
            f.write(struct.pack("<Q", MAGIC ^ off))
    return str(path.relative_to(ROOT))


def boot_datamod(name, size, memory):
    """The real root task with test_datamod and the data module NAME of `size` bytes.  The
    root task's command line (which it ignores) names the file, so that each boot keeps its
    own log in build/system-tests/."""
    return boot("root", args=pathlib.Path(name).stem, memory=memory, extra_modules=[
        (PROGRAM, f"name={name} size={size}"), (data_module(name, size), "data")])


def moved(result, index):
    """(from, to) of the kernel's "boot: module N (K KiB) moves from A to B" line, or None."""
    for line in kernel_lines(result, f"boot: module {index} ("):
        m = re.match(r"boot: module \d+ \(\d+ KiB\) moves from ([0-9a-f]+) to ([0-9a-f]+)$", line)
        if m:
            return int(m.group(1), 16), int(m.group(2), 16)
    return None


def panic_line(result):
    lines = [line for line in result.output.splitlines() if line.startswith("PANIC:")]
    return lines[0] if lines else ""


NEEDED_RE = re.compile(r"(\d+) MiB of RAM needed, (\d+) MiB present$")

# --- 1.5 GiB on 4 GiB --------------------------------------------------------------------

LARGE = ("large.bin", 1536 * MIB, 4096)


def test_large_module_boots():
    result = boot_datamod(*LARGE)
    check_complete(result, SOURCE)


def test_large_module_moves_above_4g():
    """The highest place it fits on this machine is above 4 GiB: the module goes there whole,
    and the kernel reports it there."""
    result = boot_datamod(*LARGE)
    move = moved(result, 3)
    assert move, "no move reported for module 3\n" + result.describe()
    assert move[1] >= 4 * GIB, f"moved to {move[1]:#x}, expected above 4 GiB\n" + result.describe()
    assert any(line.startswith(f"boot: module 3 at {move[1]:x}-") for line in
               kernel_lines(result, "boot: module 3 at")), result.describe()
    assert re.search(rf"^root: data module large.bin, {LARGE[1]} bytes$", result.output, re.M), (
        result.describe())


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_large_module_case(case):
    check_case(boot_datamod(*LARGE), case, SOURCE)


# --- a move onto its own old place ------------------------------------------------------------

OVERLAP = ("overlap.bin", 200 * MIB, 384)


def test_overlapping_move_keeps_the_bytes():
    result = boot_datamod(*OVERLAP)
    move = moved(result, 3)
    assert move, "no move reported for module 3\n" + result.describe()
    old, new = move
    assert old < new < old + OVERLAP[1], (
        f"moved from {old:#x} to {new:#x}: not an upward move onto itself\n" + result.describe())
    check_complete(result, SOURCE)


# --- a module where the root task's heap is in its own space ----------------------------------

ACROSS_1G = ("across1g.bin", 200 * MIB, 1280)


def test_module_across_1g_does_not_hit_the_root_heap():
    """Moved to just below the pool, the module lies across physical 1 GiB, where the root
    task keeps its heap in its own address space (0x40000000 up): the root task sees modules
    in a window of its own (user/root/loader.c, phys_map), so neither hides the other."""
    result = boot_datamod(*ACROSS_1G)
    move = moved(result, 3)
    assert move and move[1] < GIB < move[1] + ACROSS_1G[1], (
        f"module 3 moved to {move and hex(move[1])}, expected across 1 GiB\n" + result.describe())
    check_complete(result, SOURCE)


# --- modules that do not fit -----------------------------------------------------------------

def check_no_fit(result, name, size_mib, why):
    """A panic naming module 3, its size and the RAM needed; returns the MiB it says."""
    assert result.status == 5 and result.kdb_entered(), result.describe()
    line = panic_line(result)
    head = f"PANIC: boot: module 3 (build/test-data/{name} data, {size_mib} MiB) {why}: "
    m = NEEDED_RE.search(line)
    assert line.startswith(head) and m, f"expected {head!r}...\n" + result.describe()
    needed, present = int(m.group(1)), int(m.group(2))
    assert needed > present, line
    return needed


def test_module_without_room_is_named():
    """200 MiB loaded whole into 256 MiB, but it must leave 15-64 MiB and there is no other
    place: the panic says how much RAM would do, and that much does."""
    needed = check_no_fit(boot_datamod("nofit.bin", 200 * MIB, 256), "nofit.bin", 200,
                          "does not fit")
    # QEMU keeps about half a MiB of the guest's RAM for the firmware.
    check_complete(boot_datamod("nofit.bin", 200 * MIB, needed + 1), SOURCE)


def test_module_larger_than_ram_is_named():
    """320 MiB into a 256 MiB guest: QEMU loads what fits and drops the rest.  The kernel
    says so instead of reading garbage, and names the RAM needed, which then suffices."""
    needed = check_no_fit(boot_datamod("toolarge.bin", 320 * MIB, 256), "toolarge.bin", 320,
                          "is not all in RAM (the loader could not load it whole)")
    check_complete(boot_datamod("toolarge.bin", 320 * MIB, needed + 1), SOURCE)
