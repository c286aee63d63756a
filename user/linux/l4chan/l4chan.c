/* /dev/l4chan (docs/linux/l4chan.md): each open file description is a channel with two ends.
 * A thread that JOINs becomes an end; once both ends are threads of two processes, lx asks the
 * root task to name each in the other's channel set (ROOT_TASK_CHANNEL, docs/linux-abi.md
 * §9), and from then on the kernel carries their native IPC: lx is not in the path.  The
 * rights go when the description is released, or when either process exits or execs.
 * JOIN_MAP also names a window of the caller's memory: the kernel lets native receives map
 * only there, lx marks the region as native (it never maps its own pages there), and the
 * channel's two ends get the map right. */
#include "l4chan/l4chan.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "task/thread.h"
#include "vfs/file.h"
#include <libl4.h>
#include <l4chan.h>

struct end {
    struct process *proc;               /* NULL: free */
    l4_word_t l4;                       /* the thread that joined */
    l4_word_t window;                   /* JOIN_MAP: the fpage of its window (0: none) */
    struct mm *mm;                      /* ... in this memory (compared, never used) */
};

struct channel {
    struct end end[2];
    struct channel *next;               /* all channels (the exit and exec hooks) */
};

static struct channel *channels;

/* false: the kernel refused (in's set is full: L4_CHANNEL_PARTNERS) */
static bool set_right(const struct end *in, const struct end *partner, bool revoke, bool map)
{
    l4_word_t err;
    return l4_root_call(ROOT_TASK_CHANNEL, in->l4, revoke ? L4_SPACE_CTL_CHAN_REVOKE :
                        map ? L4_SPACE_CTL_CHAN_MAP : 0, partner->l4, 0, &err) != 0;
}

enum joined { NOT_JOINED, JOINED, JOINED_MAP };

/* What the channels besides c give the threads a and b: the kernel's set names a partner
 * once (with or without the map right), however many channels join the two, so a right
 * stays while one of them gives it, with the map right while one of them has a window. */
static enum joined joined_elsewhere(const struct channel *c, l4_word_t a, l4_word_t b)
{
    enum joined j = NOT_JOINED;
    for (const struct channel *d = channels; d; d = d->next)
        if (d != c && d->end[0].proc && d->end[1].proc &&
            ((d->end[0].l4 == a && d->end[1].l4 == b) || (d->end[0].l4 == b && d->end[1].l4 == a)))
            j = d->end[0].window || d->end[1].window ? JOINED_MAP : j == NOT_JOINED ? JOINED : j;
    return j;
}

/* The kernel's window of p's space (an fpage, 0: none), through any of its threads that
 * still exists; a new one takes what native IPC mapped into the old one away. */
static void set_window(struct process *p, l4_word_t fpage)
{
    struct thread *t;
    l4_word_t err;
    list_each(t, &p->threads, proc_link)
        if (l4_root_call(ROOT_TASK_CHANNEL, t->l4, L4_SPACE_CTL_CHAN_WINDOW, fpage, 0, &err))
            return;
}

/* The window p has through one of its ends (0: none). */
static l4_word_t window_of(struct process *p)
{
    for (struct channel *c = channels; c; c = c->next)
        for (unsigned k = 0; k < 2; k++)
            if (c->end[k].proc == p && c->end[k].window)
                return c->end[k].window;
    return 0;
}

/* munmap (mmap over it, mremap) of a window: the kernel's window goes, with its mappings. */
static void window_unmapped(struct mm *mm)
{
    for (struct channel *c = channels; c; c = c->next)
        for (unsigned k = 0; k < 2; k++)
            if (c->end[k].window && c->end[k].mm == mm) {
                set_window(c->end[k].proc, 0);
                c->end[k].window = 0;
            }
}

/* JOIN_MAP's window: size a power of two of at least a page, base aligned to it, exactly one
 * private anonymous region of the caller; its pages go and lx marks it.  0 or -errno. */
static int make_window(struct thread *t, l4_word_t base, l4_word_t size, l4_word_t *fpage)
{
    struct region *r = mm_find(t->mm, base);
    if (size < LX_PAGE || (size & (size - 1)) || (base & (size - 1)) || !r ||
        r->start != base || r->end != base + size || r->file || r->fdata || r->shared)
        return -EINVAL;
    *fpage = l4_fpage_log2(base, (unsigned)__builtin_ctzl(size));
    l4_word_t old = window_of(t->proc);
    if (old && old != *fpage)
        return -EBUSY;                  /* one window per process */
    mm_discard(t->mm, base, base + size);
    r->native_window = true;
    if (!old)
        set_window(t->proc, *fpage);
    return 0;
}

/* Both ends lose each other (unless another channel still joins them: then they keep what
 * it gives); end k leaves, and with its last window the mappings received there go (the
 * region stays marked: it faults). */
static void leave(struct channel *c, unsigned k)
{
    struct end *e = &c->end[k], *o = &c->end[!k];
    struct process *p = e->proc;
    l4_word_t window = e->window;
    if (e->proc && o->proc) {
        enum joined j = joined_elsewhere(c, e->l4, o->l4);
        set_right(o, e, j == NOT_JOINED, j == JOINED_MAP);
        set_right(e, o, j == NOT_JOINED, j == JOINED_MAP);  /* a task gone: no space, nothing */
    }
    e->proc = NULL;
    e->l4 = 0;
    e->window = 0;
    e->mm = NULL;
    if (window && !window_of(p))
        set_window(p, 0);               /* exit: the task is gone already, nothing happens */
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
    if (cmd == L4CHAN_IOC_UNMAP) {
        l4_word_t window = window_of(t->proc);
        if (!window)
            return -EINVAL;
        set_window(t->proc, window);    /* the kernel empties the old one first */
        return 0;
    }
    if (cmd != L4CHAN_IOC_JOIN && cmd != L4CHAN_IOC_PEER && cmd != L4CHAN_IOC_JOIN_MAP)
        return -ENOTTY;
    int k = c->end[0].proc == t->proc ? 0 : c->end[1].proc == t->proc ? 1 : -1;
    if (cmd != L4CHAN_IOC_PEER) {
        if (k >= 0)
            return -EEXIST;             /* one end per process */
        k = !c->end[0].proc ? 0 : !c->end[1].proc ? 1 : -1;
        if (k < 0)
            return -EBUSY;
        l4_word_t window = 0;
        if (cmd == L4CHAN_IOC_JOIN_MAP) {
            struct l4chan_join_map want;
            int e = copy_from_user(t->mm, &want, arg, sizeof want);
            if (e)
                return e;
            if ((e = make_window(t, want.base, want.size, &window)))
                return e;
        }
        c->end[k].proc = t->proc;
        c->end[k].l4 = t->l4;
        c->end[k].window = window;
        c->end[k].mm = t->mm;
        if (c->end[!k].proc) {
            bool map = c->end[k].window || c->end[!k].window ||
                       joined_elsewhere(c, c->end[k].l4, c->end[!k].l4) == JOINED_MAP;
            if (!set_right(&c->end[k], &c->end[!k], false, map) ||
                !set_right(&c->end[!k], &c->end[k], false, map)) {
                leave(c, (unsigned)k);  /* a full set: no channel, not half of one */
                return -ENOSPC;
            }
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
    mm_window_unmapped = window_unmapped;
    chrdev_register(&l4chan_device);
}
