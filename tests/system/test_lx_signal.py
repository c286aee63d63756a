"""lx's signals (docs/linux/signals.md).  The self-test's `signal` mode (user/linux/selftest/
signal.c: raw system calls, so the frame, the registers and the restorer are exactly what the
kernel gives) checks about 120 results: rt_sigaction and rt_sigprocmask with their errors, the
rt_sigframe (siginfo, ucontext rip/rsp/registers, fpstate, alignment, red zone), sigreturn
restoring every register, the handler's mask, SA_NODEFER, SA_RESETHAND, ignored and blocked
signals, rt_sigtimedwait, sigaltstack, SIGSEGV (MAPERR/ACCERR)/SIGILL/SIGFPE/SIGTRAP handlers
that continue by the ucontext's rip, default actions with their wait status, frames that cannot
be written, wait4 interrupted by a timer's signal with and without SA_RESTART, alarm and pause,
sigsuspend with SIGCHLD, stop and continue of a parked and of a running child (wait4
WUNTRACED/WCONTINUED, waitid), a handler interrupting a child that runs user code, kill of a
group and kill(0), rt_sigreturn of a frame that is not memory and of garbage, execve's reset
of the actions.  Its lines must be those of a Linux run, recorded in
tests/data/lx-signal-linux.txt (lx, like Linux with its default RLIMIT_CORE 0, writes no core
files and reports no core flag).  Where `make linux-tests` has built them, the musl and glibc `signals` programs
(sigaction through the C library's restorer, siglongjmp out of a SIGSEGV handler, raise,
alarm, pause, SIGCHLD, stop/continue) run from an initramfs, and where `make initramfs` has
built it, busybox's ash traps and kills.  Every run ends with all of lx's pages free."""
import functools
import re

import pytest

from harness import ROOT
from lx_initramfs import INITRAMFS, archive, boot_archive, boot_program, newc, variant_programs
from test_lx import SELFTEST, boot_lx, check_ended, section

SIGNALS = variant_programs("signals")


@functools.lru_cache(maxsize=1)
def run_selftest():
    """One boot for all the checks of the signal mode."""
    result = boot_lx("-- lxselftest.elf signal", [SELFTEST])
    check_ended(result)
    return section(result, 1), result.output


def assert_lines(out, lines):
    for line in lines:
        assert line in out, f"no `{line}` in the signal mode's output\n{out}"


def test_signal_selftest_passes():
    out, _ = run_selftest()
    assert "FAIL" not in out, out
    assert len(re.findall(r"^ok: ", out, re.M)) >= 110, out
    assert_lines(out, ("selftest: all passed", "lx: pid 1 exited with status 0"))


# The signal mode's lines on Linux (Debian 12's kernel 6.1 in QEMU, through
# tools/initramfs/linuxref_run.py with the self-test added to the initramfs), recorded.
LINUX_LINES = ROOT / "tests" / "data" / "lx-signal-linux.txt"
KNOWN: dict[str, str] = {}


def test_same_results_as_linux():
    out, _ = run_selftest()
    lines = [KNOWN.get(line, line) for line in out.splitlines()
             if re.match(r"(ok|FAIL|signal|selftest): ", line)]
    assert lines == LINUX_LINES.read_text().splitlines()


