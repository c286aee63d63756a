/* Running out of memory (docs/linux/memory.md §4): the process that pays is the one Linux's
 * OOM killer would pick, the one holding the most memory, not whoever asks next.  Its size
 * is what lx could take back by ending it: the pages its table holds (shared ones too, as
 * Linux counts RSS), the table's nodes and its region records.  init (pid 1) is passed
 * over, as Linux never picks it, unless it is the one that needs the page and nothing else
 * is larger.  lx itself never pays: its own structures have a reserve (page.c). */
#include "mm/oom.h"
#include "mm/mm.h"
#include "signal/signal.h"
#include "task/process.h"
#include <stdio.h>

static unsigned long size_of(const struct task *t)
{
    return t->mm.pages + t->mm.tables + t->mm.nregions * sizeof(struct region) / LX_PAGE;
}

/* The largest process that may be ended for want's sake (want itself always may). */
static struct task *victim(struct task *want)
{
    struct task *best = want;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->state != TASK_RUNNING || t == want || t->pid == 1)
            continue;
        if (size_of(t) > size_of(best))
            best = t;
    }
    return best;
}

bool oom_fault(struct task *t, l4_word_t addr, l4_word_t ip)
{
    struct task *v = victim(t);
    if (v == t) {
        task_fault_kill(t, SIGKILL, "out of memory", addr, ip);
        return true;
    }
    printf("lx: pid %d: out of memory (%lu pages, the most; pid %d faulted at %lx): killed by "
           "SIGKILL\n", v->pid, size_of(v), t->pid, addr);
    task_exit(v, signal_exit_status(SIGKILL));
    return false;
}

void oom_copy(struct mm *mm)
{
    struct task *owner = NULL;
    for (unsigned i = 0; i < LX_MAX_TASKS && !owner; i++) {
        struct task *t = task_slot(i);
        if (t->state == TASK_RUNNING && &t->mm == mm)
            owner = t;
    }
    /* Ending another process here, inside a call, could pull state from under the call's
     * handler: the copy fails instead, and the next page fault settles it. */
    if (!owner || victim(owner) != owner || owner->pid == 1 ||
        (owner->sigpending & SIGBIT(SIGKILL)))
        return;
    printf("lx: pid %d: out of memory in a system call (%lu pages, the most): killed by "
           "SIGKILL\n", owner->pid, size_of(owner));
    struct k_siginfo info = { .code = SI_KERNEL };
    signal_send(owner, SIGKILL, &info);
}
