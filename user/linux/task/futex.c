/* Futexes (docs/linux/futex.md): Linux 6.1's futex(2) and futex_waitv(2) on lx's parked
 * calls: waiting, waking, requeueing, WAKE_OP; the keys and queues are futex_queue.c's, the
 * PI calls and robust lists futex_pi.c's.
 *
 * Atomicity: lx serves one message at a time and every thread of every process runs below
 * lx's priority, so no process runs while a handler reads a word, compares it and queues the
 * caller (or reads, modifies and writes it: WAKE_OP, the PI calls): each handler is one
 * atomic step with respect to every process, as the hash-bucket lock makes it in Linux
 * (Pecan runs on one CPU: docs/architecture.md). */
#include "task/futex_queue.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/thread.h"
#include "time/clock.h"

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

/* WAIT, WAIT_BITSET, WAIT_REQUEUE_PI's first half: queue on uaddr if it holds val. */
static long do_wait(struct thread *t, l4_word_t uaddr, uint32_t val, uint32_t bitset,
                    bool private_, enum futex_q_kind kind, park_intr_fn intr)
{
    struct park_futex *pf = park_futex(&t->park);
    long r;
    if (park_retrying(t) && futex_rerun_ends(pf, &r))
        return r;
    if (!bitset)
        return -EINVAL;
    struct futex_key k;
    uint32_t cur;
    int e = futex_key_and_word(t, uaddr, private_, false, &k, &cur);
    if (e)
        return e;
    if (cur != val)
        return -EAGAIN;
    pf->uaddr = uaddr, pf->val = val, pf->bitset = bitset, pf->private_ = private_;
    return futex_wait_on(t, pf, &k, bitset, kind, intr);
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

static long requeue(struct thread *t, l4_word_t uaddr1, bool private_, l4_word_t uaddr2,
                    int nr_wake, int nr_requeue, const uint32_t *cmpval, bool requeue_pi)
{
    if (nr_wake < 0 || nr_requeue < 0)
        return -EINVAL;
    if (requeue_pi && (uaddr1 == uaddr2 || nr_wake != 1))
        return -EINVAL;
    struct futex_key k1, k2;
    int e = futex_get_key(t, uaddr1, private_, false, &k1);
    if (e)
        return e;
    if ((e = futex_get_key(t, uaddr2, private_, requeue_pi, &k2)))
        return e;
    if (requeue_pi && futex_key_eq(&k1, &k2))
        return -EINVAL;
    if (cmpval) {
        uint32_t cur;
        if (futex_get_word(t, uaddr1, &cur))
            return -EFAULT;
        if (cur != *cmpval)
            return -EAGAIN;
    }
    struct list *c = futex_chain(&k1);
    long count = 0;
    bool took_pi = false;
    for (struct list *n = c->next, *next; n != c; n = next) {
        next = n->next;
        if (count - nr_wake >= nr_requeue)
            break;
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (!futex_key_eq(&q->key, &k1))
            continue;
        if ((q->kind == FQ_REQUEUE_PI) != requeue_pi || q->kind == FQ_PI)
            return -EINVAL;         /* Linux: even after some moved */
        if (!requeue_pi) {
            if (++count <= nr_wake)
                futex_wake_q(q, false);
            else
                futex_requeue_q(q, &k2);
            continue;
        }
        /* Requeue PI: the first one takes uaddr2 if it is free (and is woken owning it);
         * the others wait on uaddr2 as LOCK_PI waiters, FUTEX_WAITERS set. */
        if (!took_pi && !count) {
            took_pi = true;
            int r = futex_pi_take_for(q->t, uaddr2, t);
            if (r < 0)
                return r;
            if (r) {
                futex_wake_q(q, true);
                count++;
                continue;
            }
        }
        uint32_t v;
        if (futex_get_word(t, uaddr2, &v) || futex_put_word(t, uaddr2, v | FUTEX_WAITERS))
            return count ? count : -EFAULT;
        q->kind = FQ_PI;
        q->pi_owner = (int)(v & FUTEX_TID_MASK);
        q->t->park.u.futex.requeued = true;
        futex_requeue_q(q, &k2);
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
    if (futex_get_word(t, uaddr2, &old))
        return -EFAULT;
    uint32_t nv = op == 0 ? (uint32_t)oparg : op == 1 ? old + (uint32_t)oparg
                : op == 2 ? old | (uint32_t)oparg : op == 3 ? old & ~(uint32_t)oparg
                : old ^ (uint32_t)oparg;
    if (futex_put_word(t, uaddr2, nv))
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
    int e = futex_get_key(t, uaddr1, private_, false, &k1);
    if (e)
        return e;
    if ((e = futex_get_key(t, uaddr2, private_, true, &k2)))
        return e;
    int r = atomic_op(t, op, uaddr2);
    if (r < 0)
        return r;
    long woken = futex_wake_key(&k1, nr_wake, FUTEX_BITSET_MATCH_ANY);
    if (woken < 0 || !r)
        return woken;
    long w2 = futex_wake_key(&k2, nr_wake2, FUTEX_BITSET_MATCH_ANY);
    return w2 < 0 ? w2 : woken + w2;
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
    else if (futex_rerun_ends(pf, &r))
        return r;
    if (!futex_alloc_qs(t, pf, n))
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
        struct futex_q *q = futex_q_at(pf, i);
        int e = futex_get_key(t, w.uaddr, w.flags & FUTEX2_PRIVATE, false, &q->key);
        if (e) {
            futex_leave(t);
            return e;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        struct waitv w;
        copy_from_user(t->mm, &w, uwaiters + i * sizeof w, sizeof w);
        struct futex_q *q = futex_q_at(pf, i);
        uint32_t cur;
        if (futex_get_word(t, w.uaddr, &cur)) {
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
        futex_enqueue(q, &k);
    }
    if (pf->deadline && lx_now() >= pf->deadline) {
        futex_leave(t);
        return -ETIMEDOUT;
    }
    return futex_park(t, pf, wait_interrupted);
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
        int e = futex_get_key(t, uaddr, private_, false, &k);
        return e ? e : futex_wake_key(&k, (int)val, val3);
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
        return futex_lock_pi(t, uaddr, private_, false);
    case FUTEX_TRYLOCK_PI:
        return futex_lock_pi(t, uaddr, private_, true);
    case FUTEX_UNLOCK_PI:
        return futex_unlock_pi(t, uaddr, private_);
    case FUTEX_WAIT_REQUEUE_PI: {
        if (uaddr == uaddr2)
            return -EINVAL;
        /* The PI futex first (written later: EINVAL, EFAULT), as Linux. */
        struct futex_key k2;
        int e = park_retrying(t) ? 0 : futex_get_key(t, uaddr2, private_, true, &k2);
        if (e)
            return e;
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
    int e = futex_get_key(t, uaddr, private_, false, &k);
    return e ? e : futex_wake_key(&k, nr, FUTEX_BITSET_MATCH_ANY);
}
