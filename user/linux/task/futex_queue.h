/* Futex keys and wait queues (futex_queue.c): what the futex calls (futex.c) and the PI
 * futexes and robust lists (futex_pi.c) share.  Not an interface of the task layer: that is
 * task/futex.h. */
#ifndef LX_TASK_FUTEX_QUEUE_H
#define LX_TASK_FUTEX_QUEUE_H

#include "lib/list.h"
#include "park/park.h"
#include "task/futex.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct thread;

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
    int pi_owner;                   /* FQ_PI: the TID of the thread holding the lock */
    struct list pi_link;            /* FQ_PI: in futex_pi_waiters */
};

/* Every queued PI waiter (few): a thread's death hands on the locks it held. */
extern struct list futex_pi_waiters;

/* Keys and words.  futex_get_key: Linux's get_futex_key (EINVAL misaligned, EFAULT); write:
 * the call writes the word.  The words move through the checked user copy (0 or -EFAULT). */
int futex_get_key(struct thread *t, l4_word_t uaddr, bool private_, bool write,
                  struct futex_key *k);
int futex_get_word(struct thread *t, l4_word_t uaddr, uint32_t *v);
int futex_put_word(struct thread *t, l4_word_t uaddr, uint32_t v);
int futex_key_and_word(struct thread *t, l4_word_t uaddr, bool private_, bool write,
                       struct futex_key *k, uint32_t *v);
bool futex_key_eq(const struct futex_key *a, const struct futex_key *b);
int futex_tid(const struct thread *t);

/* The chains and the entries of a parked call (its park_futex scratch). */
struct list *futex_chain(const struct futex_key *k);
struct futex_q *futex_q_at(struct park_futex *pf, unsigned i);
bool futex_alloc_qs(struct thread *t, struct park_futex *pf, unsigned n);  /* all unlinked */
void futex_enqueue(struct futex_q *q, const struct futex_key *k);
void futex_unqueue(struct futex_q *q);
void futex_requeue_q(struct futex_q *q, const struct futex_key *k);
void futex_leave(struct thread *t);         /* park.leave: every entry goes */
struct futex_q *futex_top_waiter(const struct futex_key *k);
/* A wake takes q: its call runs again and ends with q's index (owner: holding a PI lock). */
void futex_wake_q(struct futex_q *q, bool owner);
/* Up to nr (at least one) of k's waiters whose bitsets meet bitset; EINVAL at a PI one. */
long futex_wake_key(const struct futex_key *k, int nr, uint32_t bitset);

/* Parking.  futex_park: LX_PARK with the entries dropped when the call leaves the park;
 * futex_rerun_ends: a rerun ends (woken: the index; deadline passed: -ETIMEDOUT) or must set
 * up again; futex_wait_on: queue one entry on k and park, unless the deadline has passed. */
long futex_park(struct thread *t, struct park_futex *pf, park_intr_fn intr);
bool futex_rerun_ends(struct park_futex *pf, long *r);
long futex_wait_on(struct thread *t, struct park_futex *pf, const struct futex_key *k,
                   uint32_t bitset, enum futex_q_kind kind, park_intr_fn intr);

/* futex_pi.c: LOCK_PI/LOCK_PI2/TRYLOCK_PI, UNLOCK_PI; requeue PI's take of a free PI futex
 * for owner (1 taken, 0 it has an owner, -EFAULT). */
long futex_lock_pi(struct thread *t, l4_word_t uaddr, bool private_, bool trylock);
long futex_unlock_pi(struct thread *t, l4_word_t uaddr, bool private_);
int futex_pi_take_for(struct thread *owner, l4_word_t uaddr2, struct thread *t);

#endif
