/* The handlers of the calls that were "not yet" in lx's table until stop 20 (table.c). */
#ifndef LX_SYSCALLS_HANDLERS_REST_H
#define LX_SYSCALLS_HANDLERS_REST_H

#include "park/park.h"

struct thread;
struct process;

/* syscalls/sys_sched_attr.c: sched_setattr, sched_getattr, sched_rr_get_interval */
long sys_sched_setattr(struct thread *, const struct sysargs *);
long sys_sched_getattr(struct thread *, const struct sysargs *);
long sys_sched_rr_get_interval(struct thread *, const struct sysargs *);
/* syscalls/sys_system.c: the process of a scheduling call's thread id (0: t's), or NULL */
struct process *sched_target(struct thread *t, l4_word_t pid);

/* syscalls/sys_ioprio.c: I/O priorities, per thread */
long sys_ioprio_set(struct thread *, const struct sysargs *);
long sys_ioprio_get(struct thread *, const struct sysargs *);
void ioprio_fork(struct thread *child, const struct thread *parent);  /* Linux's copy_io */

/* tty/tty.c: vhangup */
long sys_vhangup(struct thread *, const struct sysargs *);
/* syscalls/sys_mount.c: pivot_root's checks */
long sys_pivot_root(struct thread *, const struct sysargs *);
/* syscalls/sys_mm.c: remap_file_pages, and madvise on any process's memory */
long sys_remap_file_pages(struct thread *, const struct sysargs *);
struct mm;
long mm_madvise(struct mm *mm, l4_word_t addr, l4_word_t len, l4_word_t advice);
/* syscalls/sys_pidfd.c: process_madvise, process_mrelease */
long sys_process_madvise(struct thread *, const struct sysargs *);
long sys_process_mrelease(struct thread *, const struct sysargs *);

#endif
