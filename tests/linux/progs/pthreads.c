/* POSIX threads as a program uses them (issue 13 item 8): create, join, detach, return values,
 * pthread_exit; the mutex kinds (normal, errorcheck, recursive, timed) and a contended counter;
 * condition variables (a bounded queue, broadcast, timed waits on both clocks); barriers;
 * rwlocks; spinlocks; semaphores; __thread variables; thread-specific data with destructors;
 * pthread_once; exit versus exit_group from a thread.  Only totals and per-thread results,
 * read after the joins, are printed. */
#include "threads.h"

enum { NT = 4, ROUNDS = 20000 };

/* ---- create, join, detach ---------------------------------------------------------- */

static long squares[8];
static pid_t tids[8];

static void *square(void *arg)
{
    long i = (long)arg;
    squares[i] = i * i;
    tids[i] = tid_of_self();
    return (void *)(i + 100);
}

static void *exits_early(void *arg)
{
    pthread_exit(arg);
}

static sem_t detached_done;
static int detached_ran;

static void *detached(void *arg)
{
    (void)arg;
    detached_ran = 1;
    sem_post(&detached_done);
    return NULL;
}

static void create_join(void)
{
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        start_thread("create", &t[i], square, (void *)i);
    int rets_ok = 1, tids_ok = 1;
    for (long i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        rets_ok &= r == (void *)(i + 100);
        tids_ok &= tids[i] != getpid() && tids[i] > 0;
        for (long j = 0; j < i; j++)
            tids_ok &= tids[j] != tids[i];
    }
    long sum = 0;
    for (int i = 0; i < 8; i++)
        sum += squares[i];
    printf("create/join: 8 threads, sum of squares %ld, return values right %d, distinct tids "
           "other than the pid %d\n", sum, rets_ok, tids_ok);
    printf("main thread: gettid is getpid %d\n", tid_of_self() == getpid());

    pthread_t e;
    start_thread("pthread_exit", &e, exits_early, (void *)42L);
    void *r;
    pthread_join(e, &r);
    printf("pthread_exit: joined value %ld\n", (long)r);

    pthread_t d;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    sem_init(&detached_done, 0, 0);
    int err = pthread_create(&d, &a, detached, NULL);
    if (err) {
        printf("detached: pthread_create: %s\n", errname(err));
        exit(1);
    }
    sem_wait(&detached_done);
    int state;
    pthread_attr_getdetachstate(&a, &state);
    printf("detached: ran %d, attribute detached %d\n", detached_ran,
           state == PTHREAD_CREATE_DETACHED);
    pthread_attr_destroy(&a);

    pthread_t s;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 1 << 16);
    err = pthread_create(&s, &a, square, (void *)3L);
    printf("64 KiB stack: create %s", errname(err));
    if (!err) {
        pthread_join(s, &r);
        printf(", joined %ld", (long)r);
    }
    printf("\n");
    pthread_attr_destroy(&a);
    printf("pthread_equal(self, self) %d, with another %d\n",
           !!pthread_equal(pthread_self(), pthread_self()), !!pthread_equal(pthread_self(), s));
}

/* ---- mutexes ----------------------------------------------------------------------- */

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *count_up(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&counter_lock);
        counter++;
        pthread_mutex_unlock(&counter_lock);
        if (i % 1000 == 0)
            sched_yield();
    }
    return NULL;
}

static pthread_mutex_t held;
static int trylock_result, unlock_result;

static void *try_held(void *arg)
{
    trylock_result = pthread_mutex_trylock(&held);
    if (arg)            /* unlocking another's normal mutex is undefined */
        unlock_result = pthread_mutex_unlock(&held);
    return NULL;
}

