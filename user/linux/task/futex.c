/* Futexes (docs/linux/futex.md): Linux 6.1's futex(2) and futex_waitv(2) on lx's parked calls.
 *
 * A waiter is a struct futex_q on a chain of a hash table, found by its key: (struct mm *,
 * address) for a private futex and for any futex on private memory (a copy-on-write page is
 * the process's own), (lx's page, offset) for a futex on a MAP_SHARED mapping, of a file or
 * of shared anonymous memory, whose page is the same lx page in every process that maps it.
 * A queued waiter holds a reference to that page, so the key cannot name another page while
 * it waits.
 *
 * Atomicity: lx serves one message at a time and every thread of every process runs below
 * lx's priority, so no process runs while a handler reads a word, compares it and queues the
 * caller (or reads, modifies and writes it: WAKE_OP, the PI calls): each handler is one
 * atomic step with respect to every process, as the hash-bucket lock makes it in Linux.  lx
 * runs on one CPU (the kernel schedules all of it and its processes there).
 *
 * A waiter is parked (park/park.c); a wake takes its entries off their chains, records which
 * one was woken in the thread's scratch (park_futex) and makes the call run again, which
 * then answers it.  A call that leaves the park in any other way (a signal, its deadline, its
 * thread's end) drops its entries through park.leave.  Priority inheritance has no effect:
 * lx does not schedule, and the kernel's priorities stay as they are; the PI calls keep the
 * word's protocol (owner TID, FUTEX_WAITERS, FUTEX_OWNER_DIED) and hand the lock on in FIFO
 * order. */
#include "task/futex.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/list.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "task/pid.h"
#include "task/process.h"
#include "task/thread.h"
#include "time/clock.h"

#define FUTEX_HASH_BITS 8

/* A futex's identity: base is the mm (private) or lx's page (shared), off the address or
 * the offset in the page. */
enum key_kind { KEY_PRIVATE, KEY_MM_SHARED, KEY_PAGE };
struct futex_key {
    const void *base;
    l4_word_t off;
    uint8_t kind;                   /* enum key_kind: a private and a shared call on private
                                       memory never meet (Linux's FUT_OFF_MMSHARED) */
};

enum futex_q_kind { FQ_WAIT, FQ_PI, FQ_REQUEUE_PI };

struct futex_q {
    struct list link;               /* in its chain (hash of key); unlinked: not queued */
    struct futex_key key;           /* a shared key holds a reference to its page */
    struct thread *t;
    uint32_t bitset;
    uint8_t kind;                   /* enum futex_q_kind */
    uint8_t index;                  /* in futex_waitv's list */
};

static struct list chains[1u << FUTEX_HASH_BITS];

static struct list *chain_of(const struct futex_key *k)
{
    uint64_t h = ((uint64_t)(uintptr_t)k->base ^ (k->off << 3)) * 0x9E3779B97F4A7C15ull;
    struct list *c = &chains[h >> (64 - FUTEX_HASH_BITS)];
    if (!c->next)
        list_init(c);
    return c;
}

static bool key_eq(const struct futex_key *a, const struct futex_key *b)
{
    return a->base == b->base && a->off == b->off && a->kind == b->kind;
}

static void key_get(const struct futex_key *k)
{
    if (k->kind == KEY_PAGE)
        page_get((void *)k->base);
}

static void key_put(const struct futex_key *k)
{
    if (k->kind == KEY_PAGE)
        page_put((void *)k->base);
}

/* Linux's get_futex_key: EINVAL for a misaligned word, EFAULT outside user space; a shared
 * futex needs the page (accessible; writable for write) and keys by it when the mapping is
 * MAP_SHARED, by the mm when it is private, where a read-only page is EFAULT (Linux: a
 * read-only anonymous page never changes; a private file page not yet written would key by
 * the file there, which lx does not do). */
