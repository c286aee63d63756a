/* Wait queues (park.c): what a parked call waits on.  A queue is a set of process slots; a
 * wake makes its members' parked calls run again (after the current message). */
#ifndef LX_PARK_WAITQ_H
#define LX_PARK_WAITQ_H

#include <stdint.h>

struct task;

struct waitq { uint64_t tasks; };   /* process slots parked on something */

void waitq_add(struct waitq *q, struct task *t);
void waitq_wake(struct waitq *q);   /* its tasks' calls run again (after this message) */

#endif
