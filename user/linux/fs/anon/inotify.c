/* inotify (docs/linux/event-files.md, "inotify"): an instance is an anonymous file holding a
 * queue of events and its watches, each a mark (vfs/fsnotify.h) on one inode with a watch
 * descriptor.  Reads give struct inotify_event records (names NUL-padded to a multiple of
 * 16 bytes, as Linux's round_event_name_len); an event equal to the queue's last one is
 * merged into it; past max_queued_events one IN_Q_OVERFLOW stands for the rest.  Waiting is
 * vfs_rw's: an empty queue answers -EAGAIN and the caller parks on the instance's queue. */
#include "fs/anon/anon_files.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "park/waitq.h"
#include "syscalls/fs_common.h"
#include "syscalls/handlers_events.h"
#include "task/process.h"
#include "vfs/fsnotify.h"
#include "vfs/poll.h"
#include <stdio.h>
#include <string.h>

#define IN_ONLYDIR     0x01000000u
#define IN_DONT_FOLLOW 0x02000000u
#define IN_EXCL_UNLINK 0x04000000u
#define IN_MASK_CREATE 0x10000000u
#define IN_MASK_ADD    0x20000000u
#define IN_ONESHOT     0x80000000u
#define ALL_INOTIFY_BITS (FS_EVENTS | FS_UNMOUNT | FS_Q_OVERFLOW | FS_IN_IGNORED | IN_ONLYDIR | \
                          IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_MASK_CREATE | IN_MASK_ADD |     \
                          FS_ISDIR | IN_ONESHOT)
#define EVENT_SIZE 16u              /* struct inotify_event without its name */

/* /proc/sys/fs/inotify: Linux's defaults; max_user_watches as Linux's inotify_user_setup
 * computes it: 1% of memory over a watch's cost (a mark and twice an inode, about 1100
 * bytes in Debian's 6.1), within [8192, 1048576]. */
static int max_queued_events = 16384;
static long max_user_instances = 128;
static long max_user_watches = -1;   /* -1: not computed yet */
#define WATCH_COST 1100ul

static long user_watches_max(void)
{
    if (max_user_watches < 0) {     /* the pool is there by the first use */
        unsigned long n = page_total() / 100 * LX_PAGE / WATCH_COST;
        max_user_watches = (long)(n < 8192 ? 8192 : n > 1048576 ? 1048576 : n);
    }
    return max_user_watches;
}

static void show_watches(struct out *o, const struct sysctl *s)
{
    user_watches_max();
    sysctl_show_long(o, s);
}

static struct sysctl inotify_sysctls[] = {
    { .path = "fs/inotify/max_queued_events", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &max_queued_events, .min = 0, .max = 0x7fffffff },
    { .path = "fs/inotify/max_user_instances", .mode = 0644, .show = sysctl_show_long,
      .store = sysctl_store_long, .data = &max_user_instances, .min = 0, .max = 0x7fffffff },
    { .path = "fs/inotify/max_user_watches", .mode = 0644, .show = show_watches,
      .store = sysctl_store_long, .data = &max_user_watches, .min = 0, .max = 0x7fffffff },
};
SYSCTL_TABLE(inotify_sysctls)

/* What each user (by effective uid, as Linux's ucounts) has: instances and watches. */
struct user_count {
    struct user_count *next;
    unsigned uid;
    unsigned long instances, watches;
};
static struct user_count *users;

static struct user_count *user_get(unsigned uid)
{
    for (struct user_count *u = users; u; u = u->next)
        if (u->uid == uid)
            return u;
    struct user_count *u = kmalloc(sizeof *u);
    if (u) {
        u->uid = uid;
        u->next = users;
        users = u;
    }
    return u;
}

static void user_put(struct user_count *u)
{
    if (u->instances || u->watches)
        return;
    for (struct user_count **pp = &users; *pp; pp = &(*pp)->next)
        if (*pp == u) {
            *pp = u->next;
            break;
        }
    kfree(u);
}

