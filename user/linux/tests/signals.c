/* Signals through the C library (glibc and musl set sa_restorer each their own way):
 * sigaction and raise, siginfo, a SIGSEGV handler left by siglongjmp, sigprocmask and
 * sigpending, alarm and pause, SIGCHLD and waitpid, kill of a child with its status,
 * stop and continue.  Prints one line per check; exit 0 if every check holds.  The same
 * output on Linux (tests/system/test_lx_signal.py runs it under lx). */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
static volatile sig_atomic_t hits, last_sig, last_code;
static volatile pid_t last_pid;
static volatile void *last_addr;
static sigjmp_buf env;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    hits++;
    last_sig = sig;
    last_code = si->si_code;
    last_pid = si->si_pid;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    last_sig = sig;
    last_code = si->si_code;
    last_addr = si->si_addr;
    siglongjmp(env, 1);
}

static void on_alarm(int sig)
{
    hits++;
    last_sig = sig;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    check(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
    raise(SIGUSR1);
    check(hits == 1 && last_sig == SIGUSR1 && last_pid == getpid(),
          "raise: the handler ran with si_pid");

    /* Blocked, pending, delivered on unblock. */
    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    kill(getpid(), SIGUSR1);
    sigpending(&pend);
    check(hits == 1 && sigismember(&pend, SIGUSR1), "blocked: pending");
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    check(hits == 2, "unblocked: delivered");
    check(sigaction(SIGKILL, &sa, NULL) == -1 && errno == EINVAL, "sigaction(SIGKILL): EINVAL");

    /* SIGSEGV from a bad access, left by siglongjmp; then it happens again. */
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 2; i++) {
        if (sigsetjmp(env, 1) == 0) {
            *(volatile char *)(page + 100) = 1;
            check(0, "the store did not fault");
        } else {
            check(last_sig == SIGSEGV && last_code == SEGV_ACCERR && last_addr == page + 100,
                  "SIGSEGV: SEGV_ACCERR, si_addr; siglongjmp out of the handler");
        }
    }
    sigprocmask(SIG_SETMASK, NULL, &set);
    check(!sigismember(&set, SIGSEGV), "siglongjmp restored the mask");

    /* alarm and pause. */
    signal(SIGALRM, on_alarm);
    hits = 0;
    alarm(1);
    int r = pause();
    check(r == -1 && errno == EINTR && hits == 1 && last_sig == SIGALRM, "alarm, pause: EINTR");

    /* SIGCHLD and waitpid; a child killed by SIGTERM. */
    sa.sa_sigaction = on_signal;
    sigaction(SIGCHLD, &sa, NULL);
    hits = 0;
    pid_t pid = fork();
    if (pid == 0)
        _exit(3);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    check(WIFEXITED(st) && WEXITSTATUS(st) == 3, "child exit status 3");
    check(hits == 1 && last_sig == SIGCHLD && last_code == CLD_EXITED && last_pid == pid,
          "SIGCHLD: CLD_EXITED from the child");
    signal(SIGCHLD, SIG_DFL);
    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    kill(pid, SIGSTOP);
    check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
          "WUNTRACED: stopped by SIGSTOP");
    kill(pid, SIGCONT);
    check(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st), "WCONTINUED");
    kill(pid, SIGTERM);
    check(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
          "killed by SIGTERM");
    printf("%s\n", failures ? "signals: FAILED" : "signals: all passed");
    return failures != 0;
}
