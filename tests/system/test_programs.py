"""Every other in-system test program: each user/tests/test_*.c that declares TEST cases and
has no test file of its own here is booted once as the root task (build/user/<name>.elf,
default configuration), and all its cases must pass.  A program that needs a particular
configuration gets its own file and is listed in DEDICATED."""
import pytest

from harness import ROOT, TEST_RE, boot, cases_of, check_case, check_complete

# Programs with their own test file in tests/system/.
DEDICATED = {
    "test_boot",      # test_boot.py, test_iso.py
    "test_faults",    # test_kernel_robustness.py
    "test_kmem",      # test_kernel_memory.py (small kernel pool)
    "test_tcontrol",  # test_thread_control.py (small kernel pool)
    "test_tasks",     # test_root_task.py (a boot module of the real root task)
    "test_root_limits",  # test_root_limits.py (boot module of the root task, large pool)
    "test_root_oom",  # test_root_limits.py (boot module of a root task with a small pool)
    "test_servers",   # test_server_robustness.py (boot module next to the serial driver)
    "test_datamod",   # test_boot_modules.py (boot module next to a 1.5 GiB data module)
}


def programs():
    found = []
    for src in sorted((ROOT / "user" / "tests").glob("test_*.c")):
        if src.stem not in DEDICATED and TEST_RE.search(src.read_text()):
            found.append(src.stem)
    return found


# Each program runs on the debug kernel with the IPC fast path (the default), with the fast
# path switched off (everything through the C slow path: both must give the same results),
# and on the release kernel.  All three run in virtual time (-icount): test programs check
# timeouts, time slices, preemptions and CPU shares, which in real time depend on how busy
# the host is (test_preemption failed beside other load).  Under -icount a run is a function
# of the binaries alone, so a failure repeats exactly (docs/testing.md, "Time").
CONFIGS = {
    "fast": dict(),
    "slow": dict(cmdline="kdb=batch fastpath=off"),
    "release": dict(kernel=None),
}

PARAMS = [(cfg, name, case) for cfg in CONFIGS for name in programs()
          for case in cases_of(f"user/tests/{name}.c")]


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("program", programs())
def test_run_completes(program, config):
    check_complete(boot(program, **CONFIGS[config]), f"user/tests/{program}.c")


@pytest.mark.parametrize("config,program,case", PARAMS, ids=[f"{c}-{p}-{k}" for c, p, k in PARAMS])
def test_case(config, program, case):
    check_case(boot(program, **CONFIGS[config]), case, f"user/tests/{program}.c")
