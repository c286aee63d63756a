"""lx, the Linux server (user/linux/, docs/linux-server.md): booted as a boot module by the
real root task, it runs static Linux executables handed to it as data modules, one after
another as pids 1, 2, ...: the freestanding self-test (user/linux/selftest/selftest.c: the
initial stack and auxiliary vector, brk, mmap, arch_prctl, write/writev, ENOSYS) in its
modes, a program that passes bad pointers (-EFAULT, lx unharmed), programs that die of a
NULL store, a store to their text and an invalid opcode (lx reports them and goes on), a
data module that is no ELF file and one that does not exist; and, where the host has a
static glibc, an unmodified glibc program.  In a run of its own, the self-test's fork mode:
fork with copy-on-write, vfork, clone, wait4 parked and with WNOHANG, a child killed by
SIGSEGV, execve, process groups and sessions, and 200 fork/exit/wait.  lx ends the run (poweroff=1) after the last
one, with the report of unimplemented system calls and its free pages, which must be all
of them again."""
import re

import pytest

from harness import BUILD, boot, kernel_trouble

LX = "build/user/lx.elf"
SELFTEST = "build/linux/lxselftest.elf"
GLIBC = BUILD / "linux" / "glibc_hello.elf"
HEAP_MIB = 32
LX_ARGS = f"heap={HEAP_MIB} heapx=1 poweroff=1"
PROGRAMS = ("-- lxselftest.elf one two -- lxselftest.elf efault -- lxselftest.elf segv "
            "-- greeting.txt -- nosuchmodule -- lxselftest.elf textwrite -- lxselftest.elf ud2")


def boot_lx(programs, data):
    return boot("root", cmdline="kdb=batch",
                extra_modules=[(LX, f"{LX_ARGS} {programs}")] + [(d, "data") for d in data])


def boot_selftest():
    return boot_lx(PROGRAMS, [SELFTEST, "tests/data/greeting.txt"])


def check_ended(result):
    """lx powered off after its last process, with every page of its pool free again."""
    problems = kernel_trouble(result)
    if result.timed_out or result.status != 1:
        problems.append(f"QEMU status {result.status}, timed out {result.timed_out}")
    m = re.search(r"^lx: no processes left, (\d+) pages free", result.output, re.M)
    if not m:
        problems.append("no end-of-run line from lx")
    elif int(m.group(1)) != HEAP_MIB << 8:
        problems.append(f"{m.group(1)} pages free at the end, expected {HEAP_MIB << 8}")
    assert not problems, "; ".join(problems) + "\n" + result.describe()


def section(result, pid):
    """The output of process `pid`: from the end of the previous process to its own end."""
    out = result.output
    start = out.index("lx: Linux server")
    prev = re.search(rf"^lx: pid {pid - 1} (exited|killed).*$", out, re.M) if pid > 1 else None
    if prev:
        start = prev.end()
    end = re.search(rf"^lx: pid {pid} (exited|killed).*$", out, re.M)
    assert end, f"pid {pid} did not end\n" + result.describe()
    return out[start:end.end()]


def test_run_ends_with_all_memory_free():
    check_ended(boot_selftest())


def test_hello_argv_auxv_brk_mmap_fs():
    out = section(boot_selftest(), 1)
    for line in ("hello from linux", "argc 3", "argv[0] lxselftest.elf", "argv[1] one",
                 "argv[2] two", "ok: rsp 16-byte aligned at _start", "ok: rdx 0 at _start",
                 "ok: AT_RANDOM", "ok: AT_EXECFN", "ok: brk grows",
                 "ok: mmap MAP_FIXED replaces a page", "ok: %fs:0 reads through the new base",
                 "writev works", "ok: unknown calls: ENOSYS", "selftest: all passed",
                 "lx: pid 1 exited with status 42"):
        assert line in out, f"no `{line}` in pid 1's output\n{out}"
    assert "FAIL" not in out, out


def test_bad_pointers_get_efault():
    out = section(boot_selftest(), 2)
    assert "ok: write from NULL page: EFAULT" in out, out
    assert "ok: uname into read-only text: EFAULT" in out, out
    # A write whose buffer runs into an unmapped page writes up to it, as Linux does.
    assert "\nab\nok: write across the end of a mapping" in out, out
    assert "selftest: all passed" in out and "FAIL" not in out, out
    assert "lx: pid 2 exited with status 0" in out, out


def test_faulting_processes_are_killed_and_lx_goes_on():
    result = boot_selftest()
    out = result.output
    for pattern in (r"lx: pid 3: segmentation fault at 0 \(ip [0-9a-f]+\): killed by SIGSEGV",
                    r"lx: pid 3 killed by signal 11",
                    r"lx: elf: not an x86-64 ELF64 file",
                    r"lx: no data module nosuchmodule",
                    r"lx: pid 4: access violation at 401000 .*killed by SIGSEGV",
                    r"lx: pid 5: invalid opcode .*killed by SIGILL",
                    r"lx: pid 5 killed by signal 4"):
        assert re.search("^" + pattern, out, re.M), f"no line matching {pattern!r}\n" + \
            result.describe()


def test_unimplemented_calls_are_counted():
    out = boot_selftest().output
    assert re.search(r"^lx: pid 1: system call 335 \(unassigned\) not implemented", out, re.M)
    assert re.search(r"^lx: ENOSYS unassigned \(335\): 1$", out, re.M), out[-2000:]
    assert re.search(r"^lx: ENOSYS numbers >= 464: 1$", out, re.M), out[-2000:]


