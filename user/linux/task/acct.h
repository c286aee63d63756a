/* BSD process accounting (task/acct.c; acct(2), acct(5) version 3). */
#ifndef LX_TASK_ACCT_H
#define LX_TASK_ACCT_H

#include "park/park.h"
#include "task/exit_status.h"

struct process;

long sys_acct(struct thread *t, const struct sysargs *a);
/* p ends with status: its record, if accounting is on (process_exit, before its teardown). */
void acct_process(struct process *p, struct exit_status status);

#endif
