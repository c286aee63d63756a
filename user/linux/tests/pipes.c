/* lx's pipes, poll/select/epoll and time (docs/linux/pipes.md, docs/linux/time.md), as a C
 * program of either C library.  Modes: pipe, poll, epoll, time, chain (and cost, by hand).
 * Prints "ok: ..." per check and "FAIL: ..." for a failure; the exit status is the number of
 * failures. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) {
        printf("  (errno %d)\n", errno);
        failures++;
    }
    fflush(stdout);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* A child's status: 0 if it exited with 0. */
static int reap(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + status;
}

static uint32_t next_rand(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static char big[1 << 20];
static void *volatile bad_ptr = (void *)16;   /* volatile: the compiler cannot see it */

/* --- pipe --------------------------------------------------------------------------------- */

static void test_pipe(void)
{
    int p[2], n;
    char buf[8192];
    struct stat st;
    signal(SIGPIPE, SIG_IGN);

    check(pipe(p) == 0 && p[0] >= 3 && p[1] == p[0] + 1, "pipe gives two fds");
    check(write(p[1], "hello", 5) == 5, "write 5 bytes");
    check(ioctl(p[0], FIONREAD, &n) == 0 && n == 5, "FIONREAD says 5");
    check(fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode), "fstat: S_IFIFO");
    check(lseek(p[0], 0, SEEK_SET) == -1 && errno == ESPIPE, "lseek: ESPIPE");
    check(read(p[0], buf, sizeof buf) == 5 && !memcmp(buf, "hello", 5), "read gives them back");
    close(p[1]);
    check(read(p[0], buf, sizeof buf) == 0, "no writer: end of file");
    close(p[0]);

    check(syscall(SYS_pipe2, p, 0x4000) == 0 && close(p[0]) == 0 && close(p[1]) == 0,
          "pipe2 with O_DIRECT: a packet-mode pipe (corpus splice compares it with Linux)");
    check(syscall(SYS_pipe2, p, 1) == -1 && errno == EINVAL, "pipe2 with a bad flag: EINVAL");
    check(syscall(SYS_pipe2, (void *)16, 0) == -1 && errno == EFAULT, "pipe2 to a bad address: EFAULT");
    check(syscall(SYS_pipe, (void *)16) == -1 && errno == EFAULT, "pipe to a bad address: EFAULT");

    check(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0, "pipe2(O_NONBLOCK | O_CLOEXEC)");
    check(fcntl(p[0], F_GETFD) == FD_CLOEXEC && (fcntl(p[1], F_GETFL) & O_NONBLOCK) &&
          (fcntl(p[1], F_GETFL) & O_ACCMODE) == O_WRONLY, "flags and close-on-exec set");
    check(read(p[0], buf, 1) == -1 && errno == EAGAIN, "empty, O_NONBLOCK: read EAGAIN");
    long total = 0, r;
    memset(buf, 'x', sizeof buf);
    while ((r = write(p[1], buf, 4096)) > 0)
        total += r;
    check(r == -1 && errno == EAGAIN && total == 65536, "a pipe holds 64 KiB, then EAGAIN");
    check(write(p[1], buf, 1) == -1 && errno == EAGAIN, "full: a 1-byte write EAGAIN");
    check(read(p[0], buf, 100) == 100 && write(p[1], buf, 4096) == -1 && errno == EAGAIN,
          "4096 bytes with 100 free: EAGAIN (PIPE_BUF atomic)");
    check(write(p[1], buf, 100) == 100, "100 bytes fit");
    close(p[0]);
    check(write(p[1], buf, 1) == -1 && errno == EPIPE, "no reader: EPIPE");
    close(p[1]);

    /* A blocking write of 1 MiB to a child that reads in odd sizes: it parks many times and
     * goes on where it was; the child checks a sum. */
    uint32_t seed = 7, sum = 0;
    for (size_t i = 0; i < sizeof big; i++) {
        big[i] = (char)next_rand(&seed);
        sum = sum * 31 + (uint8_t)big[i];
    }
    pipe(p);
    pid_t c = fork();
    if (!c) {
        close(p[1]);
        uint32_t s = 0;
        size_t got = 0, chunk = 1;
        while ((r = read(p[0], buf, chunk)) > 0) {
            for (long i = 0; i < r; i++)
                s = s * 31 + (uint8_t)buf[i];
            got += (size_t)r;
            chunk = chunk * 3 % 8191 + 1;
        }
        _exit(got == sizeof big && s == sum ? 0 : 1);
    }
    close(p[0]);
    check(write(p[1], big, sizeof big) == (long)sizeof big, "one blocking write of 1 MiB");
    close(p[1]);
    check(reap(c) == 0, "the child read 1 MiB with the right sum, then EOF");

    /* PIPE_BUF atomicity: four writers of 4096-byte records, one reader. */
    pipe(p);
    pid_t w[4];
    for (int k = 0; k < 4; k++)
        if (!(w[k] = fork())) {
            close(p[0]);
            char rec[4096];
            memset(rec, 'a' + k, sizeof rec);
            for (int i = 0; i < 40; i++)
                if (write(p[1], rec, sizeof rec) != sizeof rec)
                    _exit(1);
            _exit(0);
        }
    close(p[1]);
    int mixed = 0, records = 0;
    size_t fill = 0;
    while ((r = read(p[0], buf + fill, 4096 - fill)) > 0) {
        fill += (size_t)r;
        if (fill == 4096) {
            for (int i = 1; i < 4096; i++)
                mixed += buf[i] != buf[0];
            records++;
            fill = 0;
        }
    }
    close(p[0]);
    int bad = 0;
    for (int k = 0; k < 4; k++)
        bad += reap(w[k]) != 0;
    check(records == 160 && !mixed && !fill && !bad, "160 records of 4096 bytes, none mixed");

    /* Ends counted across fork and dup: EOF only when the last writer is gone. */
    pipe(p);
    int d = dup(p[1]);
    c = fork();
    if (!c) {
        close(p[0]);
        sleep_ms(20);
        write(d, "z", 1);
        _exit(0);
    }
    close(p[1]);
    close(d);
    check(read(p[0], buf, 10) == 1 && buf[0] == 'z', "a read waits for the child's write");
    check(read(p[0], buf, 10) == 0, "EOF after the child's exit closed the last writer");
    reap(c);
    close(p[0]);

    /* A reader parked on an empty pipe gets EOF when the writer closes. */
    pipe(p);
    c = fork();
    if (!c) {
        close(p[1]);
        _exit(read(p[0], buf, 1) == 0 ? 0 : 1);
    }
    close(p[0]);
    sleep_ms(20);
    close(p[1]);
    check(reap(c) == 0, "a parked reader wakes to EOF when the writer closes");

    /* A writer parked on a full pipe gets EPIPE when the reader closes. */
    pipe(p);
    c = fork();
    if (!c) {
        close(p[0]);
        signal(SIGPIPE, SIG_IGN);
        _exit(write(p[1], big, 100000) == 65536 ? 0 : 1);
    }
    close(p[1]);
    sleep_ms(30);
    close(p[0]);
    check(reap(c) == 0, "a parked writer returns its partial count when the reader goes");

    /* A FIFO: the reader opens first and its read waits for the writer's open and write. */
    check(mkfifo("/tmp/fifo", 0600) == 0 && stat("/tmp/fifo", &st) == 0 && S_ISFIFO(st.st_mode),
          "mkfifo makes a FIFO");
    check(mkfifo("/tmp/fifo", 0600) == -1 && errno == EEXIST, "mkfifo again: EEXIST");
    check(mknod("/tmp/dir", S_IFDIR | 0700, 0) == -1 && errno == EPERM, "mknod S_IFDIR: EPERM");
    c = fork();
    if (!c) {
        sleep_ms(20);
        int fd = open("/tmp/fifo", O_WRONLY);
        _exit(fd >= 0 && write(fd, "fifo!", 5) == 5 ? 0 : 1);
    }
    int fd = open("/tmp/fifo", O_RDONLY);
    check(fd >= 0 && read(fd, buf, sizeof buf) == 5 && !memcmp(buf, "fifo!", 5),
          "a FIFO's reader gets the writer's bytes");
    check(read(fd, buf, sizeof buf) == 0, "... and EOF when the writer is gone");
    check(reap(c) == 0 && close(fd) == 0 && unlink("/tmp/fifo") == 0, "the FIFO's writer and unlink");

    check(read(-1, buf, 1) == -1 && errno == EBADF, "read of fd -1: EBADF");
    pipe(p);
    check(write(p[1], bad_ptr, 10) == -1 && errno == EFAULT, "write from a bad address: EFAULT");
    write(p[1], "ab", 2);
    check(read(p[0], bad_ptr, 10) == -1 && errno == EFAULT, "read to a bad address: EFAULT");
    check(write(p[0], "x", 1) == -1 && errno == EBADF, "write to the read end: EBADF");
    int on = 1;
    check(ioctl(p[0], FIONBIO, &on) == 0 && (fcntl(p[0], F_GETFL) & O_NONBLOCK), "FIONBIO sets O_NONBLOCK");
    close(p[0]);
    close(p[1]);
}

