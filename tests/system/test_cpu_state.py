"""The CPU state a user thread can reach (docs/cpu-state.md, issue 12), from outside:

* user/tests/test_cpustate.c on -cpu qemu64 (no SMAP, SMEP, UMIP or FSGSBASE).  There QEMU
  reads a user-mode iretq's frame from a user page without refusing it, so the native
  thread's frames reach the selector checks too (on -cpu max SMAP refuses QEMU's supervisor
  read first).  test_programs.py runs the program on -cpu max in its three configurations.
* The kernel images: no instruction that uses FS or GS (so no entry path needs swapgs), one
  lldt (the null LDT at boot), no popf.
* The `cpu:` line: UMIP found (and so enabled) on -cpu max, absent on -cpu qemu64.
"""
import re
import subprocess

import pytest

from harness import (BUILD, ROOT, SIGMA0, boot, cases_of, check_case, check_complete,
                     kernel_lines, program_path, require_built, qemu_run)

SOURCE = "user/tests/test_cpustate.c"


def boot_qemu64():
    return boot("test_cpustate", cpu="qemu64")


def test_run_completes_qemu64():
    check_complete(boot_qemu64(), SOURCE)


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case_qemu64(case):
    check_case(boot_qemu64(), case, SOURCE)


def test_frames_reach_the_selector_checks():
    """Each CPU configuration tests what the docstring says: on qemu64 the native thread's
    iretq frames are popped (so its TI=1 and CS 0x8 frames raise #GP(selector)); on max SMAP
    refuses QEMU's supervisor read of them, and the foreign thread's lie where nothing is
    mapped (its UTCB is not in its address space, docs/linux-abi.md section 2.1): a page
    fault."""
    q = boot_qemu64().output
    assert "# iretq frame (native, user page): popped" in q, q[-3000:]
    m = boot("test_cpustate").output
    assert "# iretq frame (native, user page): #PF (supervisor read)" in m, m[-3000:]
    assert "# iretq frame (foreign, no page): page fault" in m, m[-3000:]


@pytest.mark.parametrize("cpu,flag", [("max", "umip=1"), ("qemu64", "umip=0")])
def test_cpu_line_umip(cpu, flag):
    result = boot("test_cpustate", cpu=cpu)
    assert any(flag in l for l in kernel_lines(result, "cpu:")), result.describe()


# --- the kernel images ---------------------------------------------------------------------------

def kernel_text(elf):
    """objdump -d of the kernel's .text (the 64-bit code; .boot holds 32-bit code and data)."""
    require_built(elf)
    return subprocess.run(["objdump", "-d", "-j", ".text", str(elf)], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("image", ["kernel.elf", "kernel-debug.elf"])
def test_kernel_never_uses_fs_or_gs(image):
    """No %fs:/%gs: operand and no swapgs: a user FS or GS base (any canonical value, moved
    with wrfsbase/wrgsbase) means nothing to the kernel, at any entry, NMI and #MC included,
    so no entry path needs swapgs and KERNEL_GS_BASE is never used."""
    text = kernel_text(BUILD / image)
    bad = [l for l in text.splitlines() if re.search(r"%[fg]s:|\bswapgs\b", l)]
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("image", ["kernel.elf", "kernel-debug.elf"])
def test_kernel_descriptor_table_instructions(image):
    """One lldt (cpu_init_tables' null LDT), one ltr and one lgdt in the 64-bit kernel (the
    other lidt is arch_reboot's empty IDT), and no popf (the kernel never loads RFLAGS from
    memory)."""
    text = kernel_text(BUILD / image)
    count = lambda insn: len(re.findall(rf"\t{insn}\b", text))
    assert count("lldt") == 1
    assert count("ltr") == 1
    assert count("lgdt") == 1
    assert count("popf") + count("popfq") == 0
