"""Job control on lx's console (issue 8 items 5, 9, 10; docs/linux/tty.md section 4): busybox
sh as `make run` starts it, driven through the serial line as a user types (test_lx_tty's
boot_console).  Background jobs, `jobs`, `kill %1`, ^Z, `bg`, `fg`, ^C, a stopped reader of
the tty continued in the foreground, SIGTTIN for a background reader, pipelines, vi.

Deterministic under -icount: every input is typed once the output that shows its reader is
ready has appeared.  QEMU's -icount sleep=off warps the virtual clock while the guest idles,
so a `sleep 100` ends at once while the test waits; the long-running jobs here are `cat`s
waiting on a FIFO nobody writes (or on the tty), which only a signal ends.  A foreground job
prints `ready` itself (after ash gave it the terminal), so ^Z reaches its group; `fg` is
typed on a stopped job, and lx's own `lx: pid N continued` line (lx runs without quiet=1
here) says that the job has the terminal again before ^C or input is typed."""
import re

from harness import kernel_trouble
from test_lx import check_ended
from test_lx_tty import PROMPT, boot_console

FIFO_JOB = "sh -c 'echo ready; exec cat /tmp/p'"
TTY_JOB = "sh -c 'echo ready2; exec cat'"
CONTINUED = r"lx: pid \d+ continued\n"

JOBS_SESSION = [
    (PROMPT, "mkfifo /tmp/p\r"),
    (PROMPT, "cat /tmp/p &\r"),                     # blocks in open: a long-running job
    (PROMPT, "jobs\r"),
    (r"Running", ""),
    (PROMPT, "kill %1\r"),
    (r"Terminated", ""),
    (PROMPT, "jobs\r"),
    (PROMPT, FIFO_JOB + "\r"),                      # foreground
    (r"\nready\r?\n", "\x1a"),                      # ^Z
    (r"Stopped", ""),
    (PROMPT, "jobs\r"),
    (PROMPT, "bg\r"),
    (CONTINUED, ""),
    (PROMPT, "jobs\r"),
    (r"Running", ""),
    (PROMPT, "kill -STOP %1\r"),
    (r"Stopped \(signal\)", ""),
    (PROMPT, "fg\r"),
    (r"exec cat /tmp/p\"\r?\n" + CONTINUED, "\x03"),  # ^C ends the foreground job
    (PROMPT, TTY_JOB + "\r"),                       # cat reading the tty
    (r"\nready2\r?\n", "\x1a"),
    (r"Stopped", ""),
    (PROMPT, "fg\r"),
    (r"exec cat\"\r?\n" + CONTINUED, "hello\r"),
    (r"hello\r?\nhello\r?\n", "\x04"),              # echoed, copied; ^D ends cat
    (PROMPT, "sleep 1; cat &\r"),                   # a background reader of the tty
    (PROMPT, "sleep 2; jobs\r"),
    (r"Stopped \(tty input\)", ""),
    (PROMPT, "ls /bin | head -3\r"),
    (PROMPT, "echo a b | wc -w\r"),
    (PROMPT, "vi /tmp/f\r"),
    (r"~", "ihello vi\x1b"),                        # insert, ESC
    (r"hello vi", ":wq\r"),
    (PROMPT, "cat /tmp/f\r"),
    (PROMPT, "kill -9 %1\r"),
    (r"Killed", ""),
    (PROMPT, "exit\r"),
]


def jobs_run():
    return boot_console("init=/bin/sh /init", JOBS_SESSION, "jobs")


def shell_output():
    out = jobs_run().output
    return out[out.index("BusyBox"):].replace("\r", "")


def test_background_job_jobs_and_kill():
    out = shell_output()
    assert re.search(r"jobs\n\[1\]\+  Running +cat /tmp/p\n", out), out
    assert re.search(r"kill %1\n(lx: pid \d+ killed by signal 15\n)?"
                     r"\[1\]\+  Terminated +cat /tmp/p\n", out), out


def test_ctrl_z_bg_fg_ctrl_c():
    out = shell_output()
    # ^Z is echoed and stops the foreground job with SIGTSTP; ash says so and prompts.
    assert re.search(r"ready\n\^Z(lx: pid \d+ stopped by signal 20\n)?"
                     r"\[1\]\+  Stopped +sh -c \"echo ready; exec cat /tmp/p\"\n" + PROMPT,
                     out), out
    assert re.search(r"jobs\n\[1\]\+  Stopped +sh -c", out), out
    assert re.search(r"bg\n\[1\] sh -c \"echo ready; exec cat /tmp/p\"\n", out), out
    assert re.search(r"jobs\n\[1\]\+  Running +sh -c \"echo ready; exec cat /tmp/p\"", out), out
    assert re.search(r"Stopped \(signal\) +sh -c \"echo ready; exec cat /tmp/p\"", out), out
    # fg: the job continues in the foreground; ^C (SIGINT for its group) ends it.
    assert re.search(r"fg\nsh -c \"echo ready; exec cat /tmp/p\"\n" + CONTINUED +
                     r"\^Clx: pid \d+ killed by signal 2\n", out), out


def test_tty_reader_stopped_and_continued():
    out = shell_output()
    assert re.search(r"ready2\n\^Z(lx: pid \d+ stopped by signal 20\n)?"
                     r"\[1\]\+  Stopped +sh -c \"echo ready2; exec cat\"\n", out), out
    # Continued, cat's read (interrupted by the stop) runs again and gets the line.
    assert re.search(r"fg\nsh -c \"echo ready2; exec cat\"\n" + CONTINUED +
                     r"hello\nhello\nlx: pid \d+ exited with status 0\n", out), out


def test_background_reader_gets_sigttin():
    out = shell_output()
    assert re.search(r"lx: pid \d+ stopped by signal 21\n", out), out
    assert re.search(r"\[1\]\+  Stopped \(tty input\) +cat\n", out), out
    assert re.search(r"kill -9 %1\n(lx: pid \d+ killed by signal 9\n)?\[1\]\+  Killed +cat\n",
                     out), out


def test_pipelines():
    out = re.sub(r"lx: pid \d+ exited with status 0\n", "", shell_output())
    assert re.search(r"ls /bin \| head -3\n\[\n\[\[\nacpid\n", out), out
    assert re.search(r"echo a b \| wc -w\n2\n", out), out


def test_vi_writes_a_file():
    out = shell_output()
    assert "'/tmp/f' 1L, 9C" in out, out
    assert re.search(r"cat /tmp/f\nhello vi\n", out), out


def test_jobs_session_ends_with_all_memory_free():
    result = jobs_run()
    assert not kernel_trouble(result), result.describe()
    check_ended(result)
