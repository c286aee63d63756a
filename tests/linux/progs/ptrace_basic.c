/* ptrace's tracer/tracee relation (docs/linux/ptrace.md): PTRACE_TRACEME and the parent's
 * wait seeing signal-delivery-stops (with and without WUNTRACED), a suppressed and a passed
 * signal, GETSIGINFO, PTRACE_ATTACH (its SIGSTOP, /proc's "t (tracing stop)" and TracerPid,
 * a blocked read restarted after the stop), PTRACE_SEIZE (no stop; even an ignored signal
 * reaches the tracer), DETACH with a signal, PTRACE_KILL, a tracer that is not the parent
 * exiting with PTRACE_O_EXITKILL, and the error paths (ESRCH, EPERM, EIO).  Children wait on
 * pipes or stop themselves: no sleeps. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include "corpus.h"

#ifndef PTRACE_SEIZE
#define PTRACE_SEIZE 0x4206
#endif
#ifndef PTRACE_O_EXITKILL
#define PTRACE_O_EXITKILL 0x00100000
#endif

static long pt(long req, pid_t pid, long addr, long data)
{
    return syscall(SYS_ptrace, req, pid, addr, data);
}

static void wait_show(const char *what, pid_t c, int options)
{
    int st;
    pid_t r = waitpid(c, &st, options);
    if (r < 0)
        printf("%s: -1 %s\n", what, errname(errno));
    else if (r == 0)
        printf("%s: nothing\n", what);
    else
        show_status(what, st);
}

static void on_usr2(int sig)
{
    printf("child: handler %d\n", sig);
}

/* TRACEME: the parent sees each signal as a stop; CONT 0 suppresses, CONT sig passes. */
static void traceme(void)
{
    pid_t c = fork();
    if (c == 0) {
        TRY("child: traceme", pt(PTRACE_TRACEME, 0, 0, 0));
        TRY("child: traceme again", pt(PTRACE_TRACEME, 0, 0, 0));
        signal(SIGUSR2, on_usr2);
        raise(SIGUSR1);
        printf("child: after SIGUSR1 (suppressed)\n");
        raise(SIGUSR2);
        printf("child: after SIGUSR2\n");
        raise(SIGTERM);
        printf("child: not reached\n");
        _exit(1);
    }
    wait_show("traceme: wait (no WUNTRACED)", c, 0);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    TRY("traceme: getsiginfo", pt(PTRACE_GETSIGINFO, c, 0, (long)&si));
    printf("traceme: si_signo %d si_code %d\n", si.si_signo, si.si_code);
    TRY("traceme: getsiginfo bad buffer", pt(PTRACE_GETSIGINFO, c, 0, 1));
    TRY("traceme: cont bad signal", pt(PTRACE_CONT, c, 0, 65));
    TRY("traceme: bad request", pt(0x7777, c, 0, 0));
    TRY("traceme: cont 0", pt(PTRACE_CONT, c, 0, 0));
    wait_show("traceme: wait", c, 0);
    TRY("traceme: cont SIGUSR2", pt(PTRACE_CONT, c, 0, SIGUSR2));
    wait_show("traceme: wait", c, 0);
    TRY("traceme: cont SIGTERM", pt(PTRACE_CONT, c, 0, SIGTERM));
    wait_show("traceme: wait", c, 0);
    TRY("traceme: cont after the end", pt(PTRACE_CONT, c, 0, 0));
}

/* A child that is ready once it wrote to *ready and runs until go is closed. */
static pid_t blocked_child(int *go_w, int ignore_usr1)
{
    int go[2], ready[2];
    if (pipe(go) || pipe(ready))
        return -1;
    pid_t c = fork();
    if (c == 0) {
        close(go[1]);
        close(ready[0]);
        if (ignore_usr1)
            signal(SIGUSR1, SIG_IGN);
        char b = 1;
        write(ready[1], &b, 1);
        ssize_t n = read(go[0], &b, 1);
        printf("child: read %zd %s\n", n, n < 0 ? errname(errno) : "");
        _exit(0);
    }
    close(go[0]);
    close(ready[1]);
    char b;
    read(ready[0], &b, 1);
    close(ready[0]);
    *go_w = go[1];
    return c;
}

