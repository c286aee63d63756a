/* Memory exhaustion (oom.c; docs/linux/memory.md §4): who pays when no page is left. */
#ifndef LX_MM_OOM_H
#define LX_MM_OOM_H

#include <libl4.h>
#include <stdbool.h>

struct mm;
struct thread;

/* No page for t's fault at addr: the process Linux's OOM killer would pick ends by SIGKILL
 * (the one holding the most memory; init only if it is the one faulting).  True if that
 * was t itself (which has ended: no reply); false if memory came free, so try again. */
bool oom_fault(struct thread *t, l4_word_t addr, l4_word_t ip);
/* No page for a user copy into or out of mm: if its process holds the most memory it gets
 * SIGKILL (it ends when its call does); the copy fails (-EFAULT) either way. */
void oom_copy(struct mm *mm);

#endif