static int get_key(struct thread *t, l4_word_t uaddr, bool private_, bool write,
                   struct futex_key *k)
{
    if (uaddr & 3)
        return -EINVAL;
    if (!access_ok(uaddr, sizeof(uint32_t)))
        return -EFAULT;
    *k = (struct futex_key){ t->mm, uaddr, private_ ? KEY_PRIVATE : KEY_MM_SHARED };
    if (private_)
        return 0;
    struct region *r = uaddr >= LX_MMAP_MIN ? mm_find(t->mm, uaddr) : NULL;
    bool writable = r && (r->prot & PROT_WRITE);
    if (!r || !(r->prot & (PROT_READ | PROT_WRITE)) || (write && !writable) ||
        mm_past_eof(r, uaddr))
        return -EFAULT;
    if (!r->shared)
        return writable ? 0 : -EFAULT;
    int err;
    void *page = mm_page(t->mm, r, uaddr, &err);
    if (!page)
        return -EFAULT;
    *k = (struct futex_key){ page, uaddr & ~LX_PAGE_MASK, KEY_PAGE };
    return 0;
}

static int get_word(struct thread *t, l4_word_t uaddr, uint32_t *v)
{
    return copy_from_user(t->mm, v, uaddr, sizeof *v);
}

static int put_word(struct thread *t, l4_word_t uaddr, uint32_t v)
{
    return copy_to_user(t->mm, uaddr, &v, sizeof v);
}

static int thread_tid(const struct thread *t)
{
    return t->tid->nr;
}

/* --- queue entries ------------------------------------------------------------------------ */

static struct futex_q *q_at(struct park_futex *pf, unsigned i)
{
    return &pf->qs[i / PARK_FUTEX_CHUNK][i % PARK_FUTEX_CHUNK];
}

static void unqueue(struct futex_q *q)
{
    if (list_linked(&q->link)) {
        list_del(&q->link);
        key_put(&q->key);
    }
}

static void queue(struct futex_q *q, const struct futex_key *k)
{
    q->key = *k;
    key_get(k);
    list_add_tail(chain_of(k), &q->link);
}

/* park.leave: the call leaves the park; its entries go. */
static void futex_leave(struct thread *t)
{
    struct park_futex *pf = &t->park.u.futex;
    for (unsigned i = 0; i < pf->nq; i++)
        unqueue(q_at(pf, i));
    kfree(pf->qs[0]);
    kfree(pf->qs[1]);
    pf->qs[0] = pf->qs[1] = NULL;
    pf->nq = 0;
}

/* n entries for t's call (every one unlinked), or NULL: no memory. */
static bool alloc_qs(struct thread *t, struct park_futex *pf, unsigned n)
{
    for (unsigned c = 0; c * PARK_FUTEX_CHUNK < n; c++) {
        unsigned k = n - c * PARK_FUTEX_CHUNK;
        if (k > PARK_FUTEX_CHUNK)
            k = PARK_FUTEX_CHUNK;
        if (!(pf->qs[c] = kmalloc(k * sizeof(struct futex_q)))) {
            futex_leave(t);
            return false;
        }
    }
    pf->nq = n;
    for (unsigned i = 0; i < n; i++) {
        struct futex_q *q = q_at(pf, i);
        list_init(&q->link);
        q->t = t;
        q->index = (uint8_t)i;
    }
    return true;
}

/* A wake takes q: its thread's call runs again and returns the index woken (0 for futex). */
static void wake_q(struct futex_q *q, bool owner)
{
    struct thread *t = q->t;
    struct park_futex *pf = &t->park.u.futex;
    unqueue(q);
    if (!pf->woken)
        pf->woken = 1 + q->index;
    pf->owner = owner;
    park_wake(t);
}

/* The first waiter queued on k, or NULL. */
static struct futex_q *top_waiter(const struct futex_key *k)
{
    struct list *c = chain_of(k);
    for (struct list *n = c->next; n != c; n = n->next) {
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (key_eq(&q->key, k))
            return q;
    }
    return NULL;
}

/* Wake up to nr (at least one, as Linux) of k's waiters whose bitset meets bitset; EINVAL
 * if a PI waiter is among them. */
static long wake_key(const struct futex_key *k, int nr, uint32_t bitset)
{
    struct list *c = chain_of(k);
    long woken = 0;
    for (struct list *n = c->next, *next; n != c; n = next) {
        next = n->next;
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (!key_eq(&q->key, k))
            continue;
        if (q->kind != FQ_WAIT)
            return -EINVAL;
        if (!(q->bitset & bitset))
            continue;
        wake_q(q, false);
        if (++woken >= nr)
            break;
    }
    return woken;
}

/* --- waiting ------------------------------------------------------------------------------ */

