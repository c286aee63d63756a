/* How a blocked call ends when a signal interrupts it (issue 13 item 5): each call's own
 * result, as Linux's -ERESTART* codes and partial counts decide.
 *   - a pipe write that moved 64 KiB before the signal: 65536, with and without SA_RESTART,
 *     and the reader gets those bytes once, in order;
 *   - nanosleep and clock_nanosleep: EINTR with the time left in rem (not for TIMER_ABSTIME);
 *     after a stop and SIGCONT (no handler) the sleep goes on for what was left;
 *   - pselect6, ppoll and epoll_pwait with a mask that lets a blocked SIGCHLD in: EINTR at
 *     once when it is pending before the call or arrives during it; the mask back after;
 *   - clock_nanosleep's errors (clocks that cannot sleep, bad pointers);
 *   - alarm's old value for large times.
 * Times are printed only as relations that hold on every correct kernel.  The fast
 * ITIMER_REAL is itimer.c. */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include "corpus.h"

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
    (void)sig;
    handled++;
}

static void catch(int sig, int flags)
{
    struct sigaction sa = { .sa_handler = on_signal, .sa_flags = flags };
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void timer_in(long us)
{
    struct itimerval it = { .it_value = { us / 1000000, us % 1000000 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- a pipe write interrupted after the pipe took 64 KiB -------------------------------- */

#define WRITE_SIZE 100000

static void pipe_write(const char *what, int flags)
{
    int fds[2];
    if (pipe(fds))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        static char buf[WRITE_SIZE];
        for (int i = 0; i < WRITE_SIZE; i++)
            buf[i] = (char)(i % 251);
        close(fds[0]);
        catch(SIGALRM, flags);
        timer_in(100000);                   /* while the write waits for room */
        errno = 0;
        long r = write(fds[1], buf, sizeof buf);
        printf("%s: write returned %ld%s%s, handler ran %d\n", what, r, r < 0 ? " " : "",
               r < 0 ? errname(errno) : "", (int)handled);
        _exit(0);
    }
    close(fds[1]);
    struct timespec wait = { 0, 500000000 };    /* let the writer fill the pipe and block */
    nanosleep(&wait, NULL);
    long total = 0, in_order = 1;
    char buf[4096];
    for (;;) {
        long n = read(fds[0], buf, sizeof buf);
        if (n <= 0)
            break;
        for (long i = 0; i < n; i++)
            if (buf[i] != (char)((total + i) % 251))
                in_order = 0;
        total += n;
    }
    int st;
    waitpid(pid, &st, 0);
    printf("%s: the reader got %ld bytes, in order %ld\n", what, total, in_order);
    close(fds[0]);
}

/* --- sleeps ------------------------------------------------------------------------------- */

static void sleep_rem(void)
{
    catch(SIGALRM, 0);
    struct timespec req = { 2, 0 }, rem = { 77, 77 };
    handled = 0;
    timer_in(200000);
    errno = 0;
    int r = nanosleep(&req, &rem);
    double left = rem.tv_sec + rem.tv_nsec / 1e9;
    printf("nanosleep: %d %s, handler ran %d, rem between 1.5 and 1.9 s: %d\n", r,
           errname(errno), (int)handled, left > 1.5 && left < 1.9);

    rem.tv_sec = 77;
    timer_in(200000);
    errno = 0;
    r = (int)syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, &rem);
    left = rem.tv_sec + rem.tv_nsec / 1e9;
    printf("clock_nanosleep relative: %d %s, rem between 1.5 and 1.9 s: %d\n", r,
           errname(errno), left > 1.5 && left < 1.9);

    struct timespec abs;
    clock_gettime(CLOCK_MONOTONIC, &abs);
    abs.tv_sec += 2;
    rem.tv_sec = 77, rem.tv_nsec = 77;
    timer_in(200000);
    errno = 0;
    r = (int)syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, &rem);
    printf("clock_nanosleep TIMER_ABSTIME: %d %s, rem untouched: %d\n", r, errname(errno),
           rem.tv_sec == 77 && rem.tv_nsec == 77);

    /* The remaining time written to a bad pointer: EFAULT, not EINTR. */
    timer_in(200000);
    errno = 0;
    r = (int)syscall(SYS_nanosleep, &req, (void *)8);
    printf("nanosleep, rem unwritable: %d %s\n", r, errname(errno));
    signal(SIGALRM, SIG_DFL);
}

/* A sleep stopped and continued: no handler runs, so it goes on, for what was left. */
static void sleep_stopped(void)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec req = { 1, 0 }, rem = { 0, 0 };
        int r = nanosleep(&req, &rem);
        double took = now() - t0;
        printf("stopped sleep: %d, took 0.9 to 1.3 s: %d\n", r, took > 0.9 && took < 1.3);
        _exit(0);
    }
    struct timespec step = { 0, 200000000 };
    nanosleep(&step, NULL);
    kill(pid, SIGSTOP);
    nanosleep(&step, NULL);
    kill(pid, SIGCONT);
    int st;
    waitpid(pid, &st, 0);
    show_status("stopped sleep", st);
}

/* --- pselect6, ppoll, epoll_pwait with a signal mask ------------------------------------- */

