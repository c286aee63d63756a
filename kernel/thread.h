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

/* ThreadControl (contract §4.4.3) by `self`, ids already global: validates and allocates
 * everything first (an error changes nothing), then applies.  Returns an L4_ERR_* code. */
word_t thread_control(struct tcb *self, word_t dest, word_t space_spec, word_t sched,
                      word_t pager, word_t utcb);
/* The thread a space specifier names, if it may name a space: a user thread.  An interrupt
 * thread has no space, and the idle thread's is the kernel's own: a thread put there would
 * run on the kernel's page tables, and deleting it would destroy the kernel space. */
struct tcb *thread_space_specifier(word_t id);

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
