/* Kernel invariants, checked at every kernel entry and exit in the debug build
 * (CONFIG_INVARIANTS, build/kernel-debug.bin, which the tests boot).  A violation is a kernel
 * bug: it panics into the debugger with what was wrong. */
#include "invariants.h"

#ifdef CONFIG_INVARIANTS
#include "tcb.h"
#include "sched.h"
#include "thread.h"
#include "space.h"
#include "console.h"

#define REQUIRE(cond, ...) do { if (!(cond)) panic("invariant: " __VA_ARGS__); } while (0)

extern struct tcb *ready_queue_head(unsigned prio);
extern bool ready_bitmap_bit(unsigned prio);
extern int sched_top_prio;

static bool in_queue(struct tcb *t)
{
    struct tcb *h = ready_queue_head(t->prio);
    if (!h)
        return false;
    struct tcb *x = h;
    do {
        if (x == t)
            return true;
        x = x->ready_next;
    } while (x != h);
    return false;
}

static void check_ready_queues(void)
{
    int top = -1;
    for (unsigned p = 0; p < 256; p++) {
        struct tcb *h = ready_queue_head(p);
        REQUIRE(!!h == ready_bitmap_bit(p), "bitmap bit %u vs queue", p);
        if (!h)
            continue;
        top = (int)p;
        unsigned n = 0;
        struct tcb *x = h;
        do {
            REQUIRE(x->in_ready, "thread %lx in queue %u without in_ready", x->gid, p);
            REQUIRE(x->prio == p, "thread %lx of prio %u in queue %u", x->gid, x->prio, p);
            REQUIRE(x->ready_next->ready_prev == x, "queue %u links broken at %lx", p, x->gid);
            REQUIRE(++n < CONFIG_MAX_THREADS, "queue %u does not close", p);
            x = x->ready_next;
        } while (x != h);
    }
    REQUIRE(top <= sched_top_prio, "cached top priority %d below %d", sched_top_prio, top);
}

static void check_sendq(struct tcb *r)
{
    if (!r->sendq)
        return;
    struct tcb *s = r->sendq;
    unsigned n = 0;
    do {
        REQUIRE(s->state == TS_WAIT_SEND || s->state == TS_IRQ,
                "%lx queued to send to %lx in state %u", s->gid, r->gid, s->state);
        REQUIRE(s->ipc.partner == r, "%lx in the queue of %lx sends to another", s->gid, r->gid);
        REQUIRE(s->sendq_next->sendq_prev == s, "send queue of %lx broken", r->gid);
        REQUIRE(++n < CONFIG_MAX_THREADS, "send queue of %lx does not close", r->gid);
        s = s->sendq_next;
    } while (s != r->sendq);
}

/* Kernel stacks are painted at thread creation; the lowest word that lost the paint is the
 * deepest the stack has been.  A stack that came within STACK_RESERVE bytes of its end would
 * have overflowed into the thread's TCB with a little more nesting. */
#define STACK_PAINT   0x5AC75AC75AC75AC7ul
#define STACK_RESERVE 1024

void invariants_paint_stack(struct tcb *t)
{
    word_t *w = (word_t *)((char *)t + TCB_STACK_BOTTOM);
    word_t *end = (word_t *)tcb_frame(t);
    while (w < end)
        *w++ = STACK_PAINT;
}

static word_t deepest;

static void check_stack_depth(struct tcb *t, const char *where)
{
    const word_t *w = (const word_t *)((char *)t + TCB_STACK_BOTTOM);
    const word_t *end = (const word_t *)tcb_frame(t);
    while (w < end && *w == STACK_PAINT)
        w++;
    word_t used = tcb_kstack_top(t) - (word_t)w;
    if (used > deepest) {
        deepest = used;
        REQUIRE(used <= TCB_SIZE - TCB_STACK_BOTTOM - STACK_RESERVE,
                "kernel stack of %lx used %lu bytes (at %s)", t->gid, used, where);
    }
}

word_t invariants_deepest_stack(void)
{
    return deepest;
}

void invariants_check(const char *where)
{
    struct tcb *cur = current();
    word_t sp = (word_t)__builtin_frame_address(0);
    if (cur != idle_tcb)
        REQUIRE(sp > (word_t)cur + TCB_STACK_BOTTOM + 512 && sp <= tcb_kstack_top(cur),
                "kernel stack of %lx at %lx, beyond its end (at %s)", cur->gid, sp, where);
    if (cur != idle_tcb) {
        check_stack_depth(cur, where);
        arch_check_user_frame(cur, where);      /* every call site is on a way to user mode */
    }
    REQUIRE(cur == idle_tcb || cur->state == TS_READY, "at %s: current %lx in state %u",
            where, cur->gid, cur->state);
    check_ready_queues();
    unsigned threads = 0;
    for (struct tcb *t = thread_first(); t; t = t->all_next) {
        REQUIRE(++threads < CONFIG_MAX_THREADS, "thread list does not end");
        REQUIRE(tcb_lookup(t->gid) == t, "thread %lx not found by its id", t->gid);
        REQUIRE(t->state != TS_FREE && t->state <= TS_IDLE, "thread %lx state %u", t->gid, t->state);
        REQUIRE(t->in_ready == in_queue(t), "thread %lx in_ready %d disagrees", t->gid, t->in_ready);
        if (t->state == TS_READY && t != cur)
            REQUIRE(t->in_ready, "ready thread %lx not queued (at %s)", t->gid, where);
        if (t->state == TS_WAIT_SEND) {
            REQUIRE(t->ipc.partner, "sender %lx without partner", t->gid);
            REQUIRE(t->sendq_next, "sender %lx not queued", t->gid);
        }
        if (t->state == TS_IRQ)
            continue;
        REQUIRE(t->space && t->space->nthreads > 0, "thread %lx space", t->gid);
        REQUIRE(!t->wakeup_queued || t->state == TS_WAIT_SEND || t->state == TS_WAIT_RECV,
                "thread %lx has a timeout in state %u", t->gid, t->state);
        check_sendq(t);
    }
}
#endif