/* How a parked futex call ends when a signal comes: a wake that took it first wins. */
static long wait_interrupted(struct thread *t)
{
    const struct park_futex *pf = &t->park.u.futex;
    if (pf->woken)
        return pf->woken - 1;
    return -ERESTARTSYS;
}

static long wait_restart(struct thread *t);

/* FUTEX_WAIT and WAIT_BITSET with a timeout go on through restart_syscall until the same
 * deadline (Linux's futex_wait_restart); without one they restart (-ERESTARTSYS). */
static long wait_interrupted_timed(struct thread *t)
{
    const struct park_futex *pf = &t->park.u.futex;
    if (pf->woken)
        return pf->woken - 1;
    t->restart.fn = wait_restart;
    t->restart.u.futex.uaddr = pf->uaddr;
    t->restart.u.futex.val = pf->val;
    t->restart.u.futex.bitset = pf->bitset;
    t->restart.u.futex.flags = pf->private_ ? FUTEX_PRIVATE_FLAG : 0;
    t->restart.u.futex.deadline = pf->deadline;
    return -ERESTART_RESTARTBLOCK;
}

/* WAIT_REQUEUE_PI: before the requeue it restarts (-ERESTARTNOINTR); after it, Linux
 * returns EAGAIN rather than restart a wait whose word has changed. */
static long requeue_pi_interrupted(struct thread *t)
{
    const struct park_futex *pf = &t->park.u.futex;
    if (pf->woken)
        return 0;
    return pf->requeued ? -EAGAIN : -ERESTARTNOINTR;
}

/* LOCK_PI is never cut short by a handler: it restarts (Linux's -ERESTARTNOINTR). */
static long lock_interrupted(struct thread *t)
{
    const struct park_futex *pf = &t->park.u.futex;
    if (pf->woken)
        return 0;
    return -ERESTARTNOINTR;
}

static long park_futex_call(struct thread *t, struct park_futex *pf, park_intr_fn intr)
{
    long r = park_call_fn(t, pf->deadline, intr);
    t->park.leave = futex_leave;
    return r;
}

/* A parked futex call runs again: true with *r what it ends with (the index woken, or
 * -ETIMEDOUT), false when it must set up again (a spurious run: Linux's retry). */
static bool rerun_ends(struct park_futex *pf, long *r)
{
    if (pf->woken) {
        *r = pf->woken - 1;
        return true;
    }
    if (pf->deadline && lx_now() >= pf->deadline) {
        *r = -ETIMEDOUT;
        return true;
    }
    return false;
}

/* WAIT, WAIT_BITSET, WAIT_REQUEUE_PI's first half: queue on uaddr if it holds val. */
static long do_wait(struct thread *t, l4_word_t uaddr, uint32_t val, uint32_t bitset,
                    bool private_, enum futex_q_kind kind, park_intr_fn intr)
{
    struct park_futex *pf = park_futex(&t->park);
    long r;
    if (park_retrying(t) && rerun_ends(pf, &r))
        return r;
    if (!bitset)
        return -EINVAL;
    struct futex_key k;
    int e = get_key(t, uaddr, private_, false, &k);
    if (e)
        return e;
    uint32_t cur;
    if (get_word(t, uaddr, &cur))
        return -EFAULT;
    if (cur != val)
        return -EAGAIN;
    if (pf->deadline && lx_now() >= pf->deadline)
        return -ETIMEDOUT;
    if (!alloc_qs(t, pf, 1))
        return -ENOMEM;
    struct futex_q *q = q_at(pf, 0);
    q->bitset = bitset;
    q->kind = (uint8_t)kind;
    queue(q, &k);
    pf->uaddr = uaddr, pf->val = val, pf->bitset = bitset, pf->private_ = private_;
    return park_futex_call(t, pf, intr);
}

static long wait_restart(struct thread *t)
{
    struct park_futex *pf = park_futex(&t->park);
    const struct restart_block *rb = &t->restart;
    if (!park_retrying(t))
        pf->deadline = rb->u.futex.deadline;
    return do_wait(t, rb->u.futex.uaddr, rb->u.futex.val, rb->u.futex.bitset,
                   rb->u.futex.flags & FUTEX_PRIVATE_FLAG, FQ_WAIT, wait_interrupted_timed);
}

