/* Processes: making them (a struct process, its first thread and a pid), their place among
 * the others (parent and children, process group, session: lists, not a table), their L4
 * task (created through the root task, with lx as pager and handler) and starting a program
 * as a new process.  The end of a process is exit.c. */
#include "task/process.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/server.h"
#include "mm/mm.h"
#include "signal/signal.h"
#include "task/elf.h"
#include "task/exec.h"
#include "time/clock.h"
#include "vfs/file.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

/* kernel.threads-max: Linux's default for this much memory (a thread's 16 KiB stack in an
 * eighth of it, 20 .. 2^30 - 1); kept and shown, lx limits threads by its memory alone. */
static int threads_max;

static void show_threads_max(struct out *o, const struct sysctl *s)
{
    if (!threads_max) {             /* the pool is there by the first read */
        unsigned long n = page_total() / 32;
        threads_max = n < 20 ? 20 : n > 0x3FFFFFFF ? 0x3FFFFFFF : (int)n;
    }
    sysctl_show_int(o, s);
}

static struct sysctl process_sysctls[] = {
    { .path = "kernel/threads-max", .mode = 0644, .show = show_threads_max,
      .store = sysctl_store_int, .data = &threads_max, .min = 20, .max = 0x3FFFFFFF },
};
SYSCTL_TABLE(process_sysctls)

#define LX_PROCESS_PRIO 90          /* below lx (100): lx answers before they run on */

struct list process_all = LIST_INIT(process_all);
unsigned long process_nr_all, process_nr_live;

struct process *process_by_pid(int nr)
{
    struct pid *p = pid_find(nr);
    return p ? p->proc : NULL;
}

struct process *process_new(int *err)
{
    return process_new_at(0, err);
}

struct process *process_new_at(int nr, int *err)
{
    struct process *p = kmalloc(sizeof *p);
    struct thread *t = thread_alloc();
    int e = -EAGAIN;
    struct pid *pid = !p || !t ? NULL : nr ? pid_alloc_at(nr, &e) : pid_alloc();
    if (!pid) {
        *err = p && t ? e : -ENOMEM;
        kfree(p);
        if (t)
            thread_free(t);
        return NULL;
    }
    pid_get(pid);                   /* the process's, and the thread's below */
    pid->proc = p;
    pid->thread = t;
    p->pid = pid;
    p->state = PROCESS_LIVE;
    p->exit_signal = SIGCHLD;
    cred_init_root(&p->cred);       /* fork copies its parent's over it */
    p->start_us = lx_now() / 1000;
    list_init(&p->children);
    list_init(&p->sibling);
    list_init(&p->pgrp_link);
    list_init(&p->session_link);
    list_init(&p->threads);
    timer_init(&p->sig.real, signal_itimer_fired);
    t->tid = pid;
    t->proc = p;
    list_add_tail(&p->threads, &t->proc_link);
    p->nthreads = 1;
    list_add_tail(&process_all, &p->all_link);
    process_nr_all++;
    process_nr_live++;
    return p;
}

struct thread *process_new_thread(struct process *p, int *err)
{
    struct thread *t = thread_alloc();
    struct pid *tid = t ? pid_alloc() : NULL;
    if (!tid) {
        *err = t ? -EAGAIN : -ENOMEM;
        if (t)
            thread_free(t);
        return NULL;
    }
    tid->thread = t;
    t->tid = tid;
    t->proc = p;
    list_add_tail(&p->threads, &t->proc_link);
    p->nthreads++;
    return t;
}

int process_create_thread(struct thread *t, const struct thread *sibling)
{
    l4_word_t err;
    /* Any UTCB location of the foreign area will do: each thread's UTCB is the kernel's
     * (docs/linux-abi.md §2.1, docs/root-task.md §4.3). */
    t->l4 = l4_root_call(ROOT_THREAD_CREATE, sibling->l4, lx_self,
                         ROOT_FOREIGN_UTCB_AREA & ~0x3FFul, LX_PROCESS_PRIO, &err);
    if (!t->l4 || err) {
        printf("lx: pid %d: cannot create a thread (error %lu)\n", process_pid(t->proc), err);
        t->l4 = 0;
        return err == 8 ? -EAGAIN : -ENOMEM;
    }
    thread_hash_add(t);
    return 0;
}

/* *ref (linked into its list by link) becomes to, in to's list (head), references moved. */
static void relink(struct pid **ref, struct list *link, struct pid *to, struct list *head)
{
    pid_get(to);
    if (*ref) {
        list_del(link);
        pid_put(*ref);
    }
    *ref = to;
    list_add_tail(head, link);
}

