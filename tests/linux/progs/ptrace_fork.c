/* ptrace's fork events (docs/linux/ptrace.md): with PTRACE_O_TRACEFORK the tracee's fork
 * stops it with PTRACE_EVENT_FORK (GETEVENTMSG: the new pid), the new child starts traced
 * with SIGSTOP; under PTRACE_SYSCALL the fork's exit stop follows the event with the child's
 * pid in rax; the tracer, not the parent, gets the grandchild's end as a notice while the
 * parent's wait still sees it; without the option the child is not traced. */
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include "corpus.h"

#ifndef PTRACE_O_TRACEFORK
#define PTRACE_O_TRACEFORK 2
#endif
#ifndef PTRACE_EVENT_FORK
#define PTRACE_EVENT_FORK 1
#endif

static long pt(long req, pid_t pid, long addr, long data)
{
    return syscall(SYS_ptrace, req, pid, addr, data);
}

/* The tracee: stops, forks a grandchild that exits 5, exits with its status + 1. */
static void tracee(void)
{
    pt(PTRACE_TRACEME, 0, 0, 0);
    raise(SIGSTOP);
    pid_t g = fork();
    if (g == 0)
        _exit(5);
    int st = 0;
    if (waitpid(g, &st, 0) != g)
        _exit(100);
    _exit(WEXITSTATUS(st) + 1);
}

/* Let c run to its end, each stop on the way printed and passed over (SIGCHLD of its
 * child's end stops it too). */
static void finish(pid_t c, const char *what)
{
    int st;
    for (;;) {
        if (waitpid(c, &st, 0) != c)
            return;
        show_status(what, st);
        if (!WIFSTOPPED(st))
            return;
        pt(PTRACE_CONT, c, 0, 0);
    }
}

static void with_option(void)
{
    int st;
    pid_t c = fork();
    if (c == 0)
        tracee();
    waitpid(c, &st, 0);
    show_status("first stop", st);
    TRY("setoptions", pt(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACEFORK));
    pt(PTRACE_CONT, c, 0, 0);
    waitpid(c, &st, 0);
    printf("event stop: signal %d event %d\n", WSTOPSIG(st), st >> 16);
    unsigned long g = 0;
    TRY("geteventmsg", pt(PTRACE_GETEVENTMSG, c, 0, (long)&g));
    printf("the message is a child of the tracee: %d\n", getpgid((pid_t)g) == getpgid(c));
    /* Under PTRACE_SYSCALL the fork's exit stop comes next, rax the child's pid. */
    pt(PTRACE_SYSCALL, c, 0, 0);
    waitpid(c, &st, 0);
    struct user_regs_struct r;
    pt(PTRACE_GETREGS, c, 0, (long)&r);
    printf("exit stop: signal %d rax is the pid: %d\n", WSTOPSIG(st), (long)r.rax == (long)g);
    if (waitpid((pid_t)g, &st, __WALL) == (pid_t)g)
        show_status("new child", st);
    TRY("new child's peek works", pt(PTRACE_PEEKUSER, (pid_t)g, 0, (long)&r));
    pt(PTRACE_CONT, (pid_t)g, 0, 0);
    if (waitpid((pid_t)g, &st, __WALL) == (pid_t)g)
        show_status("new child's end (the tracer's notice)", st);
    pt(PTRACE_CONT, c, 0, 0);
    finish(c, "tracee");
}

static void without_option(void)
{
    int st;
    pid_t c = fork();
    if (c == 0)
        tracee();
    waitpid(c, &st, 0);
    show_status("without: first stop", st);
    pt(PTRACE_CONT, c, 0, 0);
    finish(c, "without: tracee");
    TRY("without: wait for any other", waitpid(-1, &st, WNOHANG | __WALL));
}

int main(void)
{
    corpus_init();
    with_option();
    without_option();
    return 0;
}
