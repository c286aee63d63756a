/* tty: the console tty of the lx personality (docs/linux/tty.md), driven from outside.
 * Run on the console as a session leader with it as the controlling terminal
 * (`setsid cttyhack tty`); tests/system/test_lx_tty.py types what the `tty: type ...` lines
 * ask for, each after its line has appeared.  Prints `ok: ...` or `FAIL: ...` per check and
 * `tty: done, N failed`; exits with the number of failures.
 *
 * Checks: the ioctls (TCGETS/TCSETS round trip with Linux's kernel struct termios,
 * TIOCGWINSZ/TIOCSWINSZ, TIOCGPGRP/TIOCGSID/TIOCSPGRP, FIONREAD, TCFLSH, TIOCGSERIAL) and
 * their errors (ENOTTY on a file and on /dev/null, EBADF, EFAULT, EINVAL, ESRCH); O_NONBLOCK
 * (EAGAIN); raw mode with VMIN/VTIME; canonical input with echo off; the editing characters
 * (ERASE, KILL, WERASE) and EOF; ^C (the echo, the flushed line; SIGINT is caught once the
 * signal layer delivers it). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

struct kernel_termios {             /* what TCGETS/TCSETS move (not libc's struct termios) */
    unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
    unsigned char c_line, c_cc[19];
};

static int failed;
static void *volatile bad_pointer = (void *)8;  /* unmapped (below mmap_min_addr) */

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    fflush(stdout);
    failed += !ok;
}

static void check_err(long r, int err, const char *what)
{
    char line[256];
    snprintf(line, sizeof line, "%s (got %ld errno %d)", what, r, r < 0 ? errno : 0);
    check(r < 0 && errno == err, line);
}

static void ask(const char *what)
{
    printf("tty: type %s\n", what);
    fflush(stdout);
}

static struct kernel_termios saved;

static void set_mode(unsigned lflag_off, unsigned lflag_on, int vmin, int vtime)
{
    struct kernel_termios t = saved;
    t.c_lflag = (t.c_lflag & ~lflag_off) | lflag_on;
    t.c_cc[VMIN] = (unsigned char)vmin;
    t.c_cc[VTIME] = (unsigned char)vtime;
    if (ioctl(0, TCSETS, &t))
        check(0, "TCSETS");
}

/* One read(2) on fd 0; retried after EINTR (a caught signal). */
static long read0(char *buf, size_t n)
{
    long r;
    while ((r = read(0, buf, n)) < 0 && errno == EINTR)
        ;
    return r;
}

static volatile sig_atomic_t sigints;

static void on_sigint(int sig)
{
    (void)sig;
    sigints++;
}

