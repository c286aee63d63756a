/* Scheduling.
 *
 * Invariants (lazy scheduling, 002 §5.3.4):
 *  - the ready queue of priority p contains at least every READY thread of priority p except
 *    possibly the current one; it may also contain threads that have since blocked, which
 *    pick_next() drops when it meets them;
 *  - a thread is in at most one ready queue (in_ready says whether).
 * Direct process switch: IPC hands the CPU to its partner without queue operations and the
 * partner runs on the remaining time slice of the thread the scheduler last chose (the slice
 * owner), i.e. the time slice is donated.  When the slice ends, the whole chain (the owner,
 * even if blocked in a call, and the thread running on its slice) goes to the end of its
 * priority (sched_tick; docs/scheduling.md, "Slice end").
 *
 * Preemption (contract §6.4, docs/scheduling.md): a thread loses the CPU involuntarily at the
 * end of its time slice, and when a more important thread becomes ready.  It may delay that
 * (PreemptFlags.d, up to its maximum delay, for threads up to its sensitive priority), and it
 * may ask its scheduler to be told (PreemptFlags.s): the message goes out before the thread
 * continues in user mode (thread_return_to_user_checks).  A thread's total quantum is charged
 * per tick while it runs; when it is used up the thread sends its scheduler a time fault.
 */
#include "sched.h"
#include "timeout.h"
#include "console.h"
#include "lib.h"
#include "arch.h"
#include "ipc.h"
#include "irq.h"
#include "space.h"
#include "list.h"
#include <l4/utcb.h>
#include <l4/time.h>
#include <l4/control.h>
#include <l4/message.h>

static struct tcb *ready_head[256];
static uint64_t prio_bitmap[4];
int sched_top_prio = -1;
struct tcb *idle_tcb;
static struct tcb *slice_owner;

static int scan_highest(void)
{
    for (int w = 3; w >= 0; w--)
        if (prio_bitmap[w])
            return w * 64 + 63 - __builtin_clzl(prio_bitmap[w]);
    return -1;
}

static inline void bitmap_set(unsigned p)
{
    prio_bitmap[p >> 6] |= 1ul << (p & 63);
    if ((int)p > sched_top_prio)
        sched_top_prio = (int)p;
}

static inline void bitmap_clear(unsigned p)
{
    prio_bitmap[p >> 6] &= ~(1ul << (p & 63));
    if ((int)p == sched_top_prio)
        sched_top_prio = scan_highest();
}

int sched_highest_prio(void)
{
    return sched_top_prio;
}

static void insert(struct tcb *t, bool at_head)
{
    struct tcb **head = &ready_head[t->prio];
    if (!*head)
        bitmap_set(t->prio);
    RING_APPEND(*head, t, ready_next, ready_prev);
    if (at_head)
        *head = t;
    t->in_ready = true;
}

void sched_enqueue(struct tcb *t)
{
    if (!t->in_ready && t != idle_tcb)
        insert(t, false);
}

void sched_enqueue_head(struct tcb *t)
{
    if (t == idle_tcb)
        return;
    if (t->in_ready)
        sched_dequeue(t);
    insert(t, true);
}

void sched_dequeue(struct tcb *t)
{
    if (!t->in_ready)
        return;
    struct tcb **head = &ready_head[t->prio];
    RING_REMOVE(*head, t, ready_next, ready_prev);
    if (!*head)
        bitmap_clear(t->prio);
    t->in_ready = false;
}

void sched_set_prio(struct tcb *t, unsigned prio)
{
    bool queued = t->in_ready;
    sched_dequeue(t);
    t->prio = prio;
    if (queued)
        insert(t, false);
}

/* The best ready thread; drops stale (blocked) entries on the way. */
static struct tcb *pick_next(void)
{
    for (;;) {
        int p = sched_highest_prio();
        if (p < 0)
            return idle_tcb;
        struct tcb *t = ready_head[p];
        if (t->state == TS_READY)
            return t;
        sched_dequeue(t);
    }
}

void switch_to(struct tcb *to)
{
    struct tcb *from = current();
    if (to == from)
        return;
    arch_switch(from, to);
}

/* --- preemption ---------------------------------------------------------------------- */

/* Is a thread other than self ready at self's priority or above?  (Stale queue entries
 * count: at worst a slice end is handled as a preemption that picks self again.) */
static bool contender(struct tcb *self)
{
    int top = sched_highest_prio();
    if (top != (int)self->prio)
        return top > (int)self->prio;
    struct tcb *h = ready_head[self->prio];
    return h != self || h->ready_next != self;
}

