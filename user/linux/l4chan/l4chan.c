/* /dev/l4chan (docs/linux/l4chan.md): each open file description is a channel with two ends.
 * A thread that JOINs becomes an end; once both ends are threads of two processes, lx asks the
 * root task to name each in the other's channel set (ROOT_TASK_CHANNEL, docs/linux-abi.md
 * §9), and from then on the kernel carries their native IPC: lx is not in the path.  The
 * rights go when the description is released, or when either process exits or execs. */
#include "l4chan/l4chan.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "task/thread.h"
#include "vfs/file.h"
#include <libl4.h>
#include <l4chan.h>

struct end {
    struct process *proc;               /* NULL: free */
    l4_word_t l4;                       /* the thread that joined */
};

struct channel {
    struct end end[2];
    struct channel *next;               /* all channels (the exit and exec hooks) */
};

static struct channel *channels;

/* false: the kernel refused (in's set is full: L4_CHANNEL_PARTNERS) */
static bool set_right(const struct end *in, const struct end *partner, bool revoke)
{
    l4_word_t err;
    return l4_root_call(ROOT_TASK_CHANNEL, in->l4, revoke ? L4_SPACE_CTL_CHAN_REVOKE : 0,
                        partner->l4, 0, &err) != 0;
}

/* Whether a channel besides c joins the threads a and b: the kernel's set names a partner
 * once, however many channels give it, so the right stays while one of them does. */
static bool joined_elsewhere(const struct channel *c, l4_word_t a, l4_word_t b)
{
    for (const struct channel *d = channels; d; d = d->next)
        if (d != c && d->end[0].proc && d->end[1].proc &&
            ((d->end[0].l4 == a && d->end[1].l4 == b) || (d->end[0].l4 == b && d->end[1].l4 == a)))
            return true;
    return false;
}

/* Both ends lose each other (unless another channel still joins them); end k leaves. */
static void leave(struct channel *c, unsigned k)
{
    struct end *e = &c->end[k], *o = &c->end[!k];
    if (e->proc && o->proc && !joined_elsewhere(c, e->l4, o->l4)) {
        set_right(o, e, true);
        set_right(e, o, true);          /* a task already gone: the kernel has no space */
    }
    e->proc = NULL;
    e->l4 = 0;
}

static int l4chan_open(struct thread *t, struct inode *i, struct file *f)
{
    (void)t, (void)i;
    struct channel *c = kmalloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    c->next = channels;
    channels = c;
    f->priv = c;
    return 0;
}

static void l4chan_release(struct file *f)
{
    struct channel *c = f->priv, **pp;
    leave(c, 0);
    leave(c, 1);
    for (pp = &channels; *pp != c; pp = &(*pp)->next)
        ;
    *pp = c->next;
    kfree(c);
}

static long l4chan_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    struct channel *c = f->priv;
    if (cmd != L4CHAN_IOC_JOIN && cmd != L4CHAN_IOC_PEER)
        return -ENOTTY;
    int k = c->end[0].proc == t->proc ? 0 : c->end[1].proc == t->proc ? 1 : -1;
    if (cmd == L4CHAN_IOC_JOIN) {
        if (k >= 0)
            return -EEXIST;             /* one end per process */
        k = !c->end[0].proc ? 0 : !c->end[1].proc ? 1 : -1;
        if (k < 0)
            return -EBUSY;
        c->end[k].proc = t->proc;
        c->end[k].l4 = t->l4;
        if (c->end[!k].proc && (!set_right(&c->end[k], &c->end[!k], false) ||
                                !set_right(&c->end[!k], &c->end[k], false))) {
            leave(c, (unsigned)k);      /* a full set: no channel, not half of one */
            return -ENOSPC;
        }
    }
    struct l4chan_ends ends = {
        .self = k >= 0 ? c->end[k].l4 : 0,
        .partner = k >= 0 && c->end[!k].proc ? c->end[!k].l4 : 0,
    };
    return copy_to_user(t->mm, arg, &ends, sizeof ends);
}

void l4chan_process_leave(struct process *p)
{
    for (struct channel *c = channels; c; c = c->next)
        for (unsigned k = 0; k < 2; k++)
            if (c->end[k].proc == p)
                leave(c, k);
}

static const struct file_ops l4chan_ops = {
    .open = l4chan_open, .release = l4chan_release, .ioctl = l4chan_ioctl,
};

static struct chrdev l4chan_device = { .major = 10, .minor = 250, .count = 1, .ops = &l4chan_ops };

void l4chan_register(void)
{
    chrdev_register(&l4chan_device);
}
