/* Signals: sigaction with handlers (SA_SIGINFO, SA_RESTART flags kept), kill to self and to a
 * child, blocking and pending (sigprocmask, sigpending), SIGCHLD, default actions seen in the
 * wait status, ignored signals, sigsuspend, errors. */
#include <signal.h>
#include <sys/wait.h>
#include "corpus.h"

static volatile sig_atomic_t hits, last, code;

static void handler(int sig)
{
    hits++;
    last = sig;
}

static void info_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    hits++;
    last = sig;
    code = si->si_code;
}

int main(void)
{
    corpus_init();
    struct sigaction sa = {0}, old;
    sa.sa_handler = handler;
    SHOW("sigaction SIGUSR1", sigaction(SIGUSR1, &sa, &old));
    printf("old handler was default: %d\n", old.sa_handler == SIG_DFL);
    SHOW("kill self SIGUSR1", kill(getpid(), SIGUSR1));
    printf("handler ran: hits %d sig %d\n", hits, last);
    SHOW("raise SIGUSR1", raise(SIGUSR1));
    printf("hits %d\n", hits);

    sa.sa_sigaction = info_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR2, &sa, NULL);
    kill(getpid(), SIGUSR2);
    printf("SA_SIGINFO: sig %d si_code is SI_USER: %d\n", last, code == SI_USER);

    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    SHOW("block SIGUSR1", sigprocmask(SIG_BLOCK, &set, NULL));
    hits = 0;
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGUSR1);
    sigpending(&pend);
    printf("blocked: hits %d, pending %d\n", hits, sigismember(&pend, SIGUSR1));
    SHOW("unblock", sigprocmask(SIG_UNBLOCK, &set, NULL));
    printf("after unblock: hits %d (standard signals do not queue)\n", hits);

    signal(SIGUSR1, SIG_IGN);
    kill(getpid(), SIGUSR1);
    printf("ignored: still alive\n");

    SHOW("sigaction SIGKILL", sigaction(SIGKILL, &sa, NULL));
    SHOW("sigaction signal 0", sigaction(0, &sa, NULL));
    SHOW("sigaction signal 65", sigaction(65, &sa, NULL));
    SHOW("kill signal 0 to self", kill(getpid(), 0));
    SHOW("kill no such process", kill(99999, 0));
    SHOW("kill bad signal", kill(getpid(), 1000));

    /* Default actions seen by the parent. */
    int sigs[] = {SIGTERM, SIGKILL, SIGINT, SIGUSR1, SIGSEGV};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGUSR1, SIG_DFL);
            kill(getpid(), sigs[i]);
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        show_status("child signalled itself", st);
    }

    pid_t aborter = fork();
    if (aborter == 0)
        abort();
    int ast;
    waitpid(aborter, &ast, 0);
    show_status("abort()", ast);

    /* SIGCHLD arrives when a child ends; sigsuspend waits for it. */
    sa.sa_handler = handler;
    sa.sa_flags = 0;
    sigaction(SIGCHLD, &sa, NULL);
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    hits = 0;
    pid_t pid = fork();
    if (pid == 0)
        _exit(5);
    sigset_t none;
    sigemptyset(&none);
    sigsuspend(&none);
    printf("SIGCHLD: hits %d sig %d\n", hits, last);
    int st;
    waitpid(pid, &st, 0);
    show_status("child", st);

    /* A child killed by its parent while it waits in pause().  Bounded, so that a kernel
     * without signals (pause fails) cannot hang the corpus: the child then exits 9. */
    pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 1000; i++)
            pause();
        _exit(9);
    }
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    show_status("paused child after SIGTERM", st);
    return 0;
}
