"""lx's executables and memory model (issue 8 items 1 and 2; docs/linux/exec.md and
docs/linux/memory.md).  lx boots with an initramfs built here (tools/linuxref/newc.py) that
holds the freestanding self-test as /bin/lxselftest, the same program built as a static-PIE,
copies of it with a patched program header (an executable stack, an ELF of type ET_REL),
#! scripts, and the static-PIE C programs (glibc and musl, where the host builds them).

* `exec` mode: load address, auxiliary vector, bss, a non-executable stack; #! scripts
  (argument parsing, nesting, 5 deep runs and 6 is ELOOP, ENOENT/ENOEXEC/EACCES);
  execve of /proc/self/exe and /proc/PID/exe (also after the program was renamed); the
  errors of execve.  The lines the scripts print are Linux's, recorded from Debian's 6.1
  kernel running the same program in a chroot (the `showargs` lines below).
* `mm` mode: file mmap (MAP_PRIVATE copies, MAP_SHARED is the file, past the end is
  SIGBUS), /dev/zero, MAP_FIXED_NOREPLACE, MAP_NORESERVE, mremap, madvise, msync, PROT_NONE
  guard pages and the errors of each (the same checks pass on Linux).
* `oom` mode in a small lx (heap=16): ENOMEM for mmap and brk beyond memory, a child that
  touches more than there is dies of SIGKILL, lx goes on.
Every run ends with every page of lx's pool free."""
import re
import struct
from pathlib import Path

import pytest

from harness import BUILD, kernel_trouble
from lx_initramfs import archive, boot_archive, newc, program_entries
from test_lx import check_ended

SELFTEST = BUILD / "linux" / "lxselftest.elf"
SELFTEST_PIE = BUILD / "linux" / "lxselftest-pie.elf"
PIES = {v: BUILD / "linux" / f"pie-{v}.elf" for v in ("glibc", "musl")}
DYN = BUILD / "linux" / "dyn-glibc.elf"
ET_DYN_BASE = 0x555555554000        # x86-64's ELF_ET_DYN_BASE, page-aligned
OOM_HEAP_MIB = 16

# Printed by the scripts and /proc/self/exe runs of `lxselftest exec` on Linux 6.1.
LONG_ARG = "showargs-long " + "x" * 223
LINUX_SHOWARGS = [
    "showargs: [/bin/lxselftest] [showargs] [/tmp/s1] [a] [b c] execfn=[/tmp/s1]",
    "showargs: [/bin/lxselftest] [showargs  two words] [/tmp/s2] [a] [b c] execfn=[/tmp/s2]",
    "showargs: [/bin/lxselftest] [/tmp/s3] [showargs-noarg] execfn=[/tmp/s3]",
    "showargs: [/bin/lxselftest] [showargs-initramfs] [script.sh] [a] [b c] execfn=[script.sh]",
    "showargs: [/bin/lxselftest] [showargs] [/tmp/s1] [inner] [/tmp/s4] [a] [b c] "
    "execfn=[/tmp/s4]",
    f"showargs: [/bin/lxselftest] [{LONG_ARG}] [/tmp/s5] [a] [b c] execfn=[/tmp/s5]",
    "showargs: [/bin/lxselftest] [showargs-deep] [/tmp/d5] [/tmp/d4] [/tmp/d3] [/tmp/d2] "
    "[/tmp/d1] [a] [b c] execfn=[/tmp/d1]",
    "showargs: [copy] [showargs-copy] execfn=[/tmp/copy]",
    "showargs: [me] [showargs-self] execfn=[/proc/self/exe]",
    "showargs: [me] [showargs-moved] execfn=[/proc/self/exe]",
]


INTERP = b"/lib64/ld-linux-x86-64.so.2\0"


