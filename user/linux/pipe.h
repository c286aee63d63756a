/* Pipes, FIFOs, poll/select/epoll and the blocking of file I/O (docs/linux/pipes.md). */
#ifndef LX_PIPE_H
#define LX_PIPE_H

#include "vfs/vfs.h"

#define POLLIN     0x001
#define POLLPRI    0x002
#define POLLOUT    0x004
#define POLLERR    0x008
#define POLLHUP    0x010
#define POLLNVAL   0x020
#define POLLRDNORM 0x040
#define POLLRDBAND 0x080
#define POLLWRNORM 0x100
#define POLLWRBAND 0x200

#define PIPE_SIZE  65536ul          /* Linux's default pipe capacity */
#define PIPE_BUF   4096ul           /* writes up to this size are atomic */
#define FIONREAD   0x541B
#define FIONBIO    0x5421

/* The file operations of a pipe's (or FIFO's) ends; the pipe hangs off the inode. */
extern const struct file_ops pipe_ops;
/* A FIFO being opened: its pipe (made on first open) counts the new end; 0 or -ENOMEM. */
int pipe_fifo_open(struct inode *i, unsigned flags);

/* What f's poll op says now (NULL op: readable and writable); with t, t is put on the
 * queues whose wake may change it. */
unsigned file_poll(struct file *f, struct task *t);
/* ppoll/pselect6/epoll_pwait's signal mask (sys_poll.c): kept in the task for the wait, for
 * the signal layer; 0, -EINVAL (size not 8) or -EFAULT.  A rerun keeps the first one. */
int poll_get_sigmask(struct task *t, l4_word_t umask, l4_word_t size);

/* A write or writev parked with part of its bytes moved (t->io_done) that a signal ends:
 * the value to answer (that count, as Linux does), or 0 if nothing moved (then EINTR or a
 * restart, as for any parked call).  For the signal layer. */
l4_word_t pipe_io_partial(const struct task *t);

long sys_pipe(struct task *, const struct sysargs *);
long sys_pipe2(struct task *, const struct sysargs *);
long sys_poll(struct task *, const struct sysargs *);
long sys_ppoll(struct task *, const struct sysargs *);
long sys_select(struct task *, const struct sysargs *);
long sys_pselect6(struct task *, const struct sysargs *);
long sys_mknod(struct task *, const struct sysargs *);
long sys_mknodat(struct task *, const struct sysargs *);
/* epoll.c */
long sys_epoll_create(struct task *, const struct sysargs *);
long sys_epoll_create1(struct task *, const struct sysargs *);
long sys_epoll_ctl(struct task *, const struct sysargs *);
long sys_epoll_wait(struct task *, const struct sysargs *);
long sys_epoll_pwait(struct task *, const struct sysargs *);
long sys_epoll_pwait2(struct task *, const struct sysargs *);

#endif
