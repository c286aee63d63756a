"""Every known difference between lx and Linux on the Debian-root comparison
(tests/debian/NAME.sh, docs/linux/debian-compare.md), in this one place; the sibling of
tests/linux/known_differences.py (the busybox corpus).  tests/system/test_debian_compare.py
reads it.

MISSING: cases that cannot pass until lx has a feature.  BUGS: cases that show an lx bug.
Both are strict expected failures: a case that starts to pass fails the suite until its line
here goes.

NORMALISE: differences that stay, explained: (regex, replacement) pairs applied to both sides'
output before the comparison.
"""

MISSING: dict[str, str] = {}

BUGS: dict[str, str] = {}

NORMALISE: dict[str, list[tuple[str, str]]] = {}


def expected_failure(case: str) -> str | None:
    """Why `case` is expected to fail on Pecan today, or None."""
    return MISSING.get(case) or BUGS.get(case)
