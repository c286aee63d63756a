/* The C library's synchronisation objects over futex, without threads (issue 13 item 3): what
 * a single-threaded program (python3, openssl) meets at start-up and what processes share.
 *   - in one process: pthread_once, call_once, timed waits that must time out
 *     (pthread_mutex_timedlock on a mutex it holds, sem_timedwait, pthread_cond_timedwait on
 *     both clocks, pthread_rwlock_timedwrlock), robust and priority-inheritance mutexes;
 *   - between processes (PTHREAD_PROCESS_SHARED in a MAP_SHARED mapping): a mutex a child
 *     waits for, a condition variable, a semaphore, a PI mutex handed on, a robust mutex
 *     whose owner dies (EOWNERDEAD, pthread_mutex_consistent).
 * Children print nothing (their lines would race with the parent's): results go through the
 * shared page and exit statuses; a parent acts only after /proc says its child sleeps. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/mman.h>
#include <threads.h>
#include <time.h>
#include "pwait.h"

/* Functions of the pthreads API return the error; show it as SHOW does errno. */
static void showr(const char *what, int r)
{
    if (r)
        printf("%s: %s\n", what, errname(r));
    else
        printf("%s: 0\n", what);
}

static struct timespec in_ms(clockid_t clk, long ms)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    ts.tv_nsec += ms * 1000000;
    while (ts.tv_nsec >= 1000000000) {
        ts.tv_nsec -= 1000000000;
        ts.tv_sec++;
    }
    return ts;
}

/* --- one process ---------------------------------------------------------------------------- */

static int once_runs;
static void once_fn(void) { once_runs++; }

static void alone(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    static once_flag flag = ONCE_FLAG_INIT;
    showr("pthread_once", pthread_once(&once, once_fn));
    showr("pthread_once again", pthread_once(&once, once_fn));
    call_once(&flag, once_fn);
    call_once(&flag, once_fn);
    printf("once functions ran %d times\n", once_runs);

    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    showr("lock", pthread_mutex_lock(&m));
    struct timespec ts = in_ms(CLOCK_REALTIME, 20);
    showr("timedlock of a held mutex", pthread_mutex_timedlock(&m, &ts));
    showr("trylock of a held mutex", pthread_mutex_trylock(&m));
    showr("unlock", pthread_mutex_unlock(&m));

    sem_t sem;
    sem_init(&sem, 0, 0);
    ts = in_ms(CLOCK_REALTIME, 20);
    errno = 0;
    printf("sem_timedwait: %d %s\n", sem_timedwait(&sem, &ts), errname(errno));
    sem_post(&sem);
    printf("sem_wait after a post: %d\n", sem_wait(&sem));

    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    pthread_mutex_lock(&m);
    ts = in_ms(CLOCK_REALTIME, 20);
    showr("cond_timedwait realtime", pthread_cond_timedwait(&c, &m, &ts));
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_t cm;
    pthread_cond_init(&cm, &ca);
    ts = in_ms(CLOCK_MONOTONIC, 20);
    showr("cond_timedwait monotonic", pthread_cond_timedwait(&cm, &m, &ts));
    showr("cond_signal nobody", pthread_cond_signal(&cm));
    showr("cond_broadcast nobody", pthread_cond_broadcast(&c));
    pthread_mutex_unlock(&m);

    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    showr("rdlock", pthread_rwlock_rdlock(&rw));
    ts = in_ms(CLOCK_REALTIME, 20);
    showr("timedwrlock while read-held", pthread_rwlock_timedwrlock(&rw, &ts));
    showr("rwlock unlock", pthread_rwlock_unlock(&rw));

    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_t rm;
    pthread_mutex_init(&rm, &a);
    showr("robust lock", pthread_mutex_lock(&rm));
    showr("robust unlock", pthread_mutex_unlock(&rm));

    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t pm;
    pthread_mutex_init(&pm, &a);
    showr("pi lock", pthread_mutex_lock(&pm));
    showr("pi lock again (errorcheck)", pthread_mutex_lock(&pm));
    ts = in_ms(CLOCK_REALTIME, 20);
    showr("pi timedlock own", pthread_mutex_timedlock(&pm, &ts));
    showr("pi unlock", pthread_mutex_unlock(&pm));
    showr("pi unlock not held", pthread_mutex_unlock(&pm));
}

/* --- between processes ------------------------------------------------------------------------ */