static void mutex_of_kind(const char *name, int kind)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, kind);
    pthread_mutex_init(&held, &a);
    pthread_mutexattr_destroy(&a);
    printf("%s: lock %s", name, errname(pthread_mutex_lock(&held)));
    if (kind != PTHREAD_MUTEX_NORMAL)   /* relocking a normal mutex deadlocks */
        printf(", lock again %s", errname(pthread_mutex_lock(&held)));
    printf(", trylock here %s", errname(pthread_mutex_trylock(&held)));
    pthread_t t;
    start_thread(name, &t, try_held, (void *)(long)(kind != PTHREAD_MUTEX_NORMAL));
    join_thread(name, t, NULL);
    printf(", trylock in another thread %s", errname(trylock_result));
    if (kind != PTHREAD_MUTEX_NORMAL)
        printf(", its unlock %s", errname(unlock_result));
    /* A normal mutex is unlocked once: it does not check its owner. */
    int unlocks = 0, e = 0, most = kind == PTHREAD_MUTEX_NORMAL ? 1 : 5;
    while (unlocks < most && (e = pthread_mutex_unlock(&held)) == 0)
        unlocks++;
    printf(", unlocks %d", unlocks);
    if (kind != PTHREAD_MUTEX_NORMAL)
        printf(" then %s", errname(e));
    printf(", destroy %s\n", errname(pthread_mutex_destroy(&held)));
}

static void mutexes(void)
{
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        start_thread("mutex", &t[i], count_up, NULL);
    for (int i = 0; i < NT; i++)
        join_thread("mutex", t[i], NULL);
    printf("contended mutex: %d threads x %d increments = %ld\n", NT, ROUNDS, counter);

    mutex_of_kind("normal", PTHREAD_MUTEX_NORMAL);
    mutex_of_kind("errorcheck", PTHREAD_MUTEX_ERRORCHECK);
    mutex_of_kind("recursive", PTHREAD_MUTEX_RECURSIVE);

    pthread_mutex_init(&held, NULL);
    pthread_mutex_lock(&held);
    struct timespec past = { 0, 0 };
    struct timespec soon = deadline_ms(CLOCK_REALTIME, 20);
    printf("timedlock held: past deadline %s", errname(pthread_mutex_timedlock(&held, &past)));
    printf(", 20 ms deadline %s\n", errname(pthread_mutex_timedlock(&held, &soon)));
    pthread_mutex_unlock(&held);
    printf("timedlock free: %s\n", errname(pthread_mutex_timedlock(&held, &past)));
    pthread_mutex_unlock(&held);
}

/* ---- condition variables ----------------------------------------------------------- */

enum { QLEN = 4, ITEMS = 2000 };
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queue[QLEN], qhead, qcount;
static long consumed_sum[2], consumed_n[2];

static void *producer(void *arg)
{
    long base = (long)arg;
    for (int i = 1; i <= ITEMS; i++) {
        pthread_mutex_lock(&qlock);
        while (qcount == QLEN)
            pthread_cond_wait(&not_full, &qlock);
        queue[(qhead + qcount++) % QLEN] = (int)(base + i);
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&qlock);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long me = (long)arg;
    for (;;) {
        pthread_mutex_lock(&qlock);
        while (qcount == 0)
            pthread_cond_wait(&not_empty, &qlock);
        int v = queue[qhead];
        qhead = (qhead + 1) % QLEN;
        qcount--;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&qlock);
        if (v < 0)
            return NULL;
        consumed_sum[me] += v;
        consumed_n[me]++;
    }
}

static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int generation, waiting, woke;

static void *wait_generation(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&qlock);
    int g = generation;
    waiting++;
    pthread_cond_signal(&not_full);          /* tells the main thread one more waits */
    while (generation == g)
        pthread_cond_wait(&go, &qlock);
    woke++;
    pthread_mutex_unlock(&qlock);
    return NULL;
}