/* --- poll, select ----------------------------------------------------------------------------- */

static void test_poll(void)
{
    int p[2];
    char buf[16];
    struct pollfd fds[3];
    pipe(p);
    fds[0] = (struct pollfd){ p[0], POLLIN, 0 };
    fds[1] = (struct pollfd){ p[1], POLLOUT, 0 };
    check(poll(fds, 2, 0) == 1 && fds[0].revents == 0 && fds[1].revents == POLLOUT,
          "poll: empty pipe not readable, writable");
    uint64_t t0 = mono_ns();
    check(poll(fds, 1, 50) == 0 && fds[0].revents == 0, "poll with 50 ms: times out");
    uint64_t dt = mono_ns() - t0;
    check(dt >= 50000000u && dt < 5000000000u, "... after at least 50 ms");
    write(p[1], "x", 1);
    check(poll(fds, 1, -1) == 1 && fds[0].revents == POLLIN, "poll: readable after a write");
    fds[2] = (struct pollfd){ 99, POLLIN, 0 };
    fds[1] = (struct pollfd){ -1, POLLIN, 7 };
    check(poll(fds, 3, 0) == 2 && fds[2].revents == POLLNVAL && fds[1].revents == 0,
          "poll: POLLNVAL for a closed fd, a negative fd ignored");
    check(poll(bad_ptr, 1, 0) == -1 && errno == EFAULT, "poll: bad address: EFAULT");
    check(syscall(SYS_poll, fds, 100000, 0) == -1 && errno == EINVAL, "poll: nfds over the limit: EINVAL");
    read(p[0], buf, 1);

    /* A parked poll, woken by a child's write. */
    pid_t c = fork();
    if (!c) {
        sleep_ms(30);
        write(p[1], "y", 1);
        _exit(0);
    }
    fds[0] = (struct pollfd){ p[0], POLLIN, 0 };
    t0 = mono_ns();
    check(poll(fds, 1, 10000) == 1 && fds[0].revents == POLLIN && mono_ns() - t0 >= 30000000u,
          "poll parks until the child writes (30 ms)");
    read(p[0], buf, 1);
    reap(c);
    close(p[1]);
    check(poll(fds, 1, 1000) == 1 && fds[0].revents == POLLHUP, "poll: POLLHUP without writers");
    close(p[0]);
    pipe(p);
    close(p[0]);
    fds[0] = (struct pollfd){ p[1], POLLOUT, 0 };
    check(poll(fds, 1, 0) == 1 && (fds[0].revents & POLLERR), "poll: POLLERR without readers");
    close(p[1]);

    /* ppoll: its timeout and mask. */
    pipe(p);
    struct timespec ts = { 0, 20000000 };
    sigset_t mask;
    sigemptyset(&mask);
    fds[0] = (struct pollfd){ p[0], POLLIN, 0 };
    check(ppoll(fds, 1, &ts, &mask) == 0, "ppoll with a mask: times out");
    check(syscall(SYS_ppoll, fds, 1, &ts, &mask, 4) == -1 && errno == EINVAL,
          "ppoll: sigset size 4: EINVAL");
    ts.tv_nsec = 1000000000;
    check(syscall(SYS_ppoll, fds, 1, &ts, NULL, 8) == -1 && errno == EINVAL,
          "ppoll: tv_nsec 10^9: EINVAL");

    /* select */
    fd_set r, w;
    FD_ZERO(&r); FD_ZERO(&w);
    FD_SET(p[0], &r); FD_SET(p[1], &w);
    struct timeval tv = { 0, 0 };
    check(select(p[1] + 1, &r, &w, NULL, &tv) == 1 && !FD_ISSET(p[0], &r) && FD_ISSET(p[1], &w),
          "select: writable, not readable");
    FD_ZERO(&r); FD_SET(p[0], &r);
    tv = (struct timeval){ 0, 30000 };
    t0 = mono_ns();
    /* The raw call: musl's select passes a copy of the timeout, so it never sees the time left. */
    check(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv) == 0 && !FD_ISSET(p[0], &r) && tv.tv_sec == 0 &&
          tv.tv_usec == 0 && mono_ns() - t0 >= 30000000u, "select: times out after 30 ms, timeout 0 left");
    write(p[1], "z", 1);
    FD_SET(p[0], &r);
    tv = (struct timeval){ 5, 0 };
    check(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv) == 1 && FD_ISSET(p[0], &r) && tv.tv_sec <= 5 &&
          tv.tv_sec >= 4, "select: readable, the time left written back");
    FD_ZERO(&r); FD_SET(77, &r);
    check(select(78, &r, NULL, NULL, &tv) == -1 && errno == EBADF, "select: a closed fd: EBADF");
    check(syscall(SYS_select, -1, NULL, NULL, NULL, NULL) == -1 && errno == EINVAL,
          "select: nfds -1: EINVAL");
    tv = (struct timeval){ 0, 1000000 };
    FD_ZERO(&r); FD_SET(p[0], &r);
    check(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv) == -1 && errno == EINVAL,
          "select: tv_usec 10^6: EINVAL");     /* musl would carry it into tv_sec */
    check(select(p[0] + 1, bad_ptr, NULL, NULL, NULL) == -1 && errno == EFAULT,
          "select: bad set: EFAULT");
    FD_ZERO(&r); FD_SET(p[0], &r);
    ts = (struct timespec){ 0, 0 };
    check(pselect(p[0] + 1, &r, NULL, NULL, &ts, &mask) == 1 && FD_ISSET(p[0], &r),
          "pselect with a mask: readable");
    close(p[0]);
    close(p[1]);
}