static bool delay_running(struct tcb *t)
{
    return t->delay_until && arch_clock_us() < t->delay_until;
}

/* The current thread is about to be preempted, for a thread of priority `by` (-1: its time
 * slice ended).  False if it delays the preemption instead: within a delay already running,
 * or by starting one (PreemptFlags.I tells it to yield soon). */
static bool preemption_goes_ahead(struct tcb *self, int by)
{
    if (self == idle_tcb)
        return true;
    bool sensitive = by < 0 || by <= self->sensitive_prio;
    if (!sensitive)
        return true;
    if (delay_running(self))
        return false;
    word_t flags = utcb_get(self, L4_UTCB_FLAGS);
    if ((self->flags & TF_PREEMPTED) || !self->max_delay_us || !(flags & L4_PREEMPT_DELAY))
        return true;
    self->flags |= TF_PREEMPTED;
    self->delay_until = arch_clock_us() + self->max_delay_us;
    utcb_set(self, L4_UTCB_FLAGS, flags | L4_PREEMPT_PENDING);
    return false;
}

/* The current thread loses the CPU now: record it for its preemption message. */
static void preempted(struct tcb *self)
{
    if (self == idle_tcb)
        return;
    /* It resumes on what is left of the slice it ran on, a donated one too: a call chain
     * that is preempted now and then must not start a fresh slice at each resumption. */
    struct tcb *owner = slice_owner;
    if (owner && owner != self && owner->timeslice_us && self->timeslice_us)
        self->slice_left_us = MIN(owner->slice_left_us, self->timeslice_us);
    self->delay_until = 0;
    if (utcb_get(self, L4_UTCB_FLAGS) & L4_PREEMPT_SIGNAL) {
        self->flags |= TF_PREEMPT_MSG;
        self->preempt_clock = arch_clock_us();
    }
}

void sched_preemption_done(struct tcb *self)
{
    self->flags &= ~TF_PREEMPTED;
    self->delay_until = 0;
    utcb_set(self, L4_UTCB_FLAGS, utcb_get(self, L4_UTCB_FLAGS) & ~(word_t)L4_PREEMPT_PENDING);
}

/* Charge a tick to the running thread's total quantum. */
static void charge_quantum(struct tcb *self)
{
    if (self == idle_tcb || self->quantum_us == QUANTUM_UNLIMITED)
        return;
    if (self->quantum_us > CONFIG_TICK_US) {
        self->quantum_us -= CONFIG_TICK_US;
        return;
    }
    self->quantum_us = 0;
    self->flags |= TF_TIMEFAULT_MSG;
    self->preempt_clock = arch_clock_us();
}

void schedule(void)
{
    struct tcb *self = current();
    if (self->state == TS_READY)
        sched_enqueue_head(self);       /* keep its place; preemption is not rotation */
    struct tcb *next = pick_next();
    slice_owner = next;
    switch_to(next);
}

void schedule_noreturn(void)
{
    schedule();
    panic("schedule_noreturn: blocked thread %lx resumed on its old stack", current()->gid);
}

/* The caller blocked; run `preferred` if nothing more important is ready. */
void switch_to_or_schedule(struct tcb *preferred)
{
    if (preferred && preferred->state == TS_READY && (int)preferred->prio >= sched_highest_prio())
        switch_to(preferred);
    else {
        if (preferred && preferred->state == TS_READY)
            sched_enqueue(preferred);
        schedule();
    }
}

void sched_wakeup(struct tcb *t)
{
    struct tcb *self = current();
    if (t->prio > self->prio && self != idle_tcb && preemption_goes_ahead(self, t->prio)) {
        preempted(self);
        sched_enqueue_head(self);       /* preempted: it keeps its place and slice */
        switch_to(t);
    } else if (self == idle_tcb) {
        slice_owner = t;
        switch_to(t);
    } else {
        sched_enqueue(t);
    }
}

void wake(struct tcb *t, enum wake_reason why)
{
    timeout_cancel(t);
    t->wake = why;
    t->state = TS_READY;
}

enum wake_reason block_current(enum thread_state state)
{
    struct tcb *self = current();
    self->state = state;
    self->wake = WAKE_NONE;
    self->cont = NULL;
    schedule();
    return self->wake;
}

enum wake_reason block_current_to(enum thread_state state, struct tcb *next)
{
    struct tcb *self = current();
    self->state = state;
    self->wake = WAKE_NONE;
    self->cont = NULL;
    switch_to_or_schedule(next);
    return self->wake;
}