/* --- requeue, WAKE_OP ---------------------------------------------------------------------- */

/* Move q from its key to k (a requeue). */
static void requeue_q(struct futex_q *q, const struct futex_key *k)
{
    unqueue(q);
    queue(q, k);
}

/* The PI futex at uaddr2 with no owner is taken for t (a requeue PI's top waiter): true and
 * the word set, false if it has an owner; -errno on a fault. */
static int pi_take_for(struct thread *owner, l4_word_t uaddr2, struct thread *t)
{
    uint32_t v;
    if (get_word(t, uaddr2, &v))
        return -EFAULT;
    if (v & FUTEX_TID_MASK)
        return 0;
    uint32_t nv = (v & FUTEX_OWNER_DIED) | (uint32_t)thread_tid(owner) | FUTEX_WAITERS;
    if (put_word(t, uaddr2, nv))
        return -EFAULT;
    return 1;
}

static long requeue(struct thread *t, l4_word_t uaddr1, bool private_, l4_word_t uaddr2,
                    int nr_wake, int nr_requeue, const uint32_t *cmpval, bool requeue_pi)
{
    if (nr_wake < 0 || nr_requeue < 0)
        return -EINVAL;
    if (requeue_pi && (uaddr1 == uaddr2 || nr_wake != 1))
        return -EINVAL;
    struct futex_key k1, k2;
    int e = get_key(t, uaddr1, private_, false, &k1);
    if (e)
        return e;
    if ((e = get_key(t, uaddr2, private_, requeue_pi, &k2)))
        return e;
    if (requeue_pi && key_eq(&k1, &k2))
        return -EINVAL;
    if (cmpval) {
        uint32_t cur;
        if (get_word(t, uaddr1, &cur))
            return -EFAULT;
        if (cur != *cmpval)
            return -EAGAIN;
    }
    struct list *c = chain_of(&k1);
    long count = 0;
    bool took_pi = false;
    for (struct list *n = c->next, *next; n != c; n = next) {
        next = n->next;
        if (count - nr_wake >= nr_requeue)
            break;
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (!key_eq(&q->key, &k1))
            continue;
        if ((q->kind == FQ_REQUEUE_PI) != requeue_pi || q->kind == FQ_PI)
            return -EINVAL;         /* Linux: even after some moved */
        if (!requeue_pi) {
            if (++count <= nr_wake)
                wake_q(q, false);
            else
                requeue_q(q, &k2);
            continue;
        }
        /* Requeue PI: the first one takes uaddr2 if it is free (and is woken owning it);
         * the others wait on uaddr2 as LOCK_PI waiters, FUTEX_WAITERS set. */
        if (!took_pi && !count) {
            took_pi = true;
            int r = pi_take_for(q->t, uaddr2, t);
            if (r < 0)
                return r;
            if (r) {
                wake_q(q, true);
                count++;
                continue;
            }
        }
        uint32_t v;
        if (get_word(t, uaddr2, &v) || put_word(t, uaddr2, v | FUTEX_WAITERS))
            return count ? count : -EFAULT;
        q->kind = FQ_PI;
        q->t->park.u.futex.requeued = true;
        requeue_q(q, &k2);
        count++;
    }
    return count;
}

/* WAKE_OP's operation on *uaddr2 and its comparison of the old value (Linux's
 * futex_atomic_op_inuser): 1/0 the comparison, -ENOSYS an unknown operation (the word
 * untouched) or comparison (the word changed), -EFAULT. */
static int atomic_op(struct thread *t, uint32_t encoded, l4_word_t uaddr2)
{
    unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
    int32_t oparg = (int32_t)(encoded << 8) >> 20;     /* bits 12..23, sign-extended */
    int32_t cmparg = (int32_t)(encoded << 20) >> 20;   /* bits 0..11 */
    if (encoded & (8u << 28))                           /* FUTEX_OP_OPARG_SHIFT */
        oparg = (int32_t)(1u << (oparg & 31));
    if (!access_ok(uaddr2, sizeof(uint32_t)))
        return -EFAULT;
    if (op > 4)
        return -ENOSYS;
    uint32_t old;
    if (get_word(t, uaddr2, &old))
        return -EFAULT;
    uint32_t nv = op == 0 ? (uint32_t)oparg : op == 1 ? old + (uint32_t)oparg
                : op == 2 ? old | (uint32_t)oparg : op == 3 ? old & ~(uint32_t)oparg
                : old ^ (uint32_t)oparg;
    if (put_word(t, uaddr2, nv))
        return -EFAULT;
    int32_t o = (int32_t)old;
    switch (cmp) {
    case 0: return o == cmparg;
    case 1: return o != cmparg;
    case 2: return o < cmparg;
    case 3: return o <= cmparg;
    case 4: return o > cmparg;
    case 5: return o >= cmparg;
    }
    return -ENOSYS;
}

