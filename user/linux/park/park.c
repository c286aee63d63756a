/* Parked system calls: how lx waits without blocking (docs/linux-server.md, "Parked calls").
 *
 * A handler that cannot finish now (an empty pipe, wait4 without a zombie, a sleep) puts the
 * caller on the wait queues of what it waits for and returns park_call(t, deadline).  lx
 * keeps the call's arguments and does not answer; the thread stays blocked in its
 * `syscall`.  When a queue is woken or the deadline passes, lx runs the same handler again
 * with the same arguments (park_retrying() tells it so): it finishes, or parks again.  This
 * is the wait loop of a kernel's sleeping call turned inside out, and it means one mechanism
 * for every kind of wait.  A signal ends a parked call by park_cancel(); what it ends with is
 * the call's own business, named when it parked (park_call's intr, or park_call_fn's
 * function: a partial count, the time left), which the signal layer turns into EINTR, a
 * restart or the value itself.
 *
 * A wait queue is a list of waiter entries; a wake moves the waiters' threads onto the ready
 * list (once each) and empties the queue; a call that leaves the park (it runs again, is
 * cancelled, or its thread ends) drops the entries it has on other queues.  The deadline is a
 * timer (timer.c) whose firing is a wake.  Nothing here looks at threads that are not woken. */
#include "park/park.h"
#include "lib/kmalloc.h"
#include "lib/server.h"
#include "park/waitq.h"
#include "syscalls/table.h"
#include "task/thread.h"
#include "time/clock.h"
#include <stdio.h>

#define LOST_WAIT_NS 1000000ull     /* a wait that could not be recorded: look again then */

static struct list ready = LIST_INIT(ready);

static void deadline_fired(struct timer *tm)
{
    park_wake(container_of(tm, struct thread, park.deadline));
}

void park_init(struct thread *t)
{
    struct park *p = &t->park;
    list_init(&p->ready_link);
    list_init(&p->waits);
    timer_init(&p->deadline, deadline_fired);
}

/* --- wait queues ------------------------------------------------------------------------ */

static struct waiter *waiter_new(struct thread *t)
{
    for (unsigned i = 0; i < PARK_INLINE_WAITERS; i++) {
        struct waiter *w = &t->park.inline_waiters[i];
        if (!w->t) {
            w->inline_slot = true;
            return w;
        }
    }
    return kmalloc(sizeof(struct waiter));
}

static void waiter_free(struct waiter *w)
{
    list_del(&w->qlink);
    list_del(&w->tlink);
    if (w->inline_slot)
        w->t = NULL;
    else
        kfree(w);
}

void waitq_add(struct waitq *q, struct thread *t)
{
    if (!q->waiters.next)
        list_init(&q->waiters);
    struct waiter *w = waiter_new(t);
    if (!w) {
        t->park.wait_lost = true;   /* park_call gives the call a short deadline instead */
        return;
    }
    w->q = q;
    w->t = t;
    w->wake = NULL;
    list_add_tail(&q->waiters, &w->qlink);
    list_add_tail(&t->park.waits, &w->tlink);
}

void waitq_wake(struct waitq *q)
{
    if (!q->waiters.next)
        return;
    while (!list_empty(&q->waiters)) {
        struct waiter *w = list_entry(q->waiters.next, struct waiter, qlink);
        if (w->wake) {
            waitq_del_entry(w);
            w->wake(w);
            continue;
        }
        struct thread *t = w->t;
        waiter_free(w);
        park_wake(t);
    }
}

void waitq_add_entry(struct waitq *q, struct waiter *w)
{
    if (!q->waiters.next)
        list_init(&q->waiters);
    w->q = q;
    list_add_tail(&q->waiters, &w->qlink);
}

void waitq_del_entry(struct waiter *w)
{
    if (w->q) {
        list_del(&w->qlink);
        w->q = NULL;
    }
}

void waitq_drop_all(struct thread *t)
{
    while (!list_empty(&t->park.waits))
        waiter_free(list_entry(t->park.waits.next, struct waiter, tlink));
}

/* --- parking ---------------------------------------------------------------------------- */

void park_wake(struct thread *t)
{
    if (t->park.kind == PARK_CALL && !list_linked(&t->park.ready_link)) {
        list_add_tail(&ready, &t->park.ready_link);
        lx_work = true;
    }
}

bool park_retrying(const struct thread *t)
{
    return t->park.retrying;
}

long park_call(struct thread *t, uint64_t deadline, long intr)
{
    t->park.intr = intr;
    t->park.intr_fn = NULL;
    if (t->park.wait_lost) {
        t->park.wait_lost = false;
        uint64_t soon = lx_now() + LOST_WAIT_NS;
        if (!deadline || deadline > soon)
            deadline = soon;
    }
    if (deadline)
        timer_arm(&t->park.deadline, deadline);
    return LX_PARK;
}

/* The call leaves the parked state (it runs again, is cancelled, or the thread ends). */
static void unpark(struct thread *t)
{
    void (*leave)(struct thread *) = t->park.leave;
    t->park.leave = NULL;
    if (leave)
        leave(t);
    timer_cancel(&t->park.deadline);
    waitq_drop_all(t);
    list_del(&t->park.ready_link);
    t->park.kind = PARK_NONE;
    t->park.takes = 0;
}

long park_call_fn(struct thread *t, uint64_t deadline, park_intr_fn fn)
{
    park_call(t, deadline, 0);
    t->park.intr_fn = fn;
    return LX_PARK;
}

long park_interrupted(struct thread *t)
{
    return t->park.intr_fn ? t->park.intr_fn(t) : t->park.intr;
}

bool park_cancel(struct thread *t)
{
    if (t->park.kind != PARK_CALL)
        return false;
    unpark(t);
    return true;
}

void park_parked(struct thread *t, const struct sysargs *a)
{
    if (a != &t->park.call)
        t->park.call = *a;
    t->park.kind = PARK_CALL;
}

void park_restart(struct thread *t, const struct sysargs *a)
{
    park_parked(t, a);
    t->park.fresh = true;           /* a new call: its first run sets up its scratch */
    park_wake(t);
}

bool park_busy(void)
{
    return !list_empty(&ready);
}

/* Run one parked call again and answer it if it finished.  Clobbers the MRs. */
static void retry(struct thread *t)
{
    struct sysargs a = t->park.call;
    unpark(t);
    t->park.retrying = !t->park.fresh;
    t->park.fresh = false;
    long r = syscall_dispatch(t, &a);
    t->park.retrying = false;
    if (r == LX_PARK)
        park_parked(t, &a);
    else if (r == LX_REPLIED)
        l4_reply(t->l4);
    else if (r != LX_NOREPLY)
        thread_reply(t, r);
}

void park_run(void)
{
    /* Retries may wake others (a reader empties a pipe for a writer): until none is left. */
    while (!list_empty(&ready)) {
        struct thread *t = list_entry(ready.next, struct thread, park.ready_link);
        list_del(&t->park.ready_link);
        if (t->park.kind == PARK_CALL)
            retry(t);
    }
}

void park_thread_exit(struct thread *t)
{
    unpark(t);
}
