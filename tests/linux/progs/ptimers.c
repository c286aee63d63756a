/* POSIX timers (issue 14 item 2): timer_create's clocks and events and their errors, ids,
 * timer_settime (relative, absolute, periodic), timer_gettime, the signal's siginfo (SI_TIMER,
 * si_timerid, si_value), si_overrun and timer_getoverrun for periods missed while the signal
 * was blocked, SIGEV_NONE, SIGEV_THREAD_ID, SIGEV_THREAD (glibc's and musl's helper thread),
 * CPU-time clocks, timer_delete, RLIMIT_SIGPENDING, and timers gone after fork and exec.
 * Counts that depend on time are asserted as lower bounds reached by waiting on a clock. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <fcntl.h>
#include "corpus.h"

static void *volatile bad_address = (void *)8;
#define BAD bad_address
#define MS 1000000L

static struct itimerspec its(long value_ns, long interval_ns)
{
    struct itimerspec t = { { interval_ns / 1000000000, interval_ns % 1000000000 },
                            { value_ns / 1000000000, value_ns % 1000000000 } };
    return t;
}

/* The kernel's calls: the C libraries' timer_t is not the kernel's id for SIGEV_THREAD. */
static long k_create(clockid_t clk, struct sigevent *ev, int *id)
{
    return syscall(SYS_timer_create, clk, ev, id);
}
static long k_settime(int id, int flags, const struct itimerspec *n, struct itimerspec *o)
{
    return syscall(SYS_timer_settime, id, flags, n, o);
}
static long k_gettime(int id, struct itimerspec *t)
{
    return syscall(SYS_timer_gettime, id, t);
}
static long k_overrun(int id)
{
    return syscall(SYS_timer_getoverrun, id);
}
static long k_delete(int id)
{
    return syscall(SYS_timer_delete, id);
}

/* sigev_notify_thread_id (offset 16), which not every libc's header names. */
static void set_tid(struct sigevent *ev, int tid)
{
    memcpy((char *)ev + 16, &tid, sizeof tid);
}

static void show_gettime(const char *what, int id)
{
    struct itimerspec t;
    if (k_gettime(id, &t)) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: interval %ld.%09ld value %s\n", what, (long)t.it_interval.tv_sec,
           t.it_interval.tv_nsec, !t.it_value.tv_sec && !t.it_value.tv_nsec ? "0" : "running");
}

/* Wait (blocked) for sig: its siginfo. */
static siginfo_t take(int sig)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (sigwaitinfo(&s, &si) != sig)
        printf("sigwaitinfo: %s\n", errname(errno));
    return si;
}

static void show_info(const char *what, const siginfo_t *si)
{
    printf("%s: signo %d code %s timerid %d value %d\n", what, si->si_signo,
           si->si_code == SI_TIMER ? "SI_TIMER" : "other", si->si_timerid,
           si->si_value.sival_int);
}