def test_frame_and_sigreturn():
    out, _ = run_selftest()
    assert_lines(out, (
        "ok: RSP at the handler is 16-byte aligned minus 8",
        "ok: RAX at the handler is 0",
        "ok: the return address is sa_restorer",
        "ok: RDX = &ucontext (frame + 8), RSI = &siginfo (frame + 312)",
        "ok: the frame is below the red zone",
        "ok: siginfo: si_signo, SI_USER, si_pid, si_uid",
        "ok: ucontext: rip after the syscall",
        "ok: ucontext: rbx rbp r12 r15 rdx r10 rdi rsi",
        "ok: ucontext: fpstate 64-byte aligned between the frame and the red zone",
        "ok: ucontext: uc_sigmask and oldmask are the mask before",
        "ok: the handler runs with sa_mask and the signal blocked",
        "ok: sigreturn restores rbx rbp r12 r13 r14 r15",
        "ok: sigreturn restores rdx r8 r9 r10 rsi rdi",
        "ok: sigreturn restores rax (kill's 0) and rcx",
        "ok: without SA_NODEFER: the second one after the first",
        "ok: SA_NODEFER: nested in the handler, not blocked",
        "ok: SA_RESETHAND: the action is SIG_DFL after it",
        "ok: SA_ONSTACK: the handler runs on the alternate stack",
        "ok: sigaltstack in the handler: SS_ONSTACK"))


def test_error_paths():
    out, _ = run_selftest()
    assert_lines(out, (
        "ok: rt_sigaction size 7: EINVAL", "ok: a handler for SIGKILL: EINVAL",
        "ok: rt_sigaction from a bad pointer: EFAULT", "ok: sigprocmask how 3: EINVAL",
        "ok: SIGKILL and SIGSTOP cannot be blocked", "ok: rt_sigpending size 9: EINVAL",
        "ok: sigaltstack smaller than MINSIGSTKSZ: ENOMEM",
        "ok: sigaltstack with bad flags: EINVAL", "ok: kill with signal 65: EINVAL",
        "ok: kill of no process: ESRCH", "ok: tgkill of no thread: ESRCH",
        "ok: setitimer with 10^6 us: EINVAL", "ok: rt_sigtimedwait with 10^9 ns: EINVAL",
        "ok: rt_sigsuspend size 4: EINVAL"))


def test_faults_reach_handlers():
    out, _ = run_selftest()
    assert_lines(out, (
        "ok: SIGSEGV handler; it continues past the load by the ucontext's rip",
        "ok: SIGSEGV: SEGV_MAPERR, si_addr",
        "ok: SIGSEGV: rip of the load, trapno 14, cr2, err (user read)",
        "ok: PROT_NONE: SEGV_ACCERR, si_addr",
        "ok: ud2: SIGILL, ILL_ILLOPN, si_addr, trapno 6",
        "ok: div by zero: SIGFPE, FPE_INTDIV, si_addr",
        "ok: int3: SIGTRAP, SI_KERNEL, rip after it, trapno 3"))


def test_default_actions_and_wait_status():
    out, full = run_selftest()
    # No core flag for the core-dump signals: RLIMIT_CORE is 0, as Linux's default.
    for name, status in (("SIGTERM", "0xf"), ("SIGUSR1", "0xa"), ("SIGKILL", "0x9"),
                         ("SIGQUIT", "0x3"), ("SIGABRT", "0x6"), ("SIGALRM", "0xe")):
        assert f"signal: child killed by {name}: status {status}\n" in out, out
    assert_lines(out, ("ok: a fault with its signal blocked kills",
                       "ok: a handler without SA_RESTORER: killed by SIGSEGV",
                       "ok: a frame that cannot be written: killed by SIGSEGV"))
    assert re.search(r"^lx: pid \d+: cannot write the frame for signal 10 at ", full, re.M)


def test_parked_calls_timers_and_sigchld():
    out, _ = run_selftest()
    assert_lines(out, (
        "ok: wait4 interrupted by a handler: EINTR",
        "ok: SA_RESTART: wait4 runs again after the handler and reaps the child",
        "ok: getitimer: interval and value",
        "ok: alarm(1) again: 1 second left",
        "ok: pause: EINTR after SIGALRM's handler",
        "ok: rt_sigsuspend: EINTR after SIGCHLD's handler",
        "ok: SIGCHLD: CLD_EXITED, si_pid, si_status",
        "ok: sigsuspend restores the mask",
        "ok: rt_sigtimedwait takes a pending signal",
        "ok: rt_sigtimedwait for 20 ms: EAGAIN"))


