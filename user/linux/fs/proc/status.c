/* /proc/N/status (and task/T/status) with Linux 6.1's lines in its order, and
 * /proc/N/limits (docs/linux/proc.md).  A zombie has no Umask, no memory lines, no
 * CoreDumping and THP_enabled, as on Linux (its fs and mm are gone).  Values lx does not
 * keep (context switches, seccomp, speculation controls) read as an unrestricted process on
 * one CPU and one memory node. */
#include "fs/proc/proc.h"
#include "mm/mm.h"
#include "signal/signal.h"
#include "signal/sigqueue.h"
#include "task/ptrace.h"
#include "task/cred.h"
#include "task/exec.h"
#include "task/process.h"
#include "task/thread.h"
#include <string.h>

#define NR_MEM_WORDS 32             /* Mems_allowed: Debian's CONFIG_NODES_SHIFT 10, in 32-bit words */

/* The identity lines (Uid, Gid, Groups) and the capability lines: one place, which learns
 * other users' values when lx has them (issue 14). */
enum status_cred_part { STATUS_IDS, STATUS_GROUPS, STATUS_CAPS };

static void status_cred(struct out *o, const struct process *p, enum status_cred_part part)
{
    const struct cred *c = &p->cred;
    switch (part) {
    case STATUS_IDS:
        out_printf(o, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", c->uid, c->euid, c->suid,
                   c->fsuid, c->gid, c->egid, c->sgid, c->fsgid);
        break;
    case STATUS_GROUPS:
        out_printf(o, "Groups:\t");
        for (unsigned k = 0; c->groups && k < c->groups->n; k++)
            out_printf(o, "%u ", (unsigned)groups_at(c->groups, k));
        out_printf(o, "%s\n", c->groups && c->groups->n ? "" : " ");   /* Linux's blank */
        break;
    case STATUS_CAPS:               /* the sets kept (task/cred.h); the bounding set full */
        out_printf(o, "CapInh:\t%016llx\nCapPrm:\t%016llx\nCapEff:\t%016llx\nCapBnd:\t%016llx\n"
                   "CapAmb:\t%016llx\n", (unsigned long long)c->cap_inh,
                   (unsigned long long)c->cap_prm, (unsigned long long)c->cap_eff,
                   (unsigned long long)CAP_FULL_SET, 0ull);
        break;
    }
}

struct mem_stats {                  /* in kB */
    unsigned long size, data, stack, exe, lib, rss, pte;
};

static void mem_stats(struct process *p, struct mm *mm, struct mem_stats *m)
{
    memset(m, 0, sizeof *m);
    struct inode *exe = task_exe_inode(p);
    for (struct region *r = mm_first(mm); r; r = vma_next(r)) {
        unsigned long kb = (r->end - r->start) >> 10;
        m->size += kb;
        if (r->end == LX_USER_END)
            m->stack += kb;         /* Linux's VM_STACK */
        else if ((r->prot & PROT_WRITE) && !r->shared)
            m->data += kb;
        else if (r->prot & PROT_EXEC && ((exe && r->file == exe) || r->fdata))
            m->exe += kb;
        else if (r->prot & PROT_EXEC && r->file)
            m->lib += kb;
    }
    m->rss = mm->pages * (LX_PAGE >> 10);
    m->pte = mm->tables * (LX_PAGE >> 10);
}

static unsigned long sig_mask(const struct process *p, bool ignored)
{
    unsigned long m = 0;
    for (int s = 1; s <= 64; s++) {
        l4_word_t h = p->sighand ? p->sighand->action[s - 1].handler : SIG_DFL;
        if (ignored ? h == SIG_IGN : h != SIG_IGN && h != SIG_DFL)
            m |= 1ul << (s - 1);
    }
    return m;
}

