/* Channels (docs/linux-abi.md §9): the threads a foreign space's threads may reach by native
 * IPC, set by the space's handler through SpaceControl and checked on every send and on every
 * sender a receive accepts. */
#ifndef CHANNEL_H
#define CHANNEL_H

#include "tcb.h"

struct space;

/* SpaceControl with L4_SPACE_CTL_CHANNEL on s: add, update or revoke `partner` (a global
 * id, already checked privileged).  Returns an L4_ERR_* code; an error changes nothing. */
word_t channel_control(struct space *s, word_t ctl, word_t partner);
/* Whether r, in native IPC, accepts the message of s (apparent sender a). */
bool channel_accepts(struct tcb *r, struct tcb *a, struct tcb *s);
/* The foreign thread t's `syscall` with L4_FOREIGN_IPC_NR, its set not empty. */
void channel_ipc(struct tcb *t);
/* The end of t's native IPC (directly or as the receive's continuation): the results into
 * its registers, then to user mode. */
void channel_ipc_return(struct tcb *t);
/* The foreign thread t's `syscall` with L4_FOREIGN_UNMAP_NR, its set not empty: X.2 Unmap of
 * its own space, then back to user mode. */
void channel_unmap(struct tcb *t);
/* The foreign thread t's `syscall` with L4_FOREIGN_BUFFERS_NR, its set not empty: its receive
 * buffers for string items and its transfer timeouts, then back to user mode. */
void channel_buffers(struct tcb *t);

#endif
