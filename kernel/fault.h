/* Faults and exceptions of user threads become IPC to their pager or exception handler
 * (contract §6.1, §6.2, §6.7). */
#ifndef FAULT_H
#define FAULT_H

#include "tcb.h"

#define FAULT_R 4u
#define FAULT_W 2u
#define FAULT_X 1u

void fault_page(struct tcb *t, word_t addr, unsigned access, word_t ip);
void fault_io(struct tcb *t, unsigned port, unsigned count, word_t ip);
void fault_exception(struct tcb *t, unsigned vector, word_t error);
/* The preemption message (timefault false) or the time fault (total quantum exhausted) of
 * t to its scheduler, as a call on t's behalf; nothing if t has no scheduler other than
 * itself (docs/scheduling.md). */
void fault_preemption(struct tcb *t, bool timefault);
/* A page fault inside a string transfer, on behalf of t: 0 if resolved, L4_IPC_OVERFLOW if a
 * foreign thread's handler refused it (docs/linux-abi.md 9.2b), L4_IPC_XFER_TIMEOUT_OWN if it
 * could not be resolved (no pager, aborted, or the deadline passed). */
int fault_ipc_for_transfer(struct tcb *t, word_t va, bool write, uint64_t deadline);

#endif