/* Until clock clk has passed ns beyond now (no sleeping: the clock decides). */
static void clock_wait(clockid_t clk, long ns)
{
    struct timespec a, b;
    clock_gettime(clk, &a);
    do
        clock_gettime(clk, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void errors(void)
{
    int id;
    struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
    SHOW("create bad clock", k_create(42, NULL, &id));
    SHOW("create CLOCK_MONOTONIC_RAW", k_create(CLOCK_MONOTONIC_RAW, NULL, &id));
    SHOW("create CLOCK_MONOTONIC_COARSE", k_create(CLOCK_MONOTONIC_COARSE, NULL, &id));
    SHOW("create bad event pointer", k_create(CLOCK_MONOTONIC, BAD, &id));
    ev.sigev_notify = 7;
    SHOW("create bad notify", k_create(CLOCK_MONOTONIC, &ev, &id));
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = 0;
    SHOW("create signal 0", k_create(CLOCK_MONOTONIC, &ev, &id));
    ev.sigev_signo = 65;
    SHOW("create signal 65", k_create(CLOCK_MONOTONIC, &ev, &id));
    ev.sigev_signo = SIGUSR1;
    ev.sigev_notify = SIGEV_THREAD_ID;
    set_tid(&ev, 1);
    SHOW("create SIGEV_THREAD_ID of another process", k_create(CLOCK_MONOTONIC, &ev, &id));
    SHOW("create bad id pointer", k_create(CLOCK_MONOTONIC, NULL, BAD));
    /* The ids so far: 0 was used up by the failed copy. */
    SHOW("create (no event)", k_create(CLOCK_MONOTONIC, NULL, &id));
    printf("id: %d\n", id);
    struct itimerspec t = its(0, 0), bad = its(0, 0);
    bad.it_value.tv_nsec = -1;
    SHOW("settime NULL", k_settime(id, 0, NULL, NULL));
    SHOW("settime bad value", k_settime(id, 0, &bad, NULL));
    SHOW("settime bad pointer", k_settime(id, 0, BAD, NULL));
    SHOW("settime bad old", k_settime(id, 0, &t, BAD));
    SHOW("settime unknown id", k_settime(id + 100, 0, &t, NULL));
    SHOW("settime id -1", k_settime(-1, 0, &t, NULL));
    SHOW("gettime unknown id", k_gettime(id + 100, &t));
    SHOW("gettime bad pointer", k_gettime(id, BAD));
    SHOW("getoverrun unknown id", k_overrun(id + 100));
    SHOW("getoverrun", k_overrun(id));
    SHOW("delete", k_delete(id));
    SHOW("delete again", k_delete(id));
    SHOW("gettime deleted", k_gettime(id, &t));
    SHOW("create after delete", k_create(CLOCK_REALTIME, NULL, &id));
    printf("id: %d (not reused)\n", id);
    k_delete(id);
}

static void signals(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigaddset(&s, SIGALRM);
    sigaddset(&s, SIGUSR2);
    sigprocmask(SIG_BLOCK, &s, NULL);

    /* No event: SIGALRM with the id as value. */
    int id;
    k_create(CLOCK_MONOTONIC, NULL, &id);
    struct itimerspec t = its(1 * MS, 0);
    SHOW("settime relative", k_settime(id, 0, &t, NULL));
    siginfo_t si = take(SIGALRM);
    show_info("SIGALRM", &si);
    printf("value is the id: %d\n", si.si_value.sival_int == id);
    show_gettime("one-shot after it", id);
    k_delete(id);

    /* SIGEV_SIGNAL with a value; absolute on every clock. */
    clockid_t clocks[4] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_TAI };
    for (int i = 0; i < 4; i++) {
        struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
                               .sigev_value.sival_int = 100 + i };
        if (k_create(clocks[i], &ev, &id)) {
            printf("create clock %d: %s\n", clocks[i], errname(errno));
            continue;
        }
        struct timespec now;
        clock_gettime(clocks[i], &now);
        t = its(0, 0);
        t.it_value.tv_sec = now.tv_sec;
        t.it_value.tv_nsec = now.tv_nsec;
        SHOW("settime absolute now", k_settime(id, TIMER_ABSTIME, &t, NULL));
        si = take(SIGUSR1);
        printf("clock %d: ", clocks[i]);
        show_info("SIGUSR1", &si);
        k_delete(id);
    }

    /* Periodic, its signal blocked for >= 5 periods: overruns >= 4, as timer_getoverrun. */
    struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2,
                           .sigev_value.sival_int = 7 };
    k_create(CLOCK_MONOTONIC, &ev, &id);
    t = its(1 * MS, 1 * MS);
    k_settime(id, 0, &t, NULL);
    clock_wait(CLOCK_MONOTONIC, 6 * MS);
    struct itimerspec g;
    k_gettime(id, &g);
    printf("periodic, pending: interval %ld ms, value %s\n", g.it_interval.tv_nsec / MS,
           g.it_value.tv_sec || g.it_value.tv_nsec ? "running" : "0");
    si = take(SIGUSR2);
    show_info("periodic", &si);
    printf("si_overrun >= 4: %d, getoverrun the same: %d\n", si.si_overrun >= 4,
           k_overrun(id) == si.si_overrun);
    si = take(SIGUSR2);
    printf("the next period comes: %d\n", si.si_signo == SIGUSR2);
    struct itimerspec old;
    t = its(0, 0);
    SHOW("disarm", k_settime(id, 0, &t, &old));
    printf("old interval %ld ms\n", old.it_interval.tv_nsec / MS);
    show_gettime("disarmed", id);
    SHOW("getoverrun after settime", k_overrun(id));
    k_delete(id);

    /* A timer deleted while its signal is pending: the signal stays. */
    ev.sigev_signo = SIGUSR1;
    k_create(CLOCK_MONOTONIC, &ev, &id);
    t = its(1 * MS, 0);
    k_settime(id, 0, &t, NULL);
    clock_wait(CLOCK_MONOTONIC, 2 * MS);
    SHOW("delete with its signal pending", k_delete(id));
    sigset_t pend;
    sigpending(&pend);
    printf("SIGUSR1 still pending: %d\n", sigismember(&pend, SIGUSR1));
    si = take(SIGUSR1);
    show_info("after delete", &si);

    /* SIGEV_NONE: nothing is sent; gettime counts down. */
    ev.sigev_notify = SIGEV_NONE;
    k_create(CLOCK_MONOTONIC, &ev, &id);
    t = its(3600L * 1000 * MS, 0);
    k_settime(id, 0, &t, NULL);
    show_gettime("SIGEV_NONE armed", id);
    t = its(1 * MS, 0);
    k_settime(id, 0, &t, NULL);
    clock_wait(CLOCK_MONOTONIC, 2 * MS);
    show_gettime("SIGEV_NONE expired", id);
    sigpending(&pend);
    printf("nothing pending: %d\n", !sigismember(&pend, SIGUSR1));
    k_delete(id);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
}

