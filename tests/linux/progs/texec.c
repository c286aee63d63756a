/* execve from a thread (issue 13 item 8): a thread that is not the leader calls execve; the
 * process keeps its pid (the exec'ing thread takes the leader's id), every other thread is
 * gone, the parent's waitpid sees the same child end; the same from the leader while other
 * threads run; and what the new image inherits (the caller's signal mask, not the others').
 *
 *   texec                  the test: a child per case, each exec'ing this program as
 *   texec after PID TID    the new image: PID the process's pid and TID the exec'ing thread's
 *                          tid before execve */
#include <signal.h>
#include "threads.h"

static const char *self;

static void exec_after(void)
{
    char pid[16], tid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(tid, sizeof tid, "%d", (int)tid_of_self());
    char *argv[] = { (char *)self, "after", pid, tid, NULL };
    execv(self, argv);
    printf("execve: %s\n", errname(errno));
    _exit(99);
}

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void *exec_from_thread(void *arg)
{
    (void)arg;
    sigset_t s;                         /* this thread's mask is what the new image gets */
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    exec_after();
    return NULL;
}

static void after(char **argv)
{
    pid_t old_pid = atoi(argv[2]), old_tid = atoi(argv[3]);
    pid_t ids[8];
    int n = task_ids(getpid(), ids, 8);
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("after execve: same pid %d, the caller was the leader %d, gettid is the pid %d, "
           "threads %d, the only one is the pid %d\n", getpid() == old_pid, old_tid == old_pid,
           tid_of_self() == getpid(), n, n == 1 && ids[0] == getpid());
    printf("after execve: mask SIGUSR1 %d, SIGUSR2 %d\n", sigismember(&cur, SIGUSR1),
           sigismember(&cur, SIGUSR2));
    /* A thread again in the new image. */
    pthread_t t;
    start_thread("after execve", &t, sleeper, NULL);
    n = task_ids(getpid(), ids, 8);
    printf("after execve: a new thread, threads %d\n", n);
    exit(9);
}

static void one_case(const char *what, int from_thread, int threads)
{
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t s;                     /* the leader's mask, not the new image's */
        sigemptyset(&s);
        sigaddset(&s, SIGUSR1);
        sigprocmask(SIG_BLOCK, &s, NULL);
        pthread_t t;
        for (int i = 0; i < threads; i++)
            start_thread(what, &t, sleeper, NULL);
        pid_t ids[8];
        printf("%s: threads before execve %d\n", what, task_ids(getpid(), ids, 8));
        if (from_thread) {
            start_thread(what, &t, exec_from_thread, NULL);
            for (;;)
                pause();
        }
        sigprocmask(SIG_UNBLOCK, &s, NULL);
        sigemptyset(&s);
        sigaddset(&s, SIGUSR2);
        sigprocmask(SIG_BLOCK, &s, NULL);
        exec_after();
    }
    int st;
    pid_t w = waitpid(pid, &st, 0);
    printf("%s: waitpid returned the child %d, ", what, w == pid);
    show_status("status", st);
    errno = 0;
    printf("%s: no other child to wait for: %s\n", what,
           errname(waitpid(-1, &st, WNOHANG) < 0 ? errno : 0));
}

int main(int argc, char **argv)
{
    threads_init();
    self = argv[0];
    if (argc == 4 && !strcmp(argv[1], "after"))
        after(argv);
    one_case("a second thread execs, two others sleep", 1, 2);
    one_case("the leader execs, two others sleep", 0, 2);
    one_case("the leader execs, alone", 0, 0);
    return 0;
}