static long wake_op(struct thread *t, l4_word_t uaddr1, bool private_, l4_word_t uaddr2,
                    int nr_wake, int nr_wake2, uint32_t op)
{
    struct futex_key k1, k2;
    int e = get_key(t, uaddr1, private_, false, &k1);
    if (e)
        return e;
    if ((e = get_key(t, uaddr2, private_, true, &k2)))
        return e;
    int r = atomic_op(t, op, uaddr2);
    if (r < 0)
        return r;
    long woken = wake_key(&k1, nr_wake, FUTEX_BITSET_MATCH_ANY);
    if (woken < 0 || !r)
        return woken;
    long w2 = wake_key(&k2, nr_wake2, FUTEX_BITSET_MATCH_ANY);
    return w2 < 0 ? w2 : woken + w2;
}

/* --- PI futexes ---------------------------------------------------------------------------- */

/* LOCK_PI, LOCK_PI2, TRYLOCK_PI (Linux's futex_lock_pi_atomic and attach_to_pi_owner):
 * 0 with the lock, EDEADLK for our own, ESRCH when the owner TID names no thread, else
 * queued (FUTEX_WAITERS set) and parked, or EAGAIN for a trylock. */
static long lock_pi(struct thread *t, l4_word_t uaddr, bool private_, bool trylock)
{
    struct park_futex *pf = park_futex(&t->park);
    if (park_retrying(t)) {
        if (pf->woken && pf->owner)
            return 0;
        if (pf->deadline && lx_now() >= pf->deadline)
            return -ETIMEDOUT;
        pf->woken = 0;
    }
    struct futex_key k;
    int e = get_key(t, uaddr, private_, true, &k);
    if (e)
        return e;
    uint32_t v;
    if (get_word(t, uaddr, &v))
        return -EFAULT;
    uint32_t me = (uint32_t)thread_tid(t);
    if ((v & FUTEX_TID_MASK) == me)
        return -EDEADLK;
    struct futex_q *top = top_waiter(&k);
    if (top && top->kind != FQ_PI)
        return -EINVAL;
    if (!top && !(v & FUTEX_TID_MASK)) {
        if (put_word(t, uaddr, (v & FUTEX_OWNER_DIED) | me))
            return -EFAULT;
        return 0;
    }
    if (!(v & FUTEX_WAITERS) && put_word(t, uaddr, v | FUTEX_WAITERS))
        return -EFAULT;
    if (!top) {
        struct pid *owner = pid_find((int)(v & FUTEX_TID_MASK));
        if (!owner || !owner->thread)
            return -ESRCH;
    }
    if (trylock)
        return -EAGAIN;
    if (pf->deadline && lx_now() >= pf->deadline)
        return -ETIMEDOUT;
    if (!alloc_qs(t, pf, 1))
        return -ENOMEM;
    struct futex_q *q = q_at(pf, 0);
    q->bitset = FUTEX_BITSET_MATCH_ANY;
    q->kind = FQ_PI;
    queue(q, &k);
    return park_futex_call(t, pf, lock_interrupted);
}

/* The lock goes to k's first PI waiter (FUTEX_WAITERS stays while the kernel knows of
 * waiters, as Linux's wake_futex_pi): true if there was one. */
static int pi_hand_on(struct thread *t, const struct futex_key *k, l4_word_t uaddr,
                      uint32_t keep)
{
    struct futex_q *top = top_waiter(k);
    if (!top || top->kind != FQ_PI)
        return 0;
    if (put_word(t, uaddr, keep | FUTEX_WAITERS | (uint32_t)thread_tid(top->t)))
        return -EFAULT;
    wake_q(top, true);
    return 1;
}

