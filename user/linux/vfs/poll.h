/* Readiness of open files (poll, select, epoll: docs/linux/pipes.md, "Readiness"). */
#ifndef LX_VFS_POLL_H
#define LX_VFS_POLL_H

#include "vfs/file.h"

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

/* What f's poll op says now to the caller t (NULL op: readable and writable); with wait,
 * t is put on the queues whose wake may change it.  (signalfd's answer is the caller's.) */
static inline unsigned file_poll(struct file *f, struct thread *t, bool wait)
{
    struct poll_table pt = { .t = t };
    if (f->ops->poll)
        return f->ops->poll(t, f, wait ? &pt : NULL);
    return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
}

/* ppoll/pselect6/epoll_pwait's signal mask (syscalls/sys_poll.c): on the call's first run the
 * thread's mask for the wait, as rt_sigsuspend's (signal_set_temp_mask); 0, -EINVAL (size
 * not 8) or -EFAULT.  poll_done(t, r): the call's result r; unless it parked, the old mask is
 * back (a signal that interrupts the call restores it through the handler's frame). */
int poll_set_sigmask(struct thread *t, l4_word_t umask, l4_word_t size);
long poll_done(struct thread *t, long r);

#endif
