/* Pseudo-terminals: posix_openpt/grantpt/unlockpt/ptsname and openpty's calls, devpts's nodes
 * and options, termios through either end, canonical and raw reads, echo, line editing, the
 * signal characters reaching the foreground group of a child's session (setsid + TIOCSCTTY),
 * SIGWINCH, TIOCGPGRP/TIOCGSID/TIOCSPGRP through the master, tty_nr in /proc/PID/stat,
 * ttyname, a read interrupted by a signal, the master's close (SIGHUP to the leader, then to
 * the old foreground group when the leader ends; the slave's files read EOF and write EIO),
 * the slave's close (EIO and POLLHUP on the master), TIOCGPTPEER, packet mode, and the
 * errors (EIO, ENOTTY, EFAULT, ENOENT, ENODEV, EPERM).  Every wait is on a pipe, a blocking
 * read of an exact count or a process state, never a sleep. */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include "corpus.h"
#include "ptys.h"

#define BAD ((void *)16)

static int report = -1;             /* a child's pipe to the parent */

static void say(const char *s)
{
    write(report, s, strlen(s));
}

static void on_sig(int sig)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "signal %d\n", sig);
    write(report, buf, (size_t)n);
}

/* The next line a child reported, printed. */
static void heard(int fd)
{
    char c, line[128];
    size_t n = 0;
    while (n < sizeof line - 1 && read(fd, &c, 1) == 1 && c != '\n')
        line[n++] = c;
    line[n] = 0;
    printf("child: %s\n", n ? line : "(nothing)");
}

/* Wait until process pid sleeps (state S in /proc/PID/stat). */
static void wait_sleeping(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int k = 0; k < 1000000; k++) {
        int fd = open(path, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            return;
        buf[n] = 0;
        char *p = strrchr(buf, ')');
        if (p && p[2] == 'S')
            return;
        sched_yield();
    }
}

static int open_master(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) || unlockpt(m))
        return -1;
    return m;
}

static void show_termios(const char *what, int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t)) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: iflag %o oflag %o cflag %o lflag %o VMIN %d VTIME %d VINTR %d VEOF %d "
           "speed %d\n", what, t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag, t.c_cc[VMIN],
           t.c_cc[VTIME], t.c_cc[VINTR], t.c_cc[VEOF], (int)cfgetospeed(&t));
}

static void show_stat(const char *what, const char *path)
{
    struct stat st;
    if (stat(path, &st)) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: %s mode %o uid %d gid %d rdev %u:%u\n", what, S_ISCHR(st.st_mode) ? "chr" :
           S_ISDIR(st.st_mode) ? "dir" : "other", st.st_mode & 07777, (int)st.st_uid,
           (int)st.st_gid, major(st.st_rdev), minor(st.st_rdev));
}

static void show_poll(const char *what, int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };
    int r = poll(&p, 1, 0);
    printf("%s: %d revents %#x\n", what, r, r > 0 ? p.revents : 0);
}

