/* The event files on the anonymous inode (docs/linux/event-files.md): eventfd, timerfd and
 * signalfd, each an open file whose private data is its object. */
#ifndef LX_FS_ANON_ANON_FILES_H
#define LX_FS_ANON_ANON_FILES_H

#include "park/park.h"
#include "vfs/file.h"

/* A new anonymous file with ops and priv installed at the lowest free fd: the fd, or -errno
 * (priv released through ops->release). */
long anon_install(struct thread *t, const struct file_ops *ops, void *priv, unsigned flags,
                  bool cloexec);
/* Linux's eventfd_signal on an open file (AIO's IOCB_FLAG_RESFD): n added to the counter,
 * capped below 2^64 - 1; false if f is no eventfd. */
bool eventfd_signal_file(struct file *f, uint64_t n);
#endif