static void condvars(void)
{
    pthread_t p[2], c[2];
    for (long i = 0; i < 2; i++)
        start_thread("condvar", &c[i], consumer, (void *)i);
    for (long i = 0; i < 2; i++)
        start_thread("condvar", &p[i], producer, (void *)(i * 100000));
    for (int i = 0; i < 2; i++)
        join_thread("condvar", p[i], NULL);
    for (int i = 0; i < 2; i++) {        /* one end mark per consumer */
        pthread_mutex_lock(&qlock);
        while (qcount == QLEN)
            pthread_cond_wait(&not_full, &qlock);
        queue[(qhead + qcount++) % QLEN] = -1;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&qlock);
    }
    for (int i = 0; i < 2; i++)
        join_thread("condvar", c[i], NULL);
    long want = 0;
    for (long b = 0; b < 2; b++)
        for (int i = 1; i <= ITEMS; i++)
            want += b * 100000 + i;
    printf("bounded queue: %ld items consumed, sum right %d\n", consumed_n[0] + consumed_n[1],
           consumed_sum[0] + consumed_sum[1] == want);

    pthread_t w[5];
    for (int i = 0; i < 5; i++)
        start_thread("broadcast", &w[i], wait_generation, NULL);
    pthread_mutex_lock(&qlock);
    while (waiting < 5)
        pthread_cond_wait(&not_full, &qlock);
    generation++;
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&qlock);
    for (int i = 0; i < 5; i++)
        join_thread("broadcast", w[i], NULL);
    printf("broadcast: %d of 5 waiters woke\n", woke);

    pthread_mutex_lock(&qlock);
    struct timespec d = deadline_ms(CLOCK_REALTIME, 20);
    printf("cond_timedwait realtime: %s", errname(pthread_cond_timedwait(&go, &qlock, &d)));
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    printf(", setclock monotonic %s", errname(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)));
    printf(", setclock process cputime %s",
           errname(pthread_condattr_setclock(&ca, CLOCK_PROCESS_CPUTIME_ID)));
    pthread_cond_t mono;
    pthread_cond_init(&mono, &ca);
    d = deadline_ms(CLOCK_MONOTONIC, 20);
    printf(", monotonic %s\n", errname(pthread_cond_timedwait(&mono, &qlock, &d)));
    pthread_mutex_unlock(&qlock);
    pthread_cond_destroy(&mono);
    pthread_condattr_destroy(&ca);
}

/* ---- barriers, rwlocks, spinlocks, semaphores ---------------------------------------- */

static pthread_barrier_t barrier;
static int serial[NT][3], phase_seen[NT][3], phase;

