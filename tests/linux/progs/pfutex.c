/* futex(2) and futex_waitv(2) without threads (issue 13 item 3): processes that share a
 * MAP_SHARED mapping (anonymous, or of a file at different addresses) wait and wake each
 * other (shared keys); a private futex with timeouts (relative, absolute on both clocks),
 * EAGAIN for a changed word, a signal's EINTR or restart; WAKE_BITSET, REQUEUE, CMP_REQUEUE,
 * WAKE_OP (every operation and comparison), the PI calls between processes, a robust list
 * walked at a process's death; and every operation's errors as Linux 6.1 gives them.
 * A waker wakes only after its waiter said (through a pipe) that it is about to wait and
 * /proc says it sleeps, so every count printed is the same on every run. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include "pwait.h"

enum {
    FUTEX_WAIT = 0, FUTEX_WAKE = 1, FUTEX_FD = 2, FUTEX_REQUEUE = 3, FUTEX_CMP_REQUEUE = 4,
    FUTEX_WAKE_OP = 5, FUTEX_LOCK_PI = 6, FUTEX_UNLOCK_PI = 7, FUTEX_TRYLOCK_PI = 8,
    FUTEX_WAIT_BITSET = 9, FUTEX_WAKE_BITSET = 10, FUTEX_WAIT_REQUEUE_PI = 11,
    FUTEX_CMP_REQUEUE_PI = 12, FUTEX_LOCK_PI2 = 13,
    FUTEX_PRIVATE_FLAG = 128, FUTEX_CLOCK_REALTIME = 256,
};
#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_TID_MASK 0x3fffffffu
#define FUTEX_OP(op, oparg, cmp, cmparg) \
    ((((op) & 0xfu) << 28) | (((cmp) & 0xfu) << 24) | (((oparg) & 0xfffu) << 12) | \
     ((cmparg) & 0xfffu))
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE 128
#define P(op) ((op) | FUTEX_PRIVATE_FLAG)

struct waitv {
    uint64_t val, uaddr;
    uint32_t flags, reserved;
};

static long futex(void *uaddr, int op, uint32_t val, const void *timeout, void *uaddr2,
                  uint32_t val3)
{
    return syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
}

static long waitv(struct waitv *w, unsigned n, unsigned flags, const struct timespec *ts,
                  int clk)
{
    return syscall(449, w, n, flags, ts, clk);
}

/* A count smuggled through the timeout argument (REQUEUE, WAKE_OP). */
#define N(x) ((const void *)(uintptr_t)(x))

/* --- private futexes in one process --------------------------------------------------------- */

static void timespec_in(struct timespec *ts, clockid_t clk, long ns)
{
    clock_gettime(clk, ts);
    ts->tv_nsec += ns;
    while (ts->tv_nsec >= 1000000000) {
        ts->tv_nsec -= 1000000000;
        ts->tv_sec++;
    }
}

