/* The end of a process, in one place: process_release takes what it holds (used by exit and
 * by every failure path of spawn and fork), process_exit tells the parent and hands the
 * children to init, process_free makes a reaped zombie go.  Structures are freed at the end
 * of the message that ended them (exit_flush, from the receive loop): a handler's caller may
 * still look at its thread after the handler ended the process. */
#include "task/process.h"
#include "ipc/util.h"
#include "lib/kmalloc.h"
#include "lib/server.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "task/acct.h"
#include "task/clone.h"
#include "task/cputime.h"
#include "task/exec.h"
#include "task/futex.h"
#include "task/ptrace.h"
#include "time/posix_timer.h"
#include "tty/tty.h"
#include "vfs/file.h"
#include "vfs/vfs.h"
#include "l4chan/l4chan.h"
#include <stdio.h>

/* Freed at the end of the message: processes by all_link, threads by proc_link. */
static struct list dead_processes = LIST_INIT(dead_processes);
static struct list dead_threads = LIST_INIT(dead_threads);

/* What a thread's end does to its memory (Linux's mm_release): the robust futexes it holds
 * are marked FUTEX_OWNER_DIED with a waiter woken each; clear_child_tid is zeroed and one
 * waiter woken (pthread_join), if anyone else still uses the memory; a vfork parent goes on.
 * Not for a thread that never ran (a clone that failed). */
static void thread_mm_release(struct thread *t)
{
    if (!t->mm || t->park.kind == PARK_START)
        return;
    fork_vfork_done(t);             /* a parent parked in vfork for it goes on */
    futex_exit_robust_list(t);      /* its robust list, and every PI futex it owns */
    t->robust_list = 0;
    if (t->clear_child_tid && t->mm->users > 1) {
        static const int zero;
        if (!copy_to_user(t->mm, t->clear_child_tid, &zero, sizeof zero))
            futex_wake(t, t->clear_child_tid, 1, false);
    }
    t->clear_child_tid = 0;
}

/* Everything t holds; space_lives: its L4 task goes on (only the thread ends). */
static void thread_release(struct thread *t, bool space_lives)
{
    if (t->exited)
        return;
    thread_mm_release(t);
    park_thread_exit(t);
    ptrace_thread_exit(t);
    signal_thread_exit(t);
    if (t->l4)
        thread_hash_del(t);
    t->l4 = 0;                      /* no reply reaches it any more */
    vfs_task_exit(t);
    if (t->mm)
        mm_put(t->mm, space_lives);
    t->mm = NULL;
}

void process_release(struct process *p)
{
    struct thread *t;
    /* The L4 task first: its mappings go with it, so the pages need no revoking. */
    struct thread *first = process_thread(p);
    if (first && first->l4) {
        l4_word_t err;
        l4_root_call(ROOT_TASK_DELETE, first->l4, 0, 0, 0, &err);
        if (err)
            printf("lx: pid %d: cannot delete its task (error %lu)\n", process_pid(p), err);
    }
    l4chan_process_leave(p);        /* its channels' partners lose it */
    ipc_exit_begin(p);              /* its attachments' shm_lpid */
    list_each(t, &p->threads, proc_link)
        thread_release(t, false);
    ipc_process_exit(p);            /* SEM_UNDO, once its calls have left their queues */
    posix_timers_release(p);
    signal_process_exit(p);
    task_drop_exe(p);
}

void thread_exit(struct thread *t)
{
    struct process *p = t->proc;
    if (t->l4 && !t->exited) {
        l4_word_t err;
        l4_root_call(ROOT_THREAD_DELETE, t->l4, 0, 0, 0, &err);
        if (err)
            printf("lx: tid %d: cannot delete its thread (error %lu)\n", t->tid->nr, err);
    }
    thread_release(t, true);
    if (!t->exited)
        p->nthreads--;
    t->l4 = 0;
    if (t->tid == p->pid) {
        t->exited = true;           /* the leader: a zombie in /proc until the process ends */
        return;
    }
    cpu_thread_gone(t);
    list_del(&t->proc_link);
    t->tid->thread = NULL;
    pid_put(t->tid);
    list_add_tail(&dead_threads, &t->proc_link);
    lx_work = true;
    signal_retarget(p);             /* what t was to take, another thread takes */
}