static void show_mount(void)
{
    char buf[4096];
    int fd = open("/proc/self/mounts", O_RDONLY);
    ssize_t n = read_exact(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
        if (strstr(l, " /dev/pts "))
            printf("mount: %s\n", l);
}

/* --- the pair, its nodes, termios ------------------------------------------------------ */

static void basics(void)
{
    char name[64], buf[256];
    int m = posix_openpt(O_RDWR | O_NOCTTY), n = -1, lock = -1;
    TRY("posix_openpt", m);
    SHOW("TIOCGPTN", ioctl(m, TIOCGPTN, &n));
    printf("index: %d\n", n);
    SHOW("TIOCGPTLCK", ioctl(m, TIOCGPTLCK, &lock));
    printf("locked: %d\n", lock);
    snprintf(name, sizeof name, "/dev/pts/%d", n);
    SHOW("open the locked slave", open(name, O_RDWR | O_NOCTTY));
    SHOW("grantpt", grantpt(m));
    SHOW("unlockpt", unlockpt(m));
    ioctl(m, TIOCGPTLCK, &lock);
    printf("locked: %d\n", lock);
    printf("ptsname: %s\n", ptsname(m));
    show_stat("slave node", name);
    show_stat("/dev/pts/ptmx", "/dev/pts/ptmx");
    show_stat("/dev/ptmx", "/dev/ptmx");
    show_stat("/dev/pts", "/dev/pts");
    show_mount();
    int s = open(name, O_RDWR | O_NOCTTY);
    TRY("open the slave", s);
    printf("isatty master %d slave %d\n", isatty(m), isatty(s));
    printf("ttyname: %s\n", ttyname(s));
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", s);
    ssize_t k = readlink(link, buf, sizeof buf - 1);
    buf[k > 0 ? k : 0] = 0;
    printf("fd link: %s\n", buf);
    struct stat a, b;
    fstat(s, &a);
    stat(name, &b);
    printf("fstat matches stat: %d\n", a.st_ino == b.st_ino && a.st_dev == b.st_dev &&
           a.st_rdev == b.st_rdev);

    show_termios("slave termios", s);
    show_termios("termios through the master", m);
    struct termios t;
    tcgetattr(s, &t);
    t.c_lflag &= ~(tcflag_t)ECHO;
    t.c_cc[VMIN] = 3;
    SHOW("tcsetattr through the master", tcsetattr(m, TCSANOW, &t));
    show_termios("slave termios now", s);
    t.c_lflag |= ECHO;
    t.c_cc[VMIN] = 1;
    t.c_cflag |= PARENB;
    SHOW("tcsetattr TCSADRAIN with PARENB", tcsetattr(s, TCSADRAIN, &t));
    show_termios("slave termios (no PARENB on a pty)", s);

    struct winsize w = { 0 };
    SHOW("TIOCGWINSZ", ioctl(s, TIOCGWINSZ, &w));
    printf("winsize: %d x %d\n", w.ws_row, w.ws_col);
    int q = -1;
    SHOW("TIOCOUTQ", ioctl(s, TIOCOUTQ, &q));
    printf("outq: %d\n", q);

    /* canonical: a line at a time, echo, ONLCR, editing, EOF */
    SHOW("write a line to the master", write(m, "hello\n", 6));
    show_bytes("slave reads", buf, read(s, buf, sizeof buf));
    show_bytes("master reads the echo", buf, read_exact(m, buf, 7));
    SHOW("write two lines", write(m, "one\ntwo\n", 8));
    show_bytes("slave reads", buf, read(s, buf, sizeof buf));
    show_bytes("slave reads", buf, read(s, buf, sizeof buf));
    show_bytes("master reads the echo", buf, read_exact(m, buf, 10));
    SHOW("write with ERASE", write(m, "abd\177c\n", 6));
    show_bytes("slave reads", buf, read(s, buf, sizeof buf));
    show_bytes("master reads the echo", buf, read_exact(m, buf, 9));
    SHOW("write with KILL", write(m, "xyz\025ok\n", 7));
    show_bytes("slave reads", buf, read(s, buf, sizeof buf));
    show_bytes("master reads the echo", buf, read_exact(m, buf, 16));
    SHOW("write a long line in pieces", write(m, "abcdefgh\n", 9));
    show_bytes("slave reads 4", buf, read(s, buf, 4));
    show_bytes("slave reads the rest", buf, read(s, buf, sizeof buf));
    read_exact(m, buf, 10);
    SHOW("write EOF", write(m, "\004", 1));
    SHOW("slave reads at EOF", read(s, buf, sizeof buf));
    SHOW("slave writes", write(s, "out\n", 4));
    show_bytes("master reads", buf, read_exact(m, buf, 5));

    /* echo off, then on: what the master reads next is the new line's echo only */
    tcgetattr(s, &t);
    t.c_lflag &= ~(tcflag_t)ECHO;
    tcsetattr(s, TCSANOW, &t);
    write(m, "quiet\n", 6);
    show_bytes("slave reads without echo", buf, read(s, buf, sizeof buf));
    t.c_lflag |= ECHO;
    tcsetattr(s, TCSANOW, &t);
    write(m, "Z\n", 2);
    read(s, buf, sizeof buf);
    show_bytes("master reads only the new echo", buf, read_exact(m, buf, 3));

    /* raw */
    struct termios raw = t;
    cfmakeraw(&raw);
    raw.c_cc[VMIN] = 4;
    raw.c_cc[VTIME] = 0;
    SHOW("cfmakeraw", tcsetattr(s, TCSANOW, &raw));
    show_termios("raw termios", s);
    SHOW("write 4 raw bytes", write(m, "r\003\n\004", 4));
    show_bytes("slave reads raw", buf, read(s, buf, sizeof buf));
    SHOW("slave writes raw", write(s, "a\nb", 3));
    show_bytes("master reads (no ONLCR)", buf, read_exact(m, buf, 3));
    raw.c_cc[VMIN] = 0;
    tcsetattr(s, TCSANOW, &raw);
    SHOW("raw read MIN 0 TIME 0 of nothing", read(s, buf, sizeof buf));
    raw.c_cc[VMIN] = 1;
    tcsetattr(s, TCSANOW, &raw);
    write(m, "12345", 5);
    struct pollfd p = { .fd = s, .events = POLLIN };
    SHOW("poll the slave", poll(&p, 1, -1));
    int inq = -1;
    SHOW("FIONREAD", ioctl(s, FIONREAD, &inq));
    printf("inq: %d\n", inq);
    show_bytes("slave reads", buf, read_exact(s, buf, 5));
    fcntl(s, F_SETFL, O_NONBLOCK);
    SHOW("O_NONBLOCK read of nothing", read(s, buf, sizeof buf));
    fcntl(s, F_SETFL, 0);
    SHOW("TCSETSF", tcsetattr(s, TCSAFLUSH, &t));

    /* errors */
    SHOW("TIOCGPTN on the slave", ioctl(s, TIOCGPTN, &n));
    SHOW("TIOCSPTLCK on the slave", ioctl(s, TIOCSPTLCK, &lock));
    int null = open("/dev/null", O_RDWR);
    SHOW("TIOCGPTN on /dev/null", ioctl(null, TIOCGPTN, &n));
    SHOW("TIOCGPTN to a bad pointer", ioctl(m, TIOCGPTN, BAD));
    SHOW("TIOCSPTLCK from a bad pointer", ioctl(m, TIOCSPTLCK, BAD));
    SHOW("TIOCGPTLCK to a bad pointer", ioctl(m, TIOCGPTLCK, BAD));
    SHOW("TIOCGWINSZ to a bad pointer", ioctl(m, TIOCGWINSZ, BAD));
    SHOW("TCGETS to a bad pointer", ioctl(s, TCGETS, BAD));
    SHOW("TIOCGPTPEER on the slave", ioctl(s, TIOCGPTPEER, O_RDWR));
    SHOW("TIOCGPTPEER on /dev/null", ioctl(null, TIOCGPTPEER, O_RDWR));
    SHOW("TIOCGPGRP on a slave that is no ctty", ioctl(s, TIOCGPGRP, &n));
    SHOW("TIOCGSID on a slave that is no ctty", ioctl(s, TIOCGSID, &n));
    SHOW("TIOCSPGRP on a slave that is no ctty", ioctl(s, TIOCSPGRP, &n));
    SHOW("TIOCSPGRP on a slave that is no ctty, a bad pointer", ioctl(s, TIOCSPGRP, BAD));
    SHOW("TIOCSPGRP on a slave that is no ctty, -1", ioctl(s, TIOCSPGRP, (int[]){ -1 }));
    SHOW("TIOCNOTTY on a slave that is no ctty", ioctl(s, TIOCNOTTY));
    SHOW("TIOCGPGRP through a master of no session", ioctl(m, TIOCGPGRP, &n));
    printf("pgrp: %d\n", n);
    SHOW("TIOCGSID through a master of no session", ioctl(m, TIOCGSID, &n));
    SHOW("TIOCSCTTY by a non-leader", ioctl(s, TIOCSCTTY, 0));
    SHOW("TCFLSH 7", ioctl(s, TCFLSH, 7));
    SHOW("TIOCEXCL", ioctl(s, TIOCEXCL));
    int ex = -1;
    SHOW("TIOCGEXCL", ioctl(s, TIOCGEXCL, &ex));
    printf("excl: %d\n", ex);
    SHOW("TIOCNXCL", ioctl(s, TIOCNXCL));
    SHOW("open /dev/pts/99", open("/dev/pts/99", O_RDWR));
    SHOW("open /dev/pts/ptmx (mode 0, root)", (n = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY)));
    close(n);
    mknod("/tmp/fakepts", S_IFCHR | 0600, makedev(136, 0));
    SHOW("open a slave node outside devpts", open("/tmp/fakepts", O_RDWR | O_NOCTTY));
    unlink("/tmp/fakepts");
    errno = 0;
    char *pn = ptsname(null);
    printf("ptsname of /dev/null: %s %s\n", pn ? pn : "NULL", errname(errno));
    close(null);

    /* TIOCGPTPEER: the slave without its path */
    int peer = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
    TRY("TIOCGPTPEER", peer);
    fstat(peer, &b);
    printf("peer is the slave: %d\n", a.st_rdev == b.st_rdev && a.st_ino == b.st_ino);
    close(peer);
    close(s);
    close(m);
    show_stat("slave node after both closed", name);
}