struct event {
    struct event *next;
    int wd;
    uint32_t mask, cookie;
    uint32_t name_len;              /* without the NUL; 0: no name */
    char name[];
};

struct inotify {
    struct event *head, *tail;
    unsigned queued;                /* events queued (the overflow event counts) */
    unsigned max_events;            /* max_queued_events when it was made */
    bool overflowed;                /* the overflow event is queued */
    bool closing;                   /* release: no more events */
    struct waitq wait;
    struct watch *watches;
    int last_wd;
    struct user_count *user;
};

struct watch {
    struct fsnotify_mark mark;      /* first: the mark is the watch */
    struct watch *next;
    struct inotify *in;
    int wd;
};

static unsigned record_size(const struct event *e)
{
    return EVENT_SIZE + (e->name_len ? (e->name_len + 1 + EVENT_SIZE - 1) / EVENT_SIZE *
                         EVENT_SIZE : 0);
}

static bool same_event(const struct event *a, int wd, uint32_t mask, const char *name,
                       size_t len)
{
    return !(a->mask & FS_IN_IGNORED) && a->mask == mask && a->wd == wd &&
           a->name_len == len && (!len || !memcmp(a->name, name, len));
}

static void queue(struct inotify *in, int wd, uint32_t mask, uint32_t cookie, const char *name)
{
    if (in->closing)
        return;
    size_t len = name ? strlen(name) : 0;
    if (in->queued >= in->max_events) {
        if (in->overflowed)
            return;
        wd = -1, mask = FS_Q_OVERFLOW, cookie = 0, len = 0;
        in->overflowed = true;
    } else if (in->tail && same_event(in->tail, wd, mask, name, len)) {
        return;                     /* Linux's inotify_merge */
    }
    struct event *e = kmalloc(sizeof *e + len + 1);
    if (!e)
        return;                     /* as Linux's failed allocation: the event is lost */
    e->wd = wd;
    e->mask = mask;
    e->cookie = cookie;
    e->name_len = (uint32_t)len;
    memcpy(e->name, name ? name : "", len + 1);
    if (in->tail)
        in->tail->next = e;
    else
        in->head = e;
    in->tail = e;
    in->queued++;
    waitq_wake(&in->wait);
}

static void watch_event(struct fsnotify_mark *m, uint32_t mask, const char *name,
                        uint32_t cookie)
{
    struct watch *w = (struct watch *)m;
    if (mask & (FS_MOVE_SELF | FS_DELETE_SELF))
        mask &= ~FS_ISDIR;          /* inotify never reported IN_ISDIR with these */
    queue(w->in, w->wd, mask & (FS_EVENTS | FS_ISDIR | FS_UNMOUNT), cookie, name);
}

static void watch_freeing(struct fsnotify_mark *m)
{
    struct watch *w = (struct watch *)m;
    struct inotify *in = w->in;
    queue(in, w->wd, FS_IN_IGNORED, 0, NULL);
    for (struct watch **pp = &in->watches; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    in->user->watches--;
    kfree(w);
}

static const struct fsnotify_ops watch_ops = { .event = watch_event, .freeing = watch_freeing };

/* --- the file ------------------------------------------------------------------------------ */

static void inotify_release(struct file *f)
{
    struct inotify *in = f->priv;
    in->closing = true;
    while (in->watches)
        fsnotify_destroy_mark(&in->watches->mark);
    while (in->head) {
        struct event *e = in->head;
        in->head = e->next;
        kfree(e);
    }
    waitq_wake(&in->wait);
    in->user->instances--;
    user_put(in->user);
    kfree(in);
}

static long inotify_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    struct inotify *in = f->priv;
    if (!in->head)
        return -EAGAIN;
    long n = 0;
    while (in->head) {
        struct event *e = in->head;
        unsigned size = record_size(e);
        if (size > u->resid)
            return n ? n : -EINVAL;
        in->head = e->next;         /* taken even if the copy fails, as in Linux */
        if (!in->head)
            in->tail = NULL;
        in->queued--;
        if (e->mask == FS_Q_OVERFLOW && e->wd == -1)
            in->overflowed = false;
        struct { int32_t wd; uint32_t mask, cookie, len; } rec = {
            e->wd, e->mask, e->cookie, size - EVENT_SIZE };
        bool ok = uio_copy_out(u, &rec, EVENT_SIZE) == EVENT_SIZE &&
                  uio_copy_out(u, e->name, e->name_len) == e->name_len &&
                  uio_zero(u, size - EVENT_SIZE - e->name_len) == size - EVENT_SIZE - e->name_len;
        kfree(e);
        if (!ok)
            return -EFAULT;
        n += size;
    }
    return n;
}

