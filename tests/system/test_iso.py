"""Booting through GRUB from an ISO (multiboot, modules with command lines) gives the root
task the same world as QEMU's own multiboot loader: user/tests/test_boot.c passes."""
import pytest

from harness import boot, cases_of, check_case, check_complete

SOURCE = "user/tests/test_boot.c"


def boot_iso():
    return boot("test_boot", "mem=128", memory=128, iso=True)


def test_run_completes():
    check_complete(boot_iso(), SOURCE)


def test_grub_passed_module_command_lines():
    """GRUB gets the module paths and arguments right (the kernel logs each module)."""
    out = boot_iso().output
    assert "boot: module 0 at" in out and "sigma0.elf" in out, out
    assert any(line.startswith("boot: module 1 at") and line.endswith("test_boot.elf mem=128")
               for line in out.splitlines()), out


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_iso(), case, SOURCE)
