/* Threads (thread.c): one struct thread per L4 thread of a Linux process, what Linux keeps in
 * a task_struct that is not shared: its ids, its signal mask and thread-directed signals,
 * CPU time, comm, and the state of its current call (struct park).  Its memory, open files
 * and working directory are references to shared objects, as in Linux's task_struct,
 * Sentry's Task and starnix's Task: every thread of a process has the process's mm
 * (CLONE_THREAD needs CLONE_VM), while files and fs follow clone's CLONE_FILES and CLONE_FS.
 * Every message lx gets is from a thread: thread_by_l4 finds it, by a hash of its L4 id. */
#ifndef LX_TASK_THREAD_H
#define LX_TASK_THREAD_H

#include "lib/list.h"
#include "mm/mm.h"
#include "park/park.h"
#include "signal/sigstate.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct pid;
struct process;
struct fdtable;
struct fs_struct;
struct tracee;

struct thread {
    struct pid *tid;                /* its Linux thread id (the first thread's is the pid) */
    l4_word_t l4;                   /* its L4 thread (global id); 0 before it exists */
    struct process *proc;
    bool exited;                    /* a leader that ended before its threads (Linux's zombie
                                     * leader): in proc->threads, holding nothing */
    struct list proc_link;          /* in proc->threads */
    struct thread *l4_next;         /* the L4-id hash chain (thread.c) */
    struct mm *mm;                  /* the process's memory (a reference) */
    struct fdtable *files;          /* vfs/: open files (a reference; CLONE_FILES shares) */
    struct fs_struct *fs;           /* vfs/: cwd and umask (a reference; CLONE_FS shares) */
    struct sigstate sig;            /* signal/: its mask, pending set, delivery */
    l4_word_t clear_child_tid;      /* set_tid_address, CLONE_CHILD_CLEARTID */
    int vfork_parent;               /* the tid parked in vfork until it execs or ends (0) */
    l4_word_t robust_list;          /* set_robust_list: the head (recorded) */
    unsigned long nsyscalls;
    uint64_t cpu_mark;              /* TSC when lx last let it run; 0 while lx holds it */
    uint64_t utime, stime;          /* estimated CPU time (TSC ticks): cputime.c */
    char comm[16];                  /* its name: the executable's, or prctl(PR_SET_NAME) */
    uint16_t ioprio;                /* ioprio_set's I/O priority, 0 until set (sys_ioprio.c) */
    struct park park;               /* park/: the call lx has not answered yet */
    struct restart_block restart;   /* park/: how restart_syscall(2) goes on */
    struct tracee *trace;           /* task/ptrace.c: its tracer's hold on it (NULL: none) */
};

/* The thread whose L4 id this is (every message looks it up), or NULL. */
struct thread *thread_by_l4(l4_word_t l4);
void thread_hash_add(struct thread *t);     /* t->l4 set */
void thread_hash_del(struct thread *t);
unsigned long thread_count(void);           /* threads in the hash (running) */
struct thread *thread_alloc(void);          /* zeroed, lists initialised; NULL: no memory */
void thread_free(struct thread *t);
void thread_set_comm(struct thread *t, const char *path);  /* the last component, 15 bytes */
/* Answer t's parked (or current) system call now, with RAX = value. */
void thread_reply(struct thread *t, long value);

#endif