static unsigned inotify_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct inotify *in = f->priv;
    poll_wait(pt, &in->wait);
    return in->head ? POLLIN | POLLRDNORM : 0;
}

static long inotify_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    struct inotify *in = f->priv;
    if (cmd != FIONREAD)
        return -ENOTTY;
    int n = 0;
    for (struct event *e = in->head; e; e = e->next)
        n += (int)record_size(e);
    return copy_to_user(t->mm, arg, &n, sizeof n);
}

static long inotify_llseek(struct thread *t, struct file *f, long off, int whence)
{
    (void)t, (void)off, (void)whence;
    return (long)f->pos;            /* Linux's noop_llseek: the position stays */
}

/* Linux's inotify_show_fdinfo: a line per watch, newest first; the file handle is the
 * inode number and generation 0 (tmpfs's FILEID_INO32_GEN). */
static int inotify_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct inotify *in = f->priv;
    size_t n = 0;
    for (struct watch *w = in->watches; w; w = w->next) {
        struct inode *i = w->mark.inode;
        uint32_t mask = (w->mark.mask & FS_EVENTS) |
                        (w->mark.flags & FSN_EXCL_UNLINK ? IN_EXCL_UNLINK : 0) |
                        (w->mark.flags & FSN_ONESHOT ? IN_ONESHOT : 0);
        uint32_t ino = (uint32_t)i->ino;
        n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
                              "inotify wd:%x ino:%lx sdev:%x mask:%x ignored_mask:0 "
                              "fhandle-bytes:8 fhandle-type:1 f_handle:%02x%02x%02x%02x00000000\n",
                              w->wd, i->ino, i->sb ? i->sb->dev : 0, mask, ino & 0xff,
                              (ino >> 8) & 0xff, (ino >> 16) & 0xff, ino >> 24);
    }
    return (int)n;
}

static const struct file_ops inotify_ops = {
    .show_fdinfo = inotify_show_fdinfo, .release = inotify_release, .read = inotify_read, .poll = inotify_poll,
    .ioctl = inotify_ioctl, .llseek = inotify_llseek, .anon_name = "inotify",
};

/* --- the calls ----------------------------------------------------------------------------- */

static unsigned euid_of(struct thread *t)
{
    return t->proc->cred.euid;
}

static long do_inotify_init(struct thread *t, l4_word_t flags)
{
    if (flags & ~(l4_word_t)(O_CLOEXEC | O_NONBLOCK))
        return -EINVAL;
    struct user_count *u = user_get(euid_of(t));
    if (!u)
        return -ENOMEM;
    if (u->instances >= (unsigned long)max_user_instances) {
        user_put(u);
        return -EMFILE;
    }
    struct inotify *in = kmalloc(sizeof *in);
    if (!in) {
        user_put(u);
        return -ENOMEM;
    }
    in->max_events = (unsigned)max_queued_events;
    in->user = u;
    u->instances++;
    return anon_install(t, &inotify_ops, in, O_RDONLY | (flags & O_NONBLOCK), flags & O_CLOEXEC);
}

long sys_inotify_init(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return do_inotify_init(t, 0);
}

