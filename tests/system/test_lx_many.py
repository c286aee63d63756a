"""lx's processes are limited by memory, not by a table (issue 13 item 1): the self-test's
`many` mode forks 1,000 children that are all alive at once (each parked in a read of a pipe
whose only writer is the parent), sees every one with kill(pid, 0) while none has ended, then
closes the pipe (end of file for all of them) and reaps the 1,000, each with status 0.  lx
ends with every page of its pool free.  The same program gives the same lines on Linux.

The root task creates the tasks (its tables hold 1024, docs/root-task.md §7); the kernel's pool
(an eighth of the 1 GiB guest) and lx's heap are sized for a thousand small processes."""
import re

from harness import boot, kernel_trouble

LX = "build/user/lx.elf"
SELFTEST = "build/linux/lxselftest.elf"
HEAP_MIB = 256
CHILDREN = 1000


def run():
    # The release kernel: the debug kernel's checks at every kernel entry walk every thread.
    return boot("root", memory=1024, cmdline="kdb=batch", timeout=600, kernel=None,
                extra_modules=[(LX, f"heap={HEAP_MIB} heapx=1 poweroff=1 -- lxselftest.elf "
                                    f"many {CHILDREN}"), (SELFTEST, "data")])


def test_a_thousand_processes_at_once():
    result = run()
    out = result.output
    problems = kernel_trouble(result)
    if result.timed_out or result.status != 1:
        problems.append(f"QEMU status {result.status}, timed out {result.timed_out}")
    for line in (f"many: children forked: {CHILDREN}", f"many: alive at once: {CHILDREN}",
                 "ok: many: none has ended yet", f"many: reaped: {CHILDREN}",
                 f"many: with status 0: {CHILDREN}", "ok: many: all of them"):
        if not re.search("^" + re.escape(line) + "$", out, re.M):
            problems.append(f"missing: {line}")
    if "FAIL" in out:
        problems.append("a check failed")
    m = re.search(r"^lx: no processes left, (\d+) pages free", out, re.M)
    if not m or int(m.group(1)) != HEAP_MIB << 8:
        problems.append(f"pages free at the end: {m.group(1) if m else 'no end line'}")
    ends = re.findall(r"^lx: pid (\d+) exited with status 0$", out, re.M)
    if len(ends) != CHILDREN + 1 or len(set(ends)) != len(ends):
        problems.append(f"{len(ends)} processes ended (expected {CHILDREN + 1}, each once)")
    assert not problems, "; ".join(problems) + "\n" + result.describe()