static volatile int thread_hits;
static volatile pid_t hit_tid;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    if (si->si_code == SI_TIMER)
        thread_hits++;
    hit_tid = syscall(SYS_gettid);
}

static int threads_done;
static void on_thread_timer(union sigval v)
{
    __atomic_store_n(&threads_done, v.sival_int, __ATOMIC_SEQ_CST);
}

static void thread_events(void)
{
    /* SIGEV_THREAD_ID: to this thread (the others block SIGUSR1). */
    struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
    set_tid(&ev, syscall(SYS_gettid));
    int id;
    SHOW("create SIGEV_THREAD_ID (this thread)", k_create(CLOCK_MONOTONIC, &ev, &id));
    struct itimerspec t = its(1 * MS, 0);
    k_settime(id, 0, &t, NULL);
    while (!thread_hits)
        ;
    printf("SIGEV_THREAD_ID: handled by the thread named: %d\n",
           hit_tid == (pid_t)syscall(SYS_gettid));
    k_delete(id);

    /* SIGEV_THREAD through the C library. */
    timer_t tt;
    struct sigevent tev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_thread_timer,
                            .sigev_value.sival_int = 5 };
    SHOW("timer_create SIGEV_THREAD", timer_create(CLOCK_MONOTONIC, &tev, &tt));
    t = its(1 * MS, 0);
    SHOW("timer_settime", timer_settime(tt, 0, &t, NULL));
    while (!__atomic_load_n(&threads_done, __ATOMIC_SEQ_CST))
        ;
    printf("SIGEV_THREAD function ran with value %d\n", threads_done);
    SHOW("timer_delete", timer_delete(tt));
}

static void cpu_clocks(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    sigprocmask(SIG_BLOCK, &s, NULL);
    /* CLOCK_THREAD_CPUTIME_ID's timers are not compared: Linux 6.1 in QEMU did not fire one
     * for a thread spinning in clock_gettime (docs/linux/event-files.md). */
    clockid_t clocks[1] = { CLOCK_PROCESS_CPUTIME_ID };
    for (int i = 0; i < 1; i++) {
        struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2,
                               .sigev_value.sival_int = 30 + i };
        int id;
        SHOW("create on a CPU-time clock", k_create(clocks[i], &ev, &id));
        struct itimerspec t = its(2 * MS, 0);
        k_settime(id, 0, &t, NULL);
        show_gettime("armed", id);
        clock_wait(clocks[i], 3 * MS);      /* spin: CPU time passes */
        siginfo_t si = take(SIGUSR2);
        show_info("CPU-time timer", &si);
        show_gettime("after it", id);
        k_delete(id);
    }
    sigprocmask(SIG_UNBLOCK, &s, NULL);
}

static void limits_and_processes(void)
{
    struct rlimit old, zero = { 0, 0 };
    getrlimit(RLIMIT_SIGPENDING, &old);
    zero.rlim_max = old.rlim_max;
    setrlimit(RLIMIT_SIGPENDING, &zero);
    int id;
    SHOW("create with RLIMIT_SIGPENDING 0", k_create(CLOCK_MONOTONIC, NULL, &id));
    setrlimit(RLIMIT_SIGPENDING, &old);

    SHOW("create for fork", k_create(CLOCK_MONOTONIC, NULL, &id));
    pid_t c = fork();
    if (c == 0) {
        struct itimerspec t;
        int r = k_gettime(id, &t) == -1 && errno == EINVAL;
        int nid = -1;
        k_create(CLOCK_MONOTONIC, NULL, &nid);
        _exit(r && nid == 0 ? 0 : 1);           /* the child has none; its ids start at 0 */
    }
    int st;
    waitpid(c, &st, 0);
    show_status("child: no timers, ids from 0 (0: yes)", st);
    show_gettime("parent's timer still there", id);
    k_delete(id);
}

int main(int argc, char **argv)
{
    corpus_init();
    if (argc > 1) {                 /* after execve: the timers are gone, the ids go on */
        struct itimerspec t;
        SHOW("after exec: gettime of the old timer", k_gettime(atoi(argv[1]), &t));
        int id;
        k_create(CLOCK_MONOTONIC, NULL, &id);
        printf("after exec: the next id is larger: %d\n", id > atoi(argv[1]));
        return 0;
    }
    errors();
    signals();
    thread_events();
    cpu_clocks();
    limits_and_processes();
    int id;
    k_create(CLOCK_MONOTONIC, NULL, &id);
    struct itimerspec t = its(3600L * 1000 * MS, 0);
    k_settime(id, 0, &t, NULL);
    char arg[16];
    snprintf(arg, sizeof arg, "%d", id);
    execl("/proc/self/exe", argv[0], arg, (char *)NULL);
    printf("execl: %s\n", errname(errno));
    return 1;
}