def test_stop_continue_and_kill():
    out, full = run_selftest()
    assert_lines(out, (
        "ok: SIGSTOP: wait4 WUNTRACED reports 0x137f",
        "ok: SIGCONT: wait4 WCONTINUED reports 0xffff",
        "ok: SIGTSTP: waitid WSTOPPED: CLD_STOPPED",
        "ok: SIGKILL of a stopped child: status 9",
        "ok: a running child stopped",
        "ok: while stopped it does not run",
        "ok: continued: it runs on and exits 5",
        "ok: a handler interrupts a child running user code",
        "ok: both members of the group killed",
        "ok: kill(0, sig) reaches the caller",
        "ok: SIGCHLD ignored: the child leaves no zombie (ECHILD)",
        "ok: a bad rt_sigreturn kills the caller",
        "ok: execve: handlers reset, ignored kept, mask kept"))
    assert re.search(r"^lx: pid \d+ stopped by signal 19$", full, re.M)
    assert re.search(r"^lx: pid \d+: bad signal frame at 7dfffffffff8 .*killed by SIGSEGV$",
                     full, re.M)


@pytest.mark.parametrize("variant", sorted(SIGNALS))
def test_libc_signals_program(variant):
    result = boot_program("lxsignal.cpio", SIGNALS, variant)
    check_ended(result)
    out = section(result, 1)
    assert "FAIL" not in out, out
    assert_lines(out, ("ok: raise: the handler ran with si_pid",
                       "ok: SIGSEGV: SEGV_ACCERR, si_addr; siglongjmp out of the handler",
                       "ok: siglongjmp restored the mask",
                       "ok: alarm, pause: EINTR",
                       "ok: SIGCHLD: CLD_EXITED from the child",
                       "ok: WUNTRACED: stopped by SIGSTOP", "ok: WCONTINUED",
                       "signals: all passed", "lx: pid 1 exited with status 0"))


# busybox's ash from the initramfs (`make initramfs`; `make test` builds it): trap, kill of
# itself and of child shells, the statuses it reports, and its EXIT trap.
SCRIPT = b"""trap 'echo caught USR1' USR1
kill -USR1 $$
echo "after trap"
sh -c 'kill -TERM $$'
echo "status $?"
sh -c 'kill -SEGV $$'
echo "status $?"
trap - USR1
trap 'echo exit trap' EXIT
echo done
"""


def test_busybox_shell_traps_and_kills():
    if not INITRAMFS.is_file():
        pytest.skip(f"{INITRAMFS} not built (make initramfs)")
    cpio = archive("lxsignal-bb.cpio", INITRAMFS.read_bytes(),
                   [newc.regular("sigtest.sh", SCRIPT, 0o755)])
    result = boot_archive(cpio, "init=/bin/sh /sigtest.sh", memory=256)  # the whole initramfs
    check_ended(result)
    out = result.output
    for line in ("caught USR1\nafter trap\n", "lx: pid 2 killed by signal 15",
                 "status 143\n", "lx: pid 3 killed by signal 11", "status 139\n",
                 "done\nexit trap\n", "lx: pid 1 exited with status 0"):
        assert line in out, f"no `{line}` in the shell's output\n" + result.describe()


def test_fpu_state_across_a_handler_as_linux():
    """The FPU/SSE state of the interrupted code is in the frame and comes back after
    rt_sigreturn, through the signal page (user/linux/signal/sigpage.c), at a system call's end and
    at a fault; the lines are those of the same program on Linux (Debian 12's 6.1 in QEMU,
    recorded in tests/data/lx-sigfpu-linux.txt)."""
    result = boot_lx("-- lxselftest.elf sigfpu", [SELFTEST])
    check_ended(result)
    out = section(result, 1)
    lines = [line for line in out.splitlines() if not line.startswith("lx: ")]
    expected = (ROOT / "tests" / "data" / "lx-sigfpu-linux.txt").read_text().splitlines()
    assert lines == expected, out