void thread_kill_others(struct thread *t)
{
    struct thread *u, *n;
    list_each_safe(u, n, &t->proc->threads, proc_link)
        if (u != t)
            thread_exit(u);
}

/* Where p's children go (Linux's find_new_reaper): init, unless init is what ends. */
static struct process *reaper_for(const struct process *p)
{
    struct process *init = process_by_pid(1);
    return init && init != p && init->state == PROCESS_LIVE ? init : NULL;
}

static void reparent_children(struct process *p)
{
    struct process *reaper = reaper_for(p), *c, *n;
    list_each_safe(c, n, &p->children, sibling) {
        list_del(&c->sibling);
        c->parent = reaper;
        if (reaper)
            list_add_tail(&reaper->children, &c->sibling);
        if (c->state != PROCESS_ZOMBIE)
            continue;
        /* An ended child: its new parent hears of it, as Linux's reparenting does. */
        if (!reaper || signal_child_autoreap(reaper, c))
            process_free(c);
        else
            signal_child_event(c, c->exit);
    }
}

void process_exit(struct process *p, struct exit_status status)
{
    acct_process(p, status);        /* before the teardown: its memory and times */
    ptrace_process_exit(p, status);     /* its tracers hear of it, its tracees go free */
    process_release(p);
    if (status.kind == EXIT_KILLED)
        printf("lx: pid %d killed by signal %d%s\n", process_pid(p), status.value,
               status.core ? " (core dumped)" : "");
    else
        printf("lx: pid %d exited with status %d\n", process_pid(p), status.value);
    p->exit = status;
    p->state = PROCESS_ZOMBIE;
    process_nr_live--;
    tty_task_exit(p);               /* a session leader's terminal hangs up (tty/tty.c) */
    reparent_children(p);
    struct process *parent = p->parent;
    if (!parent) {
        process_free(p);
        return;
    }
    /* SIGCHLD (or clone's exit signal) with its siginfo; the parent's wait4 looks again.  A
     * parent that ignores SIGCHLD (or has SA_NOCLDWAIT) leaves no zombies. */
    signal_child_event(p, status);
    if (signal_child_autoreap(parent, p))
        process_free(p);
}

void process_free(struct process *p)
{
    struct thread *t, *n;
    if (p->parent)
        list_del(&p->sibling);
    p->parent = NULL;
    if (p->state == PROCESS_LIVE)   /* one that never started */
        process_nr_live--;
    process_nr_all--;
    signal_process_free(p);
    list_each_safe(t, n, &p->threads, proc_link) {
        list_del(&t->proc_link);
        t->tid->thread = NULL;
        pid_put(t->tid);
        list_add_tail(&dead_threads, &t->proc_link);
    }
    list_del(&p->pgrp_link);
    list_del(&p->session_link);
    pid_put(p->pgrp);
    pid_put(p->session);
    p->pid->proc = NULL;
    pid_put(p->pid);
    list_del(&p->all_link);
    list_add_tail(&dead_processes, &p->all_link);
    lx_work = true;
}

bool exit_pending(void)
{
    return !list_empty(&dead_processes) || !list_empty(&dead_threads);
}

void exit_flush(void)
{
    while (!list_empty(&dead_threads)) {
        struct thread *t = list_entry(dead_threads.next, struct thread, proc_link);
        list_del(&t->proc_link);
        thread_free(t);
    }
    while (!list_empty(&dead_processes)) {
        struct process *p = list_entry(dead_processes.next, struct process, all_link);
        list_del(&p->all_link);
        cred_release(&p->cred);
        kfree(p);
    }
}

static const char *signame(int sig)
{
    switch (sig) {
    case 4: return "SIGILL";
    case 5: return "SIGTRAP";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    default: return "signal";
    }
}

void process_fault_kill(struct thread *t, int sig, const char *what, l4_word_t addr,
                        l4_word_t ip, bool core)
{
    printf("lx: pid %d: %s at %lx (ip %lx): killed by %s%s\n", thread_pid(t), what, addr, ip,
           signame(sig), core ? " (core dumped)" : "");
    process_exit(t->proc, exit_status_dumped(sig, core));
}
