/* Thread cancellation (issue 13 item 8): deferred cancellation at the cancellation points read,
 * nanosleep and pthread_cond_wait, with cleanup handlers run newest first (and the condvar's
 * mutex held again when they run); cancellation disabled and enabled again; asynchronous
 * cancellation of a thread spinning without calls; cancelling a thread that has already
 * ended; pthread_testcancel.  Each thread records what ran; the main thread prints it after
 * the join. */
#include "threads.h"

static char trail[8][64];       /* per case: the cleanup handlers that ran, in order */

static void note(void *arg)
{
    long v = (long)arg;
    char *t = trail[v / 10];
    size_t n = strlen(t);
    snprintf(t + n, sizeof trail[0] - n, "%s%ld", n ? "," : "", v % 10);
}

static int pipe_fds[2];
static volatile int stage[8];

static void *in_read(void *arg)
{
    (void)arg;
    char c;
    pthread_cleanup_push(note, (void *)1L);
    pthread_cleanup_push(note, (void *)2L);
    stage[0] = 1;
    (void)!read(pipe_fds[0], &c, 1);
    stage[0] = 2;                            /* never: the read is cancelled */
    pthread_cleanup_pop(0);
    pthread_cleanup_pop(0);
    return NULL;
}

static void *in_nanosleep(void *arg)
{
    (void)arg;
    pthread_cleanup_push(note, (void *)11L);
    struct timespec t = { 3600, 0 };
    stage[1] = 1;
    nanosleep(&t, NULL);
    stage[1] = 2;
    pthread_cleanup_pop(0);
    return NULL;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int mutex_held_in_cleanup = -1;

static void unlock_in_cleanup(void *arg)
{
    (void)arg;
    /* The mutex is ours again when a cancelled pthread_cond_wait runs the handlers. */
    mutex_held_in_cleanup = pthread_mutex_trylock(&m) == EBUSY;
    note((void *)21L);
    pthread_mutex_unlock(&m);
}

static void *in_cond_wait(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_cleanup_push(unlock_in_cleanup, NULL);
    stage[2] = 1;
    for (;;)
        pthread_cond_wait(&c, &m);
    pthread_cleanup_pop(0);
    return NULL;
}

static volatile int release_disabled;

static void *disabled(void *arg)
{
    (void)arg;
    int old = -1;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    pthread_cleanup_push(note, (void *)31L);
    stage[3] = 1;
    while (!release_disabled)
        sched_yield();
    struct timespec t = { 0, 1000000 };
    nanosleep(&t, NULL);                     /* a cancellation point, but disabled */
    stage[3] = 2;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    stage[3] = old == PTHREAD_CANCEL_ENABLE ? 3 : 4;
    pthread_testcancel();
    stage[3] = 5;
    pthread_cleanup_pop(0);
    return NULL;
}

static volatile unsigned long spins;

static void *asynchronous(void *arg)
{
    (void)arg;
    int old = -1;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
    stage[4] = old == PTHREAD_CANCEL_DEFERRED ? 1 : 9;
    for (;;)
        spins++;
    return NULL;
}

static volatile pid_t ended_tid;

static void *returns(void *arg)
{
    ended_tid = tid_of_self();
    return arg;
}

static void *pops_and_runs(void *arg)
{
    (void)arg;
    pthread_cleanup_push(note, (void *)51L);
    pthread_cleanup_push(note, (void *)52L);
    pthread_cleanup_pop(1);                  /* runs 2 now */
    stage[5] = 1;
    pthread_testcancel();
    stage[5] = 2;
    pthread_cleanup_pop(0);
    return NULL;
}

static void report(const char *what, int idx, pthread_t t)
{
    void *r;
    int e = pthread_join(t, &r);
    printf("%s: join %s, cancelled %d, stage %d, cleanup [%s]\n", what, errname(e),
           r == PTHREAD_CANCELED, stage[idx], trail[idx]);
}

int main(void)
{
    threads_init();
    pthread_t t;
    if (pipe(pipe_fds) < 0)
        printf("pipe: %s\n", errname(errno));

    start_thread("read", &t, in_read, NULL);
    while (!stage[0])
        sched_yield();
    printf("cancel in read: %s\n", errname(pthread_cancel(t)));
    report("read", 0, t);

    start_thread("nanosleep", &t, in_nanosleep, NULL);
    printf("cancel before nanosleep: %s\n", errname(pthread_cancel(t)));
    report("nanosleep", 1, t);

    start_thread("cond_wait", &t, in_cond_wait, NULL);
    for (;;) {          /* until the thread waits: it holds the mutex until then */
        pthread_mutex_lock(&m);
        int in = stage[2];
        pthread_mutex_unlock(&m);
        if (in)
            break;
        sched_yield();
    }
    printf("cancel in cond_wait: %s\n", errname(pthread_cancel(t)));
    report("cond_wait", 2, t);
    printf("cond_wait: the mutex was held in the cleanup handler %d, free now %s\n",
           mutex_held_in_cleanup, errname(pthread_mutex_trylock(&m)));
    pthread_mutex_unlock(&m);

    start_thread("disabled", &t, disabled, NULL);
    while (!stage[3])
        sched_yield();
    printf("cancel while disabled: %s\n", errname(pthread_cancel(t)));
    release_disabled = 1;
    report("disabled, then enabled", 3, t);

    start_thread("asynchronous", &t, asynchronous, NULL);
    while (!stage[4])
        sched_yield();
    printf("cancel asynchronous: %s\n", errname(pthread_cancel(t)));
    report("asynchronous", 4, t);

    start_thread("pop", &t, pops_and_runs, NULL);
    printf("cancel before testcancel: %s\n", errname(pthread_cancel(t)));
    report("pop(1), then testcancel", 5, t);

    /* A thread that has ended but is not joined yet: gone from /proc/self/task. */
    start_thread("ended", &t, returns, (void *)5L);
    while (!ended_tid)
        sched_yield();
    int gone = thread_gone(ended_tid);
    printf("ended thread: gone from /proc %d, cancel %s", gone, errname(pthread_cancel(t)));
    void *r;
    pthread_join(t, &r);
    printf(", joined %ld\n", (long)r);
    return 0;
}
