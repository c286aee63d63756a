/* Robust mutexes (issue 13 item 8): an owner that dies holding one hands EOWNERDEAD to the
 * next locker, who makes it consistent again (or, without pthread_mutex_consistent, leaves
 * it ENOTRECOVERABLE).  The owner is a thread that ends (the robust list, set_robust_list),
 * a process that exits or is killed holding a PTHREAD_PROCESS_SHARED mutex in MAP_SHARED
 * memory (the kernel walks the list at death), with the next locker already blocked in
 * pthread_mutex_lock when the owner dies; errorcheck and priority-inheritance robust
 * mutexes; and what a non-robust mutex does. */
#include <signal.h>
#include <sys/mman.h>
#include "threads.h"

static pthread_mutex_t *make(pthread_mutex_t *m, int shared, int type, int protocol)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutexattr_settype(&a, type);
    if (shared)
        pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (protocol != PTHREAD_PRIO_NONE) {
        int e = pthread_mutexattr_setprotocol(&a, protocol);
        if (e)
            printf("setprotocol: %s\n", errname(e));
    }
    int e = pthread_mutex_init(m, &a);
    if (e)
        printf("mutex_init: %s\n", errname(e));
    pthread_mutexattr_destroy(&a);
    return m;
}

static void *lock_and_end(void *arg)
{
    pthread_mutex_lock(arg);
    return NULL;                              /* ends holding it */
}

/* After the owner died: the next lock, and what follows with or without consistent. */
static void recover(const char *what, pthread_mutex_t *m, int make_consistent, int use_try)
{
    int e = use_try ? pthread_mutex_trylock(m) : pthread_mutex_lock(m);
    printf("%s: %s %s", what, use_try ? "trylock" : "lock", errname(e));
    if (e == EOWNERDEAD && make_consistent)
        printf(", consistent %s", errname(pthread_mutex_consistent(m)));
    printf(", unlock %s", errname(pthread_mutex_unlock(m)));
    e = pthread_mutex_lock(m);
    printf(", lock again %s", errname(e));
    if (e == 0)
        printf(", consistent when fine %s, unlock %s", errname(pthread_mutex_consistent(m)),
               errname(pthread_mutex_unlock(m)));
    printf("\n");
}

static void thread_owner(const char *what, int type, int protocol, int make_consistent,
                         int use_try)
{
    pthread_mutex_t m;
    make(&m, 0, type, protocol);
    pthread_t t;
    start_thread(what, &t, lock_and_end, &m);
    join_thread(what, t, NULL);
    recover(what, &m, make_consistent, use_try);
    pthread_mutex_destroy(&m);
}

static pthread_mutex_t *shared_page;

/* A child process locks the shared mutex and dies: exits, or is killed; the parent locks it
 * after, or is already blocked in pthread_mutex_lock (blocked_first) when the child dies. */
static void process_owner(const char *what, int protocol, int killed, int blocked_first)
{
    pthread_mutex_t *m = make(shared_page, 1, PTHREAD_MUTEX_NORMAL, protocol);
    int locked[2];
    if (pipe(locked) < 0)
        printf("pipe: %s\n", errname(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(locked[0]);
        int e = pthread_mutex_lock(m);
        (void)!write(locked[1], &e, sizeof e);
        if (blocked_first && !sleeping(parent, parent))
            printf("%s: the parent never blocked\n", what);
        if (killed)
            for (;;)
                pause();
        _exit(0);
    }
    close(locked[1]);
    int e = -1;
    if (read(locked[0], &e, sizeof e) != sizeof e || e) {
        printf("%s: the child's lock failed (%s)\n", what, errname(e));
        waitpid(pid, NULL, 0);
        return;
    }
    close(locked[0]);
    int st;
    if (killed && !blocked_first) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    if (killed && blocked_first) {
        /* Blocked in lock; a third process kills the owner once this one sleeps. */
        pid_t killer = fork();
        if (killer == 0) {
            sleeping(parent, parent);
            kill(pid, SIGKILL);
            _exit(0);
        }
        recover(what, m, 1, 0);
        waitpid(killer, NULL, 0);
        waitpid(pid, &st, 0);
        show_status(what, st);
        return;
    }
    if (blocked_first) {
        recover(what, m, 1, 0);
        waitpid(pid, &st, 0);
        show_status(what, st);
        return;
    }
    if (!killed)
        waitpid(pid, &st, 0);
    show_status(what, st);
    recover(what, m, 1, 0);
}

static void not_robust(void)
{
    /* A stalled, non-robust errorcheck mutex: its owner thread is gone, the lock times out. */
    pthread_mutex_t m;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    printf("not robust: getrobust default %s", ({
        int r = -1;
        pthread_mutexattr_getrobust(&a, &r);
        r == PTHREAD_MUTEX_STALLED ? "STALLED" : "other";
    }));
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
    pthread_t t;
    start_thread("not robust", &t, lock_and_end, &m);
    join_thread("not robust", t, NULL);
    struct timespec d = deadline_ms(CLOCK_REALTIME, 20);
    printf(", timedlock after the owner ended %s", errname(pthread_mutex_timedlock(&m, &d)));
    printf(", consistent %s\n", errname(pthread_mutex_consistent(&m)));
}

int main(void)
{
    threads_init();
    shared_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared_page == MAP_FAILED)
        printf("mmap: %s\n", errname(errno));

    thread_owner("thread ended holding it, consistent", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE,
                 1, 0);
    thread_owner("thread ended holding it, not made consistent", PTHREAD_MUTEX_NORMAL,
                 PTHREAD_PRIO_NONE, 0, 0);
    thread_owner("thread ended, trylock", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, 1, 1);
    thread_owner("errorcheck, thread ended", PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE, 1, 0);
    thread_owner("recursive, thread ended", PTHREAD_MUTEX_RECURSIVE, PTHREAD_PRIO_NONE, 1, 0);
    thread_owner("priority inheritance, thread ended", PTHREAD_MUTEX_NORMAL,
                 PTHREAD_PRIO_INHERIT, 1, 0);
    process_owner("shared, owner process exited", PTHREAD_PRIO_NONE, 0, 0);
    process_owner("shared, owner process killed", PTHREAD_PRIO_NONE, 1, 0);
    process_owner("shared, waiter blocked, owner exits", PTHREAD_PRIO_NONE, 0, 1);
    process_owner("shared, waiter blocked, owner killed", PTHREAD_PRIO_NONE, 1, 1);
    process_owner("shared priority inheritance, owner killed", PTHREAD_PRIO_INHERIT, 1, 0);
    process_owner("shared priority inheritance, waiter blocked, owner killed",
                  PTHREAD_PRIO_INHERIT, 1, 1);
    not_robust();
    return 0;
}
