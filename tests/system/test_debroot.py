"""The Debian root of `make run` (tools/debroot/mkroot.py, docs/linux/debian-root.md): Pecan
with lx boots build/debroot/root.cpio into `bash --login` on the serial console, and a user
types commands at its prompt: a pipeline, line editing, job control, `ls --color`, gcc, git,
sqlite3, python3 and setpriv to nobody.  Each command is typed only after bash's prompt has
appeared (qemu_run's expect list) under -icount, so the run repeats exactly.  Skips without
the root (`make debroot` needs apt and Debian's mirror once).

The expected strings never appear in the typed command lines (the terminal echoes them).
"""
import re

import pytest

import qemu_run
from harness import BUILD, LOGS, ROOT, kernel_path, kernel_trouble, require_built

DEBROOT = BUILD / "debroot" / "root.cpio"
HEAP_MIB = 512
BASE = [BUILD / "user" / n for n in ("sigma0.elf", "root.elf", "serial.elf")]
LX_ARGS = f"heap={HEAP_MIB} heapx=1 poweroff=1 quiet=1 console=serial initrd=root.cpio init=/init"
PROMPT = r"root@pecan:[^\n]*# (\x1b\[K)?$"
TIMEOUT = 600

COMMANDS = [
    # a pipeline through bash -c
    "bash -c 'seq 1 100 | grep 7 | sort -rn | head -3 | tr \"\\n\" \" \"; echo'",
    # readline: Ctrl-B moves back over the b, X goes in before it
    "echo lineedit-ab\x02X",
    # job control: a background job, jobs, kill %1
    "sleep 1000 &",
    "jobs",
    "kill %1; wait %1; echo wait=$?",
    "mkdir -p /tmp/d/sub && touch /tmp/d/file && ls --color=always /tmp/d",
    "printf '#include <stdio.h>\\nint main(void){printf(\"hello %%d\\\\n\", 6*7);return 0;}\\n'"
    " > /tmp/hello.c && gcc -O2 -o /tmp/hello /tmp/hello.c && /tmp/hello",
    "cd /tmp && git init -q repo && cd repo && git config user.email t@pecan &&"
    " git config user.name T && echo one > a && git add a && git commit -q -m first &&"
    " git log --format=log=%s && git cat-file -p 'HEAD^{tree}'; cd",
    "sqlite3 :memory: 'create table t(x); insert into t values (6),(7);"
    " select \"sum=\" || sum(x) from t;'",
    "python3 -c 'import json, sys; print(json.dumps({\"py\": sys.version_info[0] * 7}))'",
    # /bin/sh is Debian's dash: Python's subprocess (vfork + exec of sh)
    "python3 -c 'import subprocess as s; print(s.run([\"sh\", \"-c\", \"echo sub$((6*7))\"],"
    " capture_output=True).stdout)'",
    "echo hello | openssl enc -aes-256-cbc -pbkdf2 -k pw | openssl enc -d -aes-256-cbc -pbkdf2"
    " -k pw | tr h H",
    # AF_UNIX through Python's socket module (docs/linux/sockets.md)
    "python3 -c 'import socket; a, b = socket.socketpair(); a.sendall(b\"ping\");"
    " print(\"sock=\" + b.recv(4).decode() + str(a.getsockopt(socket.SOL_SOCKET,"
    " socket.SO_TYPE)))'",
    # a second bash on a pty (glibc's forkpty through python3), and ps's tty column
    "printf 'import os, pty\\npid, fd = pty.fork()\\nif pid == 0:\\n"
    "    os.execlp(\"bash\", \"bash\", \"-c\", \"tty; ps -o tty=,comm= -p $$\")\\n"
    "out = b\"\"\\nwhile True:\\n    try:\\n        d = os.read(fd, 1024)\\n"
    "    except OSError:\\n        break\\n    if not d:\\n        break\\n    out += d\\n"
    "print(\"pty=\" + \"|\".join(\" \".join(l.split()) for l in out.decode().splitlines()),"
    " os.waitpid(pid, 0)[1])\\n' > /tmp/onpty.py && python3 /tmp/onpty.py",
    # util-linux's script on a pty
    "script -qc 'tty; echo script-$((6*7))' /dev/null",
    # several users (docs/linux/users.md): nobody may not write in root's 0700 home
    "setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c 'id; touch /root/x'",
]

_cache = {}


