/* System V shared memory (shm.c; docs/linux/sysvipc.md): shmget, shmat, shmdt, shmctl, the
 * attachments' names in /proc/PID/maps, the /proc/sysvipc/shm listing. */
#ifndef LX_IPC_SHM_H
#define LX_IPC_SHM_H

#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>

struct thread;
struct inode;

long shm_shmget(struct thread *t, int key, l4_word_t size, unsigned flag);
long shm_shmat(struct thread *t, int shmid, l4_word_t addr, unsigned flag);
long shm_shmdt(struct thread *t, l4_word_t addr);
long shm_shmctl(struct thread *t, int shmid, int cmd, l4_word_t ubuf);
/* The process whose regions go next (exit, exec): shm_lpid of what it had attached. */
void shm_closing(int pid);
/* Is i a segment's file?  Then its /proc/PID/maps name ("/SYSV%08x (deleted)") into buf. */
bool shm_maps_name(struct inode *i, char *buf, size_t size);
size_t shm_proc_show(char *buf, size_t size);
void shm_shutdown(void);         /* every object gone (ipc_shutdown) */

#endif
