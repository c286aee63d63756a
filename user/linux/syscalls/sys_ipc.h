/* syscalls/sys_ipc.c: System V IPC's handlers (the table's entries 29-31, 64-71, 220). */
#ifndef LX_SYSCALLS_SYS_IPC_H
#define LX_SYSCALLS_SYS_IPC_H

#include "park/park.h"

struct thread;

long sys_shmget(struct thread *, const struct sysargs *);
long sys_shmat(struct thread *, const struct sysargs *);
long sys_shmctl(struct thread *, const struct sysargs *);
long sys_semget(struct thread *, const struct sysargs *);
long sys_semop(struct thread *, const struct sysargs *);
long sys_semctl(struct thread *, const struct sysargs *);
long sys_shmdt(struct thread *, const struct sysargs *);
long sys_msgget(struct thread *, const struct sysargs *);
long sys_msgsnd(struct thread *, const struct sysargs *);
long sys_msgrcv(struct thread *, const struct sysargs *);
long sys_msgctl(struct thread *, const struct sysargs *);
long sys_semtimedop(struct thread *, const struct sysargs *);

#endif
