/* Process ids (pid.c): Linux's struct pid, one object per number in use, and the table that
 * finds them by number.  A number is in use while anything refers to it: the thread whose
 * tid it is, the process whose pid (thread-group id) it is, the members of the process group
 * and of the session it names, the tty whose foreground group or session it is; so a number
 * is never given to a new process while an old group or session still goes by it. */
#ifndef LX_TASK_PID_H
#define LX_TASK_PID_H

#include "lib/list.h"
#include <stdbool.h>

struct thread;
struct process;

/* /proc/sys/kernel/pid_max of Debian's 6.1 kernel in QEMU (one CPU: PID_MAX_DEFAULT); after
 * the largest, numbers start again above RESERVED_PIDS (Linux's alloc_pid). */
#define PID_MAX       32768
#define RESERVED_PIDS 300
/* kernel.pid_max (task/pid_sysctl.c): new numbers stay below it; at most PID_MAX, the
 * table's size (Linux's ceiling, 2^22, is EINVAL here). */
extern int pid_max;

struct pid {
    int nr;
    unsigned refs;                  /* every holder, including the users below */
    struct thread *thread;          /* the thread with this tid, or NULL */
    struct process *proc;           /* the process with this pid (zombies too), or NULL */
    struct list pgrp;               /* the processes of process group nr (pgrp_link) */
    struct list session;            /* the processes of session nr (session_link) */
};

/* Group and session 0: the programs lx starts are in them, as Linux's init (never freed). */
extern struct pid pid0;

/* A new number (refs 1, no users yet), or NULL: none free, or no memory. */
struct pid *pid_alloc(void);
/* That number (clone3's set_tid), or NULL with *err: -EINVAL out of range, -EEXIST in use. */
struct pid *pid_alloc_at(int nr, int *err);
void pid_get(struct pid *p);
void pid_put(struct pid *p);        /* the last reference frees the number */
struct pid *pid_find(int nr);       /* NULL: not in use */
struct pid *pid_find_ge(int nr);    /* the first number >= nr in use, or NULL (/proc) */
unsigned long pid_count(void);      /* numbers in use */
int pid_last(void);                 /* the number handed out last (/proc/loadavg) */

#endif
