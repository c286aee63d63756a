/* eventfd (docs/linux/event-files.md): a 64-bit counter behind an anonymous file.  A write
 * adds to it (waiting while the sum would reach 2^64 - 1), a read takes it all, or 1 with
 * EFD_SEMAPHORE (waiting while it is 0).  Waiting is vfs_rw's: an operation that would
 * block answers -EAGAIN and the caller parks on the queue poll names, so a signal ends the
 * wait as Linux's -ERESTARTSYS does. */
#include "fs/anon/anon_files.h"
#include "lib/errno.h"
#include "syscalls/handlers_events.h"
#include "lib/kmalloc.h"
#include "park/waitq.h"
#include "vfs/poll.h"
#include <stdio.h>

#define EFD_SEMAPHORE 1
#define EFD_NONBLOCK  O_NONBLOCK
#define EFD_CLOEXEC   O_CLOEXEC
#define COUNT_MAX     (~0ull)       /* never reached by a write: the most is COUNT_MAX - 1 */

struct eventfd {
    uint64_t count;
    bool semaphore;
    int id;                         /* fdinfo's eventfd-id: the lowest free (Linux's ida) */
    struct waitq wait;              /* readers and writers: any change wakes both */
};

#define EVENTFD_IDS 4096
static uint64_t ids_used[EVENTFD_IDS / 64];

static int id_take(void)
{
    for (int k = 0; k < EVENTFD_IDS; k++)
        if (!(ids_used[k / 64] & (1ull << (k % 64)))) {
            ids_used[k / 64] |= 1ull << (k % 64);
            return k;
        }
    return EVENTFD_IDS;             /* beyond: shared, never freed */
}

static int eventfd_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct eventfd *e = f->priv;
    return snprintf(buf, size, "eventfd-count: %16llx\neventfd-id: %d\n",
                    (unsigned long long)e->count, e->id);
}

static void eventfd_release(struct file *f)
{
    struct eventfd *e = f->priv;
    if (e->id < EVENTFD_IDS)
        ids_used[e->id / 64] &= ~(1ull << (e->id % 64));
    waitq_wake(&e->wait);
    kfree(e);
}

static long eventfd_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    struct eventfd *e = f->priv;
    if (u->resid < sizeof(uint64_t))
        return -EINVAL;
    if (!e->count)
        return -EAGAIN;
    uint64_t v = e->semaphore ? 1 : e->count;
    e->count -= v;                  /* taken even if the copy fails, as in Linux */
    waitq_wake(&e->wait);
    struct uio try = *u;
    if (uio_copy_out(&try, &v, sizeof v) != sizeof v)
        return -EFAULT;
    *u = try;
    return sizeof v;
}

static long eventfd_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    struct eventfd *e = f->priv;
    uint64_t v;
    if (u->resid < sizeof v)
        return -EINVAL;
    struct uio try = *u;
    if (uio_copy_in(&try, &v, sizeof v) != sizeof v)
        return -EFAULT;
    if (v == COUNT_MAX)
        return -EINVAL;
    if (COUNT_MAX - e->count <= v)
        return -EAGAIN;             /* the value stays in memory: the rerun reads it again */
    *u = try;
    e->count += v;
    if (v)
        waitq_wake(&e->wait);
    return sizeof v;
}

static unsigned eventfd_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct eventfd *e = f->priv;
    poll_wait(pt, &e->wait);
    unsigned m = 0;
    if (e->count)
        m |= POLLIN | POLLRDNORM;
    if (e->count == COUNT_MAX)
        m |= POLLERR;
    if (e->count < COUNT_MAX - 1)
        m |= POLLOUT | POLLWRNORM;
    return m;
}

static const struct file_ops eventfd_ops = {
    .release = eventfd_release, .read = eventfd_read, .write = eventfd_write,
    .poll = eventfd_poll, .anon_name = "[eventfd]", .show_fdinfo = eventfd_show_fdinfo,
};

bool eventfd_signal_file(struct file *f, uint64_t n)
{
    if (f->ops != &eventfd_ops)
        return false;
    struct eventfd *e = f->priv;
    if (COUNT_MAX - e->count < n)
        n = COUNT_MAX - e->count;
    e->count += n;
    if (n)
        waitq_wake(&e->wait);
    return true;
}

static long do_eventfd(struct thread *t, unsigned initval, l4_word_t flags)
{
    if (flags & ~(l4_word_t)(EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC))
        return -EINVAL;
    struct eventfd *e = kmalloc(sizeof *e);
    if (!e)
        return -ENOMEM;
    *e = (struct eventfd){ .count = initval, .semaphore = flags & EFD_SEMAPHORE, .id = id_take() };
    return anon_install(t, &eventfd_ops, e, O_RDWR | (flags & EFD_NONBLOCK),
                        flags & EFD_CLOEXEC);
}

long sys_eventfd(struct thread *t, const struct sysargs *a)
{
    return do_eventfd(t, (unsigned)a->a[0], 0);
}

long sys_eventfd2(struct thread *t, const struct sysargs *a)
{
    return do_eventfd(t, (unsigned)a->a[0], (unsigned)a->a[1]);
}
