/* timerfd_create, timerfd_settime and timerfd_gettime (issue 14 item 2): the clocks and
 * flags, errors, one-shot and periodic timers whose expirations a read counts, absolute
 * times in the past, gettime after an expiry, poll readiness, reads that block until the
 * timer fires or a signal interrupts them, and TFD_TIMER_CANCEL_ON_SET.  Nothing here
 * depends on how long anything takes: counts are asserted as ">= 1", never as durations. */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <fcntl.h>
#include "pwait.h"

static void *volatile bad_address = (void *)8;
#define BAD bad_address
#define MS 1000000L
#define TFD_IOC_SET_TICKS 0x40085400ul     /* _IOW('T', 0, u64): not in every libc's headers */

static struct itimerspec its(long value_ns, long interval_ns)
{
    struct itimerspec t = { { interval_ns / 1000000000, interval_ns % 1000000000 },
                            { value_ns / 1000000000, value_ns % 1000000000 } };
    return t;
}

/* ns before t (the clocks have run longer than that: lx's MONOTONIC starts near 0). */
static struct timespec before(struct timespec t, long ns)
{
    long total = t.tv_nsec - ns;
    while (total < 0) {
        total += 1000000000;
        t.tv_sec--;
    }
    t.tv_nsec = total;
    return t;
}

static void errors(void)
{
    SHOW("create bad clock 42", timerfd_create(42, 0));
    SHOW("create CLOCK_PROCESS_CPUTIME_ID", timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0));
    SHOW("create bad flags", timerfd_create(CLOCK_MONOTONIC, 0x10));
    int fds[5];
    int clocks[5] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM,
                      CLOCK_BOOTTIME_ALARM };
    for (int i = 0; i < 5; i++) {
        char what[32];
        snprintf(what, sizeof what, "create clock %d", clocks[i]);
        fds[i] = TRY(what, timerfd_create(clocks[i], 0));
    }
    for (int i = 0; i < 5; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    show_fd_mode_link(fd, O_RDWR, "rdwr");
    struct itimerspec t = its(0, 0), bad = its(0, 0);
    bad.it_value.tv_nsec = 1000000000;
    SHOW("settime bad flags", timerfd_settime(fd, 4, &t, NULL));
    SHOW("settime nsec 1e9", timerfd_settime(fd, 0, &bad, NULL));
    bad = its(0, 0);
    bad.it_interval.tv_sec = -1;
    SHOW("settime negative interval", timerfd_settime(fd, 0, &bad, NULL));
    SHOW("settime bad new", timerfd_settime(fd, 0, BAD, NULL));
    SHOW("settime bad old", timerfd_settime(fd, 0, &t, BAD));
    SHOW("settime EBADF", timerfd_settime(99, 0, &t, NULL));
    SHOW("settime on a pipe", timerfd_settime(ready[0], 0, &t, NULL));
    SHOW("gettime EBADF", timerfd_gettime(99, &t));
    SHOW("gettime on a pipe", timerfd_gettime(ready[0], &t));
    SHOW("gettime bad address", timerfd_gettime(fd, BAD));
    uint32_t small;
    SHOW("read 4 bytes", read(fd, &small, sizeof small));
    uint64_t v;
    SHOW("read disarmed", read(fd, &v, sizeof v));
    SHOW("write", write(fd, &v, sizeof v));
    SHOW("ioctl TFD_IOC_SET_TICKS 0", ioctl(fd, TFD_IOC_SET_TICKS, &(uint64_t){ 0 }));
    SHOW("ioctl TFD_IOC_SET_TICKS 5", ioctl(fd, TFD_IOC_SET_TICKS, &(uint64_t){ 5 }));
    SHOW("read after SET_TICKS", read(fd, &v, sizeof v));
    printf("ticks: %llu\n", (unsigned long long)v);
    long n = 0;
    SHOW("ioctl FIONREAD", ioctl(fd, FIONREAD, &n));
    close(fd);
}

static void show_gettime(const char *what, int fd)
{
    struct itimerspec t;
    if (timerfd_gettime(fd, &t)) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: interval %ld.%09ld value %s\n", what, (long)t.it_interval.tv_sec,
           t.it_interval.tv_nsec,
           !t.it_value.tv_sec && !t.it_value.tv_nsec ? "0" : "running");
}

