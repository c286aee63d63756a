/* PI futexes and robust lists (docs/linux/futex.md): LOCK_PI, LOCK_PI2, TRYLOCK_PI, UNLOCK_PI,
 * the PI half of requeue PI, and what a thread's death does to the futexes it holds.
 *
 * Priority inheritance has no effect: lx does not schedule, and the kernel's priorities stay
 * as they are; the PI calls keep the word's protocol (owner TID, FUTEX_WAITERS,
 * FUTEX_OWNER_DIED) and Linux's errors, and hand the lock on in FIFO order. */
#include "task/futex_queue.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/pid.h"
#include "task/thread.h"
#include "time/clock.h"

/* LOCK_PI is never cut short by a handler: it restarts (Linux's -ERESTARTNOINTR). */
static long lock_interrupted(struct thread *t)
{
    const struct park_futex *pf = &t->park.u.futex;
    if (pf->woken)
        return 0;
    return -ERESTARTNOINTR;
}

/* The PI futex at uaddr2 with no owner is taken for owner (a requeue PI's top waiter): 1 and
 * the word set, 0 if it has an owner, -EFAULT. */
int futex_pi_take_for(struct thread *owner, l4_word_t uaddr2, struct thread *t)
{
    uint32_t v;
    if (futex_get_word(t, uaddr2, &v))
        return -EFAULT;
    if (v & FUTEX_TID_MASK)
        return 0;
    uint32_t nv = (v & FUTEX_OWNER_DIED) | (uint32_t)futex_tid(owner) | FUTEX_WAITERS;
    if (futex_put_word(t, uaddr2, nv))
        return -EFAULT;
    return 1;
}

/* --- PI futexes ---------------------------------------------------------------------------- */

/* LOCK_PI, LOCK_PI2, TRYLOCK_PI (Linux's futex_lock_pi_atomic and attach_to_pi_owner):
 * 0 with the lock, EDEADLK for our own, ESRCH when the owner TID names no thread, else
 * queued (FUTEX_WAITERS set) and parked, or EAGAIN for a trylock. */
long futex_lock_pi(struct thread *t, l4_word_t uaddr, bool private_, bool trylock)
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
    uint32_t v;
    int e = futex_key_and_word(t, uaddr, private_, true, &k, &v);
    if (e)
        return e;
    uint32_t me = (uint32_t)futex_tid(t);
    if ((v & FUTEX_TID_MASK) == me)
        return -EDEADLK;
    struct futex_q *top = futex_top_waiter(&k);
    if (top && top->kind != FQ_PI)
        return -EINVAL;
    if (!top && !(v & FUTEX_TID_MASK)) {
        if (futex_put_word(t, uaddr, (v & FUTEX_OWNER_DIED) | me))
            return -EFAULT;
        return 0;
    }
    if (!(v & FUTEX_WAITERS) && futex_put_word(t, uaddr, v | FUTEX_WAITERS))
        return -EFAULT;
    if (!top) {
        struct pid *owner = pid_find((int)(v & FUTEX_TID_MASK));
        if (!owner || !owner->thread)
            return -ESRCH;
    }
    if (trylock)
        return -EAGAIN;
    long r = futex_wait_on(t, pf, &k, FUTEX_BITSET_MATCH_ANY, FQ_PI, lock_interrupted);
    if (r == LX_PARK)
        futex_q_at(pf, 0)->pi_owner = (int)(v & FUTEX_TID_MASK);
    return r;
}

/* top (k's first waiter) now holds the lock: woken owning it; the others wait for it. */
static void pi_owner_is(const struct futex_key *k, struct futex_q *top)
{
    int tid = futex_tid(top->t);
    struct list *c = futex_chain(k);
    for (struct list *n = c->next; n != c; n = n->next) {
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (futex_key_eq(&q->key, k))
            q->pi_owner = tid;
    }
    futex_wake_q(top, true);
}

