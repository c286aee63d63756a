/* Threads: creation, activation, deletion (ThreadControl), halting. */
#ifndef THREAD_H
#define THREAD_H

#include "tcb.h"

struct tcb *thread_first(void);

/* Allocate and initialise the TCB for gid in `space` (inactive). NULL: out of memory. */
struct tcb *thread_create(word_t gid, struct space *space, word_t scheduler);
/* Give the thread its UTCB and let it wait for its start message from `pager`. */
int thread_activate(struct tcb *t, word_t pager);
void thread_delete(struct tcb *t);

/* Continuation of a thread waiting for its start message (§6.5). */
void thread_start_cont(struct tcb *t);
/* Before ExchangeRegisters: apply a start message that arrived but has not taken effect. */
void thread_start_settle(struct tcb *t);
/* Last checks before a thread goes back to user mode (pending halt). */
void thread_return_to_user_checks(struct tcb *t);
/* Stop a thread (it stays halted until ExchangeRegisters resumes it). */
void thread_halt(struct tcb *t);
NORETURN void thread_halt_current(void);
void thread_resume(struct tcb *t);

void thread_init(void);
struct tcb *thread_create_idle(void);
void thread_start_now(struct tcb *t, word_t ip, word_t sp);

#endif