def test_glibc_static_program():
    if not GLIBC.is_file():
        pytest.skip("no static glibc on this host: build/linux/glibc_hello.elf not built")
    result = boot_lx("-- glibc_hello.elf A", [GLIBC.relative_to(BUILD.parent)])
    check_ended(result)
    out = section(result, 1)
    for line in ("hello from glibc, argc 2, argv[1] A", "malloc works, x", "tls 6",
                 "write(bad pointer): -1 errno 14 (Bad address)", "pid 1",
                 "lx: pid 1 exited with status 7"):
        assert line in out, f"no `{line}` in the glibc program's output\n{out}"


# Processes (docs/linux-server.md, "Processes"): the self-test's fork mode in a run of its
# own, with a loop of 200 fork/exit/wait and greeting.txt as the file that is no ELF.
FORK_LOOP = 200


def boot_fork():
    return boot_lx(f"-- lxselftest.elf fork {FORK_LOOP} greeting.txt",
                   [SELFTEST, "tests/data/greeting.txt"])


def fork_output():
    result = boot_fork()
    out = result.output
    assert "selftest: all passed" in out and "FAIL" not in out, result.describe()
    return out


def assert_lines(out, lines):
    for line in lines:
        assert line in out, f"no `{line}` in the fork mode's output\n{out}"


def test_fork_run_ends_with_all_memory_free():
    """Every page shared by fork, copied on write, left in zombies, orphans and replaced
    images is back in lx's pool at the end."""
    check_ended(boot_fork())


def test_fork_copy_on_write_registers_and_wait():
    assert_lines(fork_output(), (
        "ok: child: callee-saved registers as in the parent",
        "ok: child: the parent's FS base",
        "ok: child: getppid is the parent",
        "ok: child: the parent's data, stack and mmap memory",
        "ok: child: a system call writes its copy",
        "fork: child exited with status 0",
        "ok: copy-on-write: the parent still sees its values",
        "ok: parent: callee-saved registers kept"))


def test_wait4_parked_wnohang_and_errors():
    out = fork_output()
    assert_lines(out, (
        "ok: wait4 WNOHANG while the child runs: 0",
        "ok: wait4: status 3 << 8",
        "ok: MAP_SHARED memory is shared with the child",
        "ok: wait4 WNOHANG without children: ECHILD",
        "ok: wait4 for a pid that is no child: ECHILD",
        "ok: wait4 with bad options: EINVAL",
        "ok: wait4 to a bad status pointer: EFAULT",
        "ok: the child was reaped anyway",
        # lx answers vfork once the child is a zombie: WNOHANG reaps it at once.
        "vfork: WNOHANG after the child ended: reaped",
        "ok: vfork: the parent waits for the child: status 5 << 8",
        "ok: clone(CHILD_SETTID|CHILD_CLEARTID|SIGCHLD): the child sees its tid",
        "ok: clone(CLONE_THREAD) without CLONE_SIGHAND: EINVAL"))


def test_child_killed_by_signal_is_reported_to_its_parent():
    out = fork_output()
    assert re.search(r"^lx: pid \d+: segmentation fault at 0 .*killed by SIGSEGV", out, re.M)
    assert_lines(out, ("fork: child terminated by signal 11",
                       "ok: status: killed by SIGSEGV (11)"))


def test_execve():
    assert_lines(fork_output(), (
        "ok: execve of a missing file: ENOENT",
        "ok: execve of a bad path pointer: EFAULT",
        "ok: execve of a bad argv: EFAULT",
        "ok: execve of a non-ELF file: ENOEXEC",
        "execed: argv[1] 33", "ok: execed: the same pid after execve",
        "ok: execed: FS base 0", "ok: execed: a fresh data segment",
        "ok: fork, execve: the new image's status 33",
        "execed: argv[1] 34",
        "ok: vfork, execve: the parent goes on, the image ends with its status"))


def test_process_groups_and_sessions():
    assert_lines(fork_output(), (
        "ok: setpgid(0, 0): a group of its own",
        "ok: setsid as a group leader: EPERM",
        "ok: setpgid(child, child)",
        "ok: wait4(0): no child in my group: ECHILD",
        "ok: wait4(-pgid) WNOHANG: the child runs",
        "ok: wait4(-pgid) reaps it",
        "ok: child: setsid",
        "ok: child: setpgid as a session leader: EPERM",
        "ok: child in a session of its own: all its checks"))


def test_forty_children_at_once():
    # No process table: 40 children spin at once, as on Linux (there were 32 slots).
    out = fork_output()
    assert_lines(out, ("fork: children at once: 40",
                       "ok: fork: all the children at once (or EAGAIN)",
                       "ok: all of them reaped"))
    assert "fork: then" not in out


def test_fork_exit_wait_loop():
    out = fork_output()
    assert f"fork loop: {FORK_LOOP} of {FORK_LOOP}" in out, out[-3000:]
    # Every process ended exactly once (the loop's, the other tests', the orphans).
    ends = re.findall(r"^lx: pid (\d+) (?:exited|killed)", out, re.M)
    assert len(ends) == len(set(ends)), "a pid ended twice"
    # pid 1, the twelve children of its other checks (two left behind at its exit), the 40
    # at once, the loop's
    assert len(ends) == 1 + 12 + 40 + FORK_LOOP, f"{len(ends)} processes ended"
