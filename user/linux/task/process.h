/* Processes (process.c, exit.c): a struct process is a thread group, Linux's signal_struct
 * and the process half of its task_struct: the pid, the parent and the children, process
 * group and session, the exit status, the actions and the signals sent to the process, the
 * executable.  Its threads are struct thread (thread.h); each process is one L4 task of the
 * foreign system-call ABI whose pager and handler is lx.  No table of processes: they are
 * found by pid (pid.h), by their L4 thread (thread.h), or through the lists here (a parent's
 * children, a group's members, all processes for kill(-1)). */
#ifndef LX_TASK_PROCESS_H
#define LX_TASK_PROCESS_H

#include "lib/list.h"
#include "park/waitq.h"
#include "signal/sigstate.h"
#include "task/cred.h"
#include "task/exit_status.h"
#include "task/pid.h"
#include "task/thread.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

#define LX_ARGV_MAX  32

/* Resource limits (getrlimit/setrlimit/prlimit64: syscalls/sys_system.c), the process's as
 * Linux's signal_struct holds them. */
#define RLIM_NLIMITS  16
#define RLIMIT_STACK  3
#define RLIMIT_CORE   4
#define RLIMIT_NOFILE 7
#define RLIM_INFINITY (~0ull)
struct rlimit64 { uint64_t cur, max; };

enum process_state { PROCESS_LIVE, PROCESS_ZOMBIE };
struct sem_undo_list;

struct posix_timers;

struct process {
    struct pid *pid;                /* the thread-group id (its first thread's tid) */
    enum process_state state;
    struct list all_link;           /* in the list of all processes (kill -1) */
    struct process *parent;         /* NULL: none (the programs lx starts, init's orphans) */
    struct list children;           /* its children, living and zombies (by sibling) */
    struct list sibling;
    struct pid *pgrp, *session;     /* its process group and session (held) */
    struct list pgrp_link, session_link;
    struct list threads;            /* struct thread, by proc_link (the leader first) */
    unsigned nthreads;              /* ... that have not ended */
    struct exit_status exit;        /* a zombie's, as wait reports it */
    int exit_signal;                /* sent to the parent at the end (clone's low byte) */
    bool execed;                    /* has called execve (setpgid by the parent: EACCES) */
    struct sighand *sighand;        /* the actions (a reference; CLONE_SIGHAND shares) */
    struct proc_sigstate sig;       /* shared pending set, group stop, ITIMER_REAL */
    struct waitq child_wait;        /* wait4 and waitid: a child changed state */
    char *exe;                      /* exec.c: the executable's absolute path (kmalloc) */
    struct inode *exe_inode;        /* exec.c: and its file (a reference), NULL: a module */
    uint64_t start_us;              /* when it was made (/proc/PID/stat) */
    uint64_t cutime, cstime;        /* of its reaped children (TSC ticks) */
    uint64_t dead_utime, dead_stime;    /* of its threads that have ended (TSC ticks) */
    struct cred cred;               /* its threads' (task/cred.h); lx's programs: root */
    struct sem_undo_list *sysvsem;  /* ipc/sem.c: its SEM_UNDO adjustments (NULL: none) */
    unsigned membarrier;            /* membarrier's registrations (MEMBARRIER_CMD_REGISTER_*) */
    struct rlimit64 rlim[RLIM_NLIMITS]; /* set at its start (Linux's defaults), inherited */
    struct posix_timers *ptimers;   /* time/posix_timer.c: timer_create's (NULL: none yet) */
};

/* The process with that pid (zombies too), or NULL. */
struct process *process_by_pid(int nr);
/* Its first thread that has not ended (the leader, unless it exited before the others), or
 * NULL once the process has ended. */
static inline struct thread *process_thread(const struct process *p)
{
    struct thread *t = list_first(&p->threads, struct thread, proc_link);
    if (t && __builtin_expect(t->exited, 0))
        t = t->proc_link.next != &p->threads ?
            list_entry(t->proc_link.next, struct thread, proc_link) : NULL;
    return t;
}
/* The memory of a process that has not ended (NULL: a zombie's is gone). */
static inline struct mm *process_mm(const struct process *p)
{
    struct thread *t = p->state == PROCESS_LIVE ? process_thread(p) : NULL;
    return t ? t->mm : NULL;
}
static inline int process_pid(const struct process *p) { return p->pid->nr; }
static inline int process_pgid(const struct process *p) { return p->pgrp->nr; }
static inline int process_sid(const struct process *p) { return p->session->nr; }
static inline int thread_pid(const struct thread *t) { return t->proc->pid->nr; }
/* The parent's pid as getppid sees it (0: none). */
static inline int process_ppid(const struct process *p)
{
    return p->parent ? p->parent->pid->nr : 0;
}