static void ioctls(void)
{
    struct kernel_termios t, u;
    check(ioctl(0, TCGETS, &t) == 0, "TCGETS on the console");
    check((t.c_lflag & (ICANON | ECHO | ISIG)) == (ICANON | ECHO | ISIG) &&
          (t.c_iflag & ICRNL) && (t.c_oflag & (OPOST | ONLCR)) == (OPOST | ONLCR) &&
          t.c_cc[VINTR] == 3 && t.c_cc[VERASE] == 0177 && t.c_cc[VKILL] == 025 &&
          t.c_cc[VEOF] == 4 && t.c_cc[VMIN] == 1 && t.c_cc[VTIME] == 0,
          "the default termios (ICANON ECHO ISIG ICRNL OPOST ONLCR, ^C ^? ^U ^D, MIN 1)");
    saved = t;
    u = t;
    u.c_lflag &= ~ECHO;
    u.c_cc[VMIN] = 7;
    check(ioctl(0, TCSETS, &u) == 0 && ioctl(0, TCGETS, &t) == 0 && !memcmp(&t, &u, sizeof t),
          "TCSETS then TCGETS gives the same termios back");
    check(ioctl(0, TCSETSW, &saved) == 0 && ioctl(0, TCGETS, &t) == 0 &&
          !memcmp(&t, &saved, sizeof t), "TCSETSW restores it");
    struct termios lt;
    check(tcgetattr(1, &lt) == 0 && (lt.c_lflag & ICANON) && isatty(2), "tcgetattr, isatty");

    struct winsize w, w2 = { .ws_row = 30, .ws_col = 100 };
    check(ioctl(0, TIOCGWINSZ, &w) == 0 && w.ws_row == 24 && w.ws_col == 80,
          "TIOCGWINSZ: 80x24");
    check(ioctl(0, TIOCSWINSZ, &w2) == 0 && ioctl(0, TIOCGWINSZ, &w) == 0 && w.ws_row == 30 &&
          w.ws_col == 100, "TIOCSWINSZ: 100x30");
    w2.ws_row = 24, w2.ws_col = 80;
    ioctl(0, TIOCSWINSZ, &w2);

    int pgrp = -1, sid = -1, n = -1;
    check(ioctl(0, TIOCGPGRP, &pgrp) == 0 && pgrp == getpgrp() && tcgetpgrp(1) == pgrp,
          "TIOCGPGRP: our group is the foreground");
    check(ioctl(0, TIOCGSID, &sid) == 0 && sid == getsid(0), "TIOCGSID: our session");
    check(ioctl(0, TIOCSPGRP, &pgrp) == 0, "TIOCSPGRP to our own group");
    check(ioctl(0, FIONREAD, &n) == 0 && n == 0, "FIONREAD: nothing typed");
    check(ioctl(0, TCFLSH, TCIFLUSH) == 0, "TCFLSH TCIFLUSH");
    int outq = -1;
    check(ioctl(1, TIOCOUTQ, &outq) == 0 && outq == 0, "TIOCOUTQ: 0");
    char serial[72 * 3];
    check(ioctl(0, TIOCGSERIAL, serial) == 0, "TIOCGSERIAL (cttyhack's question)");
    check(ioctl(0, TIOCSCTTY, 0) == 0, "TIOCSCTTY on our own terminal");

    /* Errors. */
    check_err(ioctl(0, TCGETS, bad_pointer), EFAULT, "TCGETS to a bad pointer: EFAULT");
    check_err(ioctl(0, TCSETS, bad_pointer), EFAULT, "TCSETS from a bad pointer: EFAULT");
    check_err(ioctl(0, TIOCGWINSZ, bad_pointer), EFAULT, "TIOCGWINSZ to a bad pointer: EFAULT");
    check_err(ioctl(0, TCFLSH, 7), EINVAL, "TCFLSH 7: EINVAL");
    int bad = -1;
    check_err(ioctl(0, TIOCSPGRP, &bad), EINVAL, "TIOCSPGRP -1: EINVAL");
    bad = 30000;
    check_err(ioctl(0, TIOCSPGRP, &bad), ESRCH, "TIOCSPGRP of no process: ESRCH");
    check_err(ioctl(0, 0x5499, 0), ENOTTY, "an unknown tty ioctl: ENOTTY");
    check_err(ioctl(99, TCGETS, &t), EBADF, "TCGETS on fd 99: EBADF");
    int fd = open("/tmp/tty-notatty", O_RDWR | O_CREAT | O_TRUNC, 0644);
    check_err(ioctl(fd, TCGETS, &t), ENOTTY, "TCGETS on a tmpfs file: ENOTTY");
    check(!isatty(fd) && errno == ENOTTY, "isatty of a file: 0, ENOTTY");
    close(fd);
    unlink("/tmp/tty-notatty");
    fd = open("/dev/null", O_RDWR);
    check_err(ioctl(fd, TIOCGWINSZ, &w), ENOTTY, "TIOCGWINSZ on /dev/null: ENOTTY");
    close(fd);

    /* /dev/tty is our controlling terminal; O_NONBLOCK on an open of its own. */
    fd = open("/dev/tty", O_RDWR | O_NONBLOCK);
    check(fd >= 0, "open /dev/tty");
    char c;
    check_err(read(fd, &c, 1), EAGAIN, "O_NONBLOCK read with nothing typed: EAGAIN");
    check(write(fd, "", 0) == 0, "a write of 0 bytes");
    close(fd);
    check(read(0, bad_pointer, 0) == 0, "a read of 0 bytes");
}