static void private_waits(void)
{
    static uint32_t w = 5;
    struct timespec rel = { 0, 20000000 }, past = { 0, 0 }, abs;

    SHOW("wait changed word", futex(&w, P(FUTEX_WAIT), 4, NULL, NULL, 0));
    SHOW("wait changed word (shared op)", futex(&w, FUTEX_WAIT, 4, NULL, NULL, 0));
    SHOW("wait relative timeout", futex(&w, P(FUTEX_WAIT), 5, &rel, NULL, 0));
    SHOW("wait zero timeout", futex(&w, P(FUTEX_WAIT), 5, &past, NULL, 0));
    SHOW("wait timeout, changed word", futex(&w, P(FUTEX_WAIT), 6, &past, NULL, 0));
    timespec_in(&abs, CLOCK_MONOTONIC, 20000000);
    SHOW("wait_bitset monotonic absolute", futex(&w, P(FUTEX_WAIT_BITSET), 5, &abs, NULL, ~0u));
    SHOW("wait_bitset monotonic past", futex(&w, P(FUTEX_WAIT_BITSET), 5, &past, NULL, 1));
    timespec_in(&abs, CLOCK_REALTIME, 20000000);
    SHOW("wait_bitset realtime absolute",
         futex(&w, P(FUTEX_WAIT_BITSET) | FUTEX_CLOCK_REALTIME, 5, &abs, NULL, ~0u));
    SHOW("wait_bitset realtime past",
         futex(&w, P(FUTEX_WAIT_BITSET) | FUTEX_CLOCK_REALTIME, 5, &past, NULL, ~0u));
    SHOW("wait with CLOCK_REALTIME", futex(&w, P(FUTEX_WAIT) | FUTEX_CLOCK_REALTIME, 5, &rel,
                                           NULL, 0));
    SHOW("wake with CLOCK_REALTIME", futex(&w, P(FUTEX_WAKE) | FUTEX_CLOCK_REALTIME, 1, NULL,
                                           NULL, 0));
    SHOW("wake nobody", futex(&w, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    SHOW("wake nobody (shared op)", futex(&w, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0));
}

static void private_errors(void)
{
    static uint32_t w[4] = { 5, 0, 0, 0 };
    struct timespec rel = { 0, 1000000 }, bad_ns = { 0, 1000000000 }, neg = { -1, 0 };
    char *misaligned = (char *)w + 1;

    SHOW("wait misaligned", futex(misaligned, P(FUTEX_WAIT), 0, &rel, NULL, 0));
    SHOW("wake misaligned", futex(misaligned, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    SHOW("wait NULL", futex(NULL, P(FUTEX_WAIT), 0, &rel, NULL, 0));
    SHOW("wake NULL private", futex(NULL, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    SHOW("wake NULL shared", futex(NULL, FUTEX_WAKE, 1, NULL, NULL, 0));
    SHOW("wait kernel address", futex((void *)0xffffffff80000000ul, P(FUTEX_WAIT), 0, &rel,
                                      NULL, 0));
    SHOW("wait timeout nsec 1e9", futex(w, P(FUTEX_WAIT), 5, &bad_ns, NULL, 0));
    SHOW("wait timeout negative", futex(w, P(FUTEX_WAIT), 5, &neg, NULL, 0));
    SHOW("wait timeout bad pointer", futex(w, P(FUTEX_WAIT), 5, (void *)16, NULL, 0));
    SHOW("wait timeout bad, changed word", futex(w, P(FUTEX_WAIT), 4, (void *)16, NULL, 0));
    SHOW("wait_bitset bitset 0", futex(w, P(FUTEX_WAIT_BITSET), 5, &rel, NULL, 0));
    SHOW("wake_bitset bitset 0", futex(w, P(FUTEX_WAKE_BITSET), 1, NULL, NULL, 0));
    SHOW("op FUTEX_FD", futex(w, FUTEX_FD, 0, NULL, NULL, 0));
    SHOW("op 14", futex(w, 14, 0, NULL, NULL, 0));
    SHOW("op 15 private", futex(w, P(15), 0, NULL, NULL, 0));
    SHOW("requeue nr_wake -1", futex(w, P(FUTEX_REQUEUE), -1, N(1), w + 1, 0));
    SHOW("requeue nr_requeue -1", futex(w, P(FUTEX_REQUEUE), 1, N(-1), w + 1, 0));
    SHOW("requeue misaligned target", futex(w, P(FUTEX_REQUEUE), 1, N(1), misaligned, 0));
    SHOW("requeue, nobody", futex(w, P(FUTEX_REQUEUE), 1, N(1), w + 1, 0));
    SHOW("cmp_requeue changed word", futex(w, P(FUTEX_CMP_REQUEUE), 1, N(1), w + 1, 4));
    SHOW("cmp_requeue same word", futex(w, P(FUTEX_CMP_REQUEUE), 1, N(1), w + 1, 5));
    SHOW("cmp_requeue NULL", futex(NULL, P(FUTEX_CMP_REQUEUE), 1, N(1), w + 1, 5));
    SHOW("cmp_requeue_pi same address", futex(w, P(FUTEX_CMP_REQUEUE_PI), 1, N(1), w, 5));
    SHOW("cmp_requeue_pi nr_wake 2", futex(w, P(FUTEX_CMP_REQUEUE_PI), 2, N(1), w + 1, 5));
    SHOW("cmp_requeue_pi changed", futex(w, P(FUTEX_CMP_REQUEUE_PI), 1, N(1), w + 1, 4));
    SHOW("wait_requeue_pi same address", futex(w, P(FUTEX_WAIT_REQUEUE_PI), 5, &rel, w, 0));
    SHOW("wait_requeue_pi changed", futex(w, P(FUTEX_WAIT_REQUEUE_PI), 4, &rel, w + 1, 0));
    SHOW("wait_requeue_pi timeout", futex(w, P(FUTEX_WAIT_REQUEUE_PI), 5, &rel, w + 1, 0));
    SHOW("wait_requeue_pi target misaligned",
         futex(w, P(FUTEX_WAIT_REQUEUE_PI), 4, &rel, misaligned, 0));
    SHOW("wait_requeue_pi target NULL", futex(w, P(FUTEX_WAIT_REQUEUE_PI), 4, &rel, NULL, 0));
    SHOW("wait_requeue_pi target NULL shared", futex(w, FUTEX_WAIT_REQUEUE_PI, 4, &rel, NULL, 0));
}

/* WAKE_OP: every operation and comparison on a word nobody waits on: what it returns (the
 * waiters woken: 0) and what the word becomes. */
static void wake_ops(void)
{
    static uint32_t a, b;
    static const char *ops[] = { "SET", "ADD", "OR", "ANDN", "XOR" };
    static const char *cmps[] = { "EQ", "NE", "LT", "LE", "GT", "GE" };
    for (unsigned op = 0; op < 5; op++) {
        b = 6;
        long r = futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(op, 3, 0, 6));
        printf("wake_op %s 3 on 6: %ld, word %u\n", ops[op], r, b);
        b = 6;
        r = futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(op | 8, 2, 0, 6));
        printf("wake_op %s 1<<2 on 6: %ld, word %u\n", ops[op], r, b);
    }
    for (unsigned cmp = 0; cmp < 6; cmp++) {
        for (int arg = 5; arg <= 7; arg++) {
            b = 6;
            long r = futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(0, 0, cmp, arg));
            printf("wake_op cmp %s %d with 6: %ld, word %u\n", cmps[cmp], arg, r, b);
        }
    }
    b = 6;
    SHOW("wake_op shift by 40", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b,
                                      FUTEX_OP(8, 40, 0, 0)));
    printf("word %u\n", b);
    b = (uint32_t)-3;
    SHOW("wake_op signed cmp LT -2", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b,
                                           FUTEX_OP(1, 0, 2, -2)));
    b = 6;
    SHOW("wake_op op 5", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(5, 1, 0, 0)));
    printf("word %u\n", b);
    SHOW("wake_op op 7", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(7, 1, 0, 0)));
    SHOW("wake_op cmp 6", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(0, 9, 6, 0)));
    printf("word %u\n", b);
    SHOW("wake_op cmp 15", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), &b, FUTEX_OP(0, 1, 15, 0)));
    printf("word %u\n", b);
    SHOW("wake_op uaddr2 NULL", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), NULL, FUTEX_OP(0, 1, 0, 0)));
    SHOW("wake_op uaddr2 misaligned", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), (char *)&b + 2,
                                            FUTEX_OP(0, 1, 0, 0)));
    SHOW("wake_op uaddr1 misaligned", futex((char *)&a + 1, P(FUTEX_WAKE_OP), 1, N(1), &b,
                                            FUTEX_OP(0, 1, 0, 0)));
    uint32_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    SHOW("wake_op uaddr2 read-only private", futex(&a, P(FUTEX_WAKE_OP), 1, N(1), ro,
                                                   FUTEX_OP(0, 1, 0, 0)));
    SHOW("wake_op uaddr2 read-only shared op", futex(&a, FUTEX_WAKE_OP, 1, N(1), ro,
                                                     FUTEX_OP(0, 1, 0, 0)));
    SHOW("wait on read-only", futex(ro, P(FUTEX_WAIT), 1, N(0), NULL, 0));
    SHOW("wake on read-only (shared op)", futex(ro, FUTEX_WAKE, 1, NULL, NULL, 0));
    uint32_t *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    SHOW("wake on PROT_NONE private", futex(none, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    SHOW("wake on PROT_NONE shared op", futex(none, FUTEX_WAKE, 1, NULL, NULL, 0));
    SHOW("wait on PROT_NONE", futex(none, P(FUTEX_WAIT), 0, NULL, NULL, 0));
    munmap(ro, 4096);
    munmap(none, 4096);
}

/* --- PI futexes in one process ---------------------------------------------------------------- */

static void pi_alone(void)
{
    static uint32_t m;
    pid_t me = getpid();
    struct timespec past = { 0, 0 };

    SHOW("lock_pi free", futex(&m, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    printf("word is my tid: %d\n", m == (uint32_t)me);
    SHOW("lock_pi own", futex(&m, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    SHOW("trylock_pi own", futex(&m, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    SHOW("unlock_pi", futex(&m, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    printf("word %#x\n", m);
    SHOW("unlock_pi not owner", futex(&m, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    SHOW("trylock_pi free", futex(&m, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    SHOW("unlock_pi again", futex(&m, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    m = FUTEX_OWNER_DIED;
    SHOW("lock_pi owner died, free", futex(&m, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    printf("word has owner died: %d, mine: %d\n", !!(m & FUTEX_OWNER_DIED),
           (m & FUTEX_TID_MASK) == (uint32_t)me);
    SHOW("unlock_pi owner died", futex(&m, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    printf("word %#x\n", m);

    /* A TID that names no process: ESRCH, with FUTEX_WAITERS left in the word. */
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    m = (uint32_t)gone;
    SHOW("lock_pi dead owner", futex(&m, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    printf("word waiters bit: %d\n", !!(m & FUTEX_WAITERS));
    m = (uint32_t)gone;
    SHOW("trylock_pi dead owner", futex(&m, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    m = (uint32_t)gone;
    SHOW("unlock_pi someone else's", futex(&m, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));

    /* A live owner (the parent of this process... here: a child that waits). */
    if (pipe(ready))
        return;
    pid_t owner = fork();
    if (owner == 0) {
        char c;
        close(ready[1]);
        if (read(ready[0], &c, 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(ready[0]);
    m = (uint32_t)owner;
    SHOW("trylock_pi live owner", futex(&m, P(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0));
    printf("word waiters bit: %d\n", !!(m & FUTEX_WAITERS));
    m = (uint32_t)owner;
    SHOW("lock_pi realtime past", futex(&m, P(FUTEX_LOCK_PI), 0, &past, NULL, 0));
    SHOW("lock_pi with CLOCK_REALTIME", futex(&m, P(FUTEX_LOCK_PI) | FUTEX_CLOCK_REALTIME, 0,
                                              &past, NULL, 0));
    SHOW("lock_pi2 monotonic past", futex(&m, P(FUTEX_LOCK_PI2), 0, &past, NULL, 0));
    struct timespec abs;
    timespec_in(&abs, CLOCK_REALTIME, 20000000);
    SHOW("lock_pi2 realtime soon", futex(&m, P(FUTEX_LOCK_PI2) | FUTEX_CLOCK_REALTIME, 0, &abs,
                                         NULL, 0));
    SHOW("lock_pi misaligned", futex((char *)&m + 2, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    SHOW("lock_pi NULL", futex(NULL, P(FUTEX_LOCK_PI), 0, NULL, NULL, 0));
    SHOW("unlock_pi NULL", futex(NULL, P(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0));
    close(ready[1]);
    reap("owner", owner);
}

/* --- futex_waitv in one process --------------------------------------------------------------- */

static void waitv_alone(void)
{
    static uint32_t w[3] = { 1, 2, 3 };
    struct waitv v[3];
    for (int i = 0; i < 3; i++)
        v[i] = (struct waitv){ .val = w[i], .uaddr = (uintptr_t)&w[i],
                               .flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE };
    struct timespec abs, bad = { 0, -1 };
    static struct waitv many[129];

    SHOW("waitv flags 1", waitv(v, 3, 1, NULL, CLOCK_MONOTONIC));
    SHOW("waitv 0 entries", waitv(v, 0, 0, NULL, CLOCK_MONOTONIC));
    SHOW("waitv 129 entries", waitv(many, 129, 0, NULL, CLOCK_MONOTONIC));
    SHOW("waitv NULL", waitv(NULL, 1, 0, NULL, CLOCK_MONOTONIC));
    timespec_in(&abs, CLOCK_MONOTONIC, 20000000);
    SHOW("waitv clock 2", waitv(v, 3, 0, &abs, CLOCK_PROCESS_CPUTIME_ID));
    SHOW("waitv bad timespec", waitv(v, 3, 0, &bad, CLOCK_MONOTONIC));
    SHOW("waitv timespec pointer bad", waitv(v, 3, 0, (void *)8, CLOCK_MONOTONIC));
    SHOW("waitv list pointer bad", waitv((void *)8, 3, 0, NULL, CLOCK_MONOTONIC));
    SHOW("waitv monotonic timeout", waitv(v, 3, 0, &abs, CLOCK_MONOTONIC));
    timespec_in(&abs, CLOCK_REALTIME, 20000000);
    SHOW("waitv realtime timeout", waitv(v, 3, 0, &abs, CLOCK_REALTIME));
    v[2].val = 4;
    SHOW("waitv third changed", waitv(v, 3, 0, &abs, CLOCK_REALTIME));
    v[2].val = 3;
    v[1].flags = FUTEX2_PRIVATE;
    SHOW("waitv no size", waitv(v, 3, 0, NULL, CLOCK_MONOTONIC));
    v[1].flags = FUTEX2_SIZE_U32 | 4;
    SHOW("waitv unknown flag", waitv(v, 3, 0, NULL, CLOCK_MONOTONIC));
    v[1].flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
    v[1].reserved = 1;
    SHOW("waitv reserved", waitv(v, 3, 0, NULL, CLOCK_MONOTONIC));
    v[1].reserved = 0;
    v[1].uaddr += 1;
    SHOW("waitv misaligned", waitv(v, 3, 0, NULL, CLOCK_MONOTONIC));
    v[1].uaddr = 0;
    SHOW("waitv NULL word private", waitv(v, 3, 0, NULL, CLOCK_MONOTONIC));
    v[1].flags = FUTEX2_SIZE_U32;
    SHOW("waitv NULL word shared", waitv(v, 3, 0, NULL, CLOCK_MONOTONIC));
}

/* --- a signal during a wait ---------------------------------------------------------------------- */

static volatile sig_atomic_t handled;
static uint32_t sigword;

static void on_alarm(int sig)
{
    (void)sig;
    handled++;
    sigword = 1;                    /* a restarted wait then finds the word changed */
}

static void catch_alarm(int flags)
{
    struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = flags };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
}

static void alarm_in(long us)
{
    struct itimerval it = { .it_value = { us / 1000000, us % 1000000 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

static void interrupted(void)
{
    struct timespec rel = { 10, 0 }, abs;

    catch_alarm(0);
    sigword = 0, handled = 0;
    alarm_in(20000);
    SHOW("wait, handler without SA_RESTART", futex(&sigword, P(FUTEX_WAIT), 0, NULL, NULL, 0));
    catch_alarm(SA_RESTART);
    sigword = 0, handled = 0;
    alarm_in(20000);
    SHOW("wait, handler with SA_RESTART (restarted)",
         futex(&sigword, P(FUTEX_WAIT), 0, NULL, NULL, 0));
    sigword = 0, handled = 0;
    alarm_in(20000);
    SHOW("timed wait, handler with SA_RESTART", futex(&sigword, P(FUTEX_WAIT), 0, &rel, NULL, 0));
    sigword = 0, handled = 0;
    timespec_in(&abs, CLOCK_MONOTONIC, 10000000000l);
    alarm_in(20000);
    SHOW("wait_bitset absolute, handler with SA_RESTART",
         futex(&sigword, P(FUTEX_WAIT_BITSET), 0, &abs, NULL, ~0u));
    sigword = 0, handled = 0;
    alarm_in(20000);
    static uint32_t other = 7;
    struct waitv v[2] = { { 0, (uintptr_t)&sigword, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
                          { 7, (uintptr_t)&other, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 } };
    SHOW("waitv, handler with SA_RESTART", waitv(v, 2, 0, NULL, 0));
    printf("handled %d\n", (int)handled);
    signal(SIGALRM, SIG_DFL);

    /* A stop and a continue without a handler: a timed wait goes on (restart_syscall) and
     * ends at its deadline. */
    if (pipe(ready))
        return;
    pid_t me = getpid(), child = fork();
    if (child == 0) {
        char c;
        if (read(ready[0], &c, 1) != 1 || !sleeps(me))
            printf("the parent never slept\n");
        kill(me, SIGSTOP);
        kill(me, SIGCONT);
        _exit(0);
    }
    struct timespec shortly = { 0, 200000000 };
    sigword = 0;
    char c = 1;
    if (write(ready[1], &c, 1) != 1)
        return;
    SHOW("timed wait, stopped and continued", futex(&sigword, P(FUTEX_WAIT), 0, &shortly, NULL,
                                                    0));
    reap("stopper", child);
    close(ready[0]);
    close(ready[1]);
}

/* --- processes over shared memory -------------------------------------------------------------- */

struct shared {
    uint32_t word, word2, pi, bits;
    uint32_t v[3];
    uint32_t robust_word;
    uint64_t robust_head[3];
    uint64_t robust_entry;
    long res[5];
};

/* A child's result as its exit status (children print nothing: their lines would race
 * with the parent's): the value, or 100 + errno. */
static void exit_with(long r)
{
    _exit(r >= 0 ? (int)r : 100 + errno);
}

/* A child that waits with op on addr after saying so. */
static pid_t waiter(uint32_t *addr, int op, uint32_t val, uint32_t bitset)
{
    pid_t pid = fork();
    if (pid == 0) {
        about_to_block();
        errno = 0;
        exit_with(futex(addr, op, val, NULL, NULL, bitset));
    }
    until_asleep(pid);
    return pid;
}

static void shared_anon(struct shared *s)
{
    s->word = 0;
    pid_t c = waiter(&s->word, FUTEX_WAIT, 0, 0);
    SHOW("private wake of a shared waiter", futex(&s->word, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    s->word = 1;
    SHOW("shared wake", futex(&s->word, FUTEX_WAKE, 1, NULL, NULL, 0));
    reap("anon waiter", c);

    /* Private waits on a shared page meet within one process only: fork gives two mms. */
    s->word = 0;
    c = waiter(&s->word, P(FUTEX_WAIT), 0, 0);
    SHOW("shared wake of a private waiter", futex(&s->word, FUTEX_WAKE, 1, NULL, NULL, 0));
    SHOW("private wake of another process's private waiter",
         futex(&s->word, P(FUTEX_WAKE), 1, NULL, NULL, 0));
    kill(c, SIGKILL);
    reap("private waiter", c);

    /* Bitsets. */
    s->bits = 0;
    c = waiter(&s->bits, FUTEX_WAIT_BITSET, 0, 2);
    SHOW("wake_bitset 1", futex(&s->bits, FUTEX_WAKE_BITSET, 1, NULL, NULL, 1));
    SHOW("wake_bitset 6", futex(&s->bits, FUTEX_WAKE_BITSET, 1, NULL, NULL, 6));
    reap("bitset waiter", c);

    /* Two waiters: WAKE with 0 wakes one (Linux's rule), then CMP_REQUEUE moves the other. */
    s->word = 0, s->word2 = 0;
    pid_t c1 = waiter(&s->word, FUTEX_WAIT, 0, 0);
    pid_t c2 = waiter(&s->word, FUTEX_WAIT, 0, 0);
    pid_t c3 = waiter(&s->word, FUTEX_WAIT, 0, 0);
    SHOW("wake 0", futex(&s->word, FUTEX_WAKE, 0, NULL, NULL, 0));
    reap("first", c1);
    SHOW("cmp_requeue wake 0 requeue 1", futex(&s->word, FUTEX_CMP_REQUEUE, 0, N(1), &s->word2,
                                               0));
    SHOW("wake the old word", futex(&s->word, FUTEX_WAKE, 1, NULL, NULL, 0));
    reap("third", c3);
    SHOW("wake_op on the new word, cmp true", futex(&s->word, FUTEX_WAKE_OP, 1, N(1),
                                                    &s->word2, FUTEX_OP(1, 1, 0, 0)));
    reap("second", c2);
    printf("word2 %u\n", s->word2);

    /* REQUEUE (no compare) of two, then WAKE of all. */
    s->word = 0, s->word2 = 0;
    c1 = waiter(&s->word, FUTEX_WAIT, 0, 0);
    c2 = waiter(&s->word, FUTEX_WAIT, 0, 0);
    SHOW("requeue wake 0 requeue 5", futex(&s->word, FUTEX_REQUEUE, 0, N(5), &s->word2, 0));
    SHOW("wake all on the new word", futex(&s->word2, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0));
    reap("fourth", c1);
    reap("fifth", c2);
}

static void shared_file(void)
{
    char path[] = "/tmp/pfutex.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, 8192)) {
        printf("no file\n");
        return;
    }
    unlink(path);
    uint32_t *a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (a == MAP_FAILED)
        return;
    a[1024] = 0;
    pid_t c = fork();
    if (c == 0) {
        /* Its own mapping of the same page, elsewhere. */
        char *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
        about_to_block();
        errno = 0;
        exit_with(futex(b, FUTEX_WAIT, 0, NULL, NULL, 0));
    }
    until_asleep(c);
    SHOW("wake at another offset", futex(a + 1025, FUTEX_WAKE, 1, NULL, NULL, 0));
    a[1024] = 1;
    SHOW("wake through the other mapping", futex(a + 1024, FUTEX_WAKE, 1, NULL, NULL, 0));
    reap("file waiter", c);
    munmap(a, 8192);
    close(fd);
}

static void shared_waitv(struct shared *s)
{
    s->v[0] = 1, s->v[1] = 2, s->v[2] = 3;
    pid_t c = fork();
    if (c == 0) {
        struct waitv v[3];
        for (int i = 0; i < 3; i++)
            v[i] = (struct waitv){ .val = s->v[i], .uaddr = (uintptr_t)&s->v[i],
                                   .flags = FUTEX2_SIZE_U32 };
        about_to_block();
        errno = 0;
        exit_with(waitv(v, 3, 0, NULL, 0));
    }
    until_asleep(c);
    SHOW("wake the second of waitv", futex(&s->v[1], FUTEX_WAKE, 1, NULL, NULL, 0));
    reap("waitv", c);
}

/* A child that blocks in op on addr (a PI lock, or a wait to be requeued to s->pi), then owns
 * s->pi: what it got, whether the word names it and has FUTEX_WAITERS, its UNLOCK_PI and the
 * word after, into s->res. */
static pid_t pi_child(struct shared *s, uint32_t *addr, int op)
{
    pid_t c = fork();
    if (c == 0) {
        about_to_block();
        errno = 0;
        s->res[0] = futex(addr, op, 0, NULL, &s->pi, 0);
        s->res[1] = (s->pi & FUTEX_TID_MASK) == (uint32_t)getpid();
        s->res[2] = !!(s->pi & FUTEX_WAITERS);
        s->res[3] = futex(&s->pi, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
        s->res[4] = s->pi;
        _exit(0);
    }
    until_asleep(c);
    return c;
}

static void pi_child_end(const char *what, struct shared *s, pid_t c)
{
    reap(what, c);
    printf("%s: got %ld, owner was the child %ld, waiters bit %ld, unlock_pi %ld, word %#lx\n",
           what, s->res[0], s->res[1], s->res[2], s->res[3], s->res[4]);
}

static void shared_pi(struct shared *s)
{
    s->pi = 0;
    SHOW("parent lock_pi", futex(&s->pi, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
    pid_t c = pi_child(s, &s->pi, FUTEX_LOCK_PI);
    printf("parent sees waiters bit: %d\n", !!(s->pi & FUTEX_WAITERS));
    SHOW("wake a PI waiter", futex(&s->pi, FUTEX_WAKE, 1, NULL, NULL, 0));
    SHOW("requeue a PI waiter", futex(&s->pi, FUTEX_REQUEUE, 1, N(1), &s->word, 0));
    SHOW("parent unlock_pi", futex(&s->pi, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
    pi_child_end("lock_pi child", s, c);

    /* WAIT_REQUEUE_PI in a child, CMP_REQUEUE_PI to a free PI futex: the child owns it. */
    s->word = 0, s->pi = 0;
    c = pi_child(s, &s->word, FUTEX_WAIT_REQUEUE_PI);
    SHOW("wake a requeue-PI waiter", futex(&s->word, FUTEX_WAKE, 1, NULL, NULL, 0));
    SHOW("plain cmp_requeue of a requeue-PI waiter",
         futex(&s->word, FUTEX_CMP_REQUEUE, 1, N(1), &s->word2, 0));
    SHOW("cmp_requeue_pi", futex(&s->word, FUTEX_CMP_REQUEUE_PI, 1, N(1), &s->pi, 0));
    pi_child_end("wait_requeue_pi child", s, c);
}

/* A child takes the futex at word (a PI lock, or the word with its TID and FUTEX_WAITERS),
 * with a robust-list entry for it (without the PI bit, as musl's) or none, and dies once its
 * parent sleeps waiting for the futex. */
enum { ROBUST_ENTRY = 1, PI_LOCK = 2 };

static pid_t dies_holding(struct shared *s, uint32_t *word, int how)
{
    pid_t me = getpid();
    pid_t c = fork();
    if (c == 0) {
        if (how & PI_LOCK)
            futex(word, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
        else
            *word = (uint32_t)getpid() | FUTEX_WAITERS;
        if (how & ROBUST_ENTRY) {
            /* head: next -> entry, futex_offset, pending 0; entry: next -> head */
            s->robust_head[0] = (uintptr_t)&s->robust_entry;
            s->robust_head[1] = (uint64_t)((char *)word - (char *)&s->robust_entry);
            s->robust_head[2] = 0;
            s->robust_entry = (uintptr_t)s->robust_head;
            if (syscall(SYS_set_robust_list, s->robust_head, 24))
                printf("set_robust_list failed\n");
        }
        char b = 1;
        if (write(ready[1], &b, 1) != 1 || read(go[0], &b, 1) != 1 || !sleeps(me))
            printf("the parent never slept\n");
        _exit(0);
    }
    char b;
    if (read(ready[0], &b, 1) != 1 || write(go[1], &b, 1) != 1)
        printf("no word from the owner\n");
    return c;
}

static void show_word(const char *what, uint32_t w)
{
    printf("%s: owner died %d, waiters %d, mine %d, tid 0 %d\n", what,
           !!(w & FUTEX_OWNER_DIED), !!(w & FUTEX_WAITERS),
           (w & FUTEX_TID_MASK) == (uint32_t)getpid(), !(w & FUTEX_TID_MASK));
}

/* Robust futexes and PI locks whose owner dies: FUTEX_OWNER_DIED and a waiter woken (Linux's
 * exit_robust_list), a PI lock handed to its waiter (exit_pi_state_list). */
static void owner_dies(struct shared *s)
{
    if (pipe(ready) || pipe(go))
        return;
    s->robust_word = 0;
    pid_t c = dies_holding(s, &s->robust_word, ROBUST_ENTRY);
    SHOW("robust waiter", futex(&s->robust_word, FUTEX_WAIT, s->robust_word, NULL, NULL, 0));
    show_word("robust word", s->robust_word);
    reap("robust owner", c);

    static const struct { const char *what; int how; } pi[] = {
        { "PI owner with a robust entry dies", PI_LOCK | ROBUST_ENTRY },
        { "PI owner without a robust list dies", PI_LOCK },
    };
    for (int i = 0; i < 2; i++) {
        s->pi = 0;
        c = dies_holding(s, &s->pi, pi[i].how);
        SHOW(pi[i].what, futex(&s->pi, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
        show_word("PI word", s->pi);
        SHOW("unlock_pi", futex(&s->pi, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
        printf("PI word %#x\n", s->pi);
        reap("PI owner", c);
    }
    close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);

    void *head;
    size_t len;
    SHOW("get_robust_list self", syscall(SYS_get_robust_list, 0, &head, &len));
    printf("len %zu\n", len);
    SHOW("get_robust_list of no one", syscall(SYS_get_robust_list, 99999, &head, &len));
    SHOW("get_robust_list bad pointer", syscall(SYS_get_robust_list, 0, (void *)8, &len));
    SHOW("set_robust_list len 12", syscall(SYS_set_robust_list, head, 12));
}

int main(void)
{
    corpus_init();
    alarm(60);                      /* a wait that never ends fails the case, not the run */
    private_waits();
    private_errors();
    wake_ops();
    pi_alone();
    waitv_alone();
    interrupted();
    alarm(60);
    struct shared *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                            -1, 0);
    if (s == MAP_FAILED)
        return 1;
    if (pipe(ready))
        return 1;
    shared_anon(s);
    shared_file();
    shared_waitv(s);
    shared_pi(s);
    close(ready[0]);
    close(ready[1]);
    owner_dies(s);
    return 0;
}