void block_current_cont(enum thread_state state, void (*cont)(struct tcb *))
{
    block_current_cont_to(state, cont, NULL);
}

void block_current_cont_to(enum thread_state state, void (*cont)(struct tcb *), struct tcb *next)
{
    struct tcb *self = current();
    self->state = state;
    self->wake = WAKE_NONE;
    self->cont = cont;
    switch_to_or_schedule(next);
    /* Only reached if the thread was woken before anything else ran (e.g. nothing else to
     * run and a timeout fired at once): run the continuation ourselves. */
    arch_activate_continuation(self, cont);
}

void sched_tick(void)
{
    struct tcb *owner = slice_owner;
    struct tcb *self = current();
    charge_quantum(self);
    if (self == idle_tcb || !owner)
        return;
    if (self->delay_until && !delay_running(self)) {
        /* A delayed preemption is due: whatever it was, it happens now, as a slice end. */
        self->delay_until = 0;
    } else {
        if (owner->timeslice_us == 0)
            return;
        if (owner->slice_left_us > CONFIG_TICK_US) {
            owner->slice_left_us -= CONFIG_TICK_US;
            return;
        }
        if (owner == self && !contender(self)) {
            owner->slice_left_us = owner->timeslice_us;     /* nobody else to run: go on */
            return;
        }
        if (!preemption_goes_ahead(self, -1))
            return;
    }
    /* Slice over: the slice's chain goes to the end of its priority (docs/scheduling.md,
     * "Slice end").  The owner, ready or blocked in a call: a blocked owner's stale entry goes,
     * or the reply would wake it at its old place, ahead of the threads that waited.  And the
     * thread running on the slice, even if it is queued already (lazy queues keep a place). */
    owner->slice_left_us = owner->timeslice_us;
    sched_dequeue(owner);
    if (owner->state == TS_READY)
        insert(owner, false);
    if (self != owner && self->state == TS_READY) {
        sched_dequeue(self);
        insert(self, false);
    }
    struct tcb *next = pick_next();
    if (next != self)
        preempted(self);
    slice_owner = next;
    switch_to(next);
}

/* Wakeups only queue threads; before returning to user mode the current thread yields to a
 * more important one (it keeps its place in its queue). */
void sched_preempt_check(void)
{
    struct tcb *self = current();
    if (self == idle_tcb || self->state != TS_READY)
        return;
    /* A thread running on a donated time slice (ThreadSwitch, IPC) counts with the donor's
     * priority until the slice ends: the donor itself must not take it back. */
    int prio = self->prio;
    if (slice_owner && slice_owner != self && slice_owner->state == TS_READY && slice_owner->prio > prio)
        prio = slice_owner->prio;
    int top = sched_highest_prio();
    if (top > prio && preemption_goes_ahead(self, top)) {
        preempted(self);
        schedule();
    }
}

void sched_yield(void)
{
    struct tcb *self = current();
    self->slice_left_us = self->timeslice_us;
    sched_dequeue(self);
    sched_enqueue(self);
    struct tcb *next = pick_next();
    slice_owner = next;
    switch_to(next);
}

void sched_donate(struct tcb *to)
{
    struct tcb *self = current();
    sched_enqueue(self);
    /* `to` runs on the caller's own time slice, with the caller's priority protecting it
     * (even if the caller itself was running on a slice `to` had donated). */
    slice_owner = self;
    switch_to(to);
}

void sched_thread_deleted(struct tcb *t)
{
    if (t != slice_owner)
        return;
    /* The thread running on its slice goes on with the rest of it (a deleted TCB reads as
     * zeros: its slice would never end). */
    struct tcb *self = current();
    slice_owner = self != t ? self : NULL;
    if (slice_owner && t->timeslice_us && self->timeslice_us)
        self->slice_left_us = t->slice_left_us;
}

struct tcb *ready_queue_head(unsigned prio) { return ready_head[prio]; }
bool ready_bitmap_bit(unsigned prio) { return prio_bitmap[prio >> 6] & (1ul << (prio & 63)); }

void sched_init(void)
{
    memset(ready_head, 0, sizeof(ready_head));
    memset(prio_bitmap, 0, sizeof(prio_bitmap));
    sched_top_prio = -1;
}

/* --- Schedule and ThreadSwitch (contract §4.4.5, §4.4.6) -------------------------------- */