/* --- a session on the slave: signals, SIGWINCH, job-control ioctls, tty_nr --------------- */

static void session(void)
{
    int m = open_master(), rp[2], go[2], st;
    char name[64], buf[256];
    ptsname_r(m, name, sizeof name);
    pipe(rp);
    pipe(go);
    pid_t pid = fork();
    if (pid == 0) {
        report = rp[1];
        close(rp[0]);
        close(go[1]);
        struct sigaction sa = { .sa_handler = on_sig };
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGQUIT, &sa, NULL);
        sigaction(SIGTSTP, &sa, NULL);
        sigaction(SIGWINCH, &sa, NULL);
        sigaction(SIGUSR1, &sa, NULL);
        setsid();
        int s = open(name, O_RDWR);     /* a leader without a ctty: it gets this one */
        char line[160];
        int pg = -1, sid = -1, n;
        ioctl(s, TIOCGPGRP, &pg);
        ioctl(s, TIOCGSID, &sid);
        snprintf(line, sizeof line, "ctty by open: pgrp is mine %d sid is mine %d\n",
                 pg == getpid(), sid == getpid());
        say(line);
        snprintf(line, sizeof line, "TIOCSCTTY again: %d\n", ioctl(s, TIOCSCTTY, 0));
        say(line);
        pg = 30000;
        n = ioctl(s, TIOCSPGRP, &pg);
        snprintf(line, sizeof line, "TIOCSPGRP of no process: %d %s\n", n, errname(errno));
        say(line);
        pg = getppid();             /* the parent's group: another session's */
        n = ioctl(s, TIOCSPGRP, &pg);
        snprintf(line, sizeof line, "TIOCSPGRP of another session's group: %d %s\n", n,
                 errname(errno));
        say(line);
        n = ioctl(s, TIOCSPGRP, BAD);
        snprintf(line, sizeof line, "TIOCSPGRP from a bad pointer: %d %s\n", n, errname(errno));
        say(line);
        pg = -1;
        n = ioctl(s, TIOCSPGRP, &pg);
        snprintf(line, sizeof line, "TIOCSPGRP -1: %d %s\n", n, errname(errno));
        say(line);
        int m2 = open_master(), s2 = open(ptsname(m2), O_RDWR | O_NOCTTY);
        n = ioctl(s2, TIOCSCTTY, 0);
        snprintf(line, sizeof line, "TIOCSCTTY of a second pty: %d %s\n", n,
                 n ? errname(errno) : "");
        say(line);
        close(s2);
        close(m2);
        int fd = open("/proc/self/stat", O_RDONLY);
        n = (int)read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = 0;
        int tty_nr = -1, tpgid = -2;
        char *p = strrchr(buf, ')');
        sscanf(p + 2, "%*c %*d %*d %*d %d %d", &tty_nr, &tpgid);
        struct stat sst;
        fstat(s, &sst);
        snprintf(line, sizeof line, "tty_nr is the slave %d tpgid is mine %d\n",
                 (unsigned)tty_nr == (major(sst.st_rdev) << 8 | minor(sst.st_rdev)),
                 tpgid == getpid());
        say(line);
        fd = open("/dev/tty", O_RDWR);
        snprintf(line, sizeof line, "open /dev/tty: %s\n", fd >= 0 ? "ok" : errname(errno));
        say(line);
        close(fd);
        say("ready\n");
        /* each byte the parent sends: a signal character or a window change comes first */
        for (;;) {
            n = (int)read(go[0], buf, 1);
            if (n < 0 && errno == EINTR)
                continue;           /* a signal character's handler ran */
            if (n != 1)
                break;
            if (buf[0] == 'w') {
                struct winsize w;
                ioctl(s, TIOCGWINSZ, &w);
                snprintf(line, sizeof line, "winsize %d x %d\n", w.ws_row, w.ws_col);
                say(line);
            } else if (buf[0] == 'r') {
                say("reading\n");
                n = (int)read(s, buf, sizeof buf);      /* SIGUSR1 interrupts it */
                snprintf(line, sizeof line, "read: %d %s\n", n, n < 0 ? errname(errno) : "");
                say(line);
            }
        }
        _exit(0);
    }
    close(rp[1]);
    close(go[0]);
    for (int k = 0; k < 10; k++)
        heard(rp[0]);
    int v = -1;
    SHOW("TIOCGPGRP through the master", ioctl(m, TIOCGPGRP, &v));
    printf("pgrp is the child's: %d\n", v == pid);
    SHOW("TIOCGSID through the master", ioctl(m, TIOCGSID, &v));
    printf("sid is the child's: %d\n", v == pid);
    v = getpgrp();
    SHOW("TIOCSPGRP through the master by another session", ioctl(m, TIOCSPGRP, &v));
    SHOW("write ^C", write(m, "\003", 1));
    heard(rp[0]);
    show_bytes("master reads the echo", buf, read_exact(m, buf, 2));
    SHOW("write ^\\", write(m, "\034", 1));
    heard(rp[0]);
    show_bytes("master reads the echo", buf, read_exact(m, buf, 2));
    SHOW("write ^Z", write(m, "\032", 1));
    heard(rp[0]);
    show_bytes("master reads the echo", buf, read_exact(m, buf, 2));
    SHOW("TIOCSIG SIGINT", ioctl(m, TIOCSIG, SIGINT));
    heard(rp[0]);
    SHOW("TIOCSIG SIGHUP", ioctl(m, TIOCSIG, SIGHUP));
    struct winsize w = { .ws_row = 40, .ws_col = 100 };
    SHOW("TIOCSWINSZ through the master", ioctl(m, TIOCSWINSZ, &w));
    heard(rp[0]);
    write(go[1], "w", 1);
    heard(rp[0]);
    SHOW("TIOCSWINSZ the same size", ioctl(m, TIOCSWINSZ, &w));
    write(go[1], "w", 1);
    heard(rp[0]);                   /* no SIGWINCH before it */
    write(go[1], "r", 1);
    heard(rp[0]);
    wait_sleeping(pid);
    kill(pid, SIGUSR1);
    heard(rp[0]);
    heard(rp[0]);
    close(go[1]);
    waitpid(pid, &st, 0);
    show_status("session child", st);
    close(rp[0]);
    close(m);
}

