"""/dev/l4chan on lx (docs/linux/l4chan.md, docs/linux-abi.md §9): user/linux/tests/l4chan.c,
built for musl and glibc, joins a channel with its child and calls it through the kernel
alone (lx not in the path); every other destination, a receive from a non-partner and a map
item without the right are refused with the documented errors; getpid still works in the
same thread; SIGUSR1 interrupts a call blocked in its receive ("canceled", the handler ran);
the partner's exit ends the call with "no partner" and removes the right (the number is then
a Linux system call again: -ENOSYS); a second child joins the freed end and execs: the new
program has no channel; of two channels between the same two processes, the last close of
one leaves the other working; a ninth partner's JOIN fails (ENOSPC: the kernel's set holds
eight) instead of leaving a channel without rights.  Native Unmap (0x4C3401): without a
channel -ENOSYS; the sender takes its window mapping back itself (the receiver then faults:
SIGSEGV in the window); a flush of the process's own pages empties its window and leaves its
memory, which lx maps again at the next touch (the old contents); nine fpages are refused.
String items (0x4C3402, docs/linux-abi.md 9.2b): without a channel -ENOSYS; over a plain
channel a 10,000-byte string arrives whole into the child's untouched memory (lx pages it in
during the copy); a longer string than the buffer stops at the buffer's end (overflow, the
bytes that fit); a string from a PROT_NONE page, a buffer outside user space, a read-only
buffer, an acceptor without strings: overflow, nobody signalled (lx refuses the copy's fault
instead of SIGSEGV); a string from a file mapping lx pages in during the copy arrives whole.
A windowed and a plain channel between the same two processes: the plain JOIN keeps the map
right, the windowed channel's last close leaves the plain right without it (review20 F2').
lx only: Linux has no /dev/l4chan."""
import pytest

from lx_initramfs import boot_program, variant_programs
from test_lx import check_ended, section

PROGRAM = variant_programs("l4chan")

EXPECTED = """without a channel: -38
unmap without a channel: -38
string buffers without a channel: -38
peer before join: 1
join: 1
join again: 17
bad ioctl: 25
peer: self 1, partner 1
call: error 0, answer 42
call again: error 0, answer 1001
send to non-partner 0: error 2, send phase
send to non-partner 1: error 2, send phase
send to non-partner 2: error 2, send phase
receive from non-partner: error 2, receive phase
map without the right: error 4
getpid in the same thread: 1
interrupted call: error 3, receive phase, handler 1
partner exited: error 2, receive phase
child status 0
after its exit: -38
second child before exec: 4
after exec: -38
second child status 0
window misaligned: 22
window size 12 KiB: 22
window not mapped: 22
unmap without a window: 22
join with a window: 0
empty window faults: 1
mapped: error 0, the sender's bytes 1
unmap: 0, then faults 1
acceptor outside the window: error 4, other kept 1, window faults 1
memory the sender lacks: error 0, window faults 1
mapped again: error 0, 1
the sender's own unmap: error 0, result 0, status 6, window faults 1
mapped after it: error 0, 1
flush own: result 0, window faults 1, status 4, other reads 'o' again 1
unmap of nine fpages: 5
after munmap: fresh memory 1
without the window: error 4, memory kept 1
map child status 0
second window: error 0, 1
after the last close: faults 1
second child ended 1
other channel closed: error 0, answer 8
string buffers of nine words: 5
string: error 0, receiver error 0, whole and exact 1
longer than the buffer: error 4 at 100, receiver error 4 at 100, bytes 1
from memory the sender cannot read: error 4 at 0, receiver error 4 at 0
a signal after the refused copy: error 3, handler 1
from file pages lx pages in: error 0, receiver error 0, the file's bytes 1
buffer outside user space: error 4 at 0, receiver error 4
buffer read-only: error 4 at 0, receiver error 4
strings not accepted: error 4 at 0, receiver error 4
string child status 0
window and plain: map error 0, the page 1
window and plain: the child's map error 0
plain after the windowed close: message error 0, map error 4, window faults 1
window and plain child status 0
nine partners: 8 joined, the ninth's error ENOSPC
done
"""


@pytest.mark.parametrize("variant", sorted(PROGRAM))
def test_l4chan_between_two_processes(variant):
    result = boot_program("lxl4chan.cpio", PROGRAM, variant)
    check_ended(result)
    out = section(result, 1)
    lines = [line for line in out.splitlines() if not line.startswith("lx:")]
    assert "\n".join(lines).strip() + "\n" == EXPECTED, out
    assert "lx: pid 1 exited with status 0" in out, out
