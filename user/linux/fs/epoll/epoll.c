/* epoll (docs/linux/pipes.md, "epoll"): an instance is an open file of the anonymous inode
 * (vfs/anon.c) whose private data is its interest list of (fd, open file, events, data),
 * as long as memory allows.  epoll_wait asks each
 * file's poll op, like poll(2), and parks on the queues they name with the timeout as the
 * deadline.  Entries are keyed by fd and file, as Linux keys them by (file, fd): an entry
 * whose fd no longer names the same open file (closed, or replaced) is dropped when a wait
 * finds it, which stands for Linux's removal on the file's last close.  Level-triggered;
 * EPOLLET is accepted and treated as level-triggered, EPOLLONESHOT disables an entry after
 * it was reported once.  No nesting: an epoll fd cannot be watched (EINVAL). */
#include "syscalls/handlers.h"
#include "task/sharing.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/poll.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

#define EPOLL_CLOEXEC  O_CLOEXEC
#define EPOLL_CTL_ADD  1
#define EPOLL_CTL_DEL  2
#define EPOLL_CTL_MOD  3
#define EPOLLEXCLUSIVE (1u << 28)
#define EPOLLWAKEUP    (1u << 29)
#define EPOLLONESHOT   (1u << 30)
#define EPOLLET        (1u << 31)

struct epitem {
    struct epitem *next;
    struct file *f;                 /* compared only, never followed once its fd changed */
    uint64_t data;
    int fd;
    uint32_t events;                /* 0: disabled (EPOLLONESHOT) */
};

struct epoll {
    struct epitem *items;           /* in the order they were added */
};

struct epoll_event {
    uint32_t events;
    uint64_t data;
} __attribute__((packed));          /* x86-64's layout: 12 bytes */

static void epoll_release(struct file *f)
{
    struct epoll *ep = f->priv;
    while (ep->items) {
        struct epitem *it = ep->items;
        ep->items = it->next;
        kfree(it);
    }
    kfree(ep);
}

/* Linux's ep_show_fdinfo: one line per watched fd (in the order they were added; Linux's is
 * its tree's), with the events EPOLLERR | EPOLLHUP that ctl adds, the target's position,
 * inode and device. */
static int epoll_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct epoll *ep = f->priv;
    size_t n = 0;
    for (struct epitem *it = ep->items; it; it = it->next) {
        struct inode *i = it->f->inode;
        n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
                              "tfd: %8d events: %8x data: %16llx  pos:%lli ino:%lx sdev:%x\n",
                              it->fd, it->events ? it->events | POLLERR | POLLHUP : 0,
                              (unsigned long long)it->data, (long long)it->f->pos, i->ino,
                              i->sb ? i->sb->dev : 0);
    }
    return (int)n;
}

static const struct file_ops epoll_ops = { .release = epoll_release,
                                           .anon_name = "[eventpoll]",
                                           .show_fdinfo = epoll_show_fdinfo };

static long do_create(struct thread *t, l4_word_t flags)
{
    if (flags & ~(l4_word_t)EPOLL_CLOEXEC)
        return -EINVAL;
    struct epoll *ep = kmalloc(sizeof *ep);
    struct file *f = ep ? anon_file(&epoll_ops, ep, O_RDWR) : NULL;
    if (!f) {
        kfree(ep);
        return -ENOMEM;
    }
    long fd = fd_install(t, f, 0, flags & EPOLL_CLOEXEC);
    if (fd < 0)
        file_put(f);
    return fd;
}

long sys_epoll_create(struct thread *t, const struct sysargs *a)
{
    return (int)a->a[0] <= 0 ? -EINVAL : do_create(t, 0);
}

long sys_epoll_create1(struct thread *t, const struct sysargs *a)
{
    return do_create(t, a->a[0]);
}

static struct epoll *epoll_of(struct thread *t, long epfd, long *err)
{
    struct file *f = fd_get(t, epfd);
    *err = !f ? -EBADF : f->ops != &epoll_ops ? -EINVAL : 0;
    return *err ? NULL : f->priv;
}

