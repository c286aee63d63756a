"""lx's robustness (issue 8 item 8; docs/linux/robustness.md).

The Linux-side fuzzer (user/linux/fuzz/lxfuzz.c) runs under lx with a small initramfs of
its own (/dev/null, /tmp, ...: no download): many processes at once make random system
calls with random and hostile arguments, each child from a seed of its own; lx must
survive every seed, end with every page of its pool free, and leave the root task holding
nothing for the processes.  The leak test forks, execs and reaps 10,000 processes one
after another with the same checks.  A longer campaign: `make lxfuzz` (tools/lxfuzz.py)."""
import re

from lx_initramfs import archive, boot_archive, newc
from test_lx import check_ended

FUZZ = "build/linux/lxfuzz.elf"
SUMMARY = re.compile(r"^lxfuzz: seed (\d+): (\d+) children of (\d+) calls ended "
                     r"\((\d+) exited, (\d+) killed, (\d+) forks refused\)", re.M)


def build_initramfs():
    return archive("lxfuzz.cpio", [
        newc.directory("bin"), newc.directory("dev"), newc.directory("proc"),
        newc.directory("tmp", 0o1777), newc.directory("tmp/d"),
        newc.regular("tmp/a", b"fuzz\n", 0o644),
        newc.chardev("dev/null", 1, 3, 0o666), newc.chardev("dev/zero", 1, 5, 0o666)])


def boot_fuzz(programs, timeout=None):
    extra = {"timeout": timeout} if timeout else {}
    return boot_archive(build_initramfs(), programs, memory=256,
                        extra_modules=[(FUZZ, "data")], **extra)


def root_reports(result):
    return re.findall(r"^lx: root task: (\d+) tasks, (\d+) thread records", result.output,
                      re.M)


def check_clean(result):
    check_ended(result)
    reports = root_reports(result)
    assert len(reports) == 2 and reports[0] == reports[1], reports
    assert "lx: panic" not in result.output and "assert" not in result.output


def run_seeds(seeds, children, calls, timeout=None, options=""):
    """One boot: the fuzzer runs a round per seed (consecutive seeds); options: " threads=1"
    (tools/lxfuzz.py --threads)."""
    assert seeds == list(range(seeds[0], seeds[0] + len(seeds)))
    programs = f"-- lxfuzz.elf fuzz {seeds[0]} {children} {calls} 6 {len(seeds)}{options}"
    result = boot_fuzz(programs, timeout)
    check_clean(result)
    found = {int(m.group(1)): m for m in SUMMARY.finditer(result.output)}
    assert sorted(found) == sorted(seeds), result.describe()
    for m in found.values():
        assert int(m.group(2)) == children and int(m.group(3)) == calls
        assert int(m.group(6)) == 0, "forks refused"
    return result


def test_fuzzer_seeds_leave_lx_whole():
    # 4 seeds x 40 children x 400 calls: 64,000 random calls, 6 processes at a time.
    run_seeds([1, 2, 3, 4], 40, 400)


def test_fuzzer_exercises_hostile_calls():
    """The run is real: children die of what they did to themselves, calls go unimplemented
    and are counted, and lx reports them by number."""
    result = run_seeds([7], 40, 400)
    m = SUMMARY.search(result.output)
    assert int(m.group(5)) > 0, "no child killed: the fuzzer is too tame"
    assert re.search(r"^lx: ENOSYS \S+ \(\d+\): \d+", result.output, re.M)


def test_ten_thousand_processes_leak_nothing():
    result = boot_fuzz("-- lxfuzz.elf spawn 10000", timeout=600)
    check_clean(result)
    assert "lxfuzz: spawned 10000 of 10000" in result.output, result.describe()


def test_fuzzer_with_threads_leaves_lx_whole():
    """threads=1 (tools/lxfuzz.py --threads): children also clone threads on fresh stacks and
    make futex calls on their own and shared memory; lx survives, every page comes back and
    the root task holds no thread of theirs."""
    result = run_seeds([21, 22, 23], 40, 400, options=" threads=1")
    started = sum(int(m) for m in re.findall(r"^lxfuzz: seed \d+: (\d+) threads started",
                                             result.output, re.M))
    assert started > 0, "no thread started: the option did nothing\n" + result.describe()