/* --- epoll ------------------------------------------------------------------------------------ */

static void test_epoll(void)
{
    int p[2], q[2], ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1122334455667788ull }, out[4];
    char buf[8];
    pipe(p);
    pipe(q);
    check(ep >= 0 && fcntl(ep, F_GETFD) == FD_CLOEXEC, "epoll_create1(EPOLL_CLOEXEC)");
    check(epoll_create1(1) == -1 && errno == EINVAL, "epoll_create1 bad flags: EINVAL");
    check(syscall(SYS_epoll_create, 0) == -1 && errno == EINVAL, "epoll_create(0): EINVAL");
    check(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "EPOLL_CTL_ADD a pipe's read end");
    check(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == -1 && errno == EEXIST, "again: EEXIST");
    check(epoll_ctl(ep, EPOLL_CTL_MOD, q[0], &ev) == -1 && errno == ENOENT, "MOD of another: ENOENT");
    check(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev) == -1 && errno == EINVAL, "itself: EINVAL");
    check(epoll_ctl(ep, EPOLL_CTL_ADD, 99, &ev) == -1 && errno == EBADF, "a closed fd: EBADF");
    check(epoll_ctl(p[0], EPOLL_CTL_ADD, q[0], &ev) == -1 && errno == EINVAL, "not an epoll fd: EINVAL");
    int reg = open("/tmp/epreg", O_CREAT | O_RDWR, 0600);
    check(epoll_ctl(ep, EPOLL_CTL_ADD, reg, &ev) == -1 && errno == EPERM, "a regular file: EPERM");
    close(reg);
    unlink("/tmp/epreg");
    check(epoll_ctl(ep, EPOLL_CTL_ADD, q[0], bad_ptr) == -1 && errno == EFAULT, "bad event: EFAULT");
    check(epoll_wait(ep, out, 4, 0) == 0, "epoll_wait: nothing ready");
    check(epoll_wait(ep, out, 0, 0) == -1 && errno == EINVAL, "maxevents 0: EINVAL");
    write(p[1], "e", 1);
    check(epoll_wait(ep, out, 4, 0) == 1 && out[0].events == EPOLLIN &&
          out[0].data.u64 == 0x1122334455667788ull, "readable, with its data");
    read(p[0], buf, 1);
    pid_t c = fork();
    if (!c) {
        sleep_ms(30);
        write(p[1], "f", 1);
        _exit(0);
    }
    uint64_t t0 = mono_ns();
    check(epoll_wait(ep, out, 4, 5000) == 1 && out[0].events == EPOLLIN && mono_ns() - t0 >= 30000000u,
          "epoll_wait parks until the child writes");
    reap(c);
    read(p[0], buf, 1);
    t0 = mono_ns();
    check(epoll_wait(ep, out, 4, 40) == 0 && mono_ns() - t0 >= 40000000u, "epoll_wait times out (40 ms)");
    ev.events = EPOLLIN | EPOLLONESHOT;
    check(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0 && write(p[1], "g", 1) == 1 &&
          epoll_wait(ep, out, 4, 0) == 1 && epoll_wait(ep, out, 4, 0) == 0, "EPOLLONESHOT: once");
    check(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == 0 &&
          epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == -1 && errno == ENOENT, "EPOLL_CTL_DEL, twice: ENOENT");
    ev.events = EPOLLOUT;
    epoll_ctl(ep, EPOLL_CTL_ADD, q[1], &ev);
    close(q[0]);
    check(epoll_wait(ep, out, 4, 0) == 1 && (out[0].events & EPOLLERR) && (out[0].events & EPOLLOUT),
          "a write end without readers: EPOLLOUT | EPOLLERR");
    close(q[1]);
    check(epoll_wait(ep, out, 4, 0) == 0, "a closed fd leaves the set");
    close(ep), close(p[0]), close(p[1]);
}