static long unlock_pi(struct thread *t, l4_word_t uaddr, bool private_)
{
    struct futex_key k;
    int e = get_key(t, uaddr, private_, true, &k);
    if (e)
        return e;
    uint32_t v;
    if (get_word(t, uaddr, &v))
        return -EFAULT;
    if ((v & FUTEX_TID_MASK) != (uint32_t)thread_tid(t))
        return -EPERM;
    int r = pi_hand_on(t, &k, uaddr, 0);
    if (r)
        return r < 0 ? r : 0;
    return put_word(t, uaddr, 0) ? -EFAULT : 0;
}

/* --- futex_waitv --------------------------------------------------------------------------- */

struct waitv {                      /* struct futex_waitv */
    uint64_t val, uaddr;
    uint32_t flags, reserved;
};
#define FUTEX2_SIZE_U32  0x02
#define FUTEX2_PRIVATE   FUTEX_PRIVATE_FLAG

long futex_waitv(struct thread *t, l4_word_t uwaiters, unsigned n, uint64_t deadline)
{
    struct park_futex *pf = park_futex(&t->park);
    long r;
    if (!park_retrying(t))
        pf->deadline = deadline;
    else if (rerun_ends(pf, &r))
        return r;
    if (!alloc_qs(t, pf, n))
        return -ENOMEM;
    /* Parse all (EFAULT, EINVAL), then key all, then compare and queue each in turn. */
    for (unsigned i = 0; i < n; i++) {
        struct waitv w;
        if (copy_from_user(t->mm, &w, uwaiters + i * sizeof w, sizeof w)) {
            futex_leave(t);
            return -EFAULT;
        }
        if ((w.flags & ~(FUTEX2_SIZE_U32 | FUTEX2_PRIVATE)) || w.reserved ||
            !(w.flags & FUTEX2_SIZE_U32)) {
            futex_leave(t);
            return -EINVAL;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        struct waitv w;
        copy_from_user(t->mm, &w, uwaiters + i * sizeof w, sizeof w);
        struct futex_q *q = q_at(pf, i);
        int e = get_key(t, w.uaddr, w.flags & FUTEX2_PRIVATE, false, &q->key);
        if (e) {
            futex_leave(t);
            return e;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        struct waitv w;
        copy_from_user(t->mm, &w, uwaiters + i * sizeof w, sizeof w);
        struct futex_q *q = q_at(pf, i);
        uint32_t cur;
        if (get_word(t, w.uaddr, &cur)) {
            futex_leave(t);
            return -EFAULT;
        }
        if (cur != (uint32_t)w.val) {
            futex_leave(t);
            return -EAGAIN;
        }
        q->bitset = FUTEX_BITSET_MATCH_ANY;
        q->kind = FQ_WAIT;
        struct futex_key k = q->key;
        queue(q, &k);
    }
    if (pf->deadline && lx_now() >= pf->deadline) {
        futex_leave(t);
        return -ETIMEDOUT;
    }
    return park_futex_call(t, pf, wait_interrupted);
}

/* --- futex(2) ------------------------------------------------------------------------------- */

long futex_call(struct thread *t, l4_word_t uaddr, int op, uint32_t val, uint64_t deadline,
                l4_word_t uaddr2, uint32_t val2, uint32_t val3)
{
    int cmd = op & FUTEX_CMD_MASK;
    bool private_ = op & FUTEX_PRIVATE_FLAG;
    if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET &&
        cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
        return -ENOSYS;
    if (!park_retrying(t))
        park_futex(&t->park)->deadline = deadline;
    switch (cmd) {
    case FUTEX_WAIT:
        val3 = FUTEX_BITSET_MATCH_ANY;
        /* fall through */
    case FUTEX_WAIT_BITSET:
        return do_wait(t, uaddr, val, val3, private_, FQ_WAIT,
                       park_futex(&t->park)->deadline ? wait_interrupted_timed
                                                      : wait_interrupted);
    case FUTEX_WAKE:
        val3 = FUTEX_BITSET_MATCH_ANY;
        /* fall through */
    case FUTEX_WAKE_BITSET: {
        if (!val3)
            return -EINVAL;
        struct futex_key k;
        int e = get_key(t, uaddr, private_, false, &k);
        return e ? e : wake_key(&k, (int)val, val3);
    }
    case FUTEX_REQUEUE:
        return requeue(t, uaddr, private_, uaddr2, (int)val, (int)val2, NULL, false);
    case FUTEX_CMP_REQUEUE:
        return requeue(t, uaddr, private_, uaddr2, (int)val, (int)val2, &val3, false);
    case FUTEX_CMP_REQUEUE_PI:
        return requeue(t, uaddr, private_, uaddr2, (int)val, (int)val2, &val3, true);
    case FUTEX_WAKE_OP:
        return wake_op(t, uaddr, private_, uaddr2, (int)val, (int)val2, val3);
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
        return lock_pi(t, uaddr, private_, false);
    case FUTEX_TRYLOCK_PI:
        return lock_pi(t, uaddr, private_, true);
    case FUTEX_UNLOCK_PI:
        return unlock_pi(t, uaddr, private_);
    case FUTEX_WAIT_REQUEUE_PI: {
        if (uaddr == uaddr2)
            return -EINVAL;
        /* Woken only owning the PI futex (a plain wake of such a waiter is EINVAL). */
        return do_wait(t, uaddr, val, FUTEX_BITSET_MATCH_ANY, private_, FQ_REQUEUE_PI,
                       requeue_pi_interrupted);
    }
    }
    return -ENOSYS;
}

/* --- thread exit ---------------------------------------------------------------------------- */

long futex_wake(struct thread *t, l4_word_t uaddr, int nr, bool private_)
{
    struct futex_key k;
    int e = get_key(t, uaddr, private_, false, &k);
    return e ? e : wake_key(&k, nr, FUTEX_BITSET_MATCH_ANY);
}

int futex_robust_died(struct thread *t, l4_word_t uaddr, bool pi, bool pending_op)
{
    uint32_t v;
    if (uaddr & 3)
        return -EINVAL;
    if (get_word(t, uaddr, &v))
        return -EFAULT;
    /* A pending op that never took the lock (the word still 0): a waiter may have been
     * woken for it and gone; wake another (Linux's handle_futex_death). */
    if (pending_op && !pi && !v) {
        futex_wake(t, uaddr, 1, false);
        return 0;
    }
    if ((v & FUTEX_TID_MASK) != (uint32_t)thread_tid(t))
        return 0;
    uint32_t nv = (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
    if (put_word(t, uaddr, nv))
        return -EFAULT;
    if (!pi && (v & FUTEX_WAITERS))
        futex_wake(t, uaddr, 1, false);
    if (pi) {
        /* Linux's exit_pi_state_list: the first waiter gets the lock, OWNER_DIED kept. */
        struct futex_key k;
        if (!get_key(t, uaddr, false, true, &k))
            pi_hand_on(t, &k, uaddr, FUTEX_OWNER_DIED);
    }
    return 0;
}

/* One entry of the robust list: its futex word is at entry + offset; bit 0 of a pointer
 * marks a PI futex. */
static bool robust_entry(struct thread *t, l4_word_t ptr, l4_word_t *entry, bool *pi)
{
    l4_word_t v;
    if (copy_from_user(t->mm, &v, ptr, sizeof v))
        return false;
    *entry = v & ~1ul;
    *pi = v & 1;
    return true;
}

void futex_exit_robust_list(struct thread *t)
{
    l4_word_t head = t->robust_list;
    if (!head)
        return;
    /* struct robust_list_head: list.next, futex_offset, list_op_pending. */
    l4_word_t entry, pending;
    bool pi, pending_pi;
    long offset;
    if (!robust_entry(t, head, &entry, &pi) ||
        copy_from_user(t->mm, &offset, head + 8, sizeof offset) ||
        !robust_entry(t, head + 16, &pending, &pending_pi))
        return;
    unsigned limit = ROBUST_LIST_LIMIT;
    while (entry != head) {
        l4_word_t next;
        bool next_pi;
        bool ok = robust_entry(t, entry, &next, &next_pi);
        /* The pending op is handled last, once. */
        if (entry != pending)
            futex_robust_died(t, entry + (l4_word_t)offset, pi, false);
        if (!ok)
            return;
        entry = next;
        pi = next_pi;
        if (!--limit)
            break;
    }
    if (pending)
        futex_robust_died(t, pending + (l4_word_t)offset, pending_pi, true);
}