def patched(data, e_type=None, stack_flags=None, interp=False):
    """A copy of an ELF with its type or its PT_GNU_STACK flags changed, or with its
    PT_GNU_STACK turned into a PT_INTERP naming glibc's dynamic linker."""
    b = bytearray(data)
    if interp:
        stack_flags = 4
        at = len(b)
        b += INTERP
    if e_type is not None:
        struct.pack_into("<H", b, 16, e_type)
    if stack_flags is not None:
        phoff, = struct.unpack_from("<Q", b, 32)
        phnum, = struct.unpack_from("<H", b, 56)
        for i in range(phnum):
            off = phoff + 56 * i
            if struct.unpack_from("<I", b, off)[0] == 0x6474E551:
                struct.pack_into("<I", b, off + 4, stack_flags)
                if interp:
                    struct.pack_into("<IIQQQQQQ", b, off, 3, 4, at, 0, 0, len(INTERP),
                                     len(INTERP), 1)
                break
        else:
            raise AssertionError("no PT_GNU_STACK")
    return bytes(b)


def build_initramfs():
    me = SELFTEST.read_bytes()
    return archive("lxexec.cpio", [
        newc.directory("bin"), newc.directory("etc"), newc.directory("dev"),
        newc.directory("tmp", 0o1777), newc.directory("proc", 0o555),
        newc.regular("bin/lxselftest", me, 0o755),
        newc.regular("bin/lxselftest-pie", SELFTEST_PIE.read_bytes(), 0o755),
        newc.regular("bin/xstack", patched(me, stack_flags=7), 0o755),
        newc.regular("bin/etrel", patched(me, e_type=1), 0o755),
        newc.regular("bin/dyn", patched(me, interp=True), 0o755),
        newc.regular("bin/script.sh", b"#!/bin/lxselftest showargs-initramfs\n", 0o755),
        newc.symlink("bin/linked.sh", "script.sh"),
        newc.regular("etc/noexec.sh", b"#!/bin/lxselftest showargs\n", 0o644),
        newc.regular("etc/hello.txt", b"hello file\n"),
        newc.chardev("dev/null", 1, 3, 0o666), newc.chardev("dev/zero", 1, 5, 0o666),
        *program_entries(PIES, "bin/pie-{variant}")])


def host_file(path):
    """A file of the host's Debian (its libc6), symlinks resolved; None if missing."""
    p = Path(path)
    return p.resolve().read_bytes() if p.exists() else None


