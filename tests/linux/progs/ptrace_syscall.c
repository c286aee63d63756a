/* ptrace's system-call stops (docs/linux/ptrace.md): PTRACE_SYSCALL with
 * PTRACE_O_TRACESYSGOOD (SIGTRAP | 0x80), enter and exit stops in turn, orig_rax and rax at
 * each, the tracer changing the call's number (getppid becomes getpid), skipping a call
 * (orig_rax -1: the tracer's rax is the answer), changing a result, a signal-delivery-stop
 * after a call's exit stop, PTRACE_O_TRACEEXEC's stop and GETEVENTMSG, execve's exit stop,
 * and without TRACEEXEC the SIGTRAP after execve.  The tracee's calls are raw syscall(2)s;
 * only the stops of the calls named below are printed (the C library's own calls differ). */
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include "corpus.h"

#ifndef PTRACE_O_TRACESYSGOOD
#define PTRACE_O_TRACESYSGOOD 1
#endif
#ifndef PTRACE_O_TRACEEXEC
#define PTRACE_O_TRACEEXEC 0x10
#endif
#ifndef PTRACE_EVENT_EXEC
#define PTRACE_EVENT_EXEC 4
#endif

static long pt(long req, pid_t pid, long addr, long data)
{
    return syscall(SYS_ptrace, req, pid, addr, data);
}

static const char *name(long nr)
{
    switch (nr) {
    case SYS_getppid: return "getppid";
    case SYS_getpid: return "getpid";
    case SYS_getuid: return "getuid";
    case SYS_getgid: return "getgid";
    case SYS_kill: return "kill";
    case SYS_execve: return "execve";
    case SYS_exit_group: return "exit_group";
    default: return NULL;
    }
}

static void tracee(char **argv)
{
    pt(PTRACE_TRACEME, 0, 0, 0);
    syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
    long a = syscall(SYS_getppid);
    long b = syscall(SYS_getuid);
    long c = syscall(SYS_getgid);
    syscall(SYS_kill, syscall(SYS_getpid), SIGUSR1);
    printf("child: getppid became getpid: %d, skipped getuid %ld, getgid %ld\n",
           a == getpid(), b, c);
    char *args[] = { argv[0], "exec", NULL };
    syscall(SYS_execve, argv[0], args, NULL);
    _exit(9);
}

/* Follow c until it exits; exec_opt: PTRACE_O_TRACEEXEC. */
static void trace(pid_t c, unsigned exec_opt)
{
    int st;
    waitpid(c, &st, 0);
    show_status("first stop", st);
    TRY("setoptions", pt(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACESYSGOOD | exec_opt));
    TRY("setoptions bad", pt(PTRACE_SETOPTIONS, c, 0, 0x40000000));
    pt(PTRACE_SYSCALL, c, 0, 0);
    int entering = 1, execed = 0;
    for (;;) {
        if (waitpid(c, &st, 0) < 0 || !WIFSTOPPED(st)) {
            show_status("end", st);
            return;
        }
        long req = execed ? PTRACE_CONT : PTRACE_SYSCALL;
        int sig = WSTOPSIG(st), event = st >> 16;
        if (sig == (SIGTRAP | 0x80)) {
            struct user_regs_struct r;
            pt(PTRACE_GETREGS, c, 0, (long)&r);
            const char *n = name((long)r.orig_rax);
            if (n && entering)
                printf("enter %s rax %lld\n", n, (long long)r.rax);
            else if (n && !((long)r.orig_rax == SYS_getpid && (long)r.rax == c))
                printf("exit %s rax %lld\n", n, (long long)r.rax);
            else if (n)
                printf("exit %s rax is the child's pid\n", n);
            if (entering && (long)r.orig_rax == SYS_getppid)
                pt(PTRACE_POKEUSER, c, offsetof(struct user_regs_struct, orig_rax), SYS_getpid);
            if (entering && (long)r.orig_rax == SYS_getuid)
                pt(PTRACE_POKEUSER, c, offsetof(struct user_regs_struct, orig_rax), -1);
            if (!entering && (long)r.orig_rax == -1) {
                printf("exit of the skipped call rax %lld\n", (long long)r.rax);
                pt(PTRACE_POKEUSER, c, offsetof(struct user_regs_struct, rax), 4242);
            }
            if (!entering && (long)r.orig_rax == SYS_getgid)
                pt(PTRACE_POKEUSER, c, offsetof(struct user_regs_struct, rax), 77);
            if (!entering && (long)r.orig_rax == SYS_execve)
                execed = 1, req = PTRACE_CONT;
            entering = !entering;
            pt(req, c, 0, 0);
        } else if (event) {
            unsigned long msg = 0;
            pt(PTRACE_GETEVENTMSG, c, 0, (long)&msg);
            printf("event %d (exec: %d), message is the pid: %d\n", event,
                   event == PTRACE_EVENT_EXEC, msg == (unsigned long)c);
            pt(req, c, 0, 0);
        } else {
            printf("signal stop %d\n", sig);
            pt(req, c, 0, sig == SIGUSR1 ? 0 : sig == SIGTRAP ? 0 : sig);
        }
    }
}

int main(int argc, char **argv)
{
    corpus_init();
    if (argc > 1) {
        printf("execed: %s\n", argv[1]);
        return 3;
    }
    for (unsigned exec_opt = 0; exec_opt <= PTRACE_O_TRACEEXEC; exec_opt += PTRACE_O_TRACEEXEC) {
        printf("--- %s\n", exec_opt ? "with PTRACE_O_TRACEEXEC" : "without");
        pid_t c = fork();
        if (c == 0)
            tracee(argv);
        trace(c, exec_opt);
    }
    return 0;
}
