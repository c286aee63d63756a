"""The applet list of a busybox binary, read from the binary's bytes.

busybox is a Linux program, and Linux programs are never run on the host (DEVELOPERS rule), so
`busybox --list` is not an option.  The binary holds its applet names as one table of
NUL-terminated strings, sorted (busybox looks applets up by binary search), ending with an empty
string: "[\\0[[\\0acpid\\0...\\0zcat\\0\\0".  applet_names() finds that table: the longest run of
strictly increasing applet-like names that ends with an empty string and contains "sh".  It
does not depend on which applets the configuration enabled.
"""

from __future__ import annotations

import re

# Applet names seen in busybox: lowercase words with digits, '-', '_', '.', and the "[" / "[["
# test aliases.  Upper case never appears, which keeps neighbouring C strings out of the run.
_NAME_RE = re.compile(rb"[a-z0-9_.\-\[]{1,32}")
MIN_APPLETS = 20


class AppletError(ValueError):
    pass


def applet_names(binary: bytes) -> list[str]:
    best: list[bytes] = []
    run: list[bytes] = []
    for tok in binary.split(b"\0"):
        if not tok:
            # The table ends with an empty string: a run that ends here is a candidate.
            if len(run) > len(best) and b"sh" in run:
                best = run
            run = []
        elif _NAME_RE.fullmatch(tok) and (not run or tok > run[-1]):
            run.append(tok)
        else:
            # A name out of order (or a non-name) starts a new run at this token.
            run = [tok] if _NAME_RE.fullmatch(tok) else []
    if len(best) < MIN_APPLETS:
        raise AppletError(f"no busybox applet table found (longest sorted run: {len(best)} names)")
    return [n.decode() for n in best]
