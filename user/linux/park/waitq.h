/* Wait queues (waitq.c): what a parked call waits on.  A queue is a list of waiters, one
 * entry per thread and queue (a poll of several files has one on each); a wake makes their
 * calls run again (after the current message) and empties the queue, and a call that runs
 * again, is interrupted or ends drops the entries it still has.  A zeroed struct waitq is an
 * empty queue; an object that holds one wakes it before it is freed. */
#ifndef LX_PARK_WAITQ_H
#define LX_PARK_WAITQ_H

#include "lib/list.h"

struct thread;

struct waitq {
    struct list waiters;            /* struct waiter, by qlink (next NULL: never used) */
};

struct waiter {
    struct list qlink;              /* in the queue */
    struct list tlink;              /* in the thread's park.waits */
    struct waitq *q;
    struct thread *t;
    bool inline_slot;               /* one of the thread's own (park.c), not kmalloc'd */
    /* Not a thread's: a wake takes the entry off the queue and calls this instead (an AIO
     * POLL request's, fs/aio; its owner adds and removes it with waitq_add_entry and
     * waitq_del_entry). */
    void (*wake)(struct waiter *w);
};

void waitq_add(struct waitq *q, struct thread *t);
void waitq_wake(struct waitq *q);   /* its threads' calls run again; the queue is empty */
void waitq_drop_all(struct thread *t);  /* every entry t has (its call leaves the park) */
void waitq_add_entry(struct waitq *q, struct waiter *w);   /* an entry with a wake function */
void waitq_del_entry(struct waiter *w);                    /* ... off its queue, if on one */

#endif