void sched_thread_init(struct tcb *t)
{
    t->prio = CONFIG_DEFAULT_PRIO;
    t->timeslice_us = CONFIG_TIMESLICE_US;
    t->slice_left_us = CONFIG_TIMESLICE_US;
    t->quantum_us = QUANTUM_UNLIMITED;
}

static uint16_t us_to_period(uint64_t us, bool zero_is_never)
{
    if (us == 0 && zero_is_never)
        return L4_NEVER;
    return l4_period_from_us(us);
}

static unsigned schedule_state(struct tcb *t)
{
    if (t->state == TS_IRQ)
        return L4_SCHEDULE_INACTIVE;
    if (t->state == TS_INACTIVE)
        return L4_SCHEDULE_DEAD;
    if (t->state == TS_HALTED || (t->flags & TF_HALT_PENDING))
        return L4_SCHEDULE_INACTIVE;
    unsigned s = ipc_schedule_state(t);
    return s ? s : L4_SCHEDULE_RUNNING;
}

/* A TimeControl half that is a time point: meaningless here (0xFFFF: unchanged). */
static bool time_half_invalid(uint16_t half)
{
    return half != L4_TIME_CTL_KEEP && l4_time_is_point(half);
}

word_t sched_schedule(struct tcb *self, word_t dest, word_t time, word_t proc, word_t prio,
                      word_t pre, word_t *state, word_t *old_time)
{
    /* Validate. */
    struct tcb *t = dest ? tcb_lookup(dest) : NULL;
    bool priv = self->space->privileged;
    bool set_prio = prio != L4_SCHEDULE_NO_CHANGE && (prio & L4_PRIO_CTL_MASK) <= L4_PRIO_CTL_MAX;
    unsigned sensitive = (pre >> L4_PREEMPT_CTL_PRIO_SHIFT) & L4_PREEMPT_CTL_PRIO_MASK;
    if (!t || t->state == TS_IDLE || (t->state == TS_IRQ && !irq_associated(t)))
        return L4_ERR_INVALID_THREAD;
    if (!priv && t->scheduler != self->gid)
        return L4_ERR_NO_PRIVILEGE;
    if (set_prio && !priv && (prio & L4_PRIO_CTL_MASK) > self->prio)
        return L4_ERR_NO_PRIVILEGE;
    if (pre != L4_SCHEDULE_NO_CHANGE && sensitive > self->prio && !priv)
        return L4_ERR_NO_PRIVILEGE;
    if (time != L4_SCHEDULE_NO_CHANGE &&
        (time_half_invalid(l4_time_control_quantum(time)) || time_half_invalid(l4_time_control_slice(time))))
        return L4_ERR_INVALID_PARAM;
    if (proc != L4_SCHEDULE_NO_CHANGE && (proc & L4_PROC_CTL_MASK) >= 1)
        return L4_ERR_INVALID_PARAM;    /* one processor */

    /* Apply: nothing below can fail. */
    *old_time = l4_time_control(us_to_period(t->timeslice_us ? t->slice_left_us : 0, true),
                                t->quantum_us == QUANTUM_UNLIMITED ? L4_NEVER :
                                l4_period_from_us(t->quantum_us));
    if (set_prio)
        sched_set_prio(t, prio & L4_PRIO_CTL_MAX);
    if (time != L4_SCHEDULE_NO_CHANGE) {
        uint16_t slice = l4_time_control_slice(time), quantum = l4_time_control_quantum(time);
        if (slice != L4_TIME_CTL_KEEP) {
            t->timeslice_us = l4_time_is_never(slice) ? 0 : l4_period_us(slice);
            t->slice_left_us = t->timeslice_us;
        }
        if (quantum != L4_TIME_CTL_KEEP)
            t->quantum_us = l4_time_is_never(quantum) ? QUANTUM_UNLIMITED : l4_period_us(quantum);
    }
    if (pre != L4_SCHEDULE_NO_CHANGE) {
        t->max_delay_us = pre & L4_PREEMPT_CTL_DELAY_MASK;
        t->sensitive_prio = sensitive;
    }
    *state = schedule_state(t);
    /* A priority change may have made another thread more important than the caller: the
     * check on the way back to user mode (thread_return_to_user_checks) preempts it. */
    return L4_ERR_OK;
}

void sched_thread_switch(struct tcb *self, word_t dest)
{
    struct tcb *t = dest ? tcb_lookup(dest) : NULL;
    if (t == self)
        return;
    if (t && t->state == TS_READY)
        sched_donate(t);
    else {
        sched_preemption_done(self);
        sched_yield();
    }
}