def build_dyn_initramfs():
    """The dynamic glibc program with the host's dynamic linker and libc.so.6."""
    ld, libc = host_file("/lib64/ld-linux-x86-64.so.2"), \
        host_file("/lib/x86_64-linux-gnu/libc.so.6")
    if not DYN.is_file() or ld is None or libc is None:
        return None
    return archive("lxdyn.cpio", [
        newc.directory("bin"), newc.directory("tmp", 0o1777), newc.directory("lib64"),
        newc.directory("lib"), newc.directory("lib/x86_64-linux-gnu"),
        newc.regular("lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", ld, 0o755),
        newc.symlink("lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
        newc.regular("lib/x86_64-linux-gnu/libc.so.6", libc, 0o755),
        newc.regular("bin/dyn-glibc", DYN.read_bytes(), 0o755)])


def boot_exec(programs, heap=32, cpio=None):
    return boot_archive(cpio or build_initramfs(), programs, heap=heap)


def run(mode):
    """The output of one boot: the self-test's mode as pid 1 (its children come after)."""
    result = boot_exec(MODES[mode])
    check_ended(result)
    return result.output


MODES = {
    "exec": "init=/bin/lxselftest exec",
    "mm": "init=/bin/lxselftest mm",
    "pie": "init=/bin/lxselftest-pie exec",
    "misc": "init=/bin/xstack stackexec -- /bin/lxselftest stackexec -- /bin/etrel -- /bin/dyn "
            "-- /bin/linked.sh x -- /bin/pie-glibc -- /bin/pie-musl",
}


def test_loader_auxv_bss_stack():
    out = run("exec")
    assert "FAIL" not in out and "selftest: all passed" in out, out
    for line in ("ok: bss zero, from the end of the file's bytes on",
                 "exec: loaded at 400000", "ok: AT_PHDR: the program headers where they are loaded",
                 "ok: AT_BASE 0, AT_FLAGS 0", "ok: AT_PLATFORM x86_64", "ok: AT_MINSIGSTKSZ",
                 "ok: AT_HWCAP2 present", "exec: no AT_SYSINFO_EHDR",
                 "ok: code on the stack: SIGSEGV (not executable)",
                 "ok: code in a PROT_EXEC mapping runs",
                 "lx: pid 1 exited with status 0"):
        assert line in out, f"no `{line}`\n{out}"


def test_scripts_as_linux_runs_them():
    out = run("exec")
    got = [l for l in out.splitlines() if l.startswith("showargs:")]
    want = list(LINUX_SHOWARGS)
    # /proc/PID/exe names the parent, pid 1 here.
    want.insert(9, "showargs: [me] [showargs-parent] execfn=[/proc/1/exe]")
    assert got == want, "\n".join(got)
    for line in ("ok: script: five deep runs", "ok: script: six deep: ELOOP",
                 "ok: script: itself: ELOOP", "ok: script: no interpreter: ENOENT",
                 "ok: script: #! alone: ENOEXEC", "ok: script: a directory as interpreter: EACCES",
                 "ok: script without x: EACCES", "ok: no #! and no ELF: ENOEXEC (the shell's job)",
                 "ok: script: an interpreter name longer than 256 bytes: ENOEXEC"):
        assert line in out, f"no `{line}`\n{out}"


def test_proc_self_exe_and_execve_errors():
    out = run("exec")
    for line in ("ok: execve(/proc/self/exe)", "ok: execve(/proc/PID/exe) of the parent",
                 "ok: execve(/proc/999999/exe): ENOENT",
                 "ok: execve(/proc/self/exe) after a rename",
                 "ok: execve of a directory: EACCES", "ok: execve(\"\"): ENOENT",
                 "ok: execve with a bad argv string: EFAULT",
                 "ok: execve with a 140 KiB argument: E2BIG",
                 "ok: execve of a 5000-byte path: ENAMETOOLONG",
                 "ok: after the failed execve calls: still the old image"):
        assert line in out, f"no `{line}`\n{out}"


def test_memory_calls():
    out = run("mm")
    assert "FAIL" not in out and "selftest: all passed" in out, out
    for line in ("ok: MAP_PRIVATE: a store stays private (the file unchanged)",
                 "ok: MADV_DONTNEED: the file's bytes again",
                 "ok: a page past the end of the file: SIGBUS",
                 "ok: MAP_SHARED: a store reaches read()",
                 "ok: MAP_SHARED: write() reaches the mapping",
                 "ok: MAP_SHARED across fork: the child's store",
                 "ok: mremap'd: stores still reach the file",
                 "ok: unlinked and closed: the mapping goes on",
                 "ok: mprotect(PROT_WRITE) of a shared mapping of an O_RDONLY fd: EACCES",
                 "ok: MAP_SHARED_VALIDATE with MAP_SYNC: EOPNOTSUPP", "ok: a directory: ENODEV",
                 "ok: MAP_PRIVATE of /dev/zero: zero memory",
                 "ok: MAP_FIXED_NOREPLACE over a mapping: EEXIST",
                 "ok: a store to the guard page: SIGSEGV",
                 "ok: MADV_DONTNEED: private anonymous pages read zero",
                 "ok: MADV_DONTNEED of shared anonymous memory: its contents stay",
                 "ok: MAP_NORESERVE of 1 TiB", "ok: mremap grows in place",
                 "ok: mremap MREMAP_MAYMOVE moves, the contents along",
                 "ok: mremap MREMAP_FIXED: moved to the given address",
                 "ok: mremap of nothing: EFAULT",
                 "ok: mremap'd MAP_SHARED memory stays shared",
                 "lx: pid 1 exited with status 0"):
        assert line in out, f"no `{line}`\n{out}"
    # The children the test lets die, each as Linux reports it.
    assert re.search(r"lx: pid \d+: bus error \(past the end of the file\) at [0-9a-f]+ "
                     r"\(ip [0-9a-f]+\): killed by SIGBUS", out), out


def test_static_pie():
    """The self-test built as a static-PIE: loaded at ELF_ET_DYN_BASE, every check of the
    exec mode (its auxiliary vector, scripts, /proc/self/exe) holds there too."""
    out = run("pie")
    assert f"exec: loaded at {ET_DYN_BASE:x}" in out, out
    assert "selftest: all passed" in out and "FAIL" not in out, out
    assert "lx: pid 1 exited with status 0" in out, out


def test_gnu_stack_and_elf_types():
    out = run("misc")
    assert "stackexec: code on the stack ran" in out and \
        "lx: pid 1 exited with status 0" in out, out[-3000:]
    assert re.search(r"^lx: pid 2: access violation at [0-9a-f]+ .*killed by SIGSEGV", out, re.M), \
        out[-3000:]
    assert "lx: elf: not an executable (type 1)" in out and \
        "lx: cannot run /bin/etrel (error 8)" in out, out[-3000:]
    # A dynamically linked program whose interpreter is not there: ENOENT, as Linux says.
    assert "lx: elf: no interpreter /lib64/ld-linux-x86-64.so.2 (error 2)" in out and \
        "lx: cannot run /bin/dyn (error 2)" in out, out[-3000:]


def test_script_as_first_program():
    out = run("misc")
    assert "showargs: [/bin/lxselftest] [showargs-initramfs] [/bin/linked.sh] [x] " \
        "execfn=[/bin/linked.sh]" in out, out[-3000:]


@pytest.mark.parametrize("variant", sorted(PIES))
def test_static_pie_c_library(variant):
    if not PIES[variant].is_file():
        pytest.skip(f"{PIES[variant]} not built (no {variant} static-PIE toolchain)")
    out = run("misc")
    start = out.index(f"pie: argc 1, argv[0] /bin/pie-{variant}")
    m = re.compile(r"^lx: pid \d+ exited with status (\d+)", re.M).search(out, start)
    assert m, out[start:]
    part = out[start:m.end()]
    assert m.group(1) == "0" and "pie: all passed" in part, part
    assert f"pie: loaded at 0x{ET_DYN_BASE:x}" in part, part


def test_out_of_memory():
    result = boot_exec("init=/bin/lxselftest oom", heap=OOM_HEAP_MIB)
    problems = kernel_trouble(result)
    assert not problems and result.status == 1 and not result.timed_out, result.describe()
    out = result.output
    assert "FAIL" not in out and "selftest: all passed" in out, out[-3000:]
    for line in ("ok: mmap of 1 TiB (more than memory): ENOMEM",
                 "ok: brk by 1 TiB: the break stays",
                 "ok: a child that touches more than there is: SIGKILL",
                 "ok: and again: the memory came back",
                 "ok: the parent goes on: 64 fresh pages"):
        assert line in out, f"no `{line}`\n{out[-3000:]}"
    assert re.search(r"^lx: pid \d+: out of memory at [0-9a-f]+ .*killed by SIGKILL", out, re.M)
    m = re.search(r"^lx: no processes left, (\d+) pages free", out, re.M)
    assert m and int(m.group(1)) == OOM_HEAP_MIB << 8, out[-2000:]


def test_dynamically_linked_glibc():
    """A glibc PIE with PT_INTERP: lx loads it at ELF_ET_DYN_BASE and Debian's ld.so into
    the mmap area; ld.so maps libc.so.6 with file mmap, relocates, mprotects RELRO."""
    cpio = build_dyn_initramfs()
    if cpio is None:
        pytest.skip("no dynamic glibc program or no host ld.so/libc.so.6")
    result = boot_exec("init=/bin/dyn-glibc", cpio=cpio)
    check_ended(result)
    out = result.output
    assert "pie: all passed" in out and "pie: ok: AT_BASE: the dynamic linker" in out, \
        out[-3000:]
    assert f"pie: loaded at 0x{ET_DYN_BASE:x}" in out, out[-3000:]
    assert "lx: pid 1 exited with status 0" in out, out[-3000:]
