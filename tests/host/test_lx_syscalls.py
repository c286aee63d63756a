"""docs/linux/syscalls.md is generated from lx's table and must be current; every handler
the table names exists, and every number it fills has a name."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import lx_syscalls  # noqa: E402


def test_status_table_is_current():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "lx_syscalls.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


def test_table_entries_are_named_and_defined():
    handlers, names = lx_syscalls.table(), lx_syscalls.names()
    assert handlers, "no entries parsed"
    sources = "".join(p.read_text() for p in (ROOT / "user" / "linux").rglob("*.c"))
    for nr, h in handlers.items():
        assert nr in names, f"{nr} has a handler but no name"
        assert re.search(rf"^long {h}\(", sources, re.M), f"{h} is not defined"


def test_every_entry_has_a_status_and_partial_ones_a_note():
    text = lx_syscalls.TABLE.read_text()
    body = text[text.index("table[LX_NSYSCALLS]"):]
    body = body[:body.index("};")]
    spelled = re.findall(r"^\s*\[(\d+)\]\s*=", body, re.M)
    entries = lx_syscalls.entries()
    assert len(spelled) == len(entries), "an entry the generator cannot read"
    for nr, (status, handler, note) in entries.items():
        assert (handler is None) == (status == "NONE"), nr
        if status in ("PARTIAL", "STUB", "NONE"):
            assert note, f"{nr}: a {status.lower()} entry says why"


# Numbers that parallel work of issue 14 item 2 is giving handlers (sockets, SysV IPC,
# eventfd/timerfd/signalfd/inotify/POSIX timers, capabilities, syslog): each leaves this set
# when its branch lands with its entries.

def test_every_assigned_number_has_an_entry():
    """Issue 14 item 2: every number Linux 6.1 assigns has a handler or a reason."""
    entries, names = lx_syscalls.entries(), lx_syscalls.names()
    lacking = sorted(nr for nr in names if nr not in entries)
    assert not lacking, "no entry: " + ", ".join(f"{names[nr]} ({nr})" for nr in lacking)
    for nr, (status, _, note) in entries.items():
        if status == "NONE":
            assert note, f"{names.get(nr, nr)}: ENOSYS without a reason"
