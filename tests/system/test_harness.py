"""The harness itself: it must notice failures, panics and hangs, not only report success.
Part of it is pure parsing (synthetic output), part real boots that are meant to go wrong."""
import os

# harness puts tools/ on the import path.
from harness import BOOT_TIMEOUT, KERNEL, SIGMA0, boot, program_path, require_built
import mkiso  # noqa: E402
import qemu_run  # noqa: E402


def result(output, status=1):
    return qemu_run.RunResult(status=status, timed_out=status is None, output=output,
                              duration=0.0)


GOOD = "# suite x\nok 1 - alpha\nnot ok 2 - beta # t.c:3: x == 1 (0x2 != 0x1)\n"


def test_case_lines_are_parsed():
    r = result(GOOD + "PECAN-TEST-DONE passed=1 failed=1\n", status=3)
    assert r.cases() == {"alpha": (True, ""), "beta": (False, "t.c:3: x == 1 (0x2 != 0x1)")}
    assert r.done_line() == "PECAN-TEST-DONE passed=1 failed=1"
    assert r.done_counts() == (1, 1)
    assert not r.passed_all()


def test_passed_all_needs_status_and_done_line():
    assert result("ok 1 - a\nPECAN-TEST-DONE passed=1 failed=0\n").passed_all()
    assert not result("ok 1 - a\n").passed_all()                                   # no DONE
    assert not result("ok 1 - a\nPECAN-TEST-DONE passed=1 failed=0\n", 3).passed_all()
    assert not result("ok 1 - a\nPECAN-TEST-DONE passed=1 failed=0\n", None).passed_all()
    assert not result("PECAN-TEST-DONE passed=1 failed=2\n").passed_all()


def test_kdb_detection():
    assert result("x\n", status=5).kdb_entered()
    assert result("KDB: batch mode, ending the run\n", status=None).kdb_entered()
    assert not result("ok 1 - a\n").kdb_entered()


def test_module_command_lines():
    assert qemu_run.normalize_module("a.elf") == ("a.elf", "")
    assert qemu_run.normalize_module(("a.elf", " x=1   y ")) == ("a.elf", "x=1 y")
    assert qemu_run.normalize_module("a.elf x=1 y") == ("a.elf", "x=1 y")
    try:
        qemu_run.normalize_module(("a.elf", "x=1,2"))
    except qemu_run.QemuError:
        pass
    else:
        raise AssertionError("a comma in a module command line must be refused")


def test_grub_cfg():
    cfg = mkiso.grub_cfg([("sigma0.elf", ""), ("root.elf", "a=1 it's")], "kdb=batch")
    assert "set timeout=0" in cfg and "terminal_output serial" in cfg
    assert "    multiboot /boot/kernel.bin kdb=batch\n" in cfg
    assert "    module /boot/sigma0.elf /boot/sigma0.elf\n" in cfg
    assert "    module /boot/root.elf /boot/root.elf a=1 'it'\\''s'\n" in cfg


def test_failing_case_is_reported():
    """test_boot told it has 256 MiB while QEMU gives it 128: its memory check must fail and
    the run must end with status 3."""
    r = boot("test_boot", "mem=256", memory=128)
    assert r.status == 3, r.describe()
    assert not r.passed_all()
    ok, reason = r.cases().get("kip_memory_matches_qemu", (None, ""))
    assert ok is False and reason, r.describe()
    assert r.done_counts() is not None and r.done_counts()[1] >= 1, r.describe()


def test_panic_ends_batch_run_in_kdb():
    """2 MiB of RAM cannot hold sigma0 (linked at 15 MiB): the kernel panics, and with
    kdb=batch the debugger ends the run with status 5."""
    r = boot("root", memory=2)
    assert r.status == 5 and r.kdb_entered(), r.describe()
    assert "PANIC" in r.output and not r.passed_all()


def test_interactive_kdb_takes_serial_input():
    """Without kdb=batch the debugger waits for commands on the serial line: list the threads,
    then quit QEMU (status 5)."""
    require_built(program_path("root"))
    r = qemu_run.run(os.path.relpath(KERNEL), [os.path.relpath(SIGMA0),
                                               os.path.relpath(program_path("root"))],
                     cmdline="", memory=2, timeout=BOOT_TIMEOUT,
                     serial_input=[(r"kdb> ", "t\r"), (r"kdb> ", "q\r")])
    assert not r.timed_out and r.status == 5, r.describe()
    assert r.output.count("kdb> ") >= 2, r.describe()
    assert "kdb> t\n" in r.output and "partner/wait" in r.output, r.describe()


def test_timeout_kills_qemu_and_keeps_output():
    """A kernel debugger waiting for input never ends the run: the harness kills QEMU at the
    timeout, reports status None and keeps what was printed.  The 3 s count from the
    debugger's prompt: a loaded host may take longer than that to boot."""
    require_built(program_path("root"))
    r = qemu_run.run(os.path.relpath(KERNEL), [os.path.relpath(SIGMA0),
                                               os.path.relpath(program_path("root"))],
                     cmdline="", memory=2, timeout=3, timeout_from=r"kdb> ",
                     hang_timeout=BOOT_TIMEOUT)
    assert r.timed_out and r.status is None, r.describe()
    assert "Pecan 0.1" in r.output, r.describe()
    assert "timed out" in r.describe()


def test_in_system_programs_run_in_virtual_time():
    """Every configuration of test_programs boots under -icount: the programs check timeouts,
    time slices and CPU shares, which in real time depend on the host's load
    (docs/testing.md, "Time")."""
    import test_programs
    assert test_programs.CONFIGS and all(c.get("icount", True) for c in test_programs.CONFIGS.values())
    assert "-icount" in qemu_run.qemu_command(KERNEL, [SIGMA0, program_path("root")], icount=True)
