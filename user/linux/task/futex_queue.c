/* Futex keys and wait queues (docs/linux/futex.md): what futex.c (the calls) and futex_pi.c
 * (PI futexes, robust lists) share.
 *
 * A waiter is a struct futex_q on a chain of a hash table, found by its key: (struct mm *,
 * address) for a private futex and for any futex on private memory (a copy-on-write page is
 * the process's own), (lx's page, offset) for a futex on a MAP_SHARED mapping, of a file or
 * of shared anonymous memory, whose page is the same lx page in every process that maps it.
 * A queued waiter holds a reference to that page, so the key cannot name another page while
 * it waits.
 *
 * A waiter is parked (park/park.c); a wake takes its entries off their chains, records which
 * one was woken in the thread's scratch (park_futex) and makes the call run again, which
 * then answers it.  A call that leaves the park in any other way (a signal, its deadline, its
 * thread's end) drops its entries through park.leave. */
#include "task/futex_queue.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "task/pid.h"
#include "task/thread.h"
#include "time/clock.h"

#define FUTEX_HASH_BITS 8

static struct list chains[1u << FUTEX_HASH_BITS];
struct list futex_pi_waiters = LIST_INIT(futex_pi_waiters);

struct list *futex_chain(const struct futex_key *k)
{
    uint64_t h = ((uint64_t)(uintptr_t)k->base ^ (k->off << 3)) * 0x9E3779B97F4A7C15ull;
    struct list *c = &chains[h >> (64 - FUTEX_HASH_BITS)];
    if (!c->next)
        list_init(c);
    return c;
}

bool futex_key_eq(const struct futex_key *a, const struct futex_key *b)
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
int futex_get_key(struct thread *t, l4_word_t uaddr, bool private_, bool write,
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

int futex_get_word(struct thread *t, l4_word_t uaddr, uint32_t *v)
{
    return copy_from_user(t->mm, v, uaddr, sizeof *v);
}

int futex_put_word(struct thread *t, l4_word_t uaddr, uint32_t v)
{
    return copy_to_user(t->mm, uaddr, &v, sizeof v);
}

/* The key of the word at uaddr and its value now: 0 or -errno (get_key's, EFAULT). */
int futex_key_and_word(struct thread *t, l4_word_t uaddr, bool private_, bool write,
                        struct futex_key *k, uint32_t *v)
{
    int e = futex_get_key(t, uaddr, private_, write, k);
    if (e)
        return e;
    return futex_get_word(t, uaddr, v) ? -EFAULT : 0;
}

int futex_tid(const struct thread *t)
{
    return t->tid->nr;
}

/* --- queue entries ------------------------------------------------------------------------ */

struct futex_q *futex_q_at(struct park_futex *pf, unsigned i)
{
    return &pf->qs[i / PARK_FUTEX_CHUNK][i % PARK_FUTEX_CHUNK];
}

void futex_unqueue(struct futex_q *q)
{
    if (list_linked(&q->link)) {
        list_del(&q->link);
        list_del(&q->pi_link);
        key_put(&q->key);
    }
}

void futex_enqueue(struct futex_q *q, const struct futex_key *k)
{
    q->key = *k;
    key_get(k);
    list_add_tail(futex_chain(k), &q->link);
    if (q->kind == FQ_PI)
        list_add_tail(&futex_pi_waiters, &q->pi_link);
}

/* park.leave: the call leaves the park; its entries go. */
void futex_leave(struct thread *t)
{
    struct park_futex *pf = &t->park.u.futex;
    for (unsigned i = 0; i < pf->nq; i++)
        futex_unqueue(futex_q_at(pf, i));
    kfree(pf->qs[0]);
    kfree(pf->qs[1]);
    pf->qs[0] = pf->qs[1] = NULL;
    pf->nq = 0;
}

/* n entries for t's call (every one unlinked), or NULL: no memory. */
bool futex_alloc_qs(struct thread *t, struct park_futex *pf, unsigned n)
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
        struct futex_q *q = futex_q_at(pf, i);
        list_init(&q->link);
        list_init(&q->pi_link);
        q->t = t;
        q->index = (uint8_t)i;
    }
    return true;
}

/* A wake takes q: its thread's call runs again and returns the index woken (0 for futex). */
void futex_wake_q(struct futex_q *q, bool owner)
{
    struct thread *t = q->t;
    struct park_futex *pf = &t->park.u.futex;
    futex_unqueue(q);
    if (!pf->woken)
        pf->woken = 1 + q->index;
    pf->owner = owner;
    park_wake(t);
}

/* The first waiter queued on k, or NULL. */
struct futex_q *futex_top_waiter(const struct futex_key *k)
{
    struct list *c = futex_chain(k);
    for (struct list *n = c->next; n != c; n = n->next) {
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (futex_key_eq(&q->key, k))
            return q;
    }
    return NULL;
}

/* Wake up to nr (at least one, as Linux) of k's waiters whose bitset meets bitset; EINVAL
 * if a PI waiter is among them. */
long futex_wake_key(const struct futex_key *k, int nr, uint32_t bitset)
{
    struct list *c = futex_chain(k);
    long woken = 0;
    for (struct list *n = c->next, *next; n != c; n = next) {
        next = n->next;
        struct futex_q *q = list_entry(n, struct futex_q, link);
        if (!futex_key_eq(&q->key, k))
            continue;
        if (q->kind != FQ_WAIT)
            return -EINVAL;
        if (!(q->bitset & bitset))
            continue;
        futex_wake_q(q, false);
        if (++woken >= nr)
            break;
    }
    return woken;
}


long futex_park(struct thread *t, struct park_futex *pf, park_intr_fn intr)
{
    long r = park_call_fn(t, pf->deadline, intr);
    t->park.leave = futex_leave;
    return r;
}

/* A parked futex call runs again: true with *r what it ends with (the index woken, or
 * -ETIMEDOUT), false when it must set up again (a spurious run: Linux's retry). */
bool futex_rerun_ends(struct park_futex *pf, long *r)
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

/* Queue t's call on k (one entry) and park it, unless its deadline has passed. */
long futex_wait_on(struct thread *t, struct park_futex *pf, const struct futex_key *k,
                    uint32_t bitset, enum futex_q_kind kind, park_intr_fn intr)
{
    if (pf->deadline && lx_now() >= pf->deadline)
        return -ETIMEDOUT;
    if (!futex_alloc_qs(t, pf, 1))
        return -ENOMEM;
    struct futex_q *q = futex_q_at(pf, 0);
    q->bitset = bitset;
    q->kind = (uint8_t)kind;
    futex_enqueue(q, k);
    return futex_park(t, pf, intr);
}

/* Move q from its key to k (a requeue). */
void futex_requeue_q(struct futex_q *q, const struct futex_key *k)
{
    futex_unqueue(q);
    futex_enqueue(q, k);
}
