"""Every known difference between lx and native Linux on the corpus (docs/linux/compare.md),
in this one place.  tests/system/test_lx_compare.py reads it.

MISSING: cases that cannot pass until lx has a feature; strict expected failures, so a case
that starts to pass fails the suite until its line here is removed (the list shrinks as
features land).

BUGS: cases that show an lx bug; strict expected failures too, until the bug is fixed.

NOT_RUN_ON_PECAN: cases the runner leaves out on Pecan because they would hang lx's run
(reported as expected failures with the reason).  Keep it empty if at all possible: write
cases so that a missing feature fails fast (bounded loops).

NORMALISE: differences that stay, explained: (regex, replacement) pairs applied to both
sides' output before the comparison.
"""


# Features lx lacks that a case needs.
MISSING: dict[str, str] = {}

# The thread corpus (issue 13 item 8): with threads (docs/linux/threads.md) and futex every
# case matches Linux but this.
MISSING.update({
    f"{libc}/clone3": "CLONE_NEWPID: lx has no pid namespaces (EINVAL); every other clone3 "
                      "case matches" for libc in ("glibc", "musl")})

# Bugs in lx that a case shows.
BUGS: dict[str, str] = {
    # (musl/futex was here until stop 19: a thread waiting for a new one with sched_yield in a
    # loop could keep it off the CPU; sched_yield now rotates the caller, docs/linux-abi.md's
    # L4_FOREIGN_YIELD.)
}

# Cases the runner leaves out on Pecan (none: tlimits runs since the comparison boot gives
# lx heap=256 in 1 GiB, tests/system/test_lx_compare.py).
NOT_RUN_ON_PECAN: dict[str, str] = {}

# Linux's kernel messages ("[    1.96] tmpfs: Bad value for 'size'"), printed on the console
# the runner shares with the case's output; lx logs no such lines for a refused option.
_KERNEL_LOG = (r"(?m)^\[ *\d+\.\d+\] [^\n]*\n", "")

# lx maps a static program's bss with its data segment, and brk's first pages join that
# region: /proc/self/maps shows them under the program's name where Linux has a separate
# anonymous region, which it calls [heap] (it touches [start_brk, brk]).  musl's malloc uses
# brk; glibc's first brk area is its own region on both.
_MUSL_HEAP = (r"(?m)^\[heap\]: [^\n]*\n", "")

NORMALISE: dict[str, list[tuple[str, str]]] = {
    "musl/procfiles": [_MUSL_HEAP],
    "musl/tmpfs": [_KERNEL_LOG],
    "glibc/tmpfs": [_KERNEL_LOG],
    "musl/pty": [_KERNEL_LOG],      # devpts's "called with bogus options"
    "glibc/pty": [_KERNEL_LOG],
    # ash prints a job's end (`Killed`) only when the `wait` builtin's own waitpid reaps it
    # after waiting; a job already dead when `wait` starts is reaped by a nonblocking
    # waitpid first and nothing is printed (lx's wait4 trace: `sh -c 'sleep 1 & kill -KILL
    # $!; wait $!'` reaps in the first WNOHANG call; with -TERM the child is still alive,
    # the second call after sigsuspend reaps it and `Terminated` is printed).  On lx the
    # SIGKILLed child ends at once, within the kill call; on the one-CPU Linux reference it
    # ends when next scheduled, after ash blocks in `wait`.  Scheduling, not the wait
    # notifications (stop and continue play no part: the STOP is cancelled by the CONT
    # before the child runs, on both).  The wait status (137) is compared as it is.
    # The same holds for `kill $p` of a sleeping job (`Terminated`): whether the job has
    # ended before ash's first waitpid depends on when lx runs the child (the corpus run is
    # not under -icount), so both lines go.
    "sh/jobs": [(r"^(Terminated|Killed)\n(?=(killed sleep|stopped, continued, killed): )",
                 "")],
}


def expected_failure(case: str) -> str | None:
    """Why `case` is expected to fail on Pecan today, or None."""
    return NOT_RUN_ON_PECAN.get(case) or MISSING.get(case) or BUGS.get(case)
