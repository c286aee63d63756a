"""lx's calls about identity, limits, scheduling and the system (user/linux/syscalls/sys_system.c,
docs/linux/system.md): the self-test's `system` mode checks their results and error
returns (the values Linux gives root on one CPU), and lx ends with every page free."""
from test_lx import SELFTEST, boot_lx, check_ended, section


def test_identity_limits_scheduling_sysinfo_prctl():
    result = boot_lx("-- lxselftest.elf system", [SELFTEST])
    check_ended(result)
    out = section(result, 1)
    assert "FAIL" not in out, out
    assert out.count("ok: ") >= 35, out
    assert "lx: pid 1 exited with status 0" in out