void proc_status(struct out *o, struct process *p, const struct thread *shown)
{
    bool live = p->state == PROCESS_LIVE;
    struct thread *t = live ? process_thread(p) : NULL;
    struct mm *mm = t ? process_mm(p) : NULL;
    int pid = process_pid(p), tid = shown ? shown->tid->nr : pid;
    out_printf(o, "Name:\t%s\n", shown ? shown->comm : "");
    if (t && t->fs)
        out_printf(o, "Umask:\t%04o\n", t->fs->umask);
    out_printf(o, "State:\t%s\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t%d\n",
               proc_state_name(live ? proc_thread_state(shown) : 'Z'), pid, tid,
               process_ppid(p), live ? ptrace_tracer_pid(shown) : 0);
    status_cred(o, p, STATUS_IDS);
    out_printf(o, "FDSize:\t%d\n", t && t->files ? (int)fd_table_size(t) : 0);
    status_cred(o, p, STATUS_GROUPS);
    out_printf(o, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", pid, tid,
               process_pgid(p), process_sid(p));
    if (mm) {
        struct mem_stats m;
        mem_stats(p, mm, &m);
        out_printf(o, "VmPeak:\t%8lu kB\nVmSize:\t%8lu kB\nVmLck:\t%8lu kB\nVmPin:\t%8lu kB\n"
                   "VmHWM:\t%8lu kB\nVmRSS:\t%8lu kB\nRssAnon:\t%8lu kB\nRssFile:\t%8lu kB\n"
                   "RssShmem:\t%8lu kB\nVmData:\t%8lu kB\nVmStk:\t%8lu kB\nVmExe:\t%8lu kB\n"
                   "VmLib:\t%8lu kB\nVmPTE:\t%8lu kB\nVmSwap:\t%8lu kB\n"
                   "HugetlbPages:\t%8lu kB\nCoreDumping:\t0\nTHP_enabled:\t1\n",
                   m.size, m.size, 0ul, 0ul, m.rss, m.rss, m.rss, 0ul, 0ul, m.data, m.stack,
                   m.exe, m.lib, m.pte, 0ul, 0ul);
    }
    uint64_t pend = shown ? shown->sig.pending.set : 0;
    out_printf(o, "Threads:\t%u\nSigQ:\t%d/%llu\nSigPnd:\t%016llx\nShdPnd:\t%016llx\n"
               "SigBlk:\t%016llx\nSigIgn:\t%016lx\nSigCgt:\t%016lx\n", p->nthreads,
               (int)sigqueue_user_count(p->cred.uid),
               (unsigned long long)p->rlim[11].cur, (unsigned long long)pend,
               (unsigned long long)p->sig.shared.set,
               (unsigned long long)(shown ? shown->sig.blocked : 0), sig_mask(p, true),
               sig_mask(p, false));
    status_cred(o, p, STATUS_CAPS);
    out_printf(o, "NoNewPrivs:\t%d\nSeccomp:\t0\nSeccomp_filters:\t0\n"
               "Speculation_Store_Bypass:\tthread vulnerable\n"
               "SpeculationIndirectBranch:\tconditional enabled\n"
               "Cpus_allowed:\t1\nCpus_allowed_list:\t0\nMems_allowed:\t", p->cred.no_new_privs);
    for (int k = 0; k < NR_MEM_WORDS; k++)
        out_printf(o, "%08x%s", k == NR_MEM_WORDS - 1 ? 1u : 0u, k == NR_MEM_WORDS - 1 ? "\n"
                                                                                     : ",");
    out_printf(o, "Mems_allowed_list:\t0\nvoluntary_ctxt_switches:\t0\n"
               "nonvoluntary_ctxt_switches:\t0\n");
}

/* Linux's proc_pid_limits table. */
void proc_limits(struct out *o, struct process *p)
{
    static const struct { const char *name, *unit; } names[RLIM_NLIMITS] = {
        { "Max cpu time", "seconds" }, { "Max file size", "bytes" },
        { "Max data size", "bytes" }, { "Max stack size", "bytes" },
        { "Max core file size", "bytes" }, { "Max resident set", "bytes" },
        { "Max processes", "processes" }, { "Max open files", "files" },
        { "Max locked memory", "bytes" }, { "Max address space", "bytes" },
        { "Max file locks", "locks" }, { "Max pending signals", "signals" },
        { "Max msgqueue size", "bytes" }, { "Max nice priority", NULL },
        { "Max realtime priority", NULL }, { "Max realtime timeout", "us" },
    };
    out_printf(o, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units");
    for (unsigned k = 0; k < RLIM_NLIMITS; k++) {
        out_printf(o, "%-25s ", names[k].name);
        const uint64_t v[2] = { p->rlim[k].cur, p->rlim[k].max };
        for (int j = 0; j < 2; j++) {
            if (v[j] == RLIM_INFINITY)
                out_printf(o, "%-20s ", "unlimited");
            else
                out_printf(o, "%-20llu ", (unsigned long long)v[j]);
        }
        if (names[k].unit)
            out_printf(o, "%-10s", names[k].unit);
        out_printf(o, "\n");
    }
}