def session():
    """One boot for every test here: the commands, then exit (lx ends QEMU)."""
    if not DEBROOT.is_file():
        pytest.skip("no Debian root (make debroot: needs apt and Debian's mirror once)")
    if "r" in _cache:
        return _cache["r"]
    kernel = kernel_path("kernel-debug")
    require_built(kernel, *BASE, BUILD / "user" / "lx.elf")
    modules = [str(p.relative_to(ROOT)) for p in BASE]
    modules += [("build/user/lx.elf", LX_ARGS), (str(DEBROOT.relative_to(ROOT)), "data")]
    typed = [(PROMPT, c + "\r") for c in COMMANDS + ["exit"]]
    memory = HEAP_MIB + 160 + DEBROOT.stat().st_size // 2**20
    result = qemu_run.run(str(kernel.relative_to(ROOT)), modules, cmdline="kdb=batch",
                          memory=memory, icount=True, timeout=TIMEOUT, serial_input=typed)
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / "debroot.log").write_text(
        f"# {' '.join(result.command)}\n# status {result.status}\n{result.output}")
    _cache["r"] = result
    return result


def after(result, command):
    """The output between the echo of `command` (its first 30 characters) and the next
    prompt, with bash's bracketed-paste and title sequences removed."""
    out = result.output
    k = out.find(command[:30])
    assert k >= 0, f"{command[:30]!r} was never typed\n" + result.describe()
    m = re.compile(r"root@pecan:[^\n]*# ", re.M).search(out, k + 30)
    text = out[k:m.start() if m else len(out)]
    return re.sub(r"\x1b\[\?2004[hl]|\x1b\]0;[^\x07]*\x07", "", text)


def test_debroot_boots_to_bash_and_ends():
    r = session()
    problems = kernel_trouble(r)
    if r.timed_out or r.status != 1:
        problems.append(f"QEMU status {r.status}, timed out {r.timed_out}")
    if "logout" not in r.output:
        problems.append("the login shell did not log out")
    assert not problems, "; ".join(problems) + "\n" + r.describe()


def test_debroot_pipeline():
    assert "97 87 79" in after(session(), COMMANDS[0])


def test_debroot_line_editing():
    assert "lineedit-aXb" in after(session(), "echo lineedit-ab")


def test_debroot_job_control():
    r = session()
    assert re.search(r"\[1\]\+\s+Running\s+sleep 1000", after(r, "jobs")), r.describe()
    assert "wait=143" in after(r, "kill %1"), r.describe()     # 128 + SIGTERM


def test_debroot_ls_color():
    out = after(session(), COMMANDS[5])
    assert "\x1b[01;34msub\x1b[0m" in out and "file" in out, repr(out)


def test_debroot_gcc_hello():
    assert "hello 42" in after(session(), COMMANDS[6])


def test_debroot_git_commit():
    out = after(session(), COMMANDS[7])
    assert "log=first" in out, out
    assert "100644 blob 5626abf0f72e58d7a153368ba57db4c673c0e171\ta" in out, out


def test_debroot_sqlite3():
    assert "sum=13" in after(session(), COMMANDS[8])


def test_debroot_python3():
    assert '{"py": 21}' in after(session(), COMMANDS[9])


def test_debroot_python3_subprocess_runs_sh():
    assert "b'sub42\\n'" in after(session(), COMMANDS[10])


def test_debroot_openssl_round_trip():
    assert "Hello" in after(session(), COMMANDS[11])


def test_debroot_python3_socketpair():
    """Python's socket.socketpair: an AF_UNIX stream pair, bytes through it, SO_TYPE."""
    assert "sock=ping1" in after(session(), COMMANDS[12])


def test_debroot_bash_on_a_pty():
    out = after(session(), COMMANDS[13])
    assert "pty=/dev/pts/0|pts/0 ps 0" in out, repr(out)     # bash -c execs its last command


def test_debroot_script():
    """util-linux's script: a pty, and signalfd for its signals (before signalfd: "failed to
    create pseudo-terminal: Function not implemented")."""
    out = after(session(), COMMANDS[14])
    assert "/dev/pts/0" in out and "script-42" in out, repr(out)


def test_debroot_setpriv_nobody():
    out = after(session(), COMMANDS[15])
    assert "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)" in out, out
    assert "touch: cannot touch '/root/x': Permission denied" in out, out
