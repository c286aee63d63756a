/* The futex system call, raw (issue 13 item 8, the ops of item 3): WAIT and WAKE, private and
 * shared, between threads and between processes (an anonymous and a file MAP_SHARED mapping,
 * the latter at different addresses); relative and absolute timeouts on both clocks;
 * WAIT_BITSET/WAKE_BITSET; REQUEUE, CMP_REQUEUE; WAKE_OP; LOCK_PI, UNLOCK_PI, TRYLOCK_PI,
 * LOCK_PI2; futex_waitv; and the errors Linux 6.1 gives (EAGAIN, ETIMEDOUT, EINVAL, EFAULT,
 * ENOSYS, EDEADLK, EPERM, ESRCH).  A waker wakes only after /proc says its waiters sleep, so
 * every count printed is the same on every run. */
#include <limits.h>
#include <sys/mman.h>
#include "threads.h"

/* The interface's numbers (linux/futex.h, which musl-gcc does not see). */
enum {
    FUTEX_WAIT = 0, FUTEX_WAKE = 1, FUTEX_REQUEUE = 3, FUTEX_CMP_REQUEUE = 4,
    FUTEX_WAKE_OP = 5, FUTEX_LOCK_PI = 6, FUTEX_UNLOCK_PI = 7, FUTEX_TRYLOCK_PI = 8,
    FUTEX_WAIT_BITSET = 9, FUTEX_WAKE_BITSET = 10, FUTEX_LOCK_PI2 = 13,
    FUTEX_PRIVATE_FLAG = 128, FUTEX_CLOCK_REALTIME = 256,
    FUTEX_OP_SET = 0, FUTEX_OP_ADD = 1, FUTEX_OP_OR = 2, FUTEX_OP_ANDN = 3, FUTEX_OP_XOR = 4,
    FUTEX_OP_OPARG_SHIFT = 8,
    FUTEX_OP_CMP_EQ = 0, FUTEX_OP_CMP_NE = 1, FUTEX_OP_CMP_LT = 2, FUTEX_OP_CMP_LE = 3,
    FUTEX_OP_CMP_GT = 4, FUTEX_OP_CMP_GE = 5,
};
#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_TID_MASK 0x3fffffffu
#define FUTEX_OP(op, oparg, cmp, cmparg) \
    ((int)((((op) & 0xfu) << 28) | (((cmp) & 0xfu) << 24) | (((oparg) & 0xfffu) << 12) | \
           ((cmparg) & 0xfffu)))
#define SYS_futex_waitv_nr 449
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE 128

struct waitv {                           /* struct futex_waitv */
    uint64_t val, uaddr;
    uint32_t flags, reserved;
};

#define P(op) ((op) | FUTEX_PRIVATE_FLAG)

static void show(const char *what, long r)
{
    if (r < 0)
        printf("%s: -1 %s\n", what, errname(errno));
    else
        printf("%s: %ld\n", what, r);
}

/* ---- waiters in threads ------------------------------------------------------------ */

struct waiter {
    uint32_t *addr;
    int op;
    uint32_t val, bitset;
    pthread_t t;
    volatile pid_t tid;
    long result;
    int err;
};

static void *wait_thread(void *arg)
{
    struct waiter *w = arg;
    w->tid = tid_of_self();
    errno = 0;
    w->result = futex(w->addr, w->op, w->val, NULL, NULL, w->bitset);
    w->err = errno;
    return NULL;
}

/* Starts a thread waiting on addr (op, val, bitset) and returns once it sleeps. */
static void start_waiter(struct waiter *w, uint32_t *addr, int op, uint32_t val,
                         uint32_t bitset)
{
    w->addr = addr, w->op = op, w->val = val, w->bitset = bitset, w->tid = 0;
    start_thread("waiter", &w->t, wait_thread, w);
    while (!w->tid)
        sched_yield();
    if (!asleep_in_kernel(w->tid))
        printf("a waiter never slept\n");
}

