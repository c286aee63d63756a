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


# Features lx lacks that a case needs (none today).
MISSING: dict[str, str] = {}

BUGS = {
    "sh/jobs": "lx: busybox sh prints `Killed` for a job that was stopped, continued and "
               "killed (kill -STOP, -CONT, -KILL in a row, then wait) on Linux but not on lx; "
               "the wait status (137) is the same.  Not about stop/continue: on lx the STOP "
               "is cancelled by the CONT before the fresh child runs (no stop, no "
               "notification, as Linux), and `sh -c 'sleep 1 & kill -KILL $!; wait $!'` "
               "prints no `Killed` either, while `kill -TERM` there does.  ash prints the "
               "status only when `wait`'s own waitpid reaps the job; lx ends a SIGKILLed "
               "child within the kill call (SIGCHLD reaches ash before `wait` starts), Linux "
               "when the child next runs (after ash blocks in `wait`).  Open: what reaps it "
               "in ash before `wait`, and whether lx should defer SIGKILL's end.",
}

NOT_RUN_ON_PECAN: dict[str, str] = {}

NORMALISE: dict[str, list[tuple[str, str]]] = {}


def expected_failure(case: str) -> str | None:
    """Why `case` is expected to fail on Pecan today, or None."""
    return NOT_RUN_ON_PECAN.get(case) or MISSING.get(case) or BUGS.get(case)
