"""The CPU state a user thread can reach (docs/cpu-state.md, issue 12), from outside:

* user/tests/test_cpustate.c on -cpu qemu64 (no SMAP, SMEP, UMIP or FSGSBASE).  There QEMU
  reads a user-mode iretq's frame from a user page without refusing it, so the native
  thread's frames reach the selector checks too (on -cpu max SMAP refuses QEMU's supervisor
  read first).  test_programs.py runs the program on -cpu max in its three configurations.
* An NMI injected through QEMU's QMP socket while a foreign thread with FS/GS bases of its
  handler's choosing spins (the case nmi_with_user_bases; the NMI is asynchronous, so what
  it interrupts varies; what is checked holds wherever it lands).
* The kernel images: no instruction that uses FS or GS (so no entry path needs swapgs), one
  lldt (the null LDT at boot), no popf.
* The `cpu:` line: UMIP found (and so enabled) on -cpu max, absent on -cpu qemu64.
"""
import json
import os
import re
import selectors
import socket
import subprocess
import time

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
    refuses QEMU's supervisor read of them, and the foreign thread's (a kernel page) are
    popped."""
    q = boot_qemu64().output
    assert "# iretq frame (native, user page): popped" in q, q[-3000:]
    m = boot("test_cpustate").output
    assert "# iretq frame (native, user page): #PF (supervisor read)" in m, m[-3000:]
    assert "# iretq frame (foreign, kernel page): popped" in m, m[-3000:]


@pytest.mark.parametrize("cpu,flag", [("max", "umip=1"), ("qemu64", "umip=0")])
def test_cpu_line_umip(cpu, flag):
    result = boot("test_cpustate", cpu=cpu)
    assert any(flag in l for l in kernel_lines(result, "cpu:")), result.describe()


# --- the NMI -------------------------------------------------------------------------------------

NMI_TIMEOUT = 180


class Qemu:
    """QEMU with the test program as root task, its serial line on stdin/stdout and a QMP
    socket; output is read as it comes."""

    def __init__(self, tmp_path, kernel):
        program = program_path("test_cpustate")
        require_built(kernel, SIGMA0, program)
        self.qmp_path = tmp_path / "qmp.sock"
        cmd = qemu_run.qemu_command(kernel, [SIGMA0, (program, "nmi")], "kdb=batch", icount=True,
                                    extra=["-qmp", f"unix:{self.qmp_path},server=on,wait=off"])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.output = ""
        self.deadline = time.monotonic() + NMI_TIMEOUT
        self.qmp = None

    def wait_for(self, pattern, start=0):
        """The first match of pattern in the output after offset start; None if QEMU exited
        or the time is up."""
        regex = re.compile(pattern)
        while True:
            m = regex.search(self.output, start)
            if m:
                return m
            left = self.deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.output += chunk.decode("utf-8", "replace").replace("\r", "")

    def qmp_command(self, command):
        if self.qmp is None:
            self.qmp = socket.socket(socket.AF_UNIX)
            self.qmp.connect(str(self.qmp_path))
            self.qmp_file = self.qmp.makefile("rw")
            json.loads(self.qmp_file.readline())                 # the greeting
            self.qmp_command("qmp_capabilities")
        self.qmp_file.write(json.dumps({"execute": command}) + "\n")
        self.qmp_file.flush()
        while True:
            reply = json.loads(self.qmp_file.readline())
            if "return" in reply or "error" in reply:
                assert "return" in reply, reply
                return

    def serial(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def finish(self):
        """QEMU's exit status once the program is done (None if it never finishes)."""
        if not self.wait_for(r"PECAN-TEST-DONE.*\n"):
            return None
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            return None

    def close(self):
        if self.qmp is not None:
            self.qmp.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.sel.close()


@pytest.mark.parametrize("kernel", ["kernel-debug", "kernel"])
def test_nmi_with_user_bases(tmp_path, kernel):
    """The NMI is reported (on its IST stack) wherever it lands; one lands in user mode
    (injected again until one does: the spinning thread has the CPU nearly all the time); the
    thread's bases are intact afterwards, and no case fails."""
    q = Qemu(tmp_path, BUILD / f"{kernel}.bin")
    try:
        m = q.wait_for(r"# nmi: ready\n")
        assert m, q.output[-3000:]
        for _ in range(20):
            q.qmp_command("inject-nmi")
            m = q.wait_for(r"NMI in (user|kernel) mode\n", m.end())
            assert m, q.output[-3000:]
            if m.group(1) == "user":
                break
            # It hit the kernel (the line's printing, the timer, a sleep): again once the
            # program's next line says it is back to its loop.
            m = q.wait_for(r"# nmi: tick\n", m.end())
            assert m, q.output[-3000:]
        assert "NMI in user mode" in q.output, q.output[-3000:]
        q.serial(b"x")
        status = q.finish()
    finally:
        q.close()
    out = q.output
    assert "KDB:" not in out and "PANIC" not in out, out[-3000:]
    assert re.search(r"^ok \d+ - nmi_with_user_bases$", out, re.M), out[-3000:]
    assert "PECAN-TEST-DONE" in out and "failed=0" in out, out[-3000:]
    assert status == 1, f"QEMU exit status {status}\n" + out[-3000:]


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
