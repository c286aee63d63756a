/* Signals and threads (issue 13 item 8): pthread_kill runs the handler in the thread named;
 * per-thread signal masks; a process-directed signal goes to the one thread that does not
 * block it; sigwait in a thread, for a process-directed and a thread-directed signal;
 * thread-directed pending signals stay with their thread; tgkill's errors; a signal whose
 * default action ends the process ends every thread; group stop and continue of a threaded
 * child as its parent's waitpid sees them (WUNTRACED, WCONTINUED), with every thread stopped. */
#include <signal.h>
#include "threads.h"

static volatile pid_t handled_in;
static volatile int handled;

static void on_signal(int sig)
{
    (void)sig;
    handled_in = tid_of_self();
    handled++;
}

static void catch(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(sig, &sa, NULL);
}

static void block(int how, int sig)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(how, &s, NULL);
}

static sem_t ready_sem;
static volatile int release;
static volatile pid_t worker_tid;

/* Waits with sig unblocked only inside sigsuspend, until a handler ran in this thread. */
static void *suspend_until_handled(void *arg)
{
    int sig = (int)(long)arg;
    block(SIG_BLOCK, sig);
    worker_tid = tid_of_self();
    sem_post(&ready_sem);
    sigset_t none;
    sigemptyset(&none);
    while (handled_in != tid_of_self())
        sigsuspend(&none);
    return NULL;
}

static void *sigwaiter(void *arg)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, (int)(long)arg);
    worker_tid = tid_of_self();
    sem_post(&ready_sem);
    int got = -1;
    int e = sigwait(&s, &got);
    return (void *)(long)(e ? -e : got);
}

static volatile int pending_here[3];

