/* System V IPC's system calls (docs/linux/sysvipc.md): the arguments as Linux's
 * SYSCALL_DEFINEs type them (ints truncated from the registers), then ipc/. */
#include "syscalls/sys_ipc.h"
#include "ipc/msg.h"
#include "ipc/sem.h"
#include "ipc/shm.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/thread.h"

long sys_shmget(struct thread *t, const struct sysargs *a)
{
    return shm_shmget(t, (int)a->a[0], a->a[1], (unsigned)a->a[2]);
}

long sys_shmat(struct thread *t, const struct sysargs *a)
{
    return shm_shmat(t, (int)a->a[0], a->a[1], (unsigned)a->a[2]);
}

long sys_shmctl(struct thread *t, const struct sysargs *a)
{
    return shm_shmctl(t, (int)a->a[0], (int)a->a[1], a->a[2]);
}

long sys_shmdt(struct thread *t, const struct sysargs *a)
{
    return shm_shmdt(t, a->a[0]);
}

long sys_semget(struct thread *t, const struct sysargs *a)
{
    return sem_semget(t, (int)a->a[0], (int)a->a[1], (unsigned)a->a[2]);
}

long sys_semop(struct thread *t, const struct sysargs *a)
{
    return sem_semop(t, (int)a->a[0], a->a[1], (unsigned)a->a[2], NULL);
}

long sys_semtimedop(struct thread *t, const struct sysargs *a)
{
    int64_t ts[2];
    if (!a->a[3])
        return sem_semop(t, (int)a->a[0], a->a[1], (unsigned)a->a[2], NULL);
    if (!park_retrying(t) && copy_from_user(t->mm, ts, a->a[3], sizeof ts))
        return -EFAULT;
    return sem_semop(t, (int)a->a[0], a->a[1], (unsigned)a->a[2], ts);
}

long sys_semctl(struct thread *t, const struct sysargs *a)
{
    return sem_semctl(t, (int)a->a[0], (int)a->a[1], (int)a->a[2], a->a[3]);
}

long sys_msgget(struct thread *t, const struct sysargs *a)
{
    return msg_msgget(t, (int)a->a[0], (unsigned)a->a[1]);
}

long sys_msgsnd(struct thread *t, const struct sysargs *a)
{
    return msg_msgsnd(t, (int)a->a[0], a->a[1], a->a[2], (int)a->a[3]);
}

long sys_msgrcv(struct thread *t, const struct sysargs *a)
{
    return msg_msgrcv(t, (int)a->a[0], a->a[1], a->a[2], (long)a->a[3], (int)a->a[4]);
}

long sys_msgctl(struct thread *t, const struct sysargs *a)
{
    return msg_msgctl(t, (int)a->a[0], (int)a->a[1], a->a[2]);
}
