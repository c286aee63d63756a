/* Linux's native AIO through the raw system calls (no libaio): io_setup's ring as user space
 * reads it (magic, nr, id, head, tail, header length, the events), /proc/sys/fs/aio-nr and
 * aio-max-nr, io_submit with every command and its errors (the partial-submission rule,
 * RWF_* flags, IOCB_FLAG_RESFD's eventfd), io_getevents and io_pgetevents (min_nr, nr,
 * timeouts, the signal mask, EINTR), io_cancel, io_destroy, munmap of the ring, a read of an
 * empty pipe that waits in io_submit, the request limit (EAGAIN), fork and exit. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include "pwait.h"

#ifndef SYS_io_pgetevents
#define SYS_io_pgetevents 333
#endif

/* Linux's uapi linux/aio_abi.h (musl's headers have no linux/ directory) */
typedef unsigned long aio_context_t;
enum { IOCB_CMD_PREAD = 0, IOCB_CMD_PWRITE = 1, IOCB_CMD_FSYNC = 2, IOCB_CMD_FDSYNC = 3,
       IOCB_CMD_POLL = 5, IOCB_CMD_NOOP = 6, IOCB_CMD_PREADV = 7, IOCB_CMD_PWRITEV = 8 };
#define IOCB_FLAG_RESFD 1
#ifndef RWF_HIPRI
#define RWF_HIPRI  0x01
#define RWF_SYNC   0x04
#define RWF_APPEND 0x10
#endif
struct io_event { uint64_t data, obj; int64_t res, res2; };
struct iocb {
    uint64_t aio_data;
    uint32_t aio_key, aio_rw_flags;
    uint16_t aio_lio_opcode;
    int16_t aio_reqprio;
    uint32_t aio_fildes;
    uint64_t aio_buf, aio_nbytes;
    int64_t aio_offset;
    uint64_t aio_reserved2;
    uint32_t aio_flags, aio_resfd;
};

struct ring {                       /* Linux's struct aio_ring (fs/aio.c) */
    unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
    struct io_event events[];
};

static void *volatile bad_address = (void *)8;
#define BAD bad_address

static long setup(unsigned nr, aio_context_t *ctx)
{
    return syscall(SYS_io_setup, nr, ctx);
}
static long submit(aio_context_t ctx, long nr, struct iocb **cbs)
{
    return syscall(SYS_io_submit, ctx, nr, cbs);
}
static long getevents(aio_context_t ctx, long min, long nr, struct io_event *ev,
                      struct timespec *ts)
{
    return syscall(SYS_io_getevents, ctx, min, nr, ev, ts);
}
static long destroy(aio_context_t ctx)
{
    return syscall(SYS_io_destroy, ctx);
}

