/* Parked system calls: how lx waits without blocking (docs/linux-server.md, "Parked calls").
 *
 * A handler that cannot finish now (an empty pipe, wait4 without a zombie, a sleep) puts the
 * caller on the wait queues of what it waits for and returns park_call(t, deadline).  lx
 * keeps the call's arguments and does not answer; the process stays blocked in its
 * `syscall`.  When a queue is woken or the deadline passes, lx runs the same handler again
 * with the same arguments (park_retrying() tells it so): it finishes, or parks again.  This
 * is the wait loop of a kernel's sleeping call turned inside out, and it means one mechanism
 * for every kind of wait: a signal ends a parked call by park_cancel() (EINTR or a restart,
 * the signal layer decides).
 *
 * A wait queue is a set of process slots.  A stale member (a process that was woken by
 * something else, or ended) costs one spurious retry at most, which parks it again: so
 * queues are never cleaned up, and an object that goes away just drops its queue. */
#include "park/park.h"
#include "park/waitq.h"
#include "signal/signal.h"
#include "syscalls/table.h"
#include "task/process.h"
#include "time/clock.h"
#include <stdio.h>

_Static_assert(LX_MAX_TASKS <= 64, "a wait queue is one word of slots");

uint64_t park_ready;                /* slots whose parked call runs again */
unsigned park_ntimed;               /* parked calls with a deadline */
#define ready  park_ready
#define ntimed park_ntimed

static unsigned slot_of(const struct task *t)
{
    return (unsigned)(t - task_slot(0));
}

void waitq_add(struct waitq *q, struct task *t)
{
    q->tasks |= 1ull << slot_of(t);
}

void waitq_wake(struct waitq *q)
{
    ready |= q->tasks;
    q->tasks = 0;
}

void park_wake(struct task *t)
{
    if (t->park == PARK_CALL)
        ready |= 1ull << slot_of(t);
}

bool park_retrying(const struct task *t)
{
    return t->retrying;
}

long park_call(struct task *t, uint64_t deadline)
{
    t->park_deadline = deadline;
    ntimed += deadline != 0;
    return LX_PARK;
}

/* The call leaves the parked state (it runs again, is cancelled, or the process ends). */
static void unpark(struct task *t)
{
    ntimed -= t->park_deadline != 0;
    t->park_deadline = 0;
    t->park = PARK_NONE;
}

bool park_cancel(struct task *t)
{
    if (t->park != PARK_CALL)
        return false;
    unpark(t);
    return true;
}

void park_parked(struct task *t, const struct sysargs *a)
{
    t->call = *a;
    t->park = PARK_CALL;
}

bool park_pending(void)
{
    if (ready)
        return true;
    if (!ntimed)
        return false;
    uint64_t now = lx_now();
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->park == PARK_CALL && t->park_deadline && t->park_deadline <= now)
            return true;
    }
    return false;
}

uint16_t park_timeout(void)
{
    if (ready)
        return L4_ZERO_TIME;
    uint64_t next = signal_timer_next();    /* alarm and setitimer (signal/signal.c) */
    if (!ntimed && next == ~0ull)
        return L4_NEVER;
    for (unsigned i = 0; ntimed && i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->park == PARK_CALL && t->park_deadline && t->park_deadline < next)
            next = t->park_deadline;
    }
    uint64_t now = lx_now();
    if (next <= now)
        return L4_ZERO_TIME;
    /* Round up to whole microseconds: waking early only costs another round. */
    uint64_t us = (next - now + 999) / 1000;
    return us > L4_MAX_PERIOD_US ? L4_NEVER : l4_period_from_us(us);
}

/* Run one parked call again and answer it if it finished.  Clobbers the MRs. */
static void retry(struct task *t)
{
    struct sysargs a = t->call;
    unpark(t);
    t->retrying = true;
    long r = syscall_dispatch(t, &a);
    t->retrying = false;
    if (r == LX_PARK)
        park_parked(t, &a);
    else if (r == LX_REPLIED)
        l4_reply(t->tid);
    else if (r != LX_NOREPLY)
        task_reply(t, r);
}

void park_run(void)
{
    if (ntimed) {
        uint64_t now = lx_now();
        for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
            struct task *t = task_slot(i);
            if (t->park == PARK_CALL && t->park_deadline && t->park_deadline <= now)
                ready |= 1ull << i;
        }
    }
    /* Retries may wake others (a reader empties a pipe for a writer): until none is left. */
    while (ready) {
        unsigned i = (unsigned)__builtin_ctzll(ready);
        ready &= ready - 1;
        struct task *t = task_slot(i);
        if (t->state == TASK_RUNNING && t->park == PARK_CALL)
            retry(t);
    }
}

void park_task_exit(struct task *t)
{
    if (t->park == PARK_CALL)
        unpark(t);
    ready &= ~(1ull << slot_of(t));
}
