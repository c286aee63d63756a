"""Host unit tests of the kernel's pure logic, compiled from the real sources.

Each area is a C test program in tests/host/, compiled with the host gcc (-Wall -Wextra -Werror,
AddressSanitizer and UndefinedBehaviorSanitizer) together with the unmodified kernel source it
tests, then run once per test case; every check prints an "ok"/"FAIL" line and a failing case
shows its FAIL lines (and any sanitizer report).

  kmem_test.c          kernel/kmem.c (-DKMEM_HOST_TEST): buddy allocator against a reference model
  bootmem_test.c       kernel/bootmem.c (-DBOOTMEM_HOST_TEST): bootmem_find_top, range_overlaps,
                       the placement plan (directed cases, random worlds against brute force)
  elf_test.c           kernel/elf.c: hand-built headers, every error path; files from as/ld
                       compared with readelf
  regions_test.c       user/sigma0/regions.c: descriptor overriding, claim/available/release/find_free,
                       capacity exhaustion, random calls against a point model
  mapdb_test.c         kernel/mapdb.c + arch/x86_64/pagetable.c + slab.c + kmem.c on an arena
                       (kshim/): sigma0 roots, map/grant/unmap chains, splitting, status bits,
                       KIP/UTCB areas, memory exhaustion, leak checks
  mapdb_random_test.c  the same units: random operations against a reference model
  iospace_test.c       kernel/glue/x2-x86_64/iospace.c on the same arena: merging, grants, no
                       cycles, bounded node counts (the ping-pong of issue 7), memory
                       exhaustion, random calls
  mapdb_stack_test.c   the same units without sanitizers, kernel code generation: stack use
                       against the kernel stack

Kernel sources are compiled with the kernel's own warning set (-Wall -Wextra -Werror
-Wno-unused-parameter, Makefile WARN) and -fno-builtin like the kernel; test programs with
-Wall -Wextra -Werror.  Nothing is skipped: a compile error is a failure.
"""
import concurrent.futures
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOST = ROOT / "tests" / "host"
KSHIM = HOST / "kshim"
KERNEL = ROOT / "kernel"
ARCH = KERNEL / "arch" / "x86_64"
GLUE = KERNEL / "glue" / "x2-x86_64"
PLATFORM = KERNEL / "platform" / "pc"
SIGMA0 = ROOT / "user" / "sigma0"

CC = "gcc"
BASE = ["-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror"]
KERNEL_WARN = ["-Wno-unused-parameter", "-fno-builtin"]
MAPDB_INC = ["-include", str(KSHIM / "host_prelude.h"), f"-I{HOST}", f"-I{KSHIM}", f"-I{KERNEL}",
             f"-I{ARCH}", f"-I{ARCH / 'api'}", f"-I{GLUE / 'api'}", f"-I{PLATFORM / 'api'}",
             f"-I{ROOT / 'include'}"]
MAPDB_UNITS = [KERNEL / "mapdb.c", ARCH / "pagetable.c", KERNEL / "slab.c", KERNEL / "kmem.c"]
MAPDB_HARNESS = [KSHIM / "kstubs.c", KSHIM / "mapdb_harness.c"]

# (test program, kernel sources, extra flags, include flags)
PROGRAMS = {
    "kmem_test": ([KERNEL / "kmem.c"], ["-DKMEM_HOST_TEST"], [f"-I{HOST}", f"-I{KERNEL}"]),
    "bootmem_test": ([KERNEL / "bootmem.c"], ["-DBOOTMEM_HOST_TEST"], [f"-I{HOST}", f"-I{KERNEL}"]),
    "elf_test": ([KERNEL / "elf.c"], [], [f"-I{HOST}", f"-I{KERNEL}", f"-I{ROOT / 'include'}"]),
    "regions_test": ([SIGMA0 / "regions.c"], [], [f"-I{HOST}", f"-I{SIGMA0}"]),
    "mapdb_test": (MAPDB_UNITS, [], MAPDB_INC),
    "mapdb_random_test": (MAPDB_UNITS, [], MAPDB_INC),
    "iospace_test": (MAPDB_UNITS + [GLUE / "iospace.c"], [], MAPDB_INC),
}