static long aio_nr(void)
{
    FILE *f = fopen("/proc/sys/fs/aio-nr", "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static void set_max_nr(const char *v)
{
    FILE *f = fopen("/proc/sys/fs/aio-max-nr", "w");
    if (f) {
        fputs(v, f);
        fclose(f);
    }
}

static void show_ring(const char *what, aio_context_t ctx)
{
    struct ring *r = (struct ring *)ctx;
    printf("%s: id %u nr %u head %u tail %u magic %#x compat %u incompat %u header %u\n", what,
           r->id, r->nr, r->head, r->tail, r->magic, r->compat_features, r->incompat_features,
           r->header_length);
}

static void show_event(const char *what, const struct io_event *e, const struct iocb *cb)
{
    if (e->res < 0)
        printf("%s: data %llu obj %s res -%s res2 %lld\n", what, (unsigned long long)e->data,
               e->obj == (uint64_t)(uintptr_t)cb ? "=iocb" : "other", errname((int)-e->res),
               (long long)e->res2);
    else
        printf("%s: data %llu obj %s res %lld res2 %lld\n", what, (unsigned long long)e->data,
               e->obj == (uint64_t)(uintptr_t)cb ? "=iocb" : "other", (long long)e->res,
               (long long)e->res2);
}

static struct iocb mk(int op, int fd, void *buf, size_t n, long long off, unsigned long data)
{
    struct iocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_lio_opcode = (uint16_t)op;
    cb.aio_fildes = (uint32_t)fd;
    cb.aio_buf = (uint64_t)(uintptr_t)buf;
    cb.aio_nbytes = n;
    cb.aio_offset = off;
    cb.aio_data = data;
    return cb;
}

/* Submits one iocb, then takes its event: the result of each. */
static void one(const char *what, aio_context_t ctx, struct iocb *cb)
{
    char w[96];
    struct iocb *p = cb;
    snprintf(w, sizeof w, "%s submit", what);
    if (SHOW(w, submit(ctx, 1, &p)) != 1)
        return;
    struct io_event ev;
    snprintf(w, sizeof w, "%s getevents", what);
    if (SHOW(w, getevents(ctx, 1, 1, &ev, NULL)) == 1) {
        snprintf(w, sizeof w, "%s event", what);
        show_event(w, &ev, cb);
    }
}

static void setup_errors(void)
{
    aio_context_t ctx = 0, set = 1;
    SHOW("io_setup nr 0", setup(0, &ctx));
    SHOW("io_setup ctx not 0", setup(1, &set));
    SHOW("io_setup bad ctxp", setup(1, BAD));
    SHOW("io_setup nr 0x7fffffff", setup(0x7fffffff, &ctx));
    SHOW("io_setup nr 0x80000000", setup(0x80000000u, &ctx));
    SHOW("io_setup nr 65537", setup(65537, &ctx));
    SHOW("io_submit bad ctx", submit(12345, 0, NULL));
    SHOW("io_getevents bad ctx", getevents(12345, 0, 0, NULL, NULL));
    SHOW("io_destroy bad ctx", destroy(12345));
    SHOW("io_destroy ctx 0", destroy(0));
}

static void rings(void)
{
    long before = aio_nr();
    aio_context_t a = 0, b = 0, c = 0;
    TRY("io_setup 1", setup(1, &a));
    printf("aio-nr +%ld\n", aio_nr() - before);
    show_ring("ring 1", a);
    printf("ring 1 page aligned: %d\n", (a & 4095) == 0);
    TRY("io_setup 128", setup(128, &b));
    show_ring("ring 128", b);
    TRY("io_setup 600", setup(600, &c));
    show_ring("ring 600", c);
    printf("aio-nr +%ld\n", aio_nr() - before);
    SHOW("io_destroy ring 128", destroy(b));
    SHOW("io_destroy again", destroy(b));
    unsigned char v;
    SHOW("mincore of the destroyed ring", mincore((void *)b, 4096, &v));
    aio_context_t d = 0;
    TRY("io_setup 2 takes the free id", setup(2, &d));
    show_ring("ring 2", d);
    printf("aio-nr +%ld\n", aio_nr() - before);
    SHOW("io_destroy 1", destroy(a));
    SHOW("io_destroy 600", destroy(c));
    SHOW("io_destroy 2", destroy(d));
    printf("aio-nr +%ld\n", aio_nr() - before);
    /* aio-max-nr counts what io_setup asked for */
    set_max_nr("10");
    a = b = 0;
    TRY("io_setup 8 under max 10", setup(8, &a));
    SHOW("io_setup 4 over max 10", setup(4, &b));
    SHOW("io_setup 2 to max 10", setup(2, &b));
    SHOW("io_destroy 2", destroy(b));
    b = 0;
    SHOW("io_setup 11 over max 10", setup(11, &b));
    SHOW("io_destroy 8", destroy(a));
    set_max_nr("65536");
}

static void commands(void)
{
    aio_context_t ctx = 0;
    if (setup(16, &ctx) < 0) {
        printf("io_setup 16 failed\n");
        return;
    }
    int fd = open("/tmp/aio-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
    char buf[64] = "hello, asynchronous world", in[64];
    struct iocb cb = mk(IOCB_CMD_PWRITE, fd, buf, 25, 0, 1);
    one("pwrite", ctx, &cb);
    memset(in, 0, sizeof in);
    cb = mk(IOCB_CMD_PREAD, fd, in, 64, 7, 2);
    one("pread at 7", ctx, &cb);
    printf("read: %s\n", in);
    cb = mk(IOCB_CMD_PREAD, fd, in, 64, 100, 3);
    one("pread past the end", ctx, &cb);
    char v1[5], v2[6];
    struct iovec iov[2] = { { v1, 5 }, { v2, 6 } };
    cb = mk(IOCB_CMD_PREADV, fd, iov, 2, 0, 4);
    one("preadv", ctx, &cb);
    printf("preadv: %.5s|%.6s\n", v1, v2);
    struct iovec wv[2] = { { "AB", 2 }, { "CDE", 3 } };
    cb = mk(IOCB_CMD_PWRITEV, fd, wv, 2, 30, 5);
    one("pwritev at 30", ctx, &cb);
    struct stat st;
    fstat(fd, &st);
    printf("size %lld\n", (long long)st.st_size);
    cb = mk(IOCB_CMD_FSYNC, fd, NULL, 0, 0, 6);
    one("fsync", ctx, &cb);
    cb = mk(IOCB_CMD_FDSYNC, fd, NULL, 0, 0, 7);
    one("fdsync", ctx, &cb);
    cb = mk(IOCB_CMD_FSYNC, fd, buf, 0, 0, 0);
    one("fsync with a buffer", ctx, &cb);
    cb = mk(IOCB_CMD_FSYNC, fd, NULL, 0, 4, 0);
    one("fsync with an offset", ctx, &cb);
    cb = mk(IOCB_CMD_NOOP, fd, NULL, 0, 0, 0);
    one("noop", ctx, &cb);
    cb = mk(42, fd, NULL, 0, 0, 0);
    one("opcode 42", ctx, &cb);
    cb = mk(IOCB_CMD_POLL, fd, (void *)(uintptr_t)POLLIN, 0, 0, 8);
    one("poll POLLIN on a file", ctx, &cb);
    cb = mk(IOCB_CMD_POLL, fd, (void *)(uintptr_t)POLLOUT, 0, 0, 9);
    one("poll POLLOUT on a file", ctx, &cb);
    cb = mk(IOCB_CMD_POLL, fd, (void *)0x10000, 0, 0, 0);
    one("poll events over 16 bits", ctx, &cb);
    cb = mk(IOCB_CMD_POLL, fd, (void *)(uintptr_t)POLLIN, 1, 0, 0);
    one("poll with a length", ctx, &cb);

    /* errors that fail the submission */
    cb = mk(IOCB_CMD_PREAD, 999, in, 4, 0, 0);
    one("pread bad fd", ctx, &cb);
    cb = mk(IOCB_CMD_PREAD, fd, in, 4, 0, 0);
    cb.aio_reserved2 = 1;
    one("reserved2 set", ctx, &cb);
    cb = mk(IOCB_CMD_PREAD, fd, in, (size_t)-1, 0, 0);
    one("nbytes negative", ctx, &cb);
    cb = mk(IOCB_CMD_PREAD, fd, BAD, 4, 0, 0);
    one("pread into a bad buffer", ctx, &cb);
    cb = mk(IOCB_CMD_PREAD, fd, in, 4, -1, 0);
    one("pread at -1", ctx, &cb);
    cb = mk(IOCB_CMD_PREADV, fd, iov, 1025, 0, 0);
    one("preadv 1025 vectors", ctx, &cb);
    cb = mk(IOCB_CMD_PREADV, fd, BAD, 2, 0, 0);
    one("preadv bad vectors", ctx, &cb);
    cb = mk(IOCB_CMD_PREAD, fd, in, 4, 0, 0);
    cb.aio_rw_flags = 0x100;
    one("pread rw_flags 0x100", ctx, &cb);
    cb = mk(IOCB_CMD_PREAD, fd, in, 4, 0, 0);
    cb.aio_rw_flags = RWF_HIPRI | RWF_SYNC;
    one("pread RWF_HIPRI|RWF_SYNC", ctx, &cb);
    cb = mk(IOCB_CMD_PWRITE, fd, "Z", 1, 0, 10);
    cb.aio_rw_flags = RWF_APPEND;
    one("pwrite RWF_APPEND", ctx, &cb);
    fstat(fd, &st);
    printf("size %lld\n", (long long)st.st_size);
    int ro = open("/tmp/aio-file", O_RDONLY);
    cb = mk(IOCB_CMD_PWRITE, ro, buf, 4, 0, 0);
    one("pwrite to O_RDONLY", ctx, &cb);
    int wo = open("/tmp/aio-file", O_WRONLY);
    cb = mk(IOCB_CMD_PREAD, wo, in, 4, 0, 0);
    one("pread from O_WRONLY", ctx, &cb);
    int dir = open("/tmp", O_RDONLY | O_DIRECTORY);
    cb = mk(IOCB_CMD_PREAD, dir, in, 4, 0, 0);
    one("pread of a directory", ctx, &cb);
    int path = open("/tmp/aio-file", O_PATH);
    cb = mk(IOCB_CMD_PREAD, path, in, 4, 0, 0);
    one("pread of O_PATH", ctx, &cb);
    struct iocb *bad = BAD;
    SHOW("io_submit bad iocb", submit(ctx, 1, &bad));
    SHOW("io_submit bad array", submit(ctx, 1, BAD));
    SHOW("io_submit nr -1", submit(ctx, -1, NULL));
    SHOW("io_submit nr 0", submit(ctx, 0, NULL));

    /* partial submission: the count of those before the first failure */
    struct iocb c1 = mk(IOCB_CMD_PREAD, fd, in, 2, 0, 11), c2 = mk(IOCB_CMD_PREAD, fd, in + 2, 2, 2, 12),
                c3 = mk(IOCB_CMD_NOOP, fd, NULL, 0, 0, 13), c4 = mk(IOCB_CMD_PREAD, fd, in, 2, 0, 14);
    struct iocb *cbs[4] = { &c1, &c2, &c3, &c4 };
    SHOW("io_submit 4, the third bad", submit(ctx, 4, cbs));
    struct io_event ev[8];
    long n = SHOW("io_getevents 0..8", getevents(ctx, 0, 8, ev, NULL));
    for (long k = 0; k < n; k++)
        show_event("  event", &ev[k], k ? &c2 : &c1);

    /* the ring as user space reads it */
    struct ring *r = (struct ring *)ctx;
    show_ring("ring", ctx);
    cbs[2] = &c4;
    SHOW("io_submit 3", submit(ctx, 3, cbs));
    show_ring("ring after 3", ctx);
    for (unsigned h = r->head; h != r->tail; h = (h + 1) % r->nr)
        printf("  ring event: data %llu res %lld\n", (unsigned long long)r->events[h].data,
               (long long)r->events[h].res);
    r->head = (r->head + 1) % r->nr;    /* user space consumes one itself, as libaio does */
    SHOW("io_getevents after user space took one", getevents(ctx, 0, 8, ev, NULL));
    printf("  first: data %llu\n", (unsigned long long)ev[0].data);
    show_ring("ring", ctx);
    SHOW("io_submit 1", submit(ctx, 1, cbs));
    SHOW("io_getevents into a bad buffer", getevents(ctx, 1, 1, BAD, NULL));
    show_ring("ring unchanged", ctx);
    SHOW("io_getevents min 2 nr 1", getevents(ctx, 2, 1, ev, NULL));
    SHOW("io_getevents min -1", getevents(ctx, -1, 1, ev, NULL));
    SHOW("io_getevents bad timeout", getevents(ctx, 1, 1, ev, BAD));
    struct timespec zero = { 0, 0 }, neg = { -1, 0 }, short_ = { 0, 10000000 };
    SHOW("io_getevents nr 0", getevents(ctx, 0, 0, ev, NULL));
    SHOW("io_getevents", getevents(ctx, 1, 1, ev, NULL));
    SHOW("io_getevents none, timeout 0", getevents(ctx, 1, 1, ev, &zero));
    /* a negative timeout never ends (Linux's hrtimer saturates): only with an event */
    SHOW("io_submit 1", submit(ctx, 1, cbs));
    SHOW("io_getevents timeout -1 s, one event", getevents(ctx, 1, 1, ev, &neg));
    SHOW("io_getevents none, timeout 10 ms", getevents(ctx, 1, 1, ev, &short_));

    /* io_cancel: a completed request, a key that is not KIOCB_KEY, bad pointers */
    struct io_event res;
    c1.aio_key = 0;
    SHOW("io_cancel completed", syscall(SYS_io_cancel, ctx, &c1, &res));
    c1.aio_key = 1;
    SHOW("io_cancel key 1", syscall(SYS_io_cancel, ctx, &c1, &res));
    SHOW("io_cancel bad iocb", syscall(SYS_io_cancel, ctx, BAD, &res));
    c1.aio_key = 0;
    SHOW("io_cancel bad ctx", syscall(SYS_io_cancel, 12345, &c1, &res));
    c1.aio_key = 77;
    SHOW("io_submit sets aio_key", submit(ctx, 1, cbs));
    printf("aio_key %u\n", c1.aio_key);
    SHOW("io_getevents", getevents(ctx, 1, 1, ev, NULL));

    /* IOCB_FLAG_RESFD: the eventfd counts completions */
    int efd = eventfd(0, 0);
    for (int k = 0; k < 3; k++) {
        cbs[k] = k == 0 ? &c1 : k == 1 ? &c2 : &c4;
        cbs[k]->aio_flags = IOCB_FLAG_RESFD;
        cbs[k]->aio_resfd = (uint32_t)efd;
    }
    SHOW("io_submit 3 with an eventfd", submit(ctx, 3, cbs));
    uint64_t count = 0;
    SHOW("eventfd read", read(efd, &count, 8));
    printf("eventfd count %llu\n", (unsigned long long)count);
    SHOW("io_getevents", getevents(ctx, 3, 8, ev, NULL));
    c1.aio_resfd = (uint32_t)fd;
    SHOW("io_submit resfd not an eventfd", submit(ctx, 1, cbs));
    c1.aio_resfd = 999;
    SHOW("io_submit resfd bad", submit(ctx, 1, cbs));
    c1.aio_flags = 0;
    close(efd);

    /* munmap of the ring: the context can no longer be named */
    long before = aio_nr();
    SHOW("munmap the ring", munmap((void *)ctx, 4096));
    SHOW("io_submit after munmap", submit(ctx, 1, cbs));
    SHOW("io_getevents after munmap", getevents(ctx, 0, 1, ev, NULL));
    SHOW("io_destroy after munmap", destroy(ctx));
    printf("aio-nr %+ld\n", aio_nr() - before);
    close(fd);
    close(ro);
    close(wo);
    close(dir);
    close(path);
}

/* The request limit: io_setup(1) has 127 slots; outstanding events count until consumed. */
static void limit(void)
{
    aio_context_t ctx = 0;
    if (setup(1, &ctx) < 0)
        return;
    int fd = open("/tmp/aio-file", O_RDONLY);
    static struct iocb cbs[200];
    static struct iocb *p[200];
    for (int k = 0; k < 200; k++) {
        cbs[k] = mk(IOCB_CMD_PREAD, fd, NULL, 0, 0, (unsigned long)k);
        p[k] = &cbs[k];
    }
    SHOW("io_submit 200 into io_setup(1)", submit(ctx, 200, p));
    SHOW("io_submit 1 more", submit(ctx, 1, p));
    static struct io_event ev[200];
    SHOW("io_getevents 200", getevents(ctx, 0, 200, ev, NULL));
    SHOW("io_submit 200 again", submit(ctx, 200, p));
    SHOW("io_getevents 10", getevents(ctx, 10, 10, ev, NULL));
    SHOW("io_submit 20", submit(ctx, 20, p));
    destroy(ctx);
    close(fd);
}

static volatile sig_atomic_t got_usr1, got_usr2;
static void on_usr1(int s)
{
    (void)s;
    got_usr1++;
}
static void on_usr2(int s)
{
    (void)s;
    got_usr2++;
}

/* A read of an empty pipe waits in io_submit until a writer comes; io_getevents and
 * io_pgetevents wait until a signal interrupts them. */
static void waits(void)
{
    aio_context_t ctx = 0;
    if (setup(4, &ctx) < 0)
        return;
    int p[2];
    if (pipe(p))
        return;
    pid_t parent = getpid();
    pid_t c = fork();
    if (c == 0) {
        sleeps(parent);
        if (write(p[1], "piped", 5) != 5)
            _exit(1);
        _exit(0);
    }
    char in[16] = { 0 };
    struct iocb cb = mk(IOCB_CMD_PREAD, p[0], in, 16, 0, 21);
    struct iocb *cbp = &cb;
    SHOW("io_submit read of an empty pipe", submit(ctx, 1, &cbp));
    struct io_event ev;
    if (SHOW("io_getevents", getevents(ctx, 1, 1, &ev, NULL)) == 1)
        show_event("pipe event", &ev, &cb);
    printf("pipe read: %s\n", in);
    int st;
    waitpid(c, &st, 0);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    c = fork();
    if (c == 0) {
        sleeps(parent);
        kill(parent, SIGUSR1);
        _exit(0);
    }
    SHOW("io_getevents interrupted", getevents(ctx, 1, 1, &ev, NULL));
    printf("SIGUSR1 handled %d\n", got_usr1);
    waitpid(c, &st, 0);

    /* io_pgetevents: SIGUSR1 blocked by its mask while it waits, SIGUSR2 ends the wait; both
     * handlers run after it */
    got_usr1 = got_usr2 = 0;
    c = fork();
    if (c == 0) {
        sleeps(parent);
        kill(parent, SIGUSR1);
        kill(parent, SIGUSR2);
        _exit(0);
    }
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    struct { sigset_t *m; size_t size; } usig = { &mask, 8 };
    SHOW("io_pgetevents interrupted", syscall(SYS_io_pgetevents, ctx, 1, 1, &ev, NULL, &usig));
    printf("SIGUSR1 handled %d, SIGUSR2 handled %d\n", got_usr1, got_usr2);
    waitpid(c, &st, 0);
    usig.size = 4;
    SHOW("io_pgetevents sigsetsize 4", syscall(SYS_io_pgetevents, ctx, 1, 1, &ev, NULL, &usig));
    SHOW("io_pgetevents bad usig", syscall(SYS_io_pgetevents, ctx, 1, 1, &ev, NULL, BAD));
    struct timespec zero = { 0, 0 };
    SHOW("io_pgetevents timeout 0", syscall(SYS_io_pgetevents, ctx, 1, 1, &ev, &zero, NULL));

    /* a read interrupted inside io_submit completes with EINTR */
    got_usr1 = 0;
    c = fork();
    if (c == 0) {
        sleeps(parent);
        kill(parent, SIGUSR1);
        _exit(0);
    }
    SHOW("io_submit read interrupted", submit(ctx, 1, &cbp));
    if (SHOW("io_getevents", getevents(ctx, 1, 1, &ev, NULL)) == 1)
        show_event("interrupted event", &ev, &cb);
    printf("SIGUSR1 handled %d\n", got_usr1);
    waitpid(c, &st, 0);

    /* POLL of a pipe that is not ready waits: completed by a write (here, then by another
     * process), with the eventfd signalled; cancelled (EINPROGRESS, its event still comes);
     * pending when the context is destroyed */
    struct iocb pc = mk(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLIN, 0, 0, 31);
    struct iocb *pcp = &pc;
    int efd = eventfd(0, 0);
    pc.aio_flags = IOCB_FLAG_RESFD;
    pc.aio_resfd = (uint32_t)efd;
    SHOW("io_submit POLL of an empty pipe", submit(ctx, 1, &pcp));
    SHOW("io_getevents before the write", getevents(ctx, 0, 1, &ev, &zero));
    SHOW("write to the pipe", write(p[1], "x", 1));
    if (SHOW("io_getevents after the write", getevents(ctx, 1, 1, &ev, &zero)) == 1)
        show_event("poll event", &ev, &pc);
    uint64_t count = 0;
    SHOW("eventfd read", read(efd, &count, 8));
    printf("eventfd count %llu\n", (unsigned long long)count);
    SHOW("io_submit POLL of a readable pipe", submit(ctx, 1, &pcp));
    if (SHOW("io_getevents", getevents(ctx, 1, 1, &ev, NULL)) == 1)
        show_event("poll event", &ev, &pc);
    char drain;
    SHOW("read the byte", read(p[0], &drain, 1));
    pc.aio_flags = 0;
    c = fork();
    if (c == 0) {
        sleeps(parent);
        if (write(p[1], "y", 1) != 1)
            _exit(1);
        _exit(0);
    }
    SHOW("io_submit POLL again", submit(ctx, 1, &pcp));
    if (SHOW("io_getevents until another process writes", getevents(ctx, 1, 1, &ev, NULL)) == 1)
        show_event("poll event", &ev, &pc);
    waitpid(c, &st, 0);
    SHOW("read the byte", read(p[0], &drain, 1));
    pc.aio_data = 32;
    SHOW("io_submit POLL to cancel", submit(ctx, 1, &pcp));
    struct io_event res;
    SHOW("io_cancel the POLL", syscall(SYS_io_cancel, ctx, &pc, &res));
    if (SHOW("io_getevents the cancelled one", getevents(ctx, 1, 1, &ev, NULL)) == 1)
        show_event("cancelled event", &ev, &pc);
    SHOW("io_cancel again", syscall(SYS_io_cancel, ctx, &pc, &res));
    struct iocb po = mk(IOCB_CMD_POLL, p[1], (void *)(uintptr_t)POLLOUT, 0, 0, 33);
    struct iocb *pop = &po;
    SHOW("io_submit POLLOUT of the pipe", submit(ctx, 1, &pop));
    if (SHOW("io_getevents", getevents(ctx, 1, 1, &ev, NULL)) == 1)
        show_event("pollout event", &ev, &po);
    SHOW("io_submit a POLL left waiting", submit(ctx, 1, &pcp));
    close(efd);
    SHOW("io_destroy with a POLL waiting", destroy(ctx));
    close(p[0]);
    close(p[1]);
}

/* A fork child has no contexts (the ring's mapping is inherited); its own end with it. */
static void forked(void)
{
    aio_context_t ctx = 0;
    if (setup(4, &ctx) < 0)
        return;
    long before = aio_nr();
    pid_t c = fork();
    if (c == 0) {
        SHOW("child: io_submit on the parent's context", submit(ctx, 0, NULL));
        SHOW("child: io_destroy of the parent's context", destroy(ctx));
        show_ring("child: the ring is mapped", ctx);
        aio_context_t mine = 0;
        TRY("child: io_setup", setup(8, &mine));
        show_ring("child ring", mine);
        printf("child: aio-nr %+ld\n", aio_nr() - before);
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    show_status("child", st);
    printf("aio-nr after the child %+ld\n", aio_nr() - before);
    SHOW("io_submit 0 still works", submit(ctx, 0, NULL));
    destroy(ctx);
}

int main(void)
{
    if (pwait_init())
        return 1;
    alarm(60);                      /* a hang is a failure with the output so far */
    setup_errors();
    rings();
    commands();
    limit();
    waits();
    forked();
    printf("aio-nr at the end %ld\n", aio_nr());
    return 0;
}
