/* File locks (lock.h): per inode, a list of POSIX-class locks (record locks and OFD locks:
 * byte ranges, read or write, kept merged per owner as Linux keeps them) and a list of flock
 * locks (whole file, shared or exclusive), and one wait queue.  Linux's rules: a read lock
 * conflicts with another owner's write lock, a write lock with any other owner's lock; a
 * process never conflicts with itself (a new lock replaces its old one on that range, which
 * may split it); F_GETLK names one conflicting lock.  Every release wakes the queue; the
 * waiters' calls run again (park/park.c).  Not done: deadlock detection (EDEADLK), leases. */
#include "vfs/lock.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "park/waitq.h"
#include "task/process.h"
#include "vfs/file.h"

#define LOCK_SH      1
#define LOCK_EX      2
#define LOCK_NB      4
#define LOCK_UN      8
#define OFFSET_MAX   ((l4_word_t)__LONG_MAX__)

struct file_lock {
    struct file_lock *next;
    int type;                       /* F_RDLCK or F_WRLCK */
    l4_word_t start, end;           /* bytes [start, end]; end OFFSET_MAX: to any end */
    const void *owner;              /* a record lock's fd table; an OFD or flock's file */
    int pid;                        /* F_GETLK's l_pid: the process, -1 for an OFD lock */
    bool ofd;
};

struct file_lock_ctx {
    struct file_lock *posix;        /* record and OFD locks: by owner (in order of their
                                       first lock), then by start */
    struct file_lock *flock;
    struct waitq wait;
};

struct flock {                      /* x86-64's struct flock */
    int16_t l_type, l_whence;
    int64_t l_start, l_len;
    int32_t l_pid;
};

static struct file_lock_ctx *ctx_of(struct inode *i, bool create)
{
    if (!i->locks && create)
        i->locks = kmalloc(sizeof *i->locks);
    return i->locks;
}

void locks_inode_free(struct inode *i)
{
    kfree(i->locks);                /* no lock is left: their files held the inode */
    i->locks = NULL;
}

static bool overlap(const struct file_lock *a, l4_word_t start, l4_word_t end)
{
    return a->start <= end && start <= a->end;
}

static bool conflicts(const struct file_lock *held, const void *owner, int type)
{
    return held->owner != owner && (held->type == F_WRLCK || type == F_WRLCK);
}

/* The first lock of another owner that a lock (type, range) would conflict with. */
static struct file_lock *posix_conflict(struct file_lock_ctx *c, const void *owner, int type,
                                        l4_word_t start, l4_word_t end)
{
    for (struct file_lock *l = c ? c->posix : NULL; l; l = l->next)
        if (overlap(l, start, end) && conflicts(l, owner, type))
            return l;
    return NULL;
}

static struct file_lock *new_lock(int type, l4_word_t start, l4_word_t end, const void *owner,
                                  int pid, bool ofd)
{
    struct file_lock *l = kmalloc(sizeof *l);
    if (l)
        *l = (struct file_lock){ NULL, type, start, end, owner, pid, ofd };
    return l;
}

/* The owner's locks on [start, end] become type (F_UNLCK: none), splitting and merging as
 * Linux's posix_lock_inode: 0, or -ENOLCK (memory) with nothing changed. */
static int posix_apply(struct file_lock_ctx *c, const void *owner, int pid, bool ofd, int type,
                       l4_word_t start, l4_word_t end)
{
    /* At most two new records: the new lock and the tail of one it splits. */
    struct file_lock *add = type == F_UNLCK ? NULL : new_lock(type, start, end, owner, pid, ofd);
    struct file_lock *tail = new_lock(F_RDLCK, 0, 0, owner, pid, ofd);
    if ((type != F_UNLCK && !add) || !tail) {
        kfree(add), kfree(tail);
        return -ENOLCK;
    }
    for (struct file_lock **pp = &c->posix; *pp;) {
        struct file_lock *l = *pp;
        bool adjacent = add && l->type == type &&
                        ((l->end != OFFSET_MAX && l->end + 1 == add->start) ||
                         (add->end != OFFSET_MAX && add->end + 1 == l->start));
        if (l->owner != owner || (!overlap(l, start, end) && !adjacent)) {
            pp = &l->next;
            continue;
        }
        if (add && l->type == type) {       /* same type: merge into the new one */
            if (l->start < add->start)
                add->start = l->start;
            if (l->end > add->end)
                add->end = l->end;
            *pp = l->next;
            kfree(l);
            continue;
        }
        if (l->start < start && l->end > end) {    /* the range is inside: split */
            *tail = *l;
            tail->start = end + 1;
            l->end = start - 1;
            tail->next = l->next;
            l->next = tail;
            tail = NULL;
            pp = &l->next->next;
            continue;
        }
        if (l->start < start) {
            l->end = start - 1;             /* keep its head */
        } else if (l->end > end) {
            l->start = end + 1;             /* keep its tail */
        } else {
            *pp = l->next;                  /* wholly inside: gone */
            kfree(l);
            continue;
        }
        pp = &l->next;
    }
    kfree(tail);
    if (add) {
        /* Linux's order: each owner's locks together, by start; a new owner's last. */
        struct file_lock **pp = &c->posix;
        while (*pp && (*pp)->owner != owner)
            pp = &(*pp)->next;
        while (*pp && (*pp)->owner == owner && (*pp)->start < add->start)
            pp = &(*pp)->next;
        add->next = *pp;
        *pp = add;
    }
    waitq_wake(&c->wait);           /* anything released may let a waiter in */
    return 0;
}