/* --- time ------------------------------------------------------------------------------------- */

static void test_time(void)
{
    static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
        CLOCK_BOOTTIME, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
        CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };
    struct timespec ts, res;
    int all = 1;
    for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
        all &= clock_gettime(clocks[i], &ts) == 0 && clock_getres(clocks[i], &res) == 0 &&
               ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000 && res.tv_sec == 0 && res.tv_nsec > 0;
    check(all, "clock_gettime and clock_getres of eight clocks");
    check(syscall(SYS_clock_gettime, 100, &ts) == -1 && errno == EINVAL, "clock 100: EINVAL");
    check(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (void *)16) == -1 && errno == EFAULT,
          "clock_gettime to a bad address: EFAULT");
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    check(tm.tm_year + 1900 >= 2024, "the wall clock is past 2024 (from the RTC)");
    struct timeval tv;
    time_t now = time(NULL);
    check(gettimeofday(&tv, NULL) == 0 && tv.tv_sec - now <= 1 && tv.tv_sec >= now &&
          tv.tv_usec < 1000000, "gettimeofday agrees with time");
    check(syscall(SYS_time, (void *)16) == -1 && errno == EFAULT, "time to a bad address: EFAULT");

    uint64_t prev = mono_ns(), ok = 1;
    for (int i = 0; i < 2000; i++) {
        uint64_t t = mono_ns();
        ok &= t >= prev;
        prev = t;
    }
    check(ok, "CLOCK_MONOTONIC never goes back (2000 reads)");

    uint64_t t0 = mono_ns();
    struct timespec req = { 0, 20000000 }, rem = { 9, 9 };
    check(nanosleep(&req, &rem) == 0 && mono_ns() - t0 >= 20000000u, "nanosleep 20 ms");
    req.tv_nsec = 1000000000;
    check(nanosleep(&req, NULL) == -1 && errno == EINVAL, "nanosleep: tv_nsec 10^9: EINVAL");
    req = (struct timespec){ -1, 0 };
    check(nanosleep(&req, NULL) == -1 && errno == EINVAL, "nanosleep: negative: EINVAL");
    check(syscall(SYS_nanosleep, (void *)16, NULL) == -1 && errno == EFAULT, "nanosleep: EFAULT");
    clock_gettime(CLOCK_MONOTONIC, &req);
    req.tv_nsec += 15000000;
    if (req.tv_nsec >= 1000000000)
        req.tv_sec++, req.tv_nsec -= 1000000000;
    uint64_t until = (uint64_t)req.tv_sec * 1000000000u + (uint64_t)req.tv_nsec;
    check(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &req, NULL) == 0 && mono_ns() >= until,
          "clock_nanosleep TIMER_ABSTIME on MONOTONIC");
    clock_gettime(CLOCK_REALTIME, &req);
    req.tv_sec -= 10;
    t0 = mono_ns();
    check(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &req, NULL) == 0 &&
          mono_ns() - t0 < 100000000u, "an absolute time in the past: at once");
    req = (struct timespec){ 0, 1000 };
    check(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &req, NULL) == EINVAL,
          "clock_nanosleep on the thread's CPU clock: EINVAL");
    check(clock_nanosleep(CLOCK_MONOTONIC, 2, &req, NULL) == 0,
          "clock_nanosleep: flags besides TIMER_ABSTIME are ignored, as by Linux");

    /* Two sleepers wake in deadline order, not start order; lx serves the parent meanwhile. */
    int p[2];
    pipe(p);
    pid_t a = fork();
    if (!a) {
        sleep_ms(60);
        write(p[1], "A", 1);
        _exit(0);
    }
    pid_t b = fork();
    if (!b) {
        sleep_ms(30);
        write(p[1], "B", 1);
        _exit(0);
    }
    long calls = 0;
    t0 = mono_ns();
    while (mono_ns() - t0 < 10000000u)
        calls += getpid() > 0;      /* the sleepers are parked: lx answers us */
    char order[3] = "";
    int got = read(p[0], order, 1) == 1 && read(p[0], order + 1, 1) == 1;
    printf("  sleepers: %s, %ld calls served meanwhile\n", order, calls);
    check(got && !strcmp(order, "BA") &&
          calls > 10, "two sleepers wake in deadline order (B at 30 ms, A at 60 ms)");
    reap(a), reap(b);
    close(p[0]), close(p[1]);

    struct tms tms;
    clock_t ticks = times(&tms);
    check(ticks != (clock_t)-1 && ticks > 0 && tms.tms_utime >= 0 && tms.tms_cutime >= 0,
          "times: ticks since boot");
    struct rusage ru;
    check(getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_utime.tv_usec < 1000000 &&
          ru.ru_maxrss > 0, "getrusage(RUSAGE_SELF)");
    check(getrusage(RUSAGE_CHILDREN, &ru) == 0 && ru.ru_stime.tv_usec < 1000000,
          "getrusage(RUSAGE_CHILDREN)");
    check(getrusage(5, &ru) == -1 && errno == EINVAL, "getrusage(5): EINVAL");
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    for (int i = 0; i < 2000; i++)
        getppid();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    check(c1.tv_sec > c0.tv_sec || (c1.tv_sec == c0.tv_sec && c1.tv_nsec > c0.tv_nsec),
          "the process's CPU time grows");
    check(sched_yield() == 0, "sched_yield");

    /* sched_yield puts the caller behind the ready threads of its priority: a child woken
     * by the parent's write (ready, not yet run) answers before the parent's one yield
     * returns. */
    int go[2], yp[2];
    char c;
    check(pipe(go) == 0 && pipe2(yp, O_NONBLOCK) == 0, "pipes for the yield check");
    pid_t y = fork();
    if (y == 0) {
        if (read(go[0], &c, 1) != 1 || write(yp[1], "y", 1) != 1)
            _exit(1);
        _exit(0);
    }
    check(read(yp[0], &c, 1) == -1 && errno == EAGAIN, "the child waits for its go");
    check(write(go[1], "g", 1) == 1, "the child's go");
    check(sched_yield() == 0, "sched_yield with the child ready");
    check(read(yp[0], &c, 1) == 1, "sched_yield ran the child that was ready");
    check(waitpid(y, NULL, 0) == y, "the yield check's child ended");
    close(go[0]);
    close(go[1]);
    close(yp[0]);
    close(yp[1]);
}

