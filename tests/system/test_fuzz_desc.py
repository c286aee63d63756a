"""The system-call fuzzer's descriptor-attack phase (user/tests/fuzz_desc.c, issue 12) on a CPU
without SMEP, SMAP and FSGSBASE (-cpu qemu64).  There the far transfers of user mode complete:
on -cpu max QEMU 7.2 faults on the stack accesses of lretq, iretq and lcall under SMAP
(docs/testing.md, "Descriptor attacks"), so native threads leave those out and only foreign
threads run them, as page faults.  Here every operation runs in native and foreign threads, the
landing pad sees iretq's RFLAGS (TF included: single-step traps), and FS/GS go through the
kernel's MSR path.  test_programs.py runs test_fuzz, this phase included, on -cpu max in its
three configurations; `make fuzz` runs long campaigns of both."""
import re

import pytest

from harness import boot, cases_of, check_case, check_complete

SOURCE = "user/tests/test_fuzz.c"
# A short run: two rounds of each system-call phase, 256 selectors of every operation.
ARGS = "rounds=2 desc=256"
SUMMARY = re.compile(r"^# descriptors: (\d+) rounds, (\d+) threads \((\d+) foreign\), (\d+) ops "
                     r"\((\d+) #GP, (\d+) #NP, (\d+) #SS, (\d+) #PF, (\d+) done in line, (\d+) far "
                     r"transfers, (\d+) single-step traps\), selectors (\S+)-(\S+) and 0-0x3f of "
                     r"each of (\d+) operations exhaustively, (\d+) left out", re.M)


def boot_qemu64():
    return boot("test_fuzz", args=ARGS, cpu="qemu64")


def summary(result):
    m = SUMMARY.search(result.output)
    assert m, "no descriptor summary\n" + result.describe()
    names = ("rounds", "threads", "foreign", "ops", "gp", "np", "ss", "pf", "inline",
             "transfers", "traps", "first", "last", "operations", "left_out")
    return dict(zip(names, m.groups()))


def test_run_completes():
    check_complete(boot_qemu64(), SOURCE)


def test_every_operation_ran_on_qemu64():
    """The configuration does what it is for: nothing left out, far transfers arrived, TF in
    iretq frames single-stepped, foreign threads took part, and the exhaustive slice (256
    selectors, chosen by the default seed) plus 0-0x3f went through every operation."""
    s = summary(boot_qemu64())
    assert int(s["left_out"]) == 0, s
    assert int(s["transfers"]) > 0 and int(s["traps"]) > 0, s
    assert int(s["foreign"]) * 2 == int(s["threads"]), s
    assert int(s["pf"]) == 0, s
    assert int(s["last"], 16) - int(s["first"], 16) + 1 == 256, s
    assert int(s["operations"]) == 16, s
    assert int(s["ops"]) >= (256 + 64) * 16, s


def test_cpu_max_leaves_out_only_what_faults_on_the_stack():
    """On -cpu max (the boot test_programs.py makes) the probe decides: with QEMU 7.2's stack
    faults (a SMAP-refused supervisor access to the user stack) the kernel reports each as an
    exception (traps.c, pager_can_resolve), so native and foreign threads run those operations
    and see #PF; a kernel that handed them to the pager instead would spin, and the probe would
    leave them out for native threads, which this test refuses.  Without the quirk (a QEMU that
    makes those accesses with user rights) nothing is left out and nothing faults."""
    result = boot("test_fuzz")
    s = summary(result)
    if "faults on the stack accesses of lretq, iretq and lcall" in result.output:
        assert "the kernel reports them as exceptions" in result.output, s
        assert int(s["left_out"]) == 0 and int(s["pf"]) > 0, s
    else:
        assert int(s["left_out"]) == 0 and int(s["pf"]) == 0, s


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_qemu64(), case, SOURCE)
