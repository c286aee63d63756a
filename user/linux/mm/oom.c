/* Running out of memory (docs/linux/memory.md §4): the process that pays is the one Linux's
 * OOM killer would pick, the one holding the most memory, not whoever asks next.  Its size
 * is what lx could take back by ending it: the pages its table holds (shared ones too, as
 * Linux counts RSS), the table's nodes and its region records.  init (pid 1) is passed
 * over, as Linux never picks it, unless it is the one that needs the page and nothing else
 * is larger.  lx itself never pays: its own structures have a reserve (page.c). */
#include "mm/oom.h"
#include "log/log.h"
#include "mm/mm.h"
#include "signal/signal.h"
#include "task/process.h"
#include <stdio.h>

/* Choosing walks every process: rare, and Linux's select_bad_process does the same. */
static unsigned long size_of(const struct mm *mm)
{
    return mm ? mm->pages + mm->tables + mm->nregions * sizeof(struct region) / LX_PAGE : 0;
}

/* The largest process that may be ended for want's sake (want itself always may). */
static struct process *victim(struct process *want)
{
    struct process *best = want, *p;
    unsigned long best_size = size_of(process_mm(want));
    list_each(p, &process_all, all_link) {
        if (p == want || process_pid(p) == 1)
            continue;
        unsigned long size = size_of(process_mm(p));
        if (size > best_size) {
            best = p;
            best_size = size;
        }
    }
    return best;
}

/* The kernel log's line for the victim (Linux's __oom_kill_process). */
static void log_kill(struct process *v)
{
    struct mm *mm = process_mm(v);
    const struct thread *t = list_first(&v->threads, struct thread, proc_link);
    unsigned long vm = 0;
    for (struct region *r = mm ? mm_first(mm) : NULL; r; r = vma_next(r))
        vm += r->end - r->start;
    klog(KERN_ERR, "Out of memory: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, "
         "file-rss:0kB, shmem-rss:0kB, UID:%u pgtables:%lukB oom_score_adj:0", process_pid(v),
         t ? t->comm : "", vm >> 10, mm ? mm->pages * 4 : 0, v->cred.uid,
         mm ? mm->tables * 4 : 0);
}

bool oom_fault(struct thread *t, l4_word_t addr, l4_word_t ip)
{
    struct process *v = victim(t->proc);
    log_kill(v);
    if (v == t->proc) {
        process_fault_kill(t, SIGKILL, "out of memory", addr, ip, false);
        return true;
    }
    printf("lx: pid %d: out of memory (%lu pages, the most; pid %d faulted at %lx): killed by "
           "SIGKILL\n", process_pid(v), size_of(process_mm(v)), thread_pid(t), addr);
    process_exit(v, exit_status_killed(SIGKILL));
    return false;
}

void oom_copy(struct mm *mm)
{
    struct process *owner = NULL, *p;
    list_each(p, &process_all, all_link)
        if (process_mm(p) == mm) {
            owner = p;
            break;
        }
    /* Ending another process here, inside a call, could pull state from under the call's
     * handler: the copy fails instead, and the next page fault settles it. */
    if (!owner || victim(owner) != owner || process_pid(owner) == 1 ||
        (owner->sig.shared.set & SIGBIT(SIGKILL)))
        return;
    printf("lx: pid %d: out of memory in a system call (%lu pages, the most): killed by "
           "SIGKILL\n", process_pid(owner), size_of(mm));
    log_kill(owner);
    struct k_siginfo info = { .code = SI_KERNEL };
    signal_send(owner, SIGKILL, &info);
}