struct shared {
    pthread_mutex_t m, pi, robust;
    pthread_cond_t c;
    sem_t sem;
    int flag;
    int res[4];
};

static void init_shared(struct shared *s)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&s->m, &a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&s->pi, &a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_NONE);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&s->robust, &a);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_cond_init(&s->c, &ca);
    sem_init(&s->sem, 1, 0);
}

static void shared_mutex(struct shared *s)
{
    pthread_mutex_lock(&s->m);
    pid_t c = fork();
    if (c == 0) {
        about_to_block();
        s->res[0] = pthread_mutex_lock(&s->m);
        s->res[1] = s->flag;        /* what the parent set before unlocking */
        pthread_mutex_unlock(&s->m);
        _exit(0);
    }
    until_asleep(c);
    s->flag = 42;
    showr("parent unlocks the mutex", pthread_mutex_unlock(&s->m));
    reap("mutex child", c);
    printf("child locked: %d, saw %d\n", s->res[0], s->res[1]);
}

static void shared_cond(struct shared *s)
{
    s->flag = 0;
    pid_t c = fork();
    if (c == 0) {
        pthread_mutex_lock(&s->m);
        about_to_block();
        while (!s->flag)
            s->res[0] = pthread_cond_wait(&s->c, &s->m);
        pthread_mutex_unlock(&s->m);
        _exit(0);
    }
    until_asleep(c);
    pthread_mutex_lock(&s->m);
    s->flag = 1;
    showr("cond_signal", pthread_cond_signal(&s->c));
    pthread_mutex_unlock(&s->m);
    reap("cond child", c);
    printf("child's cond_wait: %d\n", s->res[0]);
}

static void shared_sem(struct shared *s)
{
    pid_t c = fork();
    if (c == 0) {
        about_to_block();
        _exit(sem_wait(&s->sem) ? 100 + errno : 0);
    }
    until_asleep(c);
    printf("sem_post: %d\n", sem_post(&s->sem));
    reap("sem child", c);
}

static void shared_pi(struct shared *s)
{
    showr("parent pi lock", pthread_mutex_lock(&s->pi));
    pid_t c = fork();
    if (c == 0) {
        about_to_block();
        s->res[0] = pthread_mutex_lock(&s->pi);
        s->res[1] = pthread_mutex_unlock(&s->pi);
        _exit(0);
    }
    until_asleep(c);
    showr("parent pi unlock", pthread_mutex_unlock(&s->pi));
    reap("pi child", c);
    printf("child pi lock %d, unlock %d\n", s->res[0], s->res[1]);
    showr("parent pi trylock", pthread_mutex_trylock(&s->pi));
    showr("parent pi unlock again", pthread_mutex_unlock(&s->pi));
}

static void shared_robust(struct shared *s)
{
    pid_t c = fork();
    if (c == 0) {
        s->res[0] = pthread_mutex_lock(&s->robust);
        about_to_block();
        char b;
        if (read(go[0], &b, 1) != 1)        /* until the parent waits for the mutex */
            _exit(98);
        _exit(0);                   /* dies holding it */
    }
    char b;
    if (read(ready[0], &b, 1) != 1)
        return;
    /* The child holds the mutex: the parent blocks on it until the child dies. */
    b = 2;
    pid_t me = getpid();
    pid_t d = fork();
    if (d == 0) {
        /* A helper releases the owner once the parent sleeps in the lock. */
        sleeps(me);
        if (write(go[1], &b, 1) != 1)
            _exit(1);
        _exit(0);
    }
    showr("lock of a mutex whose owner dies", pthread_mutex_lock(&s->robust));
    showr("consistent", pthread_mutex_consistent(&s->robust));
    showr("unlock", pthread_mutex_unlock(&s->robust));
    showr("lock again", pthread_mutex_lock(&s->robust));
    showr("unlock again", pthread_mutex_unlock(&s->robust));
    reap("robust owner", c);
    reap("helper", d);
    printf("the owner locked: %d\n", s->res[0]);
}

int main(void)
{
    corpus_init();
    alarm(60);
    alone();
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                            -1, 0);
    if (s == MAP_FAILED || pipe(ready) || pipe(go))
        return 1;
    init_shared(s);
    shared_mutex(s);
    shared_cond(s);
    shared_sem(s);
    shared_pi(s);
    shared_robust(s);
    return 0;
}