static void proc_status(pid_t c)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", c);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        int tp;
        if (!strncmp(line, "State:", 6))
            printf("attach: status %s", line);
        else if (sscanf(line, "TracerPid: %d", &tp) == 1)
            printf("attach: TracerPid is %s\n", tp == getpid() ? "mine" : tp ? "other" : "0");
    }
    fclose(f);
}

static void attach(void)
{
    int go;
    pid_t c = blocked_child(&go, 0);
    TRY("attach: peek before attach", pt(PTRACE_PEEKDATA, c, 0, 0));
    TRY("attach", pt(PTRACE_ATTACH, c, 0, 0));
    TRY("attach: again", pt(PTRACE_ATTACH, c, 0, 0));
    wait_show("attach: wait", c, 0);
    proc_status(c);
    TRY("attach: cont 0", pt(PTRACE_CONT, c, 0, 0));
    TRY("attach: cont while running", pt(PTRACE_CONT, c, 0, 0));
    wait_show("attach: wait WNOHANG", c, WNOHANG);
    close(go);
    wait_show("attach: wait", c, 0);
}

static void seize(void)
{
    int go;
    pid_t c = blocked_child(&go, 1);
    TRY("seize: addr not 0", pt(PTRACE_SEIZE, c, 1, 0));
    TRY("seize: bad option", pt(PTRACE_SEIZE, c, 0, 0x80000000l));
    TRY("seize", pt(PTRACE_SEIZE, c, 0, 0));
    TRY("seize: getsiginfo while running", pt(PTRACE_GETSIGINFO, c, 0, 0));
    wait_show("seize: wait WNOHANG", c, WNOHANG);
    kill(c, SIGUSR1);               /* ignored by the child, reported all the same */
    wait_show("seize: wait", c, 0);
    TRY("seize: cont SIGUSR1", pt(PTRACE_CONT, c, 0, SIGUSR1));
    kill(c, SIGUSR2);
    wait_show("seize: wait", c, 0);
    TRY("seize: detach SIGUSR2", pt(PTRACE_DETACH, c, 0, SIGUSR2));
    wait_show("seize: wait", c, 0);
    close(go);
}

static void kill_request(void)
{
    int go;
    pid_t c = blocked_child(&go, 0);
    TRY("kill: seize", pt(PTRACE_SEIZE, c, 0, 0));
    TRY("kill: kill while running", pt(PTRACE_KILL, c, 0, 0));
    wait_show("kill: wait", c, 0);
    close(go);
}

/* The tracer is a sibling: it seizes with EXITKILL and exits; the tracee dies with it, and
 * its parent (not the tracer) sees that. */
static void exitkill(void)
{
    int go;
    pid_t c = blocked_child(&go, 0);
    pid_t tracer = fork();
    if (tracer == 0) {
        TRY("exitkill: seize", pt(PTRACE_SEIZE, c, 0, PTRACE_O_EXITKILL));
        TRY("exitkill: wait a tracee that is not a child (WNOHANG)",
            waitpid(c, NULL, WNOHANG | __WALL));
        _exit(0);
    }
    wait_show("exitkill: tracer", tracer, 0);
    wait_show("exitkill: tracee", c, 0);
    close(go);
}

int main(void)
{
    corpus_init();
    TRY("cont, not traced", pt(PTRACE_CONT, getpid(), 0, 0));
    TRY("attach itself", pt(PTRACE_ATTACH, getpid(), 0, 0));
    TRY("attach no such process", pt(PTRACE_ATTACH, 999999, 0, 0));
    TRY("kill no such process", pt(PTRACE_KILL, 999999, 0, 0));
    traceme();
    attach();
    seize();
    kill_request();
    exitkill();
    return 0;
}
