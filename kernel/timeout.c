/* IPC timeouts.  A thread with a finite timeout is linked into wheel slot
 * (deadline / tick) mod SLOTS; insertion and removal are O(1), and each tick inspects only
 * the slot that became due.  Entries more than one wheel turn away stay in their slot and are
 * skipped until their turn comes (their deadline is checked), so the common IPCs with
 * timeouts never or zero cost nothing here and finite ones cost a list insertion. */
#include "timeout.h"
#include "arch.h"
#include "lib.h"

#define SLOTS CONFIG_WAKEUP_SLOTS

static struct tcb *wheel[SLOTS];
static uint64_t processed_tick;         /* all slots up to this tick have been processed */

/* The first tick at or after the deadline: processing that tick (now >= tick * TICK_US)
 * always finds the entry due, so no entry has to wait for a further turn of the wheel. */
static uint64_t due_tick(uint64_t deadline)
{
    return (deadline + CONFIG_TICK_US - 1) / CONFIG_TICK_US;
}

void timeout_init(void)
{
    memset(wheel, 0, sizeof(wheel));
    processed_tick = arch_clock_us() / CONFIG_TICK_US;
}

void timeout_set(struct tcb *t, uint64_t deadline)
{
    timeout_cancel(t);
    /* A deadline in a tick already processed is handled at the next tick. */
    uint64_t tick = due_tick(deadline);
    if (tick <= processed_tick)
        tick = processed_tick + 1;
    t->wakeup.deadline = deadline;
    unsigned slot = tick % SLOTS;
    struct tcb **head = &wheel[slot];
    t->wakeup.slot = slot;
    t->wakeup.prev = NULL;
    t->wakeup.next = *head;
    if (*head)
        (*head)->wakeup.prev = t;
    *head = t;
    t->wakeup_queued = true;
}

void timeout_cancel(struct tcb *t)
{
    if (!t->wakeup_queued)
        return;
    if (t->wakeup.prev)
        t->wakeup.prev->wakeup.next = t->wakeup.next;
    else
        wheel[t->wakeup.slot] = t->wakeup.next;
    if (t->wakeup.next)
        t->wakeup.next->wakeup.prev = t->wakeup.prev;
    t->wakeup.next = t->wakeup.prev = NULL;
    t->wakeup_queued = false;
}

void timeout_tick(uint64_t now)
{
    uint64_t tick = now / CONFIG_TICK_US;
    /* Catch up at most one full turn; older slots were covered by it. */
    if (tick - processed_tick > SLOTS)
        processed_tick = tick - SLOTS;
    while (processed_tick < tick) {
        processed_tick++;
        struct tcb **slot = &wheel[processed_tick % SLOTS];
        for (struct tcb *t = *slot, *next; t; t = next) {
            next = t->wakeup.next;
            if (t->wakeup.deadline <= now) {
                timeout_cancel(t);
                ipc_timeout_expired(t);
            }
        }
    }
}