static volatile sig_atomic_t ttins, ttous;

static void on_ttin(int sig)
{
    (void)sig;
    ttins++;
}

static void on_ttou(int sig)
{
    (void)sig;
    ttous++;
}

/* A child in a group of its own is a background job: its read raises SIGTTIN and its write
 * with TOSTOP SIGTTOU, for its group (handlers without SA_RESTART: EINTR, in Linux too);
 * then, in a session of its own, the terminal is not its own any more. */
static int background_child(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_ttin;
    sigaction(SIGTTIN, &sa, NULL);
    sa.sa_handler = on_ttou;
    sigaction(SIGTTOU, &sa, NULL);
    int bad = 0;
    char c;
    if (ioctl(0, TIOCSCTTY, 0) == 0 || errno != EPERM)
        bad |= 1;                   /* not a session leader */
    if (setpgid(0, 0))
        bad |= 2;
    if (read(0, &c, 1) != -1 || errno != EINTR)
        bad |= 4;
    if (write(1, "x", 1) != -1 || errno != EINTR)
        bad |= 8;
    /* SIGTTIN ignored or blocked: the read fails with EIO (nobody is stopped); SIGTTOU
     * ignored: the write goes through (a carriage return, invisible in the log). */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTTIN);
    sigprocmask(SIG_BLOCK, &set, &old);
    if (read(0, &c, 1) != -1 || errno != EIO)
        bad |= 1024;
    sigprocmask(SIG_SETMASK, &old, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGTTIN, &sa, NULL);
    sigaction(SIGTTOU, &sa, NULL);
    if (read(0, &c, 1) != -1 || errno != EIO)
        bad |= 1024;
    if (write(1, "\r", 1) != 1)
        bad |= 1024;
    /* A group leader cannot make a session: a child of ours (no leader) does. */
    pid_t pid = fork();
    if (pid == 0) {
        int pgrp, b = 0;
        if (setsid() != getpid())
            b |= 16;
        if (ioctl(0, TIOCGPGRP, &pgrp) == 0 || errno != ENOTTY)
            b |= 32;
        if (ioctl(0, TIOCNOTTY) == 0 || errno != ENOTTY)
            b |= 64;
        if (open("/dev/tty", O_RDWR) >= 0 || errno != ENXIO)
            b |= 128;
        if (ioctl(0, TIOCSCTTY, 0) == 0 || errno != EPERM)
            b |= 256;               /* another session's terminal, no stealing asked */
        /* Not our terminal any more: no TOSTOP check for us (the counts are the parent's). */
        printf("tty: background child: SIGTTIN handler ran %d, SIGTTOU %d time(s)\n",
               (int)ttins, (int)ttous);
        fflush(stdout);
        _exit(b >> 4);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        bad |= 512;
    else
        bad |= WEXITSTATUS(status) << 4;
    return bad;
}

static void job_control(void)
{
    struct kernel_termios t = saved;
    t.c_lflag |= TOSTOP;
    ioctl(0, TCSETS, &t);
    pid_t pid = fork();
    if (pid == 0) {
        int bad = background_child();
        _exit(bad & 15 ? bad & 15 : bad >> 4 ? 16 | bad >> 4 : 0);  /* what went wrong */
    }
    int status = -1;
    check(pid > 0 && waitpid(pid, &status, 0) == pid, "fork a background child, wait");
    char line[384];
    snprintf(line, sizeof line, "background read: EINTR (SIGTTIN), write with TOSTOP: EINTR "
             "(SIGTTOU); SIGTTIN blocked or ignored: EIO, SIGTTOU ignored: the write goes "
             "through; TIOCSCTTY by a non-leader: EPERM; after setsid: TIOCGPGRP, TIOCNOTTY "
             "ENOTTY, /dev/tty ENXIO, TIOCSCTTY EPERM (status %#x)", (unsigned)status);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, line);
    ioctl(0, TCSETS, &saved);
    int pgrp;
    check(ioctl(0, TIOCGPGRP, &pgrp) == 0 && pgrp == getpgrp(),
          "still the foreground group and the terminal's session");
}

