/* /proc/N/fdinfo/FD (docs/linux/proc.md, "fdinfo"): Linux's seq_show in fs/proc/fd.c (the
 * position, the open flags in octal with O_CLOEXEC from the fd table, the mount id and the
 * inode number), then what the file's kind adds (file_ops.show_fdinfo: eventfd, epoll,
 * inotify, timerfd, signalfd, pidfd, AF_UNIX sockets). */
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include "task/thread.h"

int proc_fdinfo(struct out *o, struct thread *owner, int fd)
{
    static char more[16384];
    struct file *f = fd_get(owner, fd);
    if (!f)
        return -ENOENT;
    unsigned flags = f->flags | (fd_cloexec(owner, (unsigned)fd) ? O_CLOEXEC : 0);
    struct inode *i = f->inode;
    out_printf(o, "pos:\t%lld\nflags:\t0%o\nmnt_id:\t%u\nino:\t%lu\n", (long long)f->pos, flags,
               i->sb ? i->sb->id : 0, i->ino);
    if (f->ops->show_fdinfo) {
        int n = f->ops->show_fdinfo(f, more, sizeof more);
        out_bytes(o, more, n < (int)sizeof more ? (size_t)n : sizeof more - 1);
    }
    return 0;
}