/* --- the master closes: SIGHUP to the leader, hung-up files, the old group's SIGHUP ------ */

static volatile sig_atomic_t got_hup, got_cont;

static void on_hup(int sig)
{
    if (sig == SIGHUP)
        got_hup = 1;
    else
        got_cont = 1;
}

/* Both SIGHUP and SIGCONT have come (they are blocked outside sigsuspend). */
static void wait_hup_cont(void)
{
    sigset_t none;
    sigemptyset(&none);
    while (!got_hup || !got_cont)
        sigsuspend(&none);
}

static void hangup(void)
{
    int m = open_master(), rp[2], st;
    char name[64];
    ptsname_r(m, name, sizeof name);
    pipe(rp);
    pid_t pid = fork();
    if (pid == 0) {
        report = rp[1];
        close(rp[0]);
        close(m);
        struct sigaction sa = { .sa_handler = on_hup, .sa_flags = SA_RESTART };
        sigaction(SIGHUP, &sa, NULL);
        sigaction(SIGCONT, &sa, NULL);
        sigset_t both;
        sigemptyset(&both);
        sigaddset(&both, SIGHUP);
        sigaddset(&both, SIGCONT);
        sigprocmask(SIG_BLOCK, &both, NULL);
        setsid();
        int s = open(name, O_RDWR);
        char buf[64], line[160];
        if (fork() == 0) {          /* in the foreground group, not the leader */
            close(s);               /* the mount is not busy once it has reported */
            wait_hup_cont();        /* when the leader ends */
            say("grandchild: SIGHUP and SIGCONT\n");
            _exit(0);
        }
        say("ready\n");
        wait_hup_cont();
        say("leader: SIGHUP and SIGCONT\n");
        int n = (int)read(s, buf, sizeof buf);
        snprintf(line, sizeof line, "read after the hangup: %d %s\n", n,
                 n < 0 ? errname(errno) : "");
        say(line);
        n = (int)write(s, "x", 1);
        snprintf(line, sizeof line, "write: %d %s\n", n, n < 0 ? errname(errno) : "");
        say(line);
        struct termios t;
        n = tcgetattr(s, &t);
        snprintf(line, sizeof line, "tcgetattr: %d %s\n", n, n < 0 ? errname(errno) : "");
        say(line);
        int pg = getpgrp();
        n = ioctl(s, TIOCSPGRP, &pg);
        snprintf(line, sizeof line, "TIOCSPGRP: %d %s\n", n, n < 0 ? errname(errno) : "");
        say(line);
        struct pollfd p = { .fd = s, .events = POLLIN | POLLOUT };
        n = poll(&p, 1, 0);
        snprintf(line, sizeof line, "poll: %d revents %#x\n", n, p.revents);
        say(line);
        n = open(name, O_RDWR);
        snprintf(line, sizeof line, "open the slave again: %d %s\n", n,
                 n < 0 ? errname(errno) : "");
        say(line);
        n = open("/dev/tty", O_RDWR);
        snprintf(line, sizeof line, "open /dev/tty: %d %s\n", n, n < 0 ? errname(errno) : "");
        say(line);
        _exit(0);                   /* the grandchild's group gets SIGHUP and SIGCONT */
    }
    close(rp[1]);
    heard(rp[0]);
    SHOW("close the master", close(m));
    for (int k = 0; k < 8; k++)
        heard(rp[0]);
    waitpid(pid, &st, 0);
    show_status("leader", st);
    heard(rp[0]);
    show_stat("slave node after the master closed", name);
    close(rp[0]);
}

