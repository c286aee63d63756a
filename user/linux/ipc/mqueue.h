/* POSIX message queues (mqueue.c; docs/linux/mqueue.md): the mqueue file system's queues by
 * name, their open files (fds of their own: close, dup, fork and poll as any fd; close-on-exec
 * always, as Linux's mq_open), the messages in priority order, blocking senders and receivers
 * parked, mq_notify's signal, and the limits of /proc/sys/fs/mqueue. */
#ifndef LX_IPC_MQUEUE_H
#define LX_IPC_MQUEUE_H

#include <libl4.h>
#include <stdint.h>

struct thread;

struct mq_attr_k {                  /* Linux's struct mq_attr (64 bytes) */
    long mq_flags, mq_maxmsg, mq_msgsize, mq_curmsgs, reserved[4];
};

/* The calls, each with Linux's checks in Linux's order (the name is the kernel's: no '/').
 * timeout: lx_now() at which a blocked call ends with ETIMEDOUT; 0: none. */
long mq_open_k(struct thread *t, const char *name, int oflag, unsigned mode,
               const struct mq_attr_k *attr);
long mq_unlink_k(struct thread *t, const char *name);
long mq_send_k(struct thread *t, int fd, l4_word_t umsg, size_t len, unsigned prio,
               uint64_t timeout);
long mq_receive_k(struct thread *t, int fd, l4_word_t umsg, size_t len, l4_word_t uprio,
                  uint64_t timeout);
/* sev: Linux's struct sigevent's notify, signo, value (NULL: remove); -errno or 0. */
long mq_notify_k(struct thread *t, int fd, const int *notify, int signo, l4_word_t value,
                 l4_word_t cookie);
long mq_getsetattr_k(struct thread *t, int fd, const struct mq_attr_k *new,
                     struct mq_attr_k *old);

/* The end of the run (no process left): every queue and count goes. */
void mqueue_shutdown(void);

#endif