static void wait_exited(pid_t pid)
{
    /* The child has ended once SIGCHLD is pending (blocked): look, a bounded number of times. */
    for (int i = 0; i < 200; i++) {
        sigset_t p;
        sigpending(&p);
        if (sigismember(&p, SIGCHLD))
            return;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    printf("SIGCHLD never came from %d\n", pid > 0);
}

static int masked_wait(int how, sigset_t *mask)
{
    struct timespec to = { 3, 0 };
    switch (how) {
    case 0:
        return pselect(0, NULL, NULL, NULL, &to, mask);
    case 1:
        return ppoll(NULL, 0, &to, mask);
    default: {
        int ep = epoll_create1(0);
        struct epoll_event ev;
        int r = epoll_pwait(ep, &ev, 1, 3000, mask);
        int e = errno;
        close(ep);
        errno = e;
        return r;
    }
    }
}

static void masked(void)
{
    static const char *names[] = { "pselect6", "ppoll", "epoll_pwait" };
    sigset_t block, none, cur;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigemptyset(&none);
    catch(SIGCHLD, 0);
    sigprocmask(SIG_BLOCK, &block, NULL);
    for (int how = 0; how < 3; how++) {
        /* pending before the call */
        handled = 0;
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        wait_exited(pid);
        double t0 = now();
        errno = 0;
        int r = masked_wait(how, &none);
        printf("%s, SIGCHLD pending before: %d %s, handler ran %d, at once: %d\n", names[how],
               r, errname(errno), (int)handled, now() - t0 < 1.0);
        sigprocmask(SIG_BLOCK, NULL, &cur);
        printf("%s: SIGCHLD blocked again after it: %d\n", names[how],
               sigismember(&cur, SIGCHLD));
        waitpid(pid, NULL, 0);

        /* arriving during the call */
        handled = 0;
        pid = fork();
        if (pid == 0) {
            struct timespec ts = { 0, 200000000 };
            nanosleep(&ts, NULL);
            _exit(0);
        }
        t0 = now();
        errno = 0;
        r = masked_wait(how, &none);
        printf("%s, SIGCHLD during: %d %s, handler ran %d, before the timeout: %d\n",
               names[how], r, errname(errno), (int)handled, now() - t0 < 2.5);
        waitpid(pid, NULL, 0);
    }
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    signal(SIGCHLD, SIG_DFL);
}

/* --- clock_nanosleep's errors ------------------------------------------------------------- */

static void sleep_errors(void)
{
    static const struct { const char *name; long clk; } clocks[] = {
        { "CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID },
        { "CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID },
        { "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW },
        { "CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE },
        { "CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE },
        { "CLOCK_BOOTTIME", CLOCK_BOOTTIME },
        { "clock 100", 100 },
        { "clock -1", -1 },
    };
    struct timespec past = { 0, 0 }, bad = { 0, 1000000000 };
    for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        errno = 0;
        long r = syscall(SYS_clock_nanosleep, clocks[i].clk, TIMER_ABSTIME, &past, NULL);
        printf("clock_nanosleep %s, abs 0: %ld %s\n", clocks[i].name, r, errname(errno));
        errno = 0;
        r = syscall(SYS_clock_nanosleep, clocks[i].clk, 0, &bad, NULL);
        printf("clock_nanosleep %s, bad nsec: %ld %s\n", clocks[i].name, r, errname(errno));
        errno = 0;
        r = syscall(SYS_clock_nanosleep, clocks[i].clk, 0, (void *)8, NULL);
        printf("clock_nanosleep %s, bad req: %ld %s\n", clocks[i].name, r, errname(errno));
    }
    errno = 0;
    long r = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 2, &past, NULL);
    printf("clock_nanosleep flags 2: %ld %s\n", r, errname(errno));
    errno = 0;
    r = syscall(SYS_nanosleep, (void *)8, NULL);
    printf("nanosleep bad req: %ld %s\n", r, errname(errno));
    struct timespec neg = { -1, 0 };
    errno = 0;
    r = syscall(SYS_nanosleep, &neg, NULL);
    printf("nanosleep negative: %ld %s\n", r, errname(errno));
}

/* --- alarm's old value ---------------------------------------------------------------------- */

static void alarms(void)
{
    static const unsigned secs[] = { INT_MAX, UINT_MAX / 2, UINT_MAX / 4, 1000000000u,
                                     UINT_MAX };
    for (unsigned i = 0; i < sizeof secs / sizeof secs[0]; i++) {
        alarm(secs[i]);
        printf("alarm(%u) then alarm(0): %u\n", secs[i], alarm(0));
    }
    struct itimerval it = { .it_value = { 5000000000l, 0 } }, old;
    setitimer(ITIMER_REAL, &it, NULL);
    getitimer(ITIMER_REAL, &old);
    printf("setitimer 5e9 s, getitimer: %ld s (within 1 s: %d)\n", (long)old.it_value.tv_sec,
           (long)old.it_value.tv_sec >= 4999999999l);
    it.it_value.tv_sec = 0;
    setitimer(ITIMER_REAL, &it, NULL);
}

int main(void)
{
    corpus_init();
    pipe_write("SA_RESTART", SA_RESTART);
    pipe_write("no SA_RESTART", 0);
    sleep_rem();
    sleep_stopped();
    masked();
    sleep_errors();
    alarms();
    return 0;
}