long sys_epoll_ctl(struct thread *t, const struct sysargs *a)
{
    long err;
    struct epoll *ep = epoll_of(t, (long)a->a[0], &err);
    int fd = (int)a->a[2], op = (int)a->a[1];
    struct file *f = fd_get(t, fd);
    if (!ep || !f)
        return ep ? -EBADF : err;
    if (f->ops == &epoll_ops)
        return -EINVAL;             /* itself, or nesting: not supported */
    if (!f->ops->poll)
        return -EPERM;              /* regular files and directories, as in Linux */
    struct epoll_event ev = { 0, 0 };
    if (op != EPOLL_CTL_DEL && copy_from_user(t->mm, &ev, a->a[3], sizeof ev))
        return -EFAULT;
    if ((ev.events & EPOLLEXCLUSIVE) && op == EPOLL_CTL_MOD)
        return -EINVAL;
    struct epitem **pp = &ep->items;
    while (*pp && ((*pp)->fd != fd || (*pp)->f != f))
        pp = &(*pp)->next;
    struct epitem *it = *pp;
    switch (op) {
    case EPOLL_CTL_ADD:
        if (it)
            return -EEXIST;
        if (!(it = kmalloc(sizeof *it)))
            return -ENOMEM;
        *it = (struct epitem){ NULL, f, ev.data, fd, ev.events | POLLERR | POLLHUP };
        *pp = it;                   /* last */
        return 0;
    case EPOLL_CTL_MOD:
        if (!it)
            return -ENOENT;
        it->events = ev.events | POLLERR | POLLHUP;
        it->data = ev.data;
        return 0;
    case EPOLL_CTL_DEL:
        if (!it)
            return -ENOENT;
        *pp = it->next;
        kfree(it);
        return 0;
    }
    return -EINVAL;
}

static long do_wait(struct thread *t, long epfd, l4_word_t uev, long max, uint64_t timeout)
{
    long err;
    struct epoll *ep = epoll_of(t, epfd, &err);
    if (!ep)
        return err;
    if (max <= 0 || max > 0x7FFFFFFF / (long)sizeof(struct epoll_event))
        return -EINVAL;
    struct park_poll *pp = &t->park.u.poll;     /* the caller took it: park_poll */
    if (!park_retrying(t)) {
        uint64_t now = lx_now();
        pp->deadline = timeout == ~0ull ? 0 : now + timeout;
    }
    bool last = pp->deadline && lx_now() >= pp->deadline;
    long n = 0;
    for (struct epitem **pp = &ep->items, *it; (it = *pp) && n < max;) {
        if (fd_get(t, it->fd) != it->f) {
            *pp = it->next;         /* its file is gone from that fd */
            kfree(it);
            continue;
        }
        pp = &it->next;
        if (!it->events)
            continue;               /* EPOLLONESHOT, reported: until EPOLL_CTL_MOD */
        unsigned m = file_poll(it->f, t, !last) & it->events & 0xFFFF;
        if (!m)
            continue;
        struct epoll_event ev = { m, it->data };
        if (copy_to_user(t->mm, uev + (l4_word_t)n * sizeof ev, &ev, sizeof ev))
            return n ? n : -EFAULT;
        if (it->events & EPOLLONESHOT)
            it->events = 0;
        n++;
    }
    if (n || last)
        return n;
    return park_call(t, pp->deadline, -EINTR);  /* never restarted (signal(7)) */
}

long sys_epoll_wait(struct thread *t, const struct sysargs *a)
{
    park_poll(&t->park);
    long ms = (int)a->a[3];
    return do_wait(t, (long)a->a[0], a->a[1], (int)a->a[2],
                   ms < 0 ? ~0ull : (uint64_t)ms * 1000000);
}

long sys_epoll_pwait(struct thread *t, const struct sysargs *a)
{
    park_poll(&t->park);
    int e = poll_set_sigmask(t, a->a[4], a->a[5]);
    if (e)
        return e;
    long ms = (int)a->a[3];
    return poll_done(t, do_wait(t, (long)a->a[0], a->a[1], (int)a->a[2],
                                ms < 0 ? ~0ull : (uint64_t)ms * 1000000));
}

long sys_epoll_pwait2(struct thread *t, const struct sysargs *a)
{
    park_poll(&t->park);
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[3] && !park_retrying(t) && (e = timespec_get(t->mm, a->a[3], &timeout)))
        return e;
    if ((e = poll_set_sigmask(t, a->a[4], a->a[5])))
        return e;
    return poll_done(t, do_wait(t, (long)a->a[0], a->a[1], (int)a->a[2], timeout));
}

struct file *epoll_target(struct file *ep, int tfd, unsigned long toff, int *err)
{
    if (ep->ops != &epoll_ops) {
        *err = -EINVAL;
        return NULL;
    }
    for (struct epitem *it = ((struct epoll *)ep->priv)->items; it; it = it->next)
        if (it->fd == tfd && !toff--)
            return it->f;
    *err = -ENOENT;
    return NULL;
}
