/* The handlers of queued signals, CPU-time interval timers and POSIX message queues
 * (sys_signal.c, sys_mqueue.c): docs/linux/signals.md, docs/linux/mqueue.md. */
#ifndef LX_SYSCALLS_SIGMQ_H
#define LX_SYSCALLS_SIGMQ_H

#include "syscalls/handlers.h"

long sys_rt_sigqueueinfo(struct thread *, const struct sysargs *);
long sys_rt_tgsigqueueinfo(struct thread *, const struct sysargs *);
long sys_mq_open(struct thread *, const struct sysargs *);
long sys_mq_unlink(struct thread *, const struct sysargs *);
long sys_mq_timedsend(struct thread *, const struct sysargs *);
long sys_mq_timedreceive(struct thread *, const struct sysargs *);
long sys_mq_notify(struct thread *, const struct sysargs *);
long sys_mq_getsetattr(struct thread *, const struct sysargs *);

#endif
