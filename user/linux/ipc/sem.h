/* System V semaphores (sem.c; docs/linux/sysvipc.md): semget, semop/semtimedop, semctl,
 * the SEM_UNDO adjustments of a process, the /proc/sysvipc/sem listing. */
#ifndef LX_IPC_SEM_H
#define LX_IPC_SEM_H

#include <libl4.h>
#include <stdint.h>

struct thread;
struct process;
struct out;

#define SEMVMX  32767
#define SEMAEM  SEMVMX
#define SEM_UNDO 0x1000

long sem_semget(struct thread *t, int key, int nsems, unsigned flag);
/* ts: semtimedop's timeout as the caller gave it (NULL: semop, none). */
long sem_semop(struct thread *t, int semid, l4_word_t usops, unsigned nsops, const int64_t *ts);
long sem_semctl(struct thread *t, int semid, int semnum, int cmd, l4_word_t arg);
/* The adjustments of p's SEM_UNDO operations applied (its end). */
void sem_exit(struct process *p);
/* /proc/sysvipc/sem's text into buf (size bytes): its length (cut at size). */
size_t sem_proc_show(char *buf, size_t size);
void sem_shutdown(void);         /* every object gone (ipc_shutdown) */

#endif