static void end_waiter(const char *what, struct waiter *w)
{
    join_thread(what, w->t, NULL);
    if (w->result < 0)
        printf("%s: the waiter got -1 %s\n", what, errname(w->err));
    else
        printf("%s: the waiter got %ld\n", what, w->result);
}

static uint32_t f1, f2, f3;

static void errors(void)
{
    struct timespec ms = after_ms(10), bad = { 0, 1000000000L }, neg = { -1, 0 };
    f1 = 5;
    show("WAIT, value differs", futex(&f1, P(FUTEX_WAIT), 4, NULL, NULL, 0));
    show("WAIT shared, value differs", futex(&f1, FUTEX_WAIT, 4, NULL, NULL, 0));
    show("WAIT 10 ms", futex(&f1, P(FUTEX_WAIT), 5, &ms, NULL, 0));
    show("WAIT 10 ms, CLOCK_REALTIME flag",
         futex(&f1, P(FUTEX_WAIT) | FUTEX_CLOCK_REALTIME, 5, &ms, NULL, 0));
    show("WAIT tv_nsec 1e9", futex(&f1, P(FUTEX_WAIT), 5, &bad, NULL, 0));
    show("WAIT tv_sec -1", futex(&f1, P(FUTEX_WAIT), 5, &neg, NULL, 0));
    show("WAIT unaligned", futex((char *)&f1 + 1, P(FUTEX_WAIT), 5, &ms, NULL, 0));
    show("WAIT NULL", futex(NULL, P(FUTEX_WAIT), 5, &ms, NULL, 0));
    show("WAIT timeout pointer bad", futex(&f1, P(FUTEX_WAIT), 5, (void *)8, NULL, 0));
    show("WAIT address unmapped", futex((void *)4096, P(FUTEX_WAIT), 5, &ms, NULL, 0));
    show("WAKE unaligned", futex((char *)&f1 + 2, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    show("WAKE NULL", futex(NULL, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    show("WAKE shared NULL", futex(NULL, FUTEX_WAKE, 1, NULL, NULL, 0));
    show("WAKE nobody", futex(&f1, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    show("WAKE 0 waiters asked", futex(&f1, P(FUTEX_WAKE), 0, NULL, NULL, 0));
    show("WAKE with the CLOCK_REALTIME flag",
         futex(&f1, P(FUTEX_WAKE) | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0));
    show("op 99", futex(&f1, 99, 0, NULL, NULL, 0));
    show("op 14", futex(&f1, 14, 0, NULL, NULL, 0));
    show("WAIT_BITSET bitset 0", futex(&f1, P(FUTEX_WAIT_BITSET), 5, NULL, NULL, 0));
    show("WAKE_BITSET bitset 0", futex(&f1, P(FUTEX_WAKE_BITSET), 1, NULL, NULL, 0));
    show("REQUEUE nobody", futex(&f1, P(FUTEX_REQUEUE), 1, (void *)1L, &f2, 0));
    show("CMP_REQUEUE value differs", futex(&f1, P(FUTEX_CMP_REQUEUE), 1, (void *)1L, &f2, 4));
    show("CMP_REQUEUE nr_wake -1", futex(&f1, P(FUTEX_CMP_REQUEUE), -1, (void *)1L, &f2, 5));
    show("CMP_REQUEUE nr_requeue -1",
         futex(&f1, P(FUTEX_CMP_REQUEUE), 1, (void *)-1L, &f2, 5));
    show("CMP_REQUEUE to NULL", futex(&f1, P(FUTEX_CMP_REQUEUE), 1, (void *)1L, NULL, 5));
}

static void timeouts(void)
{
    f1 = 1;
    struct timespec t = deadline_ms(CLOCK_MONOTONIC, 10);
    show("WAIT_BITSET absolute monotonic", futex(&f1, P(FUTEX_WAIT_BITSET), 1, &t, NULL, ~0u));
    t = deadline_ms(CLOCK_REALTIME, 10);
    show("WAIT_BITSET absolute realtime",
         futex(&f1, P(FUTEX_WAIT_BITSET) | FUTEX_CLOCK_REALTIME, 1, &t, NULL, ~0u));
    struct timespec zero = { 0, 0 };
    show("WAIT_BITSET deadline 0 (past)", futex(&f1, P(FUTEX_WAIT_BITSET), 1, &zero, NULL, ~0u));
    show("WAIT relative 0", futex(&f1, P(FUTEX_WAIT), 1, &zero, NULL, 0));
    t = deadline_ms(CLOCK_MONOTONIC, 10);
    show("WAIT_BITSET shared absolute monotonic", futex(&f1, FUTEX_WAIT_BITSET, 1, &t, NULL, ~0u));
}

static void wake_counts(void)
{
    struct waiter w[3];
    f1 = 0;
    start_waiter(&w[0], &f1, P(FUTEX_WAIT), 0, 0);
    show("WAKE one waiter", futex(&f1, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    end_waiter("WAKE one waiter", &w[0]);

    for (int i = 0; i < 3; i++)
        start_waiter(&w[i], &f1, P(FUTEX_WAIT), 0, 0);
    show("WAKE 2 of 3", futex(&f1, P(FUTEX_WAKE), 2, NULL, NULL, 0));
    show("WAKE INT_MAX of the last", futex(&f1, P(FUTEX_WAKE), INT_MAX, NULL, NULL, 0));
    for (int i = 0; i < 3; i++)
        end_waiter("WAKE 2 of 3, then the rest", &w[i]);

    start_waiter(&w[0], &f1, P(FUTEX_WAIT), 0, 0);
    show("WAKE shared, private waiter", futex(&f1, FUTEX_WAKE, 1, NULL, NULL, 0));
    show("WAKE private", futex(&f1, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    end_waiter("private waiter", &w[0]);

    start_waiter(&w[0], &f1, P(FUTEX_WAIT_BITSET), 0, 0x1);
    start_waiter(&w[1], &f1, P(FUTEX_WAIT_BITSET), 0, 0x6);
    show("WAKE_BITSET 0x8", futex(&f1, P(FUTEX_WAKE_BITSET), INT_MAX, NULL, NULL, 0x8));
    show("WAKE_BITSET 0x2", futex(&f1, P(FUTEX_WAKE_BITSET), INT_MAX, NULL, NULL, 0x2));
    show("WAKE (all bits) the other", futex(&f1, P(FUTEX_WAKE), INT_MAX, NULL, NULL, 0));
    end_waiter("bitset 0x1", &w[0]);
    end_waiter("bitset 0x6", &w[1]);
}

static void requeue(void)
{
    struct waiter w[4];
    f1 = 7, f2 = 0;
    for (int i = 0; i < 4; i++)
        start_waiter(&w[i], &f1, P(FUTEX_WAIT), 7, 0);
    show("REQUEUE wake 1, move 2", futex(&f1, P(FUTEX_REQUEUE), 1, (void *)2L, &f2, 0));
    show("CMP_REQUEUE value differs", futex(&f1, P(FUTEX_CMP_REQUEUE), 0, (void *)1L, &f2, 8));
    show("CMP_REQUEUE wake 0, move 1", futex(&f1, P(FUTEX_CMP_REQUEUE), 0, (void *)1L, &f2, 7));
    show("WAKE the first futex", futex(&f1, P(FUTEX_WAKE), INT_MAX, NULL, NULL, 0));
    show("WAKE the second futex", futex(&f2, P(FUTEX_WAKE), INT_MAX, NULL, NULL, 0));
    for (int i = 0; i < 4; i++)
        end_waiter("requeued", &w[i]);
}

static void wake_op(void)
{
    struct waiter a, b;
    f1 = 0, f2 = 0;
    /* f2 += 1; wake one on f1; and one on f2 if the old f2 == 0. */
    int op = FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0);
    show("WAKE_OP nobody waits", futex(&f1, P(FUTEX_WAKE_OP), 1, (void *)1L, &f2, op));
    printf("WAKE_OP: f2 now %u\n", f2);
    start_waiter(&a, &f1, P(FUTEX_WAIT), 0, 0);
    start_waiter(&b, &f2, P(FUTEX_WAIT), 1, 0);
    show("WAKE_OP condition false", futex(&f1, P(FUTEX_WAKE_OP), 1, (void *)1L, &f2, op));
    printf("WAKE_OP: f2 now %u\n", f2);
    end_waiter("WAKE_OP f1", &a);
    start_waiter(&a, &f1, P(FUTEX_WAIT), 0, 0);
    int set = FUTEX_OP(FUTEX_OP_SET, 9, FUTEX_OP_CMP_GT, 1);
    show("WAKE_OP set 9, old > 1", futex(&f1, P(FUTEX_WAKE_OP), 1, (void *)1L, &f2, set));
    printf("WAKE_OP: f2 now %u\n", f2);
    end_waiter("WAKE_OP f1", &a);
    end_waiter("WAKE_OP f2", &b);
    f3 = 0xF0;
    int ops[] = { FUTEX_OP(FUTEX_OP_OR, 0xF, FUTEX_OP_CMP_NE, 0),
                  FUTEX_OP(FUTEX_OP_ANDN, 0x30, FUTEX_OP_CMP_LT, 0),
                  FUTEX_OP(FUTEX_OP_XOR, 0xFF, FUTEX_OP_CMP_GE, 0xFFF),
                  FUTEX_OP((FUTEX_OP_OPARG_SHIFT | FUTEX_OP_SET), 4, FUTEX_OP_CMP_LE, 0xFF),
                  FUTEX_OP(7, 0, 0, 0), FUTEX_OP(0, 0, 9, 0) };
    for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char what[48];
        snprintf(what, sizeof what, "WAKE_OP op %u", i);
        errno = 0;
        long r = futex(&f1, P(FUTEX_WAKE_OP), 1, (void *)1L, &f3, ops[i]);
        printf("%s: %ld %s, f3 now %#x\n", what, r, r < 0 ? errname(errno) : "", f3);
    }
    show("WAKE_OP second address NULL", futex(&f1, P(FUTEX_WAKE_OP), 1, (void *)1L, NULL, op));
}

static void pi(void)
{
    uint32_t me = (uint32_t)tid_of_self();
    f1 = 0;
    show("LOCK_PI free", futex(&f1, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    printf("LOCK_PI: the word is my tid %d\n", f1 == me);
    show("LOCK_PI again", futex(&f1, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    show("TRYLOCK_PI mine", futex(&f1, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    show("UNLOCK_PI", futex(&f1, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    printf("UNLOCK_PI: the word is %u\n", f1);
    show("UNLOCK_PI not mine", futex(&f1, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    show("TRYLOCK_PI free", futex(&f1, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    f1 = 0;
    show("LOCK_PI2 free", futex(&f1, P(FUTEX_LOCK_PI2), 0, NULL, NULL, 0));
    show("UNLOCK_PI", futex(&f1, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    f1 = 0x3FFFFFFF;                         /* a tid that does not exist */
    struct timespec t = deadline_ms(CLOCK_REALTIME, 10);
    show("LOCK_PI owner does not exist", futex(&f1, P(FUTEX_LOCK_PI), 0, &t, NULL, 0));
    show("TRYLOCK_PI owner does not exist", futex(&f1, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    show("LOCK_PI unaligned", futex((char *)&f1 + 1, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));

    /* Held by a thread: TRYLOCK_PI, a timed LOCK_PI, and a blocking one that the owner's
     * UNLOCK_PI hands over. */
    struct waiter w;
    f2 = 0;
    f1 = 0;
    w.addr = &f1;
    start_waiter(&w, &f2, P(FUTEX_WAIT), 0, 0);   /* (a thread to own f1: see below) */
    f1 = (uint32_t)w.tid;                     /* as if it had taken it with LOCK_PI */
    show("TRYLOCK_PI held by another", futex(&f1, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    t = deadline_ms(CLOCK_REALTIME, 10);
    show("LOCK_PI held, realtime deadline", futex(&f1, P(FUTEX_LOCK_PI), 0, &t, NULL, 0));
    printf("LOCK_PI timed out: waiters bit %d, owner kept %d\n", !!(f1 & FUTEX_WAITERS),
           (f1 & FUTEX_TID_MASK) == (uint32_t)w.tid);
    t = deadline_ms(CLOCK_MONOTONIC, 10);
    show("LOCK_PI2 held, monotonic deadline", futex(&f1, P(FUTEX_LOCK_PI2), 0, &t, NULL, 0));
    show("WAKE the owner", futex(&f2, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    end_waiter("owner", &w);
    show("LOCK_PI after the owner exited",
         futex(&f1, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    printf("LOCK_PI: owner died bit %d, now mine %d\n", !!(f1 & FUTEX_OWNER_DIED),
           (f1 & FUTEX_TID_MASK) == me);
    show("UNLOCK_PI", futex(&f1, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
}

/* A thread takes f1 with LOCK_PI and hands it to the main thread, blocked in LOCK_PI. */
static volatile int pi_stage;

static void *pi_owner(void *arg)
{
    (void)arg;
    futex(&f1, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0);
    pi_stage = 1;
    while (pi_stage != 2)
        sched_yield();
    pid_t main_tid = getpid();
    asleep_in_kernel(main_tid);
    pi_stage = (f1 & FUTEX_WAITERS) ? 3 : 4;
    futex(&f1, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0);
    return NULL;
}

static void pi_handover(void)
{
    f1 = 0;
    pi_stage = 0;
    pthread_t t;
    start_thread("pi", &t, pi_owner, NULL);
    while (pi_stage != 1)
        sched_yield();
    pi_stage = 2;
    show("LOCK_PI blocked, handed over", futex(&f1, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    printf("LOCK_PI: the owner saw the waiters bit %d, the word is mine %d\n", pi_stage == 3,
           (f1 & FUTEX_TID_MASK) == (uint32_t)tid_of_self());
    show("UNLOCK_PI", futex(&f1, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    join_thread("pi", t, NULL);
}

static long waitv(struct waitv *w, unsigned n, unsigned flags, struct timespec *t, int clock)
{
    return syscall(SYS_futex_waitv_nr, w, n, flags, t, clock);
}

static struct waitv wv[2];
static volatile pid_t waitv_tid;
static long waitv_result;

static void *waitv_thread(void *arg)
{
    (void)arg;
    waitv_tid = tid_of_self();
    waitv_result = waitv(wv, 2, 0, NULL, 0);
    return NULL;
}

static void futex_waitv(void)
{
    f1 = 1, f2 = 2;
    wv[0] = (struct waitv){ 1, (uintptr_t)&f1, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 };
    wv[1] = (struct waitv){ 2, (uintptr_t)&f2, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 };
    struct timespec t = deadline_ms(CLOCK_MONOTONIC, 10);
    show("waitv monotonic deadline", waitv(wv, 2, 0, &t, CLOCK_MONOTONIC));
    t = deadline_ms(CLOCK_REALTIME, 10);
    show("waitv realtime deadline", waitv(wv, 2, 0, &t, CLOCK_REALTIME));
    t = deadline_ms(CLOCK_MONOTONIC, 10);
    show("waitv clock boottime", waitv(wv, 2, 0, &t, CLOCK_BOOTTIME));
    f2 = 3;
    show("waitv second value differs", waitv(wv, 2, 0, &t, CLOCK_MONOTONIC));
    f2 = 2;
    show("waitv 0 futexes", waitv(wv, 0, 0, &t, CLOCK_MONOTONIC));
    show("waitv 129 futexes", waitv(wv, 129, 0, &t, CLOCK_MONOTONIC));
    show("waitv flags 1", waitv(wv, 2, 1, &t, CLOCK_MONOTONIC));
    show("waitv NULL list", waitv(NULL, 2, 0, &t, CLOCK_MONOTONIC));
    wv[1].flags = FUTEX2_PRIVATE | 0x3;      /* 64-bit futexes: not in 6.1 */
    show("waitv size u64", waitv(wv, 2, 0, &t, CLOCK_MONOTONIC));
    wv[1].flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
    wv[1].reserved = 1;
    show("waitv reserved set", waitv(wv, 2, 0, &t, CLOCK_MONOTONIC));
    wv[1].reserved = 0;
    wv[1].uaddr |= 1;
    show("waitv unaligned", waitv(wv, 2, 0, &t, CLOCK_MONOTONIC));
    wv[1].uaddr &= ~1ul;

    pthread_t th;
    start_thread("waitv", &th, waitv_thread, NULL);
    while (!waitv_tid)
        sched_yield();
    asleep_in_kernel(waitv_tid);
    show("WAKE the second of waitv's futexes", futex(&f2, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    join_thread("waitv", th, NULL);
    printf("waitv returned the index %ld\n", waitv_result);
}

/* A child's futex result as its exit status (100 + errno for an error), and back. */
static int exit_code(long r)
{
    return r < 0 ? 100 + errno : (int)r;
}

static void child_result(const char *what, pid_t pid)
{
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st))
        show_status(what, st);
    else if (WEXITSTATUS(st) >= 100)
        printf("%s: the child's WAIT got -1 %s\n", what, errname(WEXITSTATUS(st) - 100));
    else
        printf("%s: the child's WAIT got %d\n", what, WEXITSTATUS(st));
}

/* Between processes: a shared anonymous mapping, and a file mapped at two addresses. */
static void across_processes(void)
{
    uint32_t *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
    int fd = open("futex.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (ftruncate(fd, 8192) < 0)
        printf("ftruncate: %s\n", errname(errno));
    uint32_t *file_a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    uint32_t *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
    struct { const char *what; uint32_t *child, *parent; } cases[] = {
        { "shared anonymous", anon, anon },
        { "file mapped twice", file_a + 1024, NULL },
    };
    for (int c = 0; c < 2; c++) {
        *cases[c].child = 0;
        pid_t pid = fork();
        if (pid == 0) {
            _exit(exit_code(futex(cases[c].child, FUTEX_WAIT, 0, NULL, NULL, 0)));
        }
        uint32_t *mine = cases[c].parent;
        uint32_t *second = NULL;
        if (!mine) {                         /* the same page of the file, elsewhere */
            second = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
            mine = second;
            printf("%s: different addresses %d\n", cases[c].what, (void *)second !=
                   (void *)(file_a + 1024));
        }
        sleeping(pid, pid);
        show("WAKE private from another process", futex(mine, P(FUTEX_WAKE), 1, NULL, NULL,
                                                         0));
        show("WAKE shared from another process", futex(mine, FUTEX_WAKE, 1, NULL, NULL, 0));
        child_result(cases[c].what, pid);
        if (second)
            munmap(second, 4096);
    }
    /* A private mapping is a copy in the child after fork: a wake there reaches nobody. */
    *priv = 0;
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec t = after_ms(50);
        _exit(exit_code(futex(priv, FUTEX_WAIT, 0, &t, NULL, 0)));
    }
    sleeping(pid, pid);
    show("WAKE shared on a private page, other process", futex(priv, FUTEX_WAKE, 1, NULL,
                                                                NULL, 0));
    child_result("private copy", pid);
    close(fd);
}

int main(void)
{
    threads_init();
    errors();
    timeouts();
    across_processes();
    wake_counts();
    requeue();
    wake_op();
    pi();
    pi_handover();
    futex_waitv();
    return 0;
}
