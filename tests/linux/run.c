/* /test/corpus/run: the runner of the Linux comparison corpus (docs/linux/compare.md).
 *
 *   run [-p] [-x CASE]... [CASE...]
 *
 * Runs every case of /test/corpus/cases (or the ones named, less the ones after -x: a case
 * known to hang a kernel is left out that way), one after another, each in a
 * fresh working directory with a fixed environment, its stdout and stderr in one file and
 * stdin on /dev/null.  After the case has ended it prints
 *
 *   @@corpus-begin NAME
 *   <everything the case wrote, plus a newline if it did not end with one>
 *   @@corpus-end NAME status=S nl=0|1        S: wait4's status word; nl=0: newline added
 *
 * and finally "@@corpus-done".  The same binary is pid 1 on native Linux (rdinit=, with -p:
 * power off at the end) and on lx (init=; lx powers off itself).
 *
 * It uses only open/read/write/close/mkdir/chdir/unlink/dup2/fork/execve/wait4 (and, on
 * Linux, mount and reboot), so that it works on lx before pipes, signals and the tty do.
 * Writing the case's output to a file rather than to the console makes it the same on both
 * kernels: no tty on either side (programs see a regular file, as under a pipe), and lx's own
 * console lines cannot fall into the middle of it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CASES "/test/corpus/cases"
#define OUT "/tmp/corpus.out"
#define WORK "/tmp/corpus"
#define MAX_CASES 256
#define MAX_ARGS 16

static char list[16384];
static char outbuf[1 << 20];

static void put(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 1)
        n = sizeof line - 1;
    put(line, (size_t)n);
}

static const char *const envp[] = {
    "PATH=/bin:/usr/bin", "HOME=/root", "TERM=dumb", "LC_ALL=C", NULL,
};

/* The child: working directory, fds, then the program.  Only _exit on failure. */
static void start(const char *dir, char **argv)
{
    int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (fd < 0 || in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
        say("run: cannot set up the fds of %s: errno %d\n", argv[0], errno);
        _exit(126);
    }
    if (fd > 2)
        close(fd);
    if (in > 2)
        close(in);
    if (chdir(dir) < 0) {
        say("run: cannot chdir to %s: errno %d\n", dir, errno);
        _exit(126);
    }
    umask(022);
    execve(argv[0], argv, (char *const *)envp);
    say("run: cannot execute %s: errno %d\n", argv[0], errno);
    _exit(127);
}

static void run_case(char *name, char **argv)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", WORK, name);
    for (char *p = dir + strlen(WORK) + 1; *p; p++)
        if (*p == '/')
            *p = '-';
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        say("run: mkdir %s: errno %d\n", dir, errno);

    say("@@corpus-begin %s\n", name);
    int status = 0;
    pid_t pid = fork();
    if (pid == 0)
        start(dir, argv);
    if (pid < 0) {
        say("run: fork: errno %d\n", errno);
        status = -1;
    } else {
        while (wait4(pid, &status, 0, NULL) < 0) {
            if (errno != EINTR) {
                say("run: wait4: errno %d\n", errno);
                status = -1;
                break;
            }
        }
    }

    size_t len = 0;
    int fd = open(OUT, O_RDONLY);
    if (fd >= 0) {
        ssize_t r;
        while (len < sizeof outbuf && (r = read(fd, outbuf + len, sizeof outbuf - len)) != 0) {
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                break;
            }
            len += (size_t)r;
        }
        close(fd);
        unlink(OUT);
    }
    put(outbuf, len);   /* one write: nothing else can land inside it */
    int nl = len == 0 || outbuf[len - 1] == '\n';
    if (!nl)
        put("\n", 1);
    say("@@corpus-end %s status=%d nl=%d\n", name, status, nl);
}

static int wanted(const char *name, int argc, char **argv, int first)
{
    int named = 0, listed = 0;
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "-x") == 0) {
            if (++i < argc && strcmp(argv[i], name) == 0)
                return 0;
            continue;
        }
        named = 1;
        listed |= strcmp(argv[i], name) == 0;
    }
    return !named || listed;
}

int main(int argc, char **argv)
{
    int poweroff = argc > 1 && strcmp(argv[1], "-p") == 0;
    int first = poweroff ? 2 : 1;

    /* /proc for ps and friends, on Linux and on lx (an error is fine: it may be there). */
    mount("proc", "/proc", "proc", 0, NULL);
    if (mkdir(WORK, 0755) < 0 && errno != EEXIST)
        say("run: mkdir %s: errno %d\n", WORK, errno);

    int fd = open(CASES, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, list, sizeof list - 1);
    if (n < 0) {
        say("run: cannot read %s: errno %d\n", CASES, errno);
    } else {
        close(fd);
        list[n] = 0;
        /* One case per line: NAME PATH ARGS... (words separated by single spaces). */
        for (char *line = list, *next; *line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = 0;
            else
                next = line + strlen(line);
            char *words[MAX_ARGS + 1];
            int nw = 0;
            for (char *w = strtok(line, " "); w && nw < MAX_ARGS; w = strtok(NULL, " "))
                words[nw++] = w;
            words[nw] = NULL;
            if (nw >= 2 && wanted(words[0], argc, argv, first))
                run_case(words[0], words + 1);
        }
    }
    say("@@corpus-done\n");
    if (poweroff) {
        sync();
        reboot(RB_POWER_OFF);
    }
    return 0;
}