static void *barrier_rounds(void *arg)
{
    long me = (long)arg;
    for (int r = 0; r < 3; r++) {
        if (me == 0)
            phase = r;
        int e = pthread_barrier_wait(&barrier);
        serial[me][r] = e == PTHREAD_BARRIER_SERIAL_THREAD;
        phase_seen[me][r] = phase;
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t readers_in;
static int reader_try_wr[3], reader_try_rd[3];

static void *reader(void *arg)
{
    long me = (long)arg;
    pthread_rwlock_rdlock(&rw);
    pthread_barrier_wait(&readers_in);       /* all three hold it at once */
    reader_try_wr[me] = pthread_rwlock_trywrlock(&rw);
    reader_try_rd[me] = pthread_rwlock_tryrdlock(&rw);
    if (reader_try_rd[me] == 0)
        pthread_rwlock_unlock(&rw);
    pthread_barrier_wait(&readers_in);
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static int while_written[2];

static void *try_while_written(void *arg)
{
    (void)arg;
    while_written[0] = pthread_rwlock_tryrdlock(&rw);
    while_written[1] = pthread_rwlock_trywrlock(&rw);
    return NULL;
}

static pthread_spinlock_t spin;
static long spun;

static void *spin_up(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_spin_lock(&spin);
        spun++;
        pthread_spin_unlock(&spin);
        if (i % 1000 == 0)
            sched_yield();
    }
    return NULL;
}

static sem_t tokens, returned;

static void *take_tokens(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        sem_wait(&tokens);
        sem_post(&returned);
    }
    return NULL;
}

static void sync_objects(void)
{
    printf("barrier_init count 0: %s\n", errname(pthread_barrier_init(&barrier, NULL, 0)));
    pthread_barrier_init(&barrier, NULL, NT);
    pthread_t t[NT];
    for (long i = 0; i < NT; i++)
        start_thread("barrier", &t[i], barrier_rounds, (void *)i);
    for (int i = 0; i < NT; i++)
        join_thread("barrier", t[i], NULL);
    for (int r = 0; r < 3; r++) {
        int serials = 0, same = 1;
        for (int i = 0; i < NT; i++) {
            serials += serial[i][r];
            same &= phase_seen[i][r] == r;
        }
        printf("barrier round %d: %d serial thread, every thread saw this round's phase %d\n",
               r, serials, same);
    }
    pthread_barrier_destroy(&barrier);

    pthread_barrier_init(&readers_in, NULL, 3);
    for (long i = 0; i < 3; i++)
        start_thread("rwlock", &t[i], reader, (void *)i);
    for (int i = 0; i < 3; i++)
        join_thread("rwlock", t[i], NULL);
    for (int i = 0; i < 3; i++)
        printf("reader %d, three readers in: trywrlock %s, tryrdlock %s\n", i,
               errname(reader_try_wr[i]), errname(reader_try_rd[i]));
    pthread_barrier_destroy(&readers_in);
    printf("wrlock: %s", errname(pthread_rwlock_wrlock(&rw)));
    start_thread("rwlock", &t[0], try_while_written, NULL);
    join_thread("rwlock", t[0], NULL);
    printf(", another thread's tryrdlock %s, trywrlock %s", errname(while_written[0]),
           errname(while_written[1]));
    printf(", unlock %s\n", errname(pthread_rwlock_unlock(&rw)));

    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    for (int i = 0; i < NT; i++)
        start_thread("spinlock", &t[i], spin_up, NULL);
    for (int i = 0; i < NT; i++)
        join_thread("spinlock", t[i], NULL);
    printf("spinlock: %d threads x %d increments = %ld", NT, ROUNDS, spun);
    pthread_spin_lock(&spin);
    printf(", trylock held %s\n", errname(pthread_spin_trylock(&spin)));
    pthread_spin_unlock(&spin);
    pthread_spin_destroy(&spin);

    sem_init(&tokens, 0, 0);
    sem_init(&returned, 0, 0);
    start_thread("semaphore", &t[0], take_tokens, NULL);
    for (int i = 0; i < 100; i++) {
        sem_post(&tokens);
        sem_wait(&returned);
    }
    join_thread("semaphore", t[0], NULL);
    int v = -1;
    sem_getvalue(&tokens, &v);
    errno = 0;
    int tw = sem_trywait(&tokens);
    printf("semaphore: 100 tokens passed, value %d, trywait %d %s", v, tw, errname(errno));
    struct timespec d = deadline_ms(CLOCK_REALTIME, 20);
    errno = 0;
    tw = sem_timedwait(&tokens, &d);
    printf(", timedwait %d %s\n", tw, errname(errno));
}

/* ---- TLS, TSD, once -------------------------------------------------------------------- */

static __thread long tls_counter = 7;
static __thread char tls_buf[64];
static long tls_seen_initial[NT], tls_final[NT];
static uintptr_t tls_addr[NT];

static pthread_key_t key;
static long destructed[NT + 1];
static int destructor_calls;
static pthread_mutex_t tsd_lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy_value(void *v)
{
    long n = (long)v;
    pthread_mutex_lock(&tsd_lock);
    destructed[n - 1000] = n;
    destructor_calls++;
    pthread_mutex_unlock(&tsd_lock);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;

static void once_init(void)
{
    once_runs++;
}

static void *tls_user(void *arg)
{
    long me = (long)arg;
    tls_seen_initial[me] = tls_counter;
    tls_addr[me] = (uintptr_t)&tls_counter;
    for (int i = 0; i < 1000; i++) {
        tls_counter += me;
        if (i % 100 == 0)
            sched_yield();
    }
    snprintf(tls_buf, sizeof tls_buf, "thread %ld", me);
    tls_final[me] = tls_counter + (long)strlen(tls_buf);
    pthread_setspecific(key, (void *)(1000 + me));
    if (pthread_getspecific(key) != (void *)(1000 + me))
        tls_final[me] = -1;
    pthread_once(&once, once_init);
    return NULL;
}

static void *tsd_unset(void *arg)
{
    (void)arg;
    return pthread_getspecific(key);
}

static void tls_tsd(void)
{
    printf("key_create: %s\n", errname(pthread_key_create(&key, destroy_value)));
    tls_counter = 99;
    pthread_t t[NT];
    for (long i = 0; i < NT; i++)
        start_thread("tls", &t[i], tls_user, (void *)i);
    for (int i = 0; i < NT; i++)
        join_thread("tls", t[i], NULL);
    int distinct = 1;
    for (int i = 0; i < NT; i++) {
        distinct &= tls_addr[i] != (uintptr_t)&tls_counter;
        for (int j = 0; j < i; j++)
            distinct &= tls_addr[i] != tls_addr[j];
        printf("tls thread %d: initial %ld, final %ld, destructor got %ld\n", i,
               tls_seen_initial[i], tls_final[i], destructed[i]);
    }
    printf("tls: main's value %ld, addresses distinct %d, destructor calls %d, once ran %d\n",
           tls_counter, distinct, destructor_calls, once_runs);
    start_thread("tsd", &t[0], tsd_unset, NULL);
    join_thread("tsd", t[0], NULL);
    printf("tsd: a new thread's value is NULL; main's is NULL %d\n",
           pthread_getspecific(key) == NULL);
    printf("key_delete: %s\n", errname(pthread_key_delete(key)));
}

/* ---- a thread ending the process --------------------------------------------------- */

static volatile pid_t raw_exit_tid;

static void *end_process(void *arg)
{
    long how = (long)arg;
    if (how == 0)
        exit(7);                              /* exit: atexit, then exit_group */
    if (how == 1)
        syscall(SYS_exit_group, 5);
    /* This thread only, behind the C library's back (so it cannot be joined: musl's join
     * waits for what its own pthread_exit records). */
    raw_exit_tid = tid_of_self();
    syscall(SYS_exit, 3);
    return NULL;
}

/* Runs on after the leader's SYS_exit: the leader is a zombie until the group is empty. */
static void *outlive_leader(void *arg)
{
    (void)arg;
    char st = '?';
    for (int i = 0; i < 2000 && (st = thread_state(getpid(), getpid())) != 'Z'; i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    printf("the leader has exited: its state %c\n", st);
    return NULL;
}

static void ending(void)
{
    static const char *const names[] = { "exit(7) in a thread", "exit_group(5) in a thread",
                                         "SYS_exit(3) in a thread, main goes on, exits 0",
                                         "main SYS_exit(4), the last thread returns" };
    for (long how = 0; how < 4; how++) {
        pid_t pid = fork();
        if (pid == 0) {
            pthread_t t;
            start_thread(names[how], &t, how == 3 ? outlive_leader : end_process, (void *)how);
            if (how == 3)   /* raw: the C libraries' own last-thread logic is not under test */
                syscall(SYS_exit, 4);
            if (how == 2) {
                while (!raw_exit_tid)
                    sched_yield();
                printf("SYS_exit(3): the thread is gone, the process runs on %d\n",
                       thread_gone(raw_exit_tid));
                _exit(0);
            }
            for (;;)
                pause();
        }
        int st;
        waitpid(pid, &st, 0);
        show_status(names[how], st);
    }
}

int main(void)
{
    threads_init();
    create_join();
    mutexes();
    condvars();
    sync_objects();
    tls_tsd();
    ending();
    return 0;
}