/* A new process with one thread and a new pid, belonging to nothing yet (no parent, group
 * or L4 task); NULL with *err (-EAGAIN: no pid, -ENOMEM). */
struct process *process_new(int *err);
struct process *process_new_at(int nr, int *err);   /* pid nr (0: the next one) */
/* A new thread of p with a new tid, last in p's list, no L4 thread yet; NULL with *err. */
struct thread *process_new_thread(struct process *p, int *err);
/* t's L4 thread in the task of sibling's (a thread of its process), waiting for its start
 * message: 0 or -errno. */
int process_create_thread(struct thread *t, const struct thread *sibling);
/* Into parent's children (NULL: none) and the group and session given. */
void process_attach(struct process *p, struct process *parent, struct pid *pgrp,
                    struct pid *session);
/* Move p into another process group (setpgid, setsid). */
void process_set_pgrp(struct process *p, struct pid *pgrp);
void process_set_session(struct process *p, struct pid *session);
/* The L4 task of p's thread (pager and handler lx), waiting for its start message: 0 or
 * -errno. */
int process_create_task(struct process *p);
/* A new L4 task for p's only thread, started at entry with the stack sp (every other
 * register 0): 0 or -errno (t->l4 0 if no task was made). */
int process_start_task(struct process *p, l4_word_t entry, l4_word_t sp);
/* p's L4 task deleted (with its mappings), its only thread without an L4 thread. */
void process_drop_task(struct process *p);
/* Every process in turn (kill -1, /proc's counts). */
extern struct list process_all;
extern unsigned long process_nr_all;    /* processes that exist (zombies too) */
extern unsigned long process_nr_live;   /* ... that have not ended */
/* A new process with the memory model mm (its reference moved in, or dropped on failure),
 * started at entry with the stack sp (task/exec.c's exec_spawn loads it); NULL with *err (if
 * err).  Its parent, group and session are none, as Linux's init's. */
struct process *process_spawn(struct mm *mm, l4_word_t entry, l4_word_t sp, const char *execfn,
                              int *err);
void process_rlimit_defaults(struct process *p);    /* the limits a program lx starts gets */

/* --- the end of a process (exit.c): one teardown path, one exit status --- */
/* Take everything p holds (its L4 task, memory, files, executable, timers, parked call):
 * the end of every process, and the undoing of every one that failed to start. */
void process_release(struct process *p);
/* One thread ends, not the last one of its process (exit(2), de_thread, a clone that failed):
 * its robust list and clear_child_tid seen to, its L4 thread deleted, its state released;
 * the leader stays listed as a zombie until the process ends. */
void thread_exit(struct thread *t);
/* The other threads of t's process end (execve, exit_group of t): t is left alone. */
void thread_kill_others(struct thread *t);
/* End a process with status: released, its parent told (a zombie until reaped, or freed at
 * once with no parent that waits); its children go to init.  Clobbers the MRs. */
void process_exit(struct process *p, struct exit_status status);
/* A zombie reaped (or a process that never started, after process_release): gone.  Its
 * memory goes at the end of the message (exit_flush): the caller may still hold pointers. */
void process_free(struct process *p);
bool exit_pending(void);            /* anything for exit_flush? */
void exit_flush(void);              /* the receive loop, between messages */
/* A fatal fault: report it and end the process as killed by signal sig (main.c); core: a
 * core file was written (task/coredump.c). */
void process_fault_kill(struct thread *t, int sig, const char *what, l4_word_t addr,
                        l4_word_t ip, bool core);

/* A child of parent changed state: the parent's parked wait4 looks again (wait.c). */
static inline void wait_child_changed(struct process *parent)
{
    waitq_wake(&parent->child_wait);
}

#endif