/* struct flock at arg into a range (Linux's flock_to_posix_lock): 0 or -errno. */
static int range_of(struct file *f, const struct flock *fl, l4_word_t *start, l4_word_t *end)
{
    long base;
    switch (fl->l_whence) {
    case 0: base = 0; break;
    case 1: base = (long)f->pos; break;
    case 2: base = (long)f->inode->size; break;
    default: return -EINVAL;
    }
    if (fl->l_start > (long)OFFSET_MAX - base)
        return -EOVERFLOW;
    long s = base + fl->l_start, e;
    if (s < 0)
        return -EINVAL;
    if (fl->l_len > 0) {
        if (fl->l_len - 1 > (long)OFFSET_MAX - s)
            return -EOVERFLOW;
        e = s + fl->l_len - 1;
    } else if (fl->l_len < 0) {
        e = s - 1;
        s += fl->l_len;
        if (s < 0)
            return -EINVAL;
    } else {
        e = (long)OFFSET_MAX;
    }
    *start = (l4_word_t)s;
    *end = (l4_word_t)e;
    return 0;
}

long vfs_fcntl_lock(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    struct flock fl;
    if (copy_from_user(t->mm, &fl, arg, sizeof fl))
        return -EFAULT;
    bool ofd = cmd >= F_OFD_GETLK;
    bool get = cmd == F_GETLK || cmd == F_OFD_GETLK;
    bool wait = cmd == F_SETLKW || cmd == F_OFD_SETLKW;
    if (ofd && fl.l_pid != 0)
        return -EINVAL;
    if (fl.l_type != F_RDLCK && fl.l_type != F_WRLCK && (get || fl.l_type != F_UNLCK))
        return -EINVAL;
    l4_word_t start, end;
    int e = range_of(f, &fl, &start, &end);
    if (e)
        return e;
    const void *owner = ofd ? (const void *)f : (const void *)t->files;
    struct file_lock_ctx *c = ctx_of(f->inode, !get && fl.l_type != F_UNLCK);
    if (get) {
        struct file_lock *l = posix_conflict(c, owner, fl.l_type, start, end);
        if (!l) {
            fl.l_type = F_UNLCK;
        } else {
            fl.l_type = (int16_t)l->type;
            fl.l_whence = 0;
            fl.l_start = (int64_t)l->start;
            fl.l_len = l->end == OFFSET_MAX ? 0 : (int64_t)(l->end - l->start + 1);
            fl.l_pid = l->ofd ? -1 : l->pid;
        }
        return copy_to_user(t->mm, arg, &fl, sizeof fl);
    }
    unsigned acc = f->flags & O_ACCMODE;
    if ((fl.l_type == F_RDLCK && acc != O_RDONLY && acc != O_RDWR) ||
        (fl.l_type == F_WRLCK && acc != O_WRONLY && acc != O_RDWR))
        return -EBADF;
    if (fl.l_type == F_UNLCK)
        return c ? posix_apply(c, owner, thread_pid(t), ofd, F_UNLCK, start, end) : 0;
    if (!c)
        return -ENOLCK;
    if (posix_conflict(c, owner, fl.l_type, start, end)) {
        if (!wait)
            return -EAGAIN;
        waitq_add(&c->wait, t);
        return park_call(t, 0, -ERESTARTSYS);
    }
    return posix_apply(c, owner, ofd ? -1 : thread_pid(t), ofd, fl.l_type, start, end);
}

/* The locks of owner in a list go (all of them); true if any did. */
static bool remove_owner(struct file_lock **pp, const void *owner)
{
    bool any = false;
    while (*pp) {
        struct file_lock *l = *pp;
        if (l->owner == owner) {
            *pp = l->next;
            kfree(l);
            any = true;
        } else {
            pp = &l->next;
        }
    }
    return any;
}

void locks_remove_posix(struct file *f, struct fdtable *owner)
{
    struct file_lock_ctx *c = f->inode->locks;
    if (c && remove_owner(&c->posix, owner))
        waitq_wake(&c->wait);
}

void locks_remove_file(struct file *f)
{
    struct file_lock_ctx *c = f->inode->locks;
    if (!c)
        return;
    bool any = remove_owner(&c->posix, f);
    if (remove_owner(&c->flock, f) || any)
        waitq_wake(&c->wait);
}

long vfs_flock(struct thread *t, struct file *f, unsigned op)
{
    unsigned kind = op & ~(unsigned)LOCK_NB;
    if (kind != LOCK_SH && kind != LOCK_EX && kind != LOCK_UN)
        return -EINVAL;
    struct file_lock_ctx *c = ctx_of(f->inode, kind != LOCK_UN);
    if (!c)
        return kind == LOCK_UN ? 0 : -ENOLCK;
    int type = kind == LOCK_EX ? F_WRLCK : F_RDLCK;
    struct file_lock *mine = NULL;
    for (struct file_lock *l = c->flock; l; l = l->next)
        if (l->owner == f)
            mine = l;
    if (mine && kind != LOCK_UN && mine->type == type)
        return 0;
    /* A conversion drops the old lock first, as Linux's flock_lock_inode: not atomic. */
    if (mine && remove_owner(&c->flock, f))
        waitq_wake(&c->wait);
    if (kind == LOCK_UN)
        return 0;
    for (struct file_lock *l = c->flock; l; l = l->next)
        if (conflicts(l, f, type)) {
            if (op & LOCK_NB)
                return -EAGAIN;
            waitq_add(&c->wait, t);
            return park_call(t, 0, -ERESTARTSYS);
        }
    struct file_lock *l = new_lock(type, 0, OFFSET_MAX, f, thread_pid(t), true);
    if (!l)
        return -ENOLCK;
    l->next = c->flock;
    c->flock = l;
    return 0;
}
