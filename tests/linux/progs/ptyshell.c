/* A shell on a pty: a child makes a session with the slave as its controlling terminal and
 * runs /bin/sh (busybox ash, interactive: job control, its line editor); the parent types
 * commands into the master and prints the transcript: prompts, echo, output, ^C of a
 * foreground job, a job stopped with ^Z and brought back with fg, exit.  Each input is
 * typed only after the output it answers has been read, so the transcript is the same on
 * every run. */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include "corpus.h"
#include "ptys.h"

static int master;
static char seen[65536];
static size_t len, shown;

/* Read the master until the transcript since the last mark holds want. */
static int expect(const char *want)
{
    for (;;) {
        seen[len] = 0;
        if (strstr(seen + shown, want))
            return 0;
        if (len >= sizeof seen - 1)
            return -1;
        ssize_t r = read(master, seen + len, sizeof seen - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            printf("read: %zd %s\n", r, r < 0 ? errname(errno) : "");
            return -1;
        }
        len += (size_t)r;
    }
}

/* Print the transcript since the last mark and set the mark. */
static void show(const char *what)
{
    show_bytes(what, seen + shown, (ssize_t)(len - shown));
    shown = len;
}

/* Wait until a process called comm sleeps (reads the terminal, in its mode). */
static void wait_reading(const char *comm)
{
    char want[32], path[300], buf[512];
    snprintf(want, sizeof want, "(%s) S", comm);
    for (int k = 0; k < 1000000; k++) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            int fd = open(path, O_RDONLY);
            ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = 0;
                if (strstr(buf, want)) {
                    closedir(d);
                    return;
                }
            }
        }
        if (d)
            closedir(d);
        sched_yield();
    }
}

static void type(const char *keys)
{
    write(master, keys, strlen(keys));
}

/* Type a command, wait for its marker line and the next prompt. */
static void run(const char *what, const char *cmd, const char *until)
{
    type(cmd);
    if (expect(until) == 0)
        expect("$ ");
    show(what);
}

int main(void)
{
    corpus_init();
    alarm(60);
    if (mount_devpts() < 0) {
        printf("mount devpts: %s\n", errname(errno));
        return 1;
    }
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master))
        return 1;
    char name[64];
    ptsname_r(master, name, sizeof name);
    struct winsize w = { .ws_row = 24, .ws_col = 80 };
    ioctl(master, TIOCSWINSZ, &w);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int s = open(name, O_RDWR);     /* the controlling terminal */
        if (s < 0)
            _exit(126);
        dup2(s, 0), dup2(s, 1), dup2(s, 2);
        close(s);
        close(master);
        char *env[] = { "PATH=/bin", "HOME=/", "TERM=dumb", "PS1=$ ", "ENV=", NULL };
        execle("/bin/sh", "sh", "-i", (char *)NULL, env);
        _exit(127);
    }
    expect("$ ");
    show("prompt");
    run("echo", "echo hello\n", "hello\r\n$ ");
    run("tty", "tty\n", "/dev/pts/");
    run("stty", "stty size\n", "24 80\r\n");
    run("arithmetic", "echo $((6*7))\n", "42\r\n");
    run("ps", "ps -o tty,comm >/tmp/ps.out; grep -v '^?' /tmp/ps.out\n", "ps\r\n");
    /* a foreground job interrupted: cat echoes a line first, so it is reading */
    type("cat\n");
    expect("cat\r\n");
    wait_reading("cat");
    type("abc\n");
    expect("abc\r\nabc\r\n");
    type("\003");
    expect("$ ");
    show("cat and ^C");
    /* a job stopped and continued */
    type("cat\n");
    expect("cat\r\n");
    wait_reading("cat");
    type("x\n");
    expect("x\r\nx\r\n");
    type("\032");
    expect("$ ");
    show("^Z");
    run("jobs", "jobs\n", "cat\r\n");
    type("fg\n");
    expect("cat\r\n");
    wait_reading("cat");
    type("y\n");
    expect("y\r\ny\r\n");
    type("\004");
    expect("$ ");
    show("fg and ^D");
    run("status", "echo status $?\n", "status 0\r\n");
    type("exit\n");
    char buf[256];
    ssize_t r;
    while ((r = read(master, buf, sizeof buf)) > 0)
        ;
    printf("master read at the end: %zd %s\n", r, r < 0 ? errname(errno) : "");
    int st;
    waitpid(pid, &st, 0);
    show_status("sh", st);
    close(master);
    return 0;
}