CASES = {
    "kmem_test": ["test_init_sizes", "test_all_orders", "test_split_coalesce", "test_exhaustion",
                  "test_random"],
    "bootmem_test": ["test_range_overlaps", "test_top_of_region", "test_alignment", "test_busy",
                     "test_page_zero", "test_page_zero_subpage_align", "test_random",
                     "test_plan_issue_case", "test_plan_no_room", "test_plan_modules_stay",
                     "test_plan_pool_spares_the_largest", "test_plan_modules_first",
                     "test_plan_sigma0_areas", "test_plan_bootdata_moves_nothing",
                     "test_plan_requests", "test_plan_random"],
    "elf_test": ["test_valid", "test_short", "test_ident", "test_phdr_table", "test_segments",
                 "test_too_many", "test_strerror"],
    "regions_test": ["test_init", "test_descriptor_order", "test_available_claim", "test_release",
                     "test_find_free", "test_merge", "test_capacity", "test_claim_capacity_atomic", "test_random"],
    "mapdb_test": ["sigma0_roots", "map_from_sigma0", "rights_intersection", "chain_sizes",
                   "unmap_levels", "unmap_range", "grant", "remap_same_page",
                   "remap_same_page_other_source", "map_over_other_page", "map_over_size_structure",
                   "partial_unmap_2m", "partial_unmap_2m_two_children", "partial_unmap_2m_chain",
                   "status_bits", "grant_keeps_status", "kip_utcb_areas",
                   "foreign_utcb_area_is_the_programs", "no_cycles", "self_map",
                   "flush_all", "cache_attributes", "oom_map", "oom_unmap_split", "oom_grant_split",
                   "grant_2m_over_4k", "grant_2m_over_4k_then_split"],
    "iospace_test": ["kernel_ports_kept", "map_is_idempotent", "ping_pong_stays_bounded", "smaller_nodes_merge",
                     "other_source_replaces", "larger_holding_is_replaced_whole",
                     "grant_moves_node", "grant_part_of_node", "no_cycles",
                     "unmap_own_and_derived", "out_of_memory", "random_ops", "many_nodes"],
    "mapdb_stack_test": ["split_one_level", "split_grant", "split_two_levels", "split_chain",
                         "split_long_chain", "long_chain_4k", "map_2m"],
}

# PECAN_MAPDB_SEEDS=N runs N seeds of each variant instead (a longer search for new bugs).
_SEEDS = int(os.environ.get("PECAN_MAPDB_SEEDS", "0"))
RANDOM_RUNS = ([("small", seed, 400) for seed in (1, 2)] + [("mixed", seed, 300) for seed in range(1, 7)]
               if not _SEEDS else
               [(v, seed, 400) for v in ("small", "mixed") for seed in range(1, _SEEDS + 1)])


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