static void expirations(void)
{
    int fd = timerfd_create(CLOCK_MONOTONIC, 0);
    show_gettime("new", fd);
    struct itimerspec t = its(3600L * 1000 * MS, 5 * MS), old;
    SHOW("arm an hour away", timerfd_settime(fd, 0, &t, NULL));
    show_gettime("armed", fd);
    struct pollfd p = { fd, POLLIN, 0 };
    SHOW("poll not expired", poll(&p, 1, 0));
    t = its(0, 0);
    SHOW("disarm", timerfd_settime(fd, 0, &t, &old));
    printf("old: interval %ld ms, value %s\n", old.it_interval.tv_nsec / MS,
           old.it_value.tv_sec > 3000 ? "about an hour" : "other");
    show_gettime("disarmed", fd);

    /* A one-shot timer: a blocking read gets 1. */
    t = its(2 * MS, 0);
    timerfd_settime(fd, 0, &t, NULL);
    uint64_t v = 0;
    SHOW("blocking read of a one-shot", read(fd, &v, sizeof v));
    printf("expirations: %llu\n", (unsigned long long)v);
    show_gettime("after it", fd);

    /* Absolute, in the past: expired at once; every clock. */
    int clocks[3] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME };
    for (int i = 0; i < 3; i++) {
        int f = timerfd_create(clocks[i], TFD_NONBLOCK);
        struct timespec now;
        clock_gettime(clocks[i], &now);
        t = its(0, 0);
        t.it_value = before(now, 1 * MS);
        SHOW("settime absolute, 1 ms ago", timerfd_settime(f, TFD_TIMER_ABSTIME, &t, NULL));
        struct pollfd q = { f, POLLIN, 0 };
        poll(&q, 1, -1);
        v = 0;
        SHOW("read it", read(f, &v, sizeof v));
        printf("clock %d expirations: %llu\n", clocks[i], (unsigned long long)v);
        SHOW("read again", read(f, &v, sizeof v));
        close(f);
    }

    /* Periodic: every read gets >= 1; a second ago with a period of 1 ms: many missed. */
    t = its(1 * MS, 1 * MS);
    timerfd_settime(fd, 0, &t, NULL);
    int ok = 1;
    for (int i = 0; i < 5; i++) {
        v = 0;
        if (read(fd, &v, sizeof v) != 8 || v < 1)
            ok = 0;
    }
    printf("periodic: five reads of >= 1: %d\n", ok);
    show_gettime("periodic", fd);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    t = its(0, 1 * MS);
    t.it_value = before(now, 10 * MS);
    timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL);
    v = 0;
    read(fd, &v, sizeof v);
    printf("periodic from 10 ms ago: >= 10 expirations: %d\n", v >= 10);
    show_gettime("after the catch-up", fd);
    close(fd);
}

/* epoll and poll wait for the expiry; a signal interrupts a blocked read. */
static void waiting(void)
{
    int fd = timerfd_create(CLOCK_MONOTONIC, 0);
    int ep = epoll_create1(0);
    struct epoll_event ev = { EPOLLIN, { .u64 = 5 } };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    struct itimerspec t = its(3 * MS, 0);
    timerfd_settime(fd, 0, &t, NULL);
    struct epoll_event out = { 0, { 0 } };
    SHOW("epoll_wait for the expiry", epoll_wait(ep, &out, 1, -1));
    printf("events %#x data %llu\n", out.events, (unsigned long long)out.data.u64);
    uint64_t v;
    read(fd, &v, sizeof v);
    SHOW("epoll_wait after the read", epoll_wait(ep, &out, 1, 0));
    close(ep);

    for (int restart = 0; restart < 2; restart++) {
        pid_t c = blocked_reader(fd, restart);
        kill(c, SIGUSR1);
        if (restart) {
            t = its(1 * MS, 0);
            timerfd_settime(fd, 0, &t, NULL);       /* the restarted read gets it */
        }
        reap(restart ? "SA_RESTART read (expirations)" : "interrupted read (100 + errno)", c);
        t = its(0, 0);
        timerfd_settime(fd, 0, &t, NULL);
    }
    close(fd);
}

/* TFD_TIMER_CANCEL_ON_SET: setting the clock (to what it says) ends a read with ECANCELED. */
static void cancel_on_set(void)
{
    int fd = timerfd_create(CLOCK_REALTIME, 0);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct itimerspec t = its(0, 0);
    t.it_value.tv_sec = now.tv_sec + 3600;
    SHOW("settime CANCEL_ON_SET", timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
                                                  &t, NULL));
    pid_t c = fork();
    if (c == 0) {
        about_to_block();
        uint64_t n = 0;
        _exit(read(fd, &n, 8) == 8 ? (int)n : 100 + errno);
    }
    until_asleep(c);
    clock_gettime(CLOCK_REALTIME, &now);
    SHOW("clock_settime", clock_settime(CLOCK_REALTIME, &now));
    reap("read across clock_settime (100 + errno)", c);
    show_gettime("still armed", fd);
    uint64_t v;
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    SHOW("read after the cancel", read(fd, &v, sizeof v));
    /* Without CANCEL_ON_SET, or relative: setting the clock changes nothing. */
    t.it_value.tv_sec = now.tv_sec + 3600;
    SHOW("settime ABSTIME only", timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL));
    clock_gettime(CLOCK_REALTIME, &now);
    clock_settime(CLOCK_REALTIME, &now);
    SHOW("read", read(fd, &v, sizeof v));
    t = its(3600L * 1000 * MS, 0);
    SHOW("CANCEL_ON_SET without ABSTIME", timerfd_settime(fd, TFD_TIMER_CANCEL_ON_SET, &t, NULL));
    clock_settime(CLOCK_REALTIME, &now);
    SHOW("read", read(fd, &v, sizeof v));
    close(fd);
}

int main(void)
{
    if (pwait_init())
        return 1;
    errors();
    expirations();
    waiting();
    cancel_on_set();
    return 0;
}
