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

PIPES = "lx has no pipes yet (pipe, pipe2; busybox sh uses them for |, $(...) and here-documents)"
SIGNALS = "lx delivers no signals yet (kill, sigaction handlers, default actions, sigsuspend, pause)"
TIME = "lx has no time calls yet (clock_gettime, gettimeofday, time, nanosleep)"
PROC = "lx has no /proc yet (ps reads /proc)"
POLL = "lx has no poll yet (busybox sh's read builtin polls its input first)"
UTIMES = "lx has no utimensat yet (touch)"

MISSING = {
    "glibc/pipes": PIPES,
    "musl/pipes": PIPES,
    "glibc/pipeline": PIPES,
    "musl/pipeline": PIPES,
    # abort() raises SIGABRT: without signals it ends in the C library's crash (SIGSEGV).
    "glibc/signals": SIGNALS,
    "musl/signals": SIGNALS,
    "glibc/time": TIME,
    "musl/time": TIME,
    "sh/heredoc": PIPES,
    "sh/pipes": PIPES,
    "sh/pipeline": PIPES,
    "sh/traps": SIGNALS,
    "sh/ps": PROC,
    "sh/zpipe": PIPES + " (zcat and tar -z decompress in a forked child through a pipe)",
    "sh/read": POLL,
    "sh/times": UTIMES,
}

BUGS = {
    "glibc/procs": "lx: execve of a directory is EISDIR; Linux says EACCES",
    "musl/procs": "lx: execve of a directory is EISDIR; Linux says EACCES",
    "glibc/dirs": "lx: chdir(\"..\") from a removed working directory does not reach the "
                  "parent (Linux's removed directory keeps its parent)",
    "musl/dirs": "lx: chdir(\"..\") from a removed working directory does not reach the "
                 "parent (Linux's removed directory keeps its parent)",
    "glibc/mem": "lx: brk to an impossible size (2^46 bytes more) does not return the "
                 "unchanged break",
    "musl/mem": "lx: brk to an impossible size (2^46 bytes more) does not return the "
                "unchanged break",
    "sh/sizes": "lx: st_blocks counts the size in 512-byte units; Linux's tmpfs counts the "
                "pages it holds (du and ls -s show 1 where Linux shows 4); and " + TIME +
                " (ls -l shows an old file's year only when it knows the time)",
    "glibc/misc": "lx: getrandom accepts unknown flags (Linux: EINVAL)",
    "musl/misc": "lx: getrandom accepts unknown flags (Linux: EINVAL)",
}

NOT_RUN_ON_PECAN = {
    # busybox sh's `wait` builtin blocks SIGCHLD and waits in sigsuspend: without signals
    # it never returns.
    "sh/jobs": f"hangs lx's run: {SIGNALS} (the shell's wait builtin waits in sigsuspend "
               f"for SIGCHLD); {TIME} (sleep)",
}

NORMALISE: dict[str, list[tuple[str, str]]] = {}


def expected_failure(case: str) -> str | None:
    """Why `case` is expected to fail on Pecan today, or None."""
    return NOT_RUN_ON_PECAN.get(case) or MISSING.get(case) or BUGS.get(case)