class Builder:
    """Compiles each object once per session, in a private directory."""

    def __init__(self, outdir):
        self.out = outdir
        self.objects = {}
        self.programs = {}
        self.errors = {}            # a failed build fails every test that needs it
        self.lock = threading.Lock()
        self.sanitize = self._pick_sanitizers()

    def build_all(self):
        """Build every program, in parallel; failures are recorded per program."""
        names = sorted(CASES) + ["mapdb_random_test"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            list(pool.map(self._try_build, names))

    def _try_build(self, name):
        try:
            exe = self._build(name)
            with self.lock:
                self.programs[name] = exe
        except pytest.fail.Exception as e:
            with self.lock:
                self.errors[name] = str(e)

    def _pick_sanitizers(self):
        probe = self.out / "probe.c"
        probe.write_text("int main(void) { return 0; }\n")
        for flags in (["-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
                      ["-fsanitize=undefined", "-fno-sanitize-recover=all"], []):
            proc = run([CC, *flags, probe, "-o", self.out / "probe"])
            if proc.returncode == 0:
                return flags
        pytest.fail(f"the host compiler cannot build a trivial program:\n{proc.stderr}")

    def obj(self, src, flags, tag):
        key = (str(src), tuple(flags), tag)
        with self.lock:
            event = self.objects.get(key)
            owner = event is None
            if owner:
                event = self.objects[key] = [threading.Event(), None, None]
        if owner:
            digest = hashlib.sha1(" ".join(flags).encode()).hexdigest()[:8]
            out = self.out / f"{tag}-{src.parent.name}-{src.stem}-{digest}.o"
            cmd = [CC, *flags, "-c", src, "-o", out]
            proc = run(cmd)
            if proc.returncode != 0:
                event[2] = f"compiling {src.relative_to(ROOT)} failed:\n{' '.join(map(str, cmd))}\n{proc.stderr}"
            else:
                event[1] = out
            event[0].set()
        event[0].wait()
        if event[2]:
            pytest.fail(event[2])
        return event[1]

    def link(self, name, objs, flags):
        exe = self.out / name
        cmd = [CC, *flags, *objs, "-o", exe]
        proc = run(cmd)
        if proc.returncode != 0:
            pytest.fail(f"linking {name} failed:\n{' '.join(map(str, cmd))}\n{proc.stderr}")
        return exe

    def program(self, name):
        if name in self.errors:
            pytest.fail(self.errors[name], pytrace=False)
        return self.programs[name]

    def _build(self, name):
        if name == "mapdb_stack_test":
            exe = self._stack_program()
        else:
            units, extra, inc = PROGRAMS[name]
            common = [*BASE, "-O2", "-fno-omit-frame-pointer", *self.sanitize, *extra, *inc]
            tag = name if extra else ("mapdb" if inc is MAPDB_INC else "plain")
            # The random test's model and the harness's page-table walks run thousands of times
            # per operation: without AddressSanitizer they are several times faster.  The
            # kernel units under test always get the full set of sanitizers.
            light = [f for f in common if not f.startswith("-fsanitize=address")]
            if "-fsanitize=address,undefined" in common:
                light.insert(light.index("-fno-sanitize-recover=all"), "-fsanitize=undefined")
            harness_flags = light if inc is MAPDB_INC else common
            test_flags = light if name == "mapdb_random_test" else common
            jobs = [(HOST / f"{name}.c", test_flags, name)]
            jobs += [(u, [*common, *KERNEL_WARN], tag) for u in units]
            if inc is MAPDB_INC:
                jobs += [(h, harness_flags, "mapdb-harness") for h in MAPDB_HARNESS]
            objs = self.compile_all(jobs)
            exe = self.link(name, objs, self.sanitize)
        return exe

    def _stack_program(self):
        # Kernel code generation (Makefile FREESTANDING/KERNEL_CFLAGS minus what a host
        # executable cannot use); no sanitizers, which would change the frame sizes.
        kflags = [*BASE, "-O2", *KERNEL_WARN, "-fno-stack-protector", "-mno-red-zone",
                  "-mgeneral-regs-only", "-fno-strict-aliasing", *MAPDB_INC]
        hflags = [*BASE, "-O2", *MAPDB_INC, f"-DKSTACK_BUDGET={kernel_stack_budget()}"]
        jobs = [(HOST / "mapdb_stack_test.c", hflags, "stack")]
        jobs += [(u, kflags, "stack") for u in MAPDB_UNITS]
        jobs += [(h, [*BASE, "-O2", *MAPDB_INC], "stack") for h in MAPDB_HARNESS]
        return self.link("mapdb_stack_test", self.compile_all(jobs), [])

    def compile_all(self, jobs):
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = [pool.submit(self.obj, *job) for job in jobs]
            return [f.result() for f in futures]


def define(path, name):
    m = re.search(rf"^#define\s+{name}\s+\(?\s*(\w+)", path.read_text(), re.M)
    assert m, f"{name} not found in {path.relative_to(ROOT)}"
    return int(m.group(1), 0)


def kernel_stack_budget():
    """Bytes of a thread's kernel stack left for the mapping database: the TCB slot above
    TCB_STACK_BOTTOM, minus the user register frame and 1 KiB for the system-call path."""
    tcb_size = 1 << define(ARCH / "api" / "layout.h", "TCB_BITS")
    bottom = define(KERNEL / "tcb.h", "TCB_STACK_BOTTOM")
    frame = define(ARCH / "frame.h", "FRAME_WORDS") * 8
    return tcb_size - bottom - frame - 1024


@pytest.fixture(scope="session")
def builder(tmp_path_factory):
    b = Builder(tmp_path_factory.mktemp("kernel-units"))
    b.build_all()
    return b


def check_output(proc, what):
    lines = proc.stdout.splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    passed = [line for line in lines if line.startswith("ok")]
    context = "\n".join(line for line in lines if line.startswith("     "))[:6000]
    stderr = proc.stderr[-6000:]
    assert not failed, (f"{what}: {len(failed)} check(s) failed:\n" + "\n".join(failed[:60]) +
                        (f"\n{context}" if context else "") + (f"\n{stderr}" if stderr else ""))
    assert proc.returncode == 0, f"{what} exited with {proc.returncode}\n{proc.stdout[-4000:]}\n{stderr}"
    assert passed, f"{what} ran no checks:\n{proc.stdout}"


def run_case(builder, program, case):
    exe = builder.program(program)
    proc = run([exe, case], timeout=120)
    check_output(proc, f"{program} {case}")


@pytest.mark.parametrize("program", sorted(CASES))
def test_case_lists_complete(builder, program):
    """The cases below are exactly those the C program defines."""
    proc = run([builder.program(program), "--list"], timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == CASES[program]


@pytest.mark.parametrize("case", CASES["kmem_test"])
def test_kmem(builder, case):
    run_case(builder, "kmem_test", case)


@pytest.mark.parametrize("case", CASES["bootmem_test"])
def test_bootmem(builder, case):
    run_case(builder, "bootmem_test", case)


@pytest.mark.parametrize("case", CASES["elf_test"])
def test_elf(builder, case):
    run_case(builder, "elf_test", case)


@pytest.mark.parametrize("case", CASES["regions_test"])
def test_sigma0_regions(builder, case):
    run_case(builder, "regions_test", case)


@pytest.mark.parametrize("case", CASES["mapdb_test"])
def test_mapdb(builder, case):
    run_case(builder, "mapdb_test", case)


@pytest.mark.parametrize("case", CASES["iospace_test"])
def test_iospace(builder, case):
    run_case(builder, "iospace_test", case)


@pytest.mark.parametrize("variant,seed,ops", RANDOM_RUNS)
def test_mapdb_random(builder, variant, seed, ops):
    proc = run([builder.program("mapdb_random_test"), variant, seed, ops], timeout=120)
    check_output(proc, f"mapdb_random_test {variant} seed {seed}")


@pytest.mark.parametrize("case", CASES["mapdb_stack_test"])
def test_mapdb_stack(builder, case):
    run_case(builder, "mapdb_stack_test", case)


# --- ELF files from the host toolchain ----------------------------------------------------

PROGRAM_S = """\
    .text
    .globl _start
_start:
    lea value(%rip), %rax
    mov $60, %eax
    xor %edi, %edi
    syscall
    .data
value:
    .quad 42
    .bss
buffer:
    .zero 20000
"""

AT_LDS = """\
ENTRY(_start)
SECTIONS {
    . = 0x10000000;
    .text : AT(0x2000000) { *(.text) }
    . = ALIGN(0x1000);
    .data : AT(0x2001000) { *(.data) }
    .bss : { *(.bss) }
}
"""

ELF32_S = """\
    .text
    .globl _start
_start:
    mov $1, %eax
    int $0x80
"""


def toolchain(tmp, *cmd):
    proc = run(list(cmd), cwd=tmp)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stderr}"


def readelf_view(path):
    """Entry point and PT_LOAD segments (memsz > 0) as readelf -hlW shows them."""
    out = run(["readelf", "-hlW", path]).stdout
    entry = int(re.search(r"Entry point address:\s+(0x[0-9a-f]+)", out).group(1), 16)
    segs = []
    for m in re.finditer(r"^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+"
                         r"(0x[0-9a-f]+)\s+([RWE ]+?)\s+0x[0-9a-f]+\s*$", out, re.M):
        off, vaddr, paddr, filesz, memsz = (int(g, 16) for g in m.groups()[:5])
        flags = sum(v for k, v in (("R", 4), ("W", 2), ("E", 1)) if k in m.group(6))
        if memsz:
            segs.append((off, vaddr, paddr, filesz, memsz, flags))
    return entry, segs


def parse_with_kernel(builder, path):
    proc = run([builder.program("elf_test"), "--file", path], timeout=30)
    assert proc.returncode == 0 and not proc.stderr, f"elf_test --file {path}:\n{proc.stdout}\n{proc.stderr}"
    result = int(re.search(r"^result (-?\d+)", proc.stdout, re.M).group(1))
    entry = re.search(r"^entry (0x[0-9a-f]+|0)$", proc.stdout, re.M)
    segs = [tuple(int(v, 16) if v.startswith("0x") else int(v) for v in m.groups())
            for m in re.finditer(r"^seg offset=(\S+) vaddr=(\S+) paddr=(\S+) filesz=(\S+) memsz=(\S+) "
                                 r"flags=(\d+)$", proc.stdout, re.M)]
    bounds = re.search(r"^bounds vlow=(\S+) vhigh=(\S+) plow=(\S+) phigh=(\S+)$", proc.stdout, re.M)
    return result, (int(entry.group(1), 16) if entry else None), segs, \
        (tuple(int(b, 16) for b in bounds.groups()) if bounds else None)


def expect_same_as_readelf(builder, path):
    result, entry, segs, bounds = parse_with_kernel(builder, path)
    r_entry, r_segs = readelf_view(path)
    assert result == 0, f"elf_parse rejected {path.name} (error {result})"
    assert entry == r_entry
    assert segs == r_segs, f"elf_parse: {segs}\nreadelf:   {r_segs}"
    assert bounds == (min(s[1] for s in segs), max(s[1] + s[4] for s in segs),
                      min(s[2] for s in segs), max(s[2] + s[4] for s in segs))
    return segs


@pytest.fixture(scope="session")
def elf_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("elf")
    for tool in ("as", "ld", "readelf"):
        assert shutil.which(tool), f"{tool} (binutils) is needed to build the ELF samples"
    (tmp / "prog.s").write_text(PROGRAM_S)
    (tmp / "at.lds").write_text(AT_LDS)
    (tmp / "prog32.s").write_text(ELF32_S)
    toolchain(tmp, "as", "--64", "-o", "prog.o", "prog.s")
    toolchain(tmp, "ld", "-static", "-z", "max-page-size=0x1000", "-Ttext=0xF00000", "-e", "_start",
              "-o", "prog.elf", "prog.o")
    toolchain(tmp, "ld", "-static", "-z", "max-page-size=0x1000", "-T", "at.lds", "-o", "at.elf", "prog.o")
    toolchain(tmp, "ld", "-pie", "-e", "_start", "-o", "pie.elf", "prog.o")
    toolchain(tmp, "as", "--32", "-o", "prog32.o", "prog32.s")
    toolchain(tmp, "ld", "-m", "elf_i386", "-e", "_start", "-o", "prog32.elf", "prog32.o")
    data = (tmp / "prog.elf").read_bytes()
    (tmp / "head.elf").write_bytes(data[:100])
    (tmp / "cut.elf").write_bytes(data[:0x1000 + 4])     # headers fine, text segment cut short
    (tmp / "text.txt").write_text("not an ELF file at all\n" * 10)
    return tmp


def test_elf_static_program(builder, elf_files):
    segs = expect_same_as_readelf(builder, elf_files / "prog.elf")
    assert any(s[5] & 1 for s in segs), "an executable text segment"
    assert any(s[4] > s[3] for s in segs), "a segment with bss (memsz > filesz)"
    assert all(s[1] == s[2] for s in segs), "linked with vaddr = paddr"


def test_elf_physical_addresses(builder, elf_files):
    segs = expect_same_as_readelf(builder, elf_files / "at.elf")
    assert any(s[1] != s[2] for s in segs), "AT() gives physical addresses different from virtual ones"


@pytest.mark.parametrize("name,error", [
    ("prog.o", 3),          # ET_REL
    ("pie.elf", 3),         # ET_DYN
    ("prog32.elf", 3),      # ELFCLASS32, EM_386
    ("head.elf", 1),        # program headers cut off
    ("cut.elf", 5),         # segment data beyond the end of the file
    ("text.txt", 2),        # bad magic
])
def test_elf_rejects(builder, elf_files, name, error):
    result, *_ = parse_with_kernel(builder, elf_files / name)
    assert result == error, f"{name}: elf_parse returned {result}, expected {error}"


def test_elf_built_servers(builder):
    """sigma0 and the root task as built by the tree, if present, parse like readelf sees them."""
    built = [p for p in (ROOT / "build" / "user" / "sigma0.elf", ROOT / "build" / "user" / "root.elf")
             if p.exists()]
    for path in built:
        expect_same_as_readelf(builder, path)
