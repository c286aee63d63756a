/* System V message queues (msg.c; docs/linux/sysvipc.md): msgget, msgsnd, msgrcv, msgctl,
 * the /proc/sysvipc/msg listing. */
#ifndef LX_IPC_MSG_H
#define LX_IPC_MSG_H

#include <libl4.h>
#include <stddef.h>

struct thread;

long msg_msgget(struct thread *t, int key, unsigned flag);
long msg_msgsnd(struct thread *t, int msqid, l4_word_t umsgp, l4_word_t msgsz, int flag);
long msg_msgrcv(struct thread *t, int msqid, l4_word_t umsgp, l4_word_t msgsz, long msgtyp,
                int flag);
long msg_msgctl(struct thread *t, int msqid, int cmd, l4_word_t ubuf);
size_t msg_proc_show(char *buf, size_t size);
void msg_shutdown(void);         /* every object gone (ipc_shutdown) */

#endif
