/* Scheduling: 256 hard priorities, round robin within a priority, lazy ready queues (002 §5.3.4)
 * and direct process switch (§5.3.5). */
#ifndef SCHED_H
#define SCHED_H

#include "tcb.h"

extern struct tcb *idle_tcb;
/* The highest priority with a (possibly stale) ready-queue entry, -1 if none: the IPC fast
 * paths compare with it instead of scanning the bitmap. */
extern int sched_top_prio;

static inline struct tcb *current(void) { return cpu0.current; }

void sched_init(void);
void sched_enqueue(struct tcb *t);          /* make sure a ready thread is queued (tail) */
void sched_enqueue_head(struct tcb *t);
void sched_dequeue(struct tcb *t);
int  sched_highest_prio(void);              /* highest priority with a (possibly stale) entry */

/* Give up the CPU to the best ready thread; returns when the caller runs again. */
void schedule(void);
/* The current thread blocked with a continuation: never returns on this stack. */
NORETURN void schedule_noreturn(void);
/* Run `to` now if priorities allow, else queue it; the caller stays runnable. */
void sched_wakeup(struct tcb *to);
/* Direct switch to `to`; the caller has blocked (or is ready and queued). */
void switch_to(struct tcb *to);
/* The current thread blocked; continue with `preferred` if it may run, else schedule. */
void switch_to_or_schedule(struct tcb *preferred);

/* Block the current thread in `state`; resume on this stack when woken. Returns the reason. */
enum wake_reason block_current(enum thread_state state);
/* Block on the stack, preferring a direct switch to `next`. */
enum wake_reason block_current_to(enum thread_state state, struct tcb *next);
/* Block the current thread; when it is switched to again, run cont(t) on a fresh stack. */
NORETURN void block_current_cont(enum thread_state state, void (*cont)(struct tcb *));
NORETURN void block_current_cont_to(enum thread_state state, void (*cont)(struct tcb *),
                                    struct tcb *next);
/* Make a blocked thread ready with the given reason (it runs later, see sched_wakeup). */
void wake(struct tcb *t, enum wake_reason why);

void sched_tick(void);                      /* timer interrupt: time slices */
void sched_yield(void);
void sched_preempt_check(void);
/* ThreadSwitch(nil): a delayed preemption is over (PreemptFlags.I cleared, delay renewed). */
void sched_preemption_done(struct tcb *self);             /* run a more important ready thread first */                     /* ThreadSwitch(nil) */
void sched_donate(struct tcb *to);          /* ThreadSwitch(to) */
void sched_set_prio(struct tcb *t, unsigned prio);
/* t is being deleted: a slice it owns passes to the thread running on it. */
void sched_thread_deleted(struct tcb *t);

/* A new thread's scheduling parameters (contract §4.4.6 defaults): default priority, the
 * default time slice, no total quantum. */
void sched_thread_init(struct tcb *t);
/* Schedule (contract §4.4.6) by `self`, dest already global: validates first (an error
 * changes nothing), then applies.  Returns an L4_ERR_* code; on success *state is dest's
 * state (L4_SCHEDULE_*) and *old_time its old TimeControl. */
word_t sched_schedule(struct tcb *self, word_t dest, word_t time, word_t proc, word_t prio,
                      word_t pre, word_t *state, word_t *old_time);
/* ThreadSwitch (§4.4.5): donate the rest of the slice to dest, or yield (dest nil). */
void sched_thread_switch(struct tcb *self, word_t dest);

/* For the debug kernel's checks (invariants.c): the first thread of prio's ready queue
 * (NULL: empty), and prio's bit in the bitmap of non-empty queues. */
struct tcb *ready_queue_head(unsigned prio);
bool ready_bitmap_bit(unsigned prio);

#endif
