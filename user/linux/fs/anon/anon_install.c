/* Installing an event file (eventfd, timerfd, signalfd): one path for their creation. */
#include "fs/anon/anon_files.h"
#include "lib/errno.h"

long anon_install(struct thread *t, const struct file_ops *ops, void *priv, unsigned flags,
                  bool cloexec)
{
    struct file *f = anon_file(ops, priv, flags);
    if (!f) {
        struct file tmp = { .priv = priv, .ops = ops };
        ops->release(&tmp);
        return -ENOMEM;
    }
    long fd = fd_install(t, f, 0, cloexec);
    if (fd < 0)
        file_put(f);                /* releases priv */
    return fd;
}
