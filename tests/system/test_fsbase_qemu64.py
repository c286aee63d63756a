"""Per-thread FS/GS bases on a CPU without FSGSBASE (-cpu qemu64): the kernel switches the
bases through the MSRs (its rdfsbase sites patched into jumps at boot, cpu.c) and the program
(user/tests/test_fsbase.c) moves its bases with ExchangeRegisters only, because user code
cannot use wrfsbase there.  test_programs.py runs the same program on -cpu max (FSGSBASE:
rdfsbase/wrfsbase in the kernel and in the program) in its three configurations."""
import pytest

from harness import boot, cases_of, check_case, check_complete, kernel_lines

SOURCE = "user/tests/test_fsbase.c"


def boot_qemu64():
    return boot("test_fsbase", cpu="qemu64")


def test_run_completes():
    check_complete(boot_qemu64(), SOURCE)


def test_cpu_has_no_fsgsbase():
    """The configuration tests what it claims: the kernel found no FSGSBASE, and the program
    took the ExchangeRegisters-only variant."""
    result = boot_qemu64()
    lines = kernel_lines(result, "cpu:")
    assert any("fsgsbase=0" in l for l in lines), "\n".join(lines) + "\n" + result.describe()
    assert "# fsgsbase: no (MSR path)" in result.output, result.describe()


def test_cpu_max_has_fsgsbase():
    """... and -cpu max (test_programs.py's boots) does have it, so both paths are covered."""
    result = boot("test_fsbase")
    assert any("fsgsbase=1" in l for l in kernel_lines(result, "cpu:")), result.describe()
    assert "# fsgsbase: yes (rdfsbase/wrfsbase)" in result.output, result.describe()


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_qemu64(), case, SOURCE)
