/* fork, vfork and clone (clone.c): the steps of its protocol that arrive as messages of
 * their own (docs/linux-server.md, "fork, vfork, clone"). */
#ifndef LX_TASK_CLONE_H
#define LX_TASK_CLONE_H

#include <stdbool.h>

struct process;
struct thread;

/* The parent's registers arrived (its fork's GET_REGS): make the child; true if the MRs
 * hold the reply to the parent. */
bool fork_regs(struct thread *parent);
/* Its FPU state is saved (the signal page's LX_SYS_FORK_FPU call): make the child; true
 * if the MRs hold the reply to the parent. */
bool fork_fpu_saved(struct thread *parent);
/* A child's first message (the pending interrupt set at its start): its registers. */
void fork_child_start(struct thread *child);
/* A child (a process's thread, or a thread made with CLONE_VFORK) ended or exec'ed: a parent
 * parked in vfork for it goes on (Linux's complete_vfork_done).  Clobbers the MRs. */
void fork_vfork_done(struct thread *child);

#endif
