/* IPC timeouts: a timer wheel of unordered wakeup lists (002 §5.3.3). */
#ifndef TIMEOUT_H
#define TIMEOUT_H

#include "tcb.h"

void timeout_init(void);
void timeout_set(struct tcb *t, uint64_t deadline_us);  /* absolute clock value */
void timeout_cancel(struct tcb *t);
void timeout_tick(uint64_t now_us);                     /* expire what is due */

/* Called for each thread whose timeout expired (ipc.c). */
void ipc_timeout_expired(struct tcb *t);

#endif