/* --- the slave closes: EIO and POLLHUP on the master; packet mode ------------------------ */

static void slave_close(void)
{
    int m = open_master(), pkt = -1;
    char name[64], buf[64];
    ptsname_r(m, name, sizeof name);
    show_poll("master poll before the slave opened", m);
    int s = open(name, O_RDWR | O_NOCTTY);
    write(s, "bye\n", 4);
    show_bytes("master reads", buf, read_exact(m, buf, 5));
    close(s);
    show_poll("master poll after the slave closed", m);
    SHOW("master read after the slave closed", read(m, buf, sizeof buf));
    SHOW("master write after the slave closed", write(m, "x\n", 2));
    s = open(name, O_RDWR | O_NOCTTY);
    TRY("open the slave again", s);
    show_bytes("slave reads what was written meanwhile", buf, read(s, buf, sizeof buf));
    show_bytes("master reads its echo", buf, read_exact(m, buf, 3));
    show_poll("master poll with the slave open again", m);

    SHOW("TIOCPKT 1", ioctl(m, TIOCPKT, (int[]){ 1 }));
    SHOW("TIOCGPKT", ioctl(m, TIOCGPKT, &pkt));
    printf("packet: %d\n", pkt);
    write(s, "pk\n", 3);
    show_bytes("packet read", buf, read(m, buf, sizeof buf));
    SHOW("slave TCIFLUSH", tcflush(s, TCIFLUSH));
    show_poll("master poll with a flush event", m);
    show_bytes("packet read of the event", buf, read(m, buf, sizeof buf));
    SHOW("slave TCIOFLUSH", tcflush(s, TCIOFLUSH));
    show_bytes("packet read of the event", buf, read(m, buf, sizeof buf));
    SHOW("TIOCPKT to a bad pointer", ioctl(m, TIOCPKT, BAD));
    SHOW("TIOCPKT 0", ioctl(m, TIOCPKT, (int[]){ 0 }));
    close(s);
    close(m);
}

/* --- devpts: instances and options ------------------------------------------------------- */

static void devpts(void)
{
    SHOW("umount /dev/pts", umount("/dev/pts"));
    SHOW("open /dev/ptmx without devpts", open("/dev/ptmx", O_RDWR | O_NOCTTY));
    SHOW("mount devpts with a bad option", mount("devpts", "/dev/pts", "devpts", 0, "bogus"));
    SHOW("mount devpts without options", mount("devpts", "/dev/pts", "devpts", 0, NULL));
    show_mount();
    int m = open_master();
    char name[64];
    ptsname_r(m, name, sizeof name);
    printf("ptsname: %s\n", name);
    show_stat("slave node", name);
    close(m);
    SHOW("umount /dev/pts", umount("/dev/pts"));
    SHOW("mount devpts as Debian does", mount_devpts());
    show_mount();
}

int main(void)
{
    corpus_init();
    alarm(60);
    if (SHOW("mount devpts", mount_devpts()) < 0)
        return 1;
    basics();
    session();
    hangup();
    slave_close();
    devpts();
    return 0;
}