/* The lock goes to k's first PI waiter (FUTEX_WAITERS stays while the kernel knows of
 * waiters, as Linux's wake_futex_pi): true if there was one. */
static int pi_hand_on(struct thread *t, const struct futex_key *k, l4_word_t uaddr,
                      uint32_t keep)
{
    struct futex_q *top = futex_top_waiter(k);
    if (!top || top->kind != FQ_PI)
        return 0;
    if (futex_put_word(t, uaddr, keep | FUTEX_WAITERS | (uint32_t)futex_tid(top->t)))
        return -EFAULT;
    pi_owner_is(k, top);
    return 1;
}

/* The word a key names, read or written through the key itself (lx's page, or the mm):
 * for a thread's death, where no caller's address is at hand. */
static uint32_t *key_word(const struct futex_key *k, uint32_t *buf, bool write)
{
    if (k->kind == KEY_PAGE)
        return (uint32_t *)((char *)k->base + k->off);
    struct mm *mm = (struct mm *)k->base;
    if (write)
        return copy_to_user(mm, k->off, buf, sizeof *buf) ? NULL : buf;
    return copy_from_user(mm, buf, k->off, sizeof *buf) ? NULL : buf;
}

/* Linux's exit_pi_state_list: every PI lock the dying thread t holds with waiters queued
 * goes to the first of them, with FUTEX_OWNER_DIED (also when a robust-list entry without
 * the PI bit, or none, named it). */
static void pi_owner_died(struct thread *t)
{
    int tid = futex_tid(t);
    for (;;) {
        struct futex_q *q, *found = NULL;
        list_each(q, &futex_pi_waiters, pi_link)
            if (q->pi_owner == tid) {
                found = q;
                break;
            }
        if (!found)
            return;
        struct futex_key k = found->key;
        struct futex_q *top = futex_top_waiter(&k);
        uint32_t w = 0, *p = key_word(&k, &w, false);
        uint32_t nv = FUTEX_OWNER_DIED | FUTEX_WAITERS | (uint32_t)futex_tid(top->t);
        if (p == &w)
            key_word(&k, &nv, true);
        else if (p)
            *p = nv;
        pi_owner_is(&k, top);
    }
}

long futex_unlock_pi(struct thread *t, l4_word_t uaddr, bool private_)
{
    struct futex_key k;
    uint32_t v;
    int e = futex_key_and_word(t, uaddr, private_, true, &k, &v);
    if (e)
        return e;
    if ((v & FUTEX_TID_MASK) != (uint32_t)futex_tid(t))
        return -EPERM;
    int r = pi_hand_on(t, &k, uaddr, 0);
    if (r)
        return r < 0 ? r : 0;
    return futex_put_word(t, uaddr, 0) ? -EFAULT : 0;
}

int futex_robust_died(struct thread *t, l4_word_t uaddr, bool pi, bool pending_op)
{
    uint32_t v;
    if (uaddr & 3)
        return -EINVAL;
    if (futex_get_word(t, uaddr, &v))
        return -EFAULT;
    /* A pending op that never took the lock (the word still 0): a waiter may have been
     * woken for it and gone; wake another (Linux's handle_futex_death). */
    if (pending_op && !pi && !v) {
        futex_wake(t, uaddr, 1, false);
        return 0;
    }
    if ((v & FUTEX_TID_MASK) != (uint32_t)futex_tid(t))
        return 0;
    uint32_t nv = (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
    if (futex_put_word(t, uaddr, nv))
        return -EFAULT;
    if (!pi && (v & FUTEX_WAITERS))
        futex_wake(t, uaddr, 1, false);
    if (pi) {
        /* Linux's exit_pi_state_list: the first waiter gets the lock, OWNER_DIED kept. */
        struct futex_key k;
        if (!futex_get_key(t, uaddr, false, true, &k))
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

/* Linux's exit_robust_list. */
static void robust_walk(struct thread *t)
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

void futex_exit_robust_list(struct thread *t)
{
    robust_walk(t);
    pi_owner_died(t);
}
