/* Inter-process communication: the slow path in C (ipc.c), the message transfer (transfer.c)
 * and the fast path (arch/x86_64/fastpath.S). */
#ifndef IPC_H
#define IPC_H

#include "tcb.h"

/* Perform Ipc for `self` with the message in its UTCB (MR0...).  Returns the resulting MR0; the
 * `from` id is left in self->ipc.ipc_from.  With `kernel`, the receive phase blocks on the stack
 * (kernel-generated IPC: page faults, exceptions); otherwise a blocking receive never returns
 * here: the thread resumes through ipc_user_return(). */
word_t ipc(struct tcb *self, word_t to, word_t from_spec, word_t timeouts, bool kernel);

/* Continuation of a thread blocked in a user-level receive: load the result into its frame. */
void ipc_user_return(struct tcb *t);

/* A Call on behalf of `self` with the message the caller composed in self's UTCB (MR0..MRn),
 * to `handler`: the kernel-generated protocols (page fault, exception, preemption).  The UTCB
 * words the message overwrites must have been saved by the caller.  Returns false if the IPC
 * failed (no such handler, aborted). */
/* reply_words: only MR0..MR(reply_words - 1) of the reply are stored, the words the caller
 * saved and restores (contract §5.12); later words are dropped, their items still apply. */
bool ipc_kernel_call(struct tcb *self, word_t handler, word_t acceptor, unsigned reply_words);

/* ExchangeRegisters' abort of a thread's IPC (bits R and S); returns true if aborted. */
bool ipc_abort(struct tcb *t, bool recv, bool send);
/* The thread is being deleted: fail everybody who waits on it, take it off all queues. */
void ipc_thread_deleted(struct tcb *t);
/* A new thread's IPC state: no receive pending, no last sender. */
void ipc_thread_init(struct tcb *t);
/* Schedule's view of a thread's IPC state (contract §1.8): 4..7, or 0 if not in IPC. */
unsigned ipc_schedule_state(struct tcb *t);
/* ExchangeRegisters' control bits 1 (receive) and 2 (send). */
unsigned ipc_exregs_state(struct tcb *t);

/* Transfer the message in s's UTCB to r (transfer.c).  Returns 0 or an IPC error code with
 * *offset set. */
int ipc_transfer(struct tcb *s, struct tcb *r, word_t *offset);
bool ipc_has_strings(struct tcb *s);

/* The id under which `sender` appears to `receiver` (local if same space). */
static inline word_t ipc_sender_id(struct tcb *sender, struct tcb *receiver)
{
    return sender->space == receiver->space && sender->local_id ? sender->local_id : sender->gid;
}

void ipc_sendq_append(struct tcb *r, struct tcb *s);
void ipc_sendq_remove(struct tcb *r, struct tcb *s);
bool ipc_accepts(struct tcb *r, struct tcb *s);
void ipc_fail_receive(struct tcb *r, int err);
extern struct xfer xfer_sender_gone;

/* Local id -> global id in `self`'s space (0 if no such thread). */
word_t ipc_local_to_global(struct tcb *self, word_t local);
struct tcb *ipc_resolve(struct tcb *self, word_t id);

#endif