static void raw_mode(void)
{
    char buf[64];
    set_mode(ICANON | ECHO | ISIG, 0, 0, 0);
    check(read0(buf, sizeof buf) == 0, "raw, MIN 0 TIME 0, nothing typed: read gives 0 at once");
    set_mode(ICANON | ECHO | ISIG, 0, 0, 2);
    check(read0(buf, sizeof buf) == 0, "raw, MIN 0 TIME 2, nothing typed: 0 after 0.2 s");
    set_mode(ICANON | ECHO | ISIG, 0, 5, 0);
    ask("5 raw bytes");
    long r = read0(buf, sizeof buf);
    check(r == 5 && !memcmp(buf, "ab\177\003d", 5),
          "raw, MIN 5: five bytes, ^? and ^C (ISIG off) as data");
    set_mode(ICANON | ECHO | ISIG, 0, 2, 3);
    ask("2 raw bytes");
    r = read0(buf, sizeof buf);
    check(r == 2 && !memcmp(buf, "\033[", 2), "raw, MIN 2 TIME 3: two bytes");
}

static void canonical(void)
{
    char buf[128];
    long r;
    set_mode(ECHO, 0, 1, 0);
    ask("a secret line");
    r = read0(buf, sizeof buf);
    check(r == 7 && !memcmp(buf, "secret\n", 7), "ECHO off: the line, CR read as NL");
    ask("a line for a bad pointer");
    check_err(read(0, bad_pointer, sizeof buf), EFAULT, "a read into a bad pointer: EFAULT");
    ioctl(0, TCFLSH, TCIFLUSH);
    set_mode(0, 0, 1, 0);
    ask("an edited line");
    r = read0(buf, sizeof buf);
    buf[r > 0 ? r : 0] = 0;
    check(r == 5 && !strcmp(buf, "xy q\n"), "ERASE, KILL, WERASE edit the line");
    ask("a line ending in EOF");
    r = read0(buf, sizeof buf);
    check(r == 3 && !memcmp(buf, "end", 3), "EOF ends a line without a newline");
    r = read0(buf, sizeof buf);
    check(r == 0, "EOF on an empty line: read gives 0");
    ask("a short read");
    r = read0(buf, 2);
    long r2 = read0(buf + 2, sizeof buf - 2);
    check(r == 2 && r2 == 3 && !memcmp(buf, "four\n", 5), "a line read in two parts");
    ask("two lines at once");
    r = read0(buf, sizeof buf);
    check(r == 4 && !memcmp(buf, "one\n", 4), "one line per read");
    r = read0(buf, sizeof buf);
    check(r == 4 && !memcmp(buf, "two\n", 4), "the second line");
}

static void interrupt(void)
{
    char buf[64];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    set_mode(0, 0, 1, 0);
    ask("a line and ^C, then another line");
    long r = read0(buf, sizeof buf);
    check(r == 6 && !memcmp(buf, "after\n", 6), "^C throws the line away");
    /* Observable once the signal layer delivers signals (recorded only before). */
    printf("tty: SIGINT handler ran %d time(s)\n", (int)sigints);
}

int main(void)
{
    ioctls();
    job_control();
    raw_mode();
    canonical();
    interrupt();
    ioctl(0, TCSETS, &saved);
    printf("tty: done, %d failed\n", failed);
    return failed;
}