long sys_inotify_init1(struct thread *t, const struct sysargs *a)
{
    return do_inotify_init(t, (l4_word_t)(int)a->a[0]);
}

/* fd's instance: NULL with *err (EBADF, EINVAL: not an inotify file). */
static struct inotify *instance(struct thread *t, long fd, long *err)
{
    struct file *f = fd_get(t, (int)fd);
    if (!f) {
        *err = -EBADF;
        return NULL;
    }
    if (f->ops != &inotify_ops) {
        *err = -EINVAL;
        return NULL;
    }
    return f->priv;
}

static struct watch *find_watch(struct inotify *in, struct inode *i, int wd)
{
    for (struct watch *w = in->watches; w; w = w->next)
        if (i ? w->mark.inode == i : w->wd == wd)
            return w;
    return NULL;
}

/* The next watch descriptor after the last one given, as Linux's idr_alloc_cyclic. */
static int next_wd(struct inotify *in)
{
    int wd = in->last_wd;
    do
        wd = wd == 0x7fffffff ? 1 : wd + 1;
    while (find_watch(in, NULL, wd));
    return in->last_wd = wd;
}

static uint32_t mark_mask(struct inode *i, uint32_t arg)
{
    return FS_UNMOUNT | (S_ISDIR(i->mode) ? FS_EVENT_ON_CHILD : 0) | (arg & FS_EVENTS);
}

static unsigned mark_flags(uint32_t arg)
{
    return (arg & IN_EXCL_UNLINK ? FSN_EXCL_UNLINK : 0) | (arg & IN_ONESHOT ? FSN_ONESHOT : 0);
}

long sys_inotify_add_watch(struct thread *t, const struct sysargs *a)
{
    uint32_t arg = (uint32_t)a->a[2];
    if ((arg & ~ALL_INOTIFY_BITS) || !(arg & ALL_INOTIFY_BITS))
        return -EINVAL;
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f)
        return -EBADF;
    if (((arg & IN_MASK_ADD) && (arg & IN_MASK_CREATE)) || f->ops != &inotify_ops)
        return -EINVAL;
    struct inotify *in = f->priv;
    int e;
    struct inode *i = resolve_at(t, AT_FDCWD, a->a[1],
                                 arg & IN_DONT_FOLLOW ? AT_SYMLINK_NOFOLLOW : 0, &e);
    if (!i)
        return e;
    if ((arg & IN_ONLYDIR) && !S_ISDIR(i->mode))
        return -ENOTDIR;
    if ((e = inode_permission(t, i, MAY_READ)))
        return e;
    struct watch *w = find_watch(in, i, 0);
    if (w) {
        if (arg & IN_MASK_CREATE)
            return -EEXIST;
        if (!(arg & IN_MASK_ADD))
            w->mark.mask = 0, w->mark.flags = 0;
        w->mark.mask |= mark_mask(i, arg);
        w->mark.flags |= mark_flags(arg);
        return w->wd;
    }
    if (in->user->watches >= (unsigned long)user_watches_max())
        return -ENOSPC;
    if (!(w = kmalloc(sizeof *w)))
        return -ENOMEM;
    w->in = in;
    w->wd = next_wd(in);
    w->mark.ops = &watch_ops;
    w->mark.mask = mark_mask(i, arg);
    w->mark.flags = mark_flags(arg);
    w->next = in->watches;
    in->watches = w;
    in->user->watches++;
    fsnotify_add_mark(&w->mark, i);
    return w->wd;
}

long sys_inotify_rm_watch(struct thread *t, const struct sysargs *a)
{
    long err = -EBADF;
    struct inotify *in = instance(t, (long)a->a[0], &err);
    if (!in)
        return err;
    struct watch *w = find_watch(in, NULL, (int)a->a[1]);
    if (!w)
        return -EINVAL;
    fsnotify_destroy_mark(&w->mark);    /* IN_IGNORED through watch_freeing */
    return 0;
}