static void *pending_check(void *arg)
{
    (void)arg;
    worker_tid = tid_of_self();
    sem_post(&ready_sem);
    while (!release)
        sched_yield();
    sigset_t p;
    sigpending(&p);
    pending_here[0] = sigismember(&p, SIGUSR1);
    pending_here[1] = sigismember(&p, SIGUSR2);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void in_threads(void)
{
    catch(SIGUSR1);
    catch(SIGUSR2);
    sem_init(&ready_sem, 0, 0);
    pthread_t t;

    /* pthread_kill: the handler runs in the target, which waits in sigsuspend. */
    start_thread("pthread_kill", &t, suspend_until_handled, (void *)SIGUSR1);
    sem_wait(&ready_sem);
    printf("pthread_kill sig 0: %s", errname(pthread_kill(t, 0)));
    printf(", sig 65: %s", errname(pthread_kill(t, 65)));
    printf(", SIGUSR1: %s\n", errname(pthread_kill(t, SIGUSR1)));
    join_thread("pthread_kill", t, NULL);
    printf("pthread_kill: handler ran in the target %d (main's mask untouched: SIGUSR1 "
           "blocked here %d)\n", handled_in == worker_tid, ({
               sigset_t cur;
               pthread_sigmask(SIG_BLOCK, NULL, &cur);
               sigismember(&cur, SIGUSR1);
           }));

    /* A process-directed signal while only the worker can take it (inside sigsuspend). */
    block(SIG_BLOCK, SIGUSR2);
    handled_in = 0;
    start_thread("kill", &t, suspend_until_handled, (void *)SIGUSR2);
    sem_wait(&ready_sem);
    printf("kill(getpid(), SIGUSR2): %s\n", errname(kill(getpid(), SIGUSR2) ? errno : 0));
    join_thread("kill", t, NULL);
    printf("process-directed: taken by the one thread that unblocks it %d\n",
           handled_in == worker_tid);
    sigset_t p;
    sigpending(&p);
    printf("process-directed: still pending %d\n", sigismember(&p, SIGUSR2));

    /* sigwait in a thread, everything blocked everywhere (the worker inherits the mask). */
    block(SIG_BLOCK, SIGUSR1);
    start_thread("sigwait", &t, sigwaiter, (void *)SIGUSR1);
    sem_wait(&ready_sem);
    asleep_in_kernel(worker_tid);
    kill(getpid(), SIGUSR1);
    void *r;
    pthread_join(t, &r);
    printf("sigwait in a thread, kill(getpid()): %ld\n", (long)r);
    start_thread("sigwait", &t, sigwaiter, (void *)SIGUSR2);
    sem_wait(&ready_sem);
    pthread_kill(t, SIGUSR2);
    pthread_join(t, &r);
    printf("sigwait in a thread, pthread_kill: %ld\n", (long)r);

    /* Thread-directed signals pend on their thread only. */
    release = 0;
    start_thread("pending", &t, pending_check, NULL);
    sem_wait(&ready_sem);
    pthread_kill(t, SIGUSR1);
    syscall(SYS_tgkill, getpid(), tid_of_self(), SIGUSR2);
    sigpending(&p);
    printf("main's pending: SIGUSR1 %d, SIGUSR2 %d\n", sigismember(&p, SIGUSR1),
           sigismember(&p, SIGUSR2));
    release = 1;
    join_thread("pending", t, NULL);
    printf("the thread's pending: SIGUSR1 %d, SIGUSR2 %d (handled %d)\n", pending_here[0],
           pending_here[1], handled);
    printf("tgkill wrong tgid: %s", errname(syscall(SYS_tgkill, getpid() + 100000,
                                                     tid_of_self(), 0) ? errno : 0));
    printf(", bad tid: %s", errname(syscall(SYS_tgkill, getpid(), -1, 0) ? errno : 0));
    printf(", bad signal: %s\n", errname(syscall(SYS_tgkill, getpid(), tid_of_self(), 99)
                                          ? errno : 0));
    block(SIG_UNBLOCK, SIGUSR1);             /* the pending ones run now */
    block(SIG_UNBLOCK, SIGUSR2);
    printf("after unblocking: handled %d\n", handled);
}

/* How many threads of process pid are in state c, of *all. */
static int threads_in_state(pid_t pid, char c, int *all)
{
    pid_t ids[16];
    int n = task_ids(pid, ids, 16), in = 0;
    *all = n;
    for (int i = 0; i < n && i < 16; i++)
        in += thread_state(pid, ids[i]) == c;
    return in;
}

static void stop_continue(void)
{
    int ready[2];
    if (pipe(ready) < 0)
        printf("pipe: %s\n", errname(errno));
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t[3];
        for (int i = 0; i < 3; i++)
            start_thread("stop", &t[i], sleeper, NULL);
        (void)!write(ready[1], "r", 1);
        for (;;)
            pause();
    }
    char c;
    close(ready[1]);
    if (read(ready[0], &c, 1) != 1) {
        printf("the threaded child did not start\n");
        int st;
        waitpid(pid, &st, 0);
        show_status("threaded child", st);
        return;
    }
    int st, all;
    kill(pid, SIGSTOP);
    pid_t w = waitpid(pid, &st, WUNTRACED);
    show_status("SIGSTOP: waitpid WUNTRACED", w == pid ? st : -1);
    int stopped = threads_in_state(pid, 'T', &all);
    printf("SIGSTOP: %d of %d threads stopped\n", stopped, all);
    printf("stopped: waitpid WNOHANG|WUNTRACED again %d\n",
           (int)waitpid(pid, &st, WNOHANG | WUNTRACED));
    kill(pid, SIGCONT);
    w = waitpid(pid, &st, WCONTINUED);
    printf("SIGCONT: waitpid WCONTINUED is the child %d, WIFCONTINUED %d\n", w == pid,
           w == pid && WIFCONTINUED(st));
    stopped = threads_in_state(pid, 'T', &all);
    printf("SIGCONT: %d of %d threads stopped\n", stopped, all);
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    show_status("SIGTERM to the threaded child", st);
}

int main(void)
{
    threads_init();
    stop_continue();
    in_threads();
    return 0;
}