void process_set_pgrp(struct process *p, struct pid *pgrp)
{
    relink(&p->pgrp, &p->pgrp_link, pgrp, &pgrp->pgrp);
}

void process_set_session(struct process *p, struct pid *session)
{
    relink(&p->session, &p->session_link, session, &session->session);
}

void process_attach(struct process *p, struct process *parent, struct pid *pgrp,
                    struct pid *session)
{
    p->parent = parent;
    if (parent)
        list_add_tail(&parent->children, &p->sibling);
    process_set_pgrp(p, pgrp);
    process_set_session(p, session);
}

int process_create_task(struct process *p)
{
    l4_word_t err;
    struct thread *t = process_thread(p);
    struct l4_task_params params = { .pager = lx_self, .priority = LX_PROCESS_PRIO,
                                     .flags = ROOT_TASK_FOREIGN };
    t->l4 = l4_task_create(&params, &err);
    if (!t->l4 || err) {
        printf("lx: cannot create a task (error %lu)\n", err);
        t->l4 = 0;
        return -EAGAIN;
    }
    thread_hash_add(t);
    return 0;
}

int process_start_task(struct process *p, l4_word_t entry, l4_word_t sp)
{
    int e = process_create_task(p);
    if (e)
        return e;
    /* The start message (the thread waits for it from its pager): every register 0 but
     * RIP and RSP, so RDX = 0 at _start as Linux leaves it (no atexit function). */
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, entry);
    l4_set_mr(2, sp);
    if (l4_ipc_failed(l4_reply(process_thread(p)->l4))) {
        printf("lx: cannot start pid %d\n", process_pid(p));
        return -EAGAIN;
    }
    return 0;
}

void process_drop_task(struct process *p)
{
    struct thread *t = process_thread(p);
    l4_word_t err;
    l4_root_call(ROOT_TASK_DELETE, t->l4, 0, 0, 0, &err);
    if (err)
        printf("lx: pid %d: cannot delete its task (error %lu)\n", process_pid(p), err);
    thread_hash_del(t);
    t->l4 = 0;
}

/* Linux's limits for init (INIT_RLIMITS), with RLIMIT_NOFILE's hard limit at fs.nr_open as
 * a systemd machine sets it: the programs lx starts get these, their children inherit. */
void process_rlimit_defaults(struct process *p)
{
    for (unsigned r = 0; r < RLIM_NLIMITS; r++)
        p->rlim[r] = (struct rlimit64){ RLIM_INFINITY, RLIM_INFINITY };
    p->rlim[RLIMIT_STACK].cur = 8ul << 20;
    p->rlim[RLIMIT_CORE].cur = 0;   /* no core files (and no core flag in wait statuses) */
    p->rlim[RLIMIT_NOFILE] = (struct rlimit64){ 1024, 1u << 20 };
    p->rlim[8] = (struct rlimit64){ 8ul << 20, 8ul << 20 };     /* RLIMIT_MEMLOCK */
    p->rlim[12] = (struct rlimit64){ 819200, 819200 };           /* RLIMIT_MSGQUEUE */
    p->rlim[13] = p->rlim[14] = (struct rlimit64){ 0, 0 };       /* RLIMIT_NICE, _RTPRIO */
}

struct process *process_spawn(struct mm *mm, l4_word_t entry, l4_word_t sp, const char *execfn,
                              int *err)
{
    int dummy;
    if (!err)
        err = &dummy;
    struct process *p = process_new(err);
    if (!p) {
        printf("lx: no process (error %d)\n", -*err);
        mm_put(mm, false);
        return NULL;
    }
    /* As Linux's init: no parent, process group and session 0 until it calls setsid. */
    process_attach(p, NULL, &pid0, &pid0);
    process_rlimit_defaults(p);
    struct thread *t = process_thread(p);
    t->mm = mm;
    *err = -ENOMEM;
    if (!vfs_task_init(t) || !(p->sighand = signal_sighand_new())) {
        printf("lx: out of memory\n");
        goto fail;
    }
    thread_set_comm(t, execfn);
    if ((*err = process_start_task(p, entry, sp))) {
        if (!t->l4)
            goto fail;
        process_exit(p, exit_status_code(0));
        return NULL;
    }
    return p;
fail:
    process_release(p);
    process_free(p);
    return NULL;
}