/* --- a pipeline of ten processes ----------------------------------------------------------- */

static void test_chain(void)
{
    enum { N = 10, BYTES = 1 << 20 };
    int in = -1, p[2];
    pid_t pids[N];
    int sumpipe[2];
    pipe(sumpipe);
    uint32_t seed = 99, sum = 0;
    for (int i = 0; i < BYTES; i++) {
        big[i] = (char)next_rand(&seed);
        sum = sum * 31 + (uint8_t)big[i];
    }
    for (int k = 0; k < N; k++) {
        if (k < N - 1)
            pipe(p);
        if (!(pids[k] = fork())) {
            static char buf[5000];
            if (k == 0) {           /* the source: the bytes in 3000-byte writes */
                close(p[0]);
                for (int i = 0; i < BYTES; i += 3000)
                    if (write(p[1], big + i, BYTES - i < 3000 ? BYTES - i : 3000) <= 0)
                        _exit(1);
                _exit(0);
            }
            if (k == N - 1) {       /* the sink: the sum, to the parent */
                uint32_t s = 0;
                long r, got = 0;
                while ((r = read(in, buf, sizeof buf)) > 0) {
                    for (long i = 0; i < r; i++)
                        s = s * 31 + (uint8_t)buf[i];
                    got += r;
                }
                s ^= got != BYTES;
                write(sumpipe[1], &s, sizeof s);
                _exit(0);
            }
            close(p[0]);            /* a middle stage: copies in varying sizes */
            long r;
            size_t n = 17;
            while ((r = read(in, buf, n)) > 0) {
                if (write(p[1], buf, (size_t)r) != r)
                    _exit(1);
                n = n * 7 % 4999 + 1;
            }
            _exit(r == 0 ? 0 : 1);
        }
        if (in >= 0)
            close(in);
        if (k < N - 1) {
            close(p[1]);
            in = p[0];
        }
    }
    int bad = 0;
    for (int k = 0; k < N; k++)
        bad += reap(pids[k]) != 0;
    uint32_t s = 0;
    check(read(sumpipe[0], &s, sizeof s) == sizeof s && s == sum && !bad,
          "a pipeline of 10 processes moves 1 MiB intact");
}

/* --- cost (by hand, not a test: make bench owns performance figures) ------------------------ */

static void cost(void)
{
    int a[2], b[2];
    char c = 0;
    pipe(a), pipe(b);
    pid_t pid = fork();
    if (!pid) {
        close(a[1]);                /* or it never sees EOF */
        while (read(a[0], &c, 1) == 1)
            write(b[1], &c, 1);
        _exit(0);
    }
    enum { ROUNDS = 2000, BYTES = 16 << 20 };
    uint64_t t0 = mono_ns();
    for (int i = 0; i < 10000; i++)
        getpid();
    printf("cost: getpid %lu ns\n", (unsigned long)((mono_ns() - t0) / 10000));
    t0 = mono_ns();
    for (int i = 0; i < ROUNDS; i++)
        if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
            break;
    uint64_t t1 = mono_ns();
    close(a[1]);
    reap(pid);
    close(a[0]), close(b[0]), close(b[1]);
    printf("cost: pipe ping-pong %lu ns per round trip\n", (unsigned long)((t1 - t0) / ROUNDS));
    pipe(a);
    if (!(pid = fork())) {
        close(a[1]);
        while (read(a[0], big, 65536) > 0)
            ;
        _exit(0);
    }
    close(a[0]);
    t0 = mono_ns();
    for (int i = 0; i < BYTES / 65536; i++)
        write(a[1], big, 65536);
    close(a[1]);
    reap(pid);
    t1 = mono_ns();
    printf("cost: 64 KiB writes through a pipe: %lu MB/s\n",
           (unsigned long)((uint64_t)BYTES * 1000 / (t1 - t0)));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pipe";
    if (!strcmp(mode, "pipe"))
        test_pipe();
    else if (!strcmp(mode, "poll"))
        test_poll();
    else if (!strcmp(mode, "epoll"))
        test_epoll();
    else if (!strcmp(mode, "time"))
        test_time();
    else if (!strcmp(mode, "chain"))
        test_chain();
    else if (!strcmp(mode, "cost"))
        cost();
    printf("pipes %s: %s\n", mode, failures ? "FAILED" : "all passed");
    return failures;
}
