/* Linux's native AIO (docs/linux/aio.md; Linux 6.1's fs/aio.c for the semantics).
 *
 * A context is a completion ring mapped MAP_SHARED into the process: struct aio_ring (its
 * magic, head, tail, nr, header length) and then the io_events, which libaio reads in user
 * space; the context id is the ring's address, and a call finds its context through the id
 * the ring names (Linux's lookup_ioctx reads ring->id from user memory, so an unmapped ring
 * is EINVAL).  The ring is an unnamed file of an internal tmpfs: lx writes the events into
 * the file's own pages, the process maps the same pages.
 *
 * Requests on files that answer at once (regular files, a pipe with data) complete during
 * io_submit, as Linux's buffered AIO does; one that would wait (a read of an empty pipe)
 * makes io_submit wait, as Linux's does, parked: the call runs again with the iocbs it
 * submitted counted (park_io's done).  io_getevents parks on the context's queue.  The
 * number of requests a context takes is Linux's with one CPU: reqs_available moved in
 * batches of req_batch between the context and the CPU's cache, refilled from the events
 * the process has consumed (ring->head). */
#include "fs/aio/aio.h"
#include "fs/anon/anon_files.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/list.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "park/waitq.h"
#include "signal/signal.h"
#include "syscalls/handlers_more.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/file.h"
#include "vfs/permission.h"
#include "vfs/poll.h"
#include "vfs/vfs.h"
#include <string.h>

#define AIO_RING_MAGIC           0xa10a10a1u
#define AIO_RING_COMPAT_FEATURES 1u
#define KIOCB_KEY                0u
#define EINPROGRESS              115   /* io_cancel: the event is (being) delivered */

enum { IOCB_CMD_PREAD = 0, IOCB_CMD_PWRITE = 1, IOCB_CMD_FSYNC = 2, IOCB_CMD_FDSYNC = 3,
       IOCB_CMD_POLL = 5, IOCB_CMD_NOOP = 6, IOCB_CMD_PREADV = 7, IOCB_CMD_PWRITEV = 8 };
#define IOCB_FLAG_RESFD  1u
#define IOCB_FLAG_IOPRIO 2u

#define RWF_HIPRI  0x01u
#define RWF_DSYNC  0x02u
#define RWF_SYNC   0x04u
#define RWF_NOWAIT 0x08u
#define RWF_APPEND 0x10u
#define RWF_SUPPORTED (RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND)

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_RT    1
#define IOPRIO_CLASS_BE    2
#define IOPRIO_CLASS_IDLE  3
#define IOPRIO_NR_LEVELS   8

#define MAX_RW_COUNT 0x7ffff000ul

struct aio_ring {                   /* the ring's header, as user space reads it */
    uint32_t id, nr, head, tail, magic, compat_features, incompat_features, header_length;
};
struct io_event { uint64_t data, obj; int64_t res, res2; };
struct iocb {
    uint64_t aio_data;
    uint32_t aio_key, aio_rw_flags;
    uint16_t aio_lio_opcode;
    int16_t aio_reqprio;
    uint32_t aio_fildes;
    uint64_t aio_buf, aio_nbytes;
    int64_t aio_offset;
    uint64_t aio_reserved2;
    uint32_t aio_flags, aio_resfd;
};
_Static_assert(sizeof(struct aio_ring) == 32 && sizeof(struct io_event) == 32 &&
               sizeof(struct iocb) == 64, "Linux's uapi layouts");

#define EVENTS_PER_PAGE (LX_PAGE / sizeof(struct io_event))

/* One context.  Invariant: the events in the ring (ctx->tail - ring->head), the requests in
 * flight and reqs_available + cpu_avail add up to nr_events - 1 once completed events have
 * been refilled (Linux's accounting, one CPU). */
struct kioctx {
    struct list link;               /* in its memory model's list, by id */
    l4_word_t user_id;              /* the ring's address: the context's id */
    unsigned id;                    /* ring->id: its slot in Linux's ioctx_table */
    unsigned max_reqs;              /* io_setup's nr_events: what aio-nr counts */
    unsigned nr_events;             /* the ring's slots */
    unsigned tail;                  /* lx's copy of the ring's tail */
    unsigned req_batch;             /* slots moved between the context and the CPU at once */
    unsigned reqs_available;        /* the context's free slots ... */
    unsigned cpu_avail;             /* ... and the CPU's cache of them */
    unsigned completed_events;      /* completed, not yet refilled */
    l4_word_t size;                 /* the mapping's bytes */
    struct inode *ring;             /* the ring's file (an internal tmpfs) */
    struct list polls;              /* POLL requests waiting (struct poll_req) */
    struct waitq wait;              /* io_getevents */
    bool dead;
};

struct aio_contexts {               /* a memory model's (mm->aio) */
    struct list ctxs;               /* struct kioctx by id */
};

/* An IOCB_CMD_POLL request that waits for its file (Linux's poll_iocb): on the queues the
 * file's poll named, through entries whose wake looks again. */
#define POLL_QUEUES 2
struct poll_req;
struct poll_entry {                 /* a queue entry of a request */
    struct waiter w;
    struct poll_req *pr;
};
struct poll_req {
    struct list link;               /* in its context's polls */
    struct kioctx *ctx;
    l4_word_t obj;                  /* the iocb's address */
    uint64_t data;
    unsigned events;
    struct file *file, *resfd;      /* references */
    struct poll_entry w[POLL_QUEUES];
    unsigned nw;
    struct timer again;             /* a wake that found it not ready: look again later */
};

static unsigned long aio_nr, aio_max_nr = 0x10000;
static struct super_block *aio_sb;

/* --- /proc/sys/fs/aio-nr, aio-max-nr --------------------------------------------------------- */

static struct sysctl aio_sysctls[] = {
    { .path = "fs/aio-max-nr", .mode = 0644, .show = sysctl_show_long,
      .store = sysctl_store_long, .data = &aio_max_nr },
    { .path = "fs/aio-nr", .mode = 0444, .show = sysctl_show_long, .data = &aio_nr },
};
SYSCTL_TABLE(aio_sysctls)

/* --- the ring -------------------------------------------------------------------------------- */

static void *ring_page(struct kioctx *ctx, unsigned index)
{
    return vfs_page_get(ctx->ring, index);
}

static struct aio_ring *ring_header(struct kioctx *ctx)
{
    return ring_page(ctx, 0);       /* made at io_setup: never NULL afterwards */
}

static struct io_event *ring_event(struct kioctx *ctx, unsigned slot)
{
    unsigned pos = slot + 1;        /* AIO_EVENTS_OFFSET: the header is one event's size */
    struct io_event *page = ring_page(ctx, pos / EVENTS_PER_PAGE);
    return page ? page + pos % EVENTS_PER_PAGE : NULL;
}

/* --- request slots (Linux's reqs_available with one CPU) ------------------------------------- */

static void put_reqs_available(struct kioctx *ctx, unsigned nr)
{
    ctx->cpu_avail += nr;
    while (ctx->cpu_avail >= ctx->req_batch * 2) {
        ctx->cpu_avail -= ctx->req_batch;
        ctx->reqs_available += ctx->req_batch;
    }
}

static bool get_reqs_available_once(struct kioctx *ctx)
{
    if (!ctx->cpu_avail) {
        if (ctx->reqs_available < ctx->req_batch)
            return false;
        ctx->reqs_available -= ctx->req_batch;
        ctx->cpu_avail += ctx->req_batch;
    }
    ctx->cpu_avail--;
    return true;
}

/* The events user space has consumed (its head, clamped: it may write anything) free their
 * slots. */
static void refill_reqs_available(struct kioctx *ctx, unsigned head, unsigned tail)
{
    head %= ctx->nr_events;
    unsigned in_ring = head <= tail ? tail - head : ctx->nr_events - (head - tail);
    unsigned done = ctx->completed_events > in_ring ? ctx->completed_events - in_ring : 0;
    if (!done)
        return;
    ctx->completed_events -= done;
    put_reqs_available(ctx, done);
}

static bool get_reqs_available(struct kioctx *ctx)
{
    if (get_reqs_available_once(ctx))
        return true;
    if (ctx->completed_events)
        refill_reqs_available(ctx, ring_header(ctx)->head, ctx->tail);
    return get_reqs_available_once(ctx);
}

/* --- completion ------------------------------------------------------------------------------- */

/* Linux's eventfd_signal on the file an iocb named (IOCB_FLAG_RESFD). */
static void resfd_signal(struct file *resfd)
{
    if (resfd)
        eventfd_signal_file(resfd, 1);
}

/* An event into the ring (Linux's aio_complete): the slot was taken at submission. */
static void aio_complete(struct kioctx *ctx, l4_word_t obj, uint64_t data, long res,
                         struct file *resfd)
{
    struct io_event *ev = ring_event(ctx, ctx->tail);
    if (ev)
        *ev = (struct io_event){ .data = data, .obj = obj, .res = res, .res2 = 0 };
    if (++ctx->tail >= ctx->nr_events)
        ctx->tail = 0;
    struct aio_ring *ring = ring_header(ctx);
    ring->tail = ctx->tail;
    ctx->completed_events++;
    if (ctx->completed_events > 1)
        refill_reqs_available(ctx, ring->head, ctx->tail);
    resfd_signal(resfd);
    waitq_wake(&ctx->wait);
}

/* --- contexts ---------------------------------------------------------------------------------- */

static struct aio_contexts *contexts(struct mm *mm, bool make)
{
    if (!mm->aio && make) {
        struct aio_contexts *c = kmalloc(sizeof *c);
        if (!c)
            return NULL;
        list_init(&c->ctxs);
        mm->aio = c;
    }
    return mm->aio;
}

/* Linux's lookup_ioctx: the id the ring at ctx_id names, and the context in that slot if its
 * ring is there. */
static struct kioctx *lookup_ioctx(struct thread *t, l4_word_t ctx_id)
{
    uint32_t id;
    struct aio_contexts *c = contexts(t->mm, false);
    if (!c || copy_from_user(t->mm, &id, ctx_id, sizeof id))
        return NULL;
    struct kioctx *ctx;
    list_each(ctx, &c->ctxs, link)
        if (ctx->id == id)
            return ctx->user_id == ctx_id && !ctx->dead ? ctx : NULL;
    return NULL;
}

static void poll_free(struct poll_req *pr);

static void ctx_free(struct kioctx *ctx)
{
    while (!list_empty(&ctx->polls))     /* cancelled with the context: no events */
        poll_free(list_entry(ctx->polls.next, struct poll_req, link));
    list_del(&ctx->link);
    aio_nr -= ctx->max_reqs;
    waitq_wake(&ctx->wait);
    inode_put(ctx->ring);
    kfree(ctx);
}

/* The memory model's last reference goes (exit, execve): every context with it (Linux's
 * exit_aio; its mappings go with the model). */
static void aio_exit(struct mm *mm)
{
    struct aio_contexts *c = mm->aio;
    while (!list_empty(&c->ctxs))
        ctx_free(list_entry(c->ctxs.next, struct kioctx, link));
    kfree(c);
    mm->aio = NULL;
}

/* The ring's pages and mapping (Linux's aio_setup_ring): nr_events slots asked for, the
 * pages they fill all used. */
static int setup_ring(struct thread *t, struct kioctx *ctx, unsigned nr_events)
{
    l4_word_t size = sizeof(struct aio_ring) + (l4_word_t)nr_events * sizeof(struct io_event);
    l4_word_t pages = (size + LX_PAGE - 1) / LX_PAGE;
    ctx->nr_events = (unsigned)((pages * LX_PAGE - sizeof(struct aio_ring)) /
                                sizeof(struct io_event));
    ctx->size = pages * LX_PAGE;
    if (!aio_sb && !(aio_sb = vfs_kern_mount(&tmpfs_type, NULL)))
        return -ENOMEM;
    struct inode *file;
    if (aio_sb->root->iop->tmpfile(NULL, aio_sb->root, S_IFREG | 0600, &file))
        return -ENOMEM;
    inode_get(file);
    struct iattr ia = { .valid = ATTR_SIZE, .size = ctx->size };
    if (file->iop->setattr(NULL, file, &ia)) {
        inode_put(file);
        return -ENOMEM;
    }
    ctx->ring = file;
    for (l4_word_t k = 0; k < pages; k++)
        if (!ring_page(ctx, (unsigned)k))
            return -ENOMEM;         /* the caller drops the file */
    struct mm *mm = t->mm;
    l4_word_t addr = mm_find_gap(mm, ctx->size);
    if (!addr || mm->nregions > LX_MAX_MAP_COUNT)
        return -ENOMEM;
    struct region r = { .start = addr, .end = addr + ctx->size, .prot = PROT_READ | PROT_WRITE,
                        .shared = true, .file = file, .fstart = addr, .fend = MM_FILE_END,
                        .bus_past_eof = true };
    if (mm_map_region(mm, &r))
        return -ENOMEM;
    ctx->user_id = addr;
    struct aio_ring *ring = ring_header(ctx);
    *ring = (struct aio_ring){ .id = ~0u, .nr = ctx->nr_events, .magic = AIO_RING_MAGIC,
                               .compat_features = AIO_RING_COMPAT_FEATURES,
                               .header_length = sizeof(struct aio_ring) };
    return 0;
}

/* The lowest free slot of the memory model's table (Linux's ioctx_add_table). */
static void add_table(struct aio_contexts *c, struct kioctx *ctx)
{
    unsigned id = 0;
    struct list *before = &c->ctxs;
    struct kioctx *o;
    list_each(o, &c->ctxs, link) {
        if (o->id != id) {
            before = &o->link;
            break;
        }
        id++;
    }
    ctx->id = id;
    list_add_tail(before, &ctx->link);
    ring_header(ctx)->id = id;
}

long sys_io_setup(struct thread *t, const struct sysargs *a)
{
    unsigned max_reqs = (unsigned)a->a[0];
    l4_word_t uctx = a->a[1], old;
    if (copy_from_user(t->mm, &old, uctx, sizeof old))
        return -EFAULT;
    if (old || !max_reqs)
        return -EINVAL;
    /* Linux's ioctx_alloc with one possible CPU: at least 4 slots, doubled (in 32 bits, as
     * Linux's unsigned arithmetic). */
    unsigned nr_events = max_reqs > 4 ? max_reqs : 4;
    nr_events *= 2;
    if (nr_events > 0x10000000u / sizeof(struct io_event))
        return -EINVAL;
    if (!nr_events || max_reqs > aio_max_nr)
        return -EAGAIN;
    struct aio_contexts *c = contexts(t->mm, true);
    struct kioctx *ctx = c ? kmalloc(sizeof *ctx) : NULL;
    if (!ctx)
        return -ENOMEM;
    *ctx = (struct kioctx){ .max_reqs = max_reqs };
    list_init(&ctx->link);
    list_init(&ctx->polls);
    int e = setup_ring(t, ctx, nr_events);
    if (e) {
        if (ctx->user_id)
            mm_unmap(t->mm, ctx->user_id, ctx->user_id + ctx->size);
        if (ctx->ring)
            inode_put(ctx->ring);
        kfree(ctx);
        return e;
    }
    ctx->req_batch = (ctx->nr_events - 1) / 4;
    if (ctx->req_batch < 1)
        ctx->req_batch = 1;
    ctx->reqs_available = ctx->nr_events - 1;
    add_table(c, ctx);
    if (aio_nr + ctx->max_reqs > aio_max_nr || aio_nr + ctx->max_reqs < aio_nr) {
        mm_unmap(t->mm, ctx->user_id, ctx->user_id + ctx->size);
        list_del(&ctx->link);
        inode_put(ctx->ring);
        kfree(ctx);
        return -EAGAIN;
    }
    aio_nr += ctx->max_reqs;
    if (copy_to_user(t->mm, uctx, &ctx->user_id, sizeof ctx->user_id)) {
        mm_unmap(t->mm, ctx->user_id, ctx->user_id + ctx->size);
        ctx_free(ctx);
        return -EFAULT;
    }
    return 0;
}

/* Linux's kill_ioctx: out of the table, its ring unmapped (whatever is mapped there now, as
 * Linux's vm_munmap of mmap_base), its waiters woken.  Nothing is in flight in lx when a
 * call runs (requests complete during io_submit), so io_destroy never waits. */
long sys_io_destroy(struct thread *t, const struct sysargs *a)
{
    struct kioctx *ctx = lookup_ioctx(t, a->a[0]);
    if (!ctx)
        return -EINVAL;
    ctx->dead = true;
    mm_unmap(t->mm, ctx->user_id, ctx->user_id + ctx->size);
    ctx_free(ctx);
    return 0;
}

/* --- io_submit ---------------------------------------------------------------------------------- */

static bool ioprio_ok(struct thread *t, int prio)
{
    unsigned cls = (unsigned)prio >> IOPRIO_CLASS_SHIFT, data = prio & 0x1fff;
    switch (cls) {
    case IOPRIO_CLASS_RT:
        if (!vfs_capable(t, CAP_SYS_ADMIN) && !vfs_capable(t, CAP_SYS_NICE))
            return false;
        /* fall through */
    case IOPRIO_CLASS_BE:
        return data < IOPRIO_NR_LEVELS;
    case IOPRIO_CLASS_IDLE:
        return true;
    case 0:
        return !data;
    default:
        return false;
    }
}

/* One read or write (Linux's aio_read/aio_write): the checks that fail io_submit, then the
 * transfer, whose result is the event's.  LX_PARK: it would wait (the caller parks). */
static long submit_rw(struct thread *t, struct file *f, const struct iocb *cb, bool write,
                      bool vectored, long *res, bool interrupted)
{
    if (cb->aio_flags & IOCB_FLAG_IOPRIO) {
        if (!ioprio_ok(t, cb->aio_reqprio))
            return (unsigned)cb->aio_reqprio >> IOPRIO_CLASS_SHIFT == IOPRIO_CLASS_RT &&
                   (cb->aio_reqprio & 0x1fff) < IOPRIO_NR_LEVELS ? -EPERM : -EINVAL;
    }
    unsigned flags = cb->aio_rw_flags;
    if (flags & ~RWF_SUPPORTED)
        return -EOPNOTSUPP;
    if (flags & RWF_NOWAIT)
        return -EOPNOTSUPP;         /* no file of lx's is FMODE_NOWAIT (sys_vector.c) */
    unsigned acc = f->flags & O_ACCMODE;
    if (write ? acc != O_WRONLY && acc != O_RDWR : acc != O_RDONLY && acc != O_RDWR)
        return -EBADF;
    if (!(write ? f->ops->write : f->ops->read))
        return -EINVAL;
    struct uio u;
    struct uio_seg seg;
    if (vectored) {
        long e = iov_import(t, cb->aio_buf, cb->aio_nbytes, &u);
        if (e)
            return e;
    } else {
        seg.base = cb->aio_buf;
        seg.len = cb->aio_nbytes > MAX_RW_COUNT ? MAX_RW_COUNT : cb->aio_nbytes;
        if (!access_ok(cb->aio_buf, seg.len))
            return -EFAULT;
        uio_init(&u, t->mm, &seg, 1);
    }
    l4_word_t pos = (l4_word_t)cb->aio_offset;
    if (cb->aio_offset < 0 || (long)(pos + u.resid) < 0)
        return -EINVAL;             /* rw_verify_area */
    bool append = (flags & RWF_APPEND) && write && !(f->flags & O_APPEND);
    if (append)
        f->flags |= O_APPEND;
    struct uio try = u;
    long r = vfs_rw(t, f, &try, &pos, write, false);
    if (append)
        f->flags &= ~(unsigned)O_APPEND;
    if (r == LX_PARK && !interrupted)
        return r;                   /* the file parked the caller itself (a tty's read) */
    if (r == LX_PARK) {
        waitq_drop_all(t);          /* what it queued: the call is not parked any more */
        *res = -EINTR;
        return 0;
    }
    if (r == -EAGAIN && !(f->flags & O_NONBLOCK) && f->ops->poll) {
        if (interrupted) {
            *res = -EINTR;          /* Linux's -ERESTARTSYS, made EINTR by aio_rw_done */
            return 0;
        }
        struct poll_table pt = { .t = t };
        f->ops->poll(t, f, &pt);
        return LX_PARK;
    }
    *res = r;
    return 0;
}

/* Linux's aio_fsync: no buffer, offset, length or flags; the file's fsync. */
static long submit_fsync(struct thread *t, struct file *f, const struct iocb *cb, bool datasync,
                         long *res)
{
    if (cb->aio_buf || cb->aio_offset || cb->aio_nbytes || cb->aio_rw_flags)
        return -EINVAL;
    if (!f->ops->fsync)
        return -EINVAL;
    *res = f->ops->fsync(t, f, datasync);
    return 0;
}

/* --- POLL (Linux's aio_poll) --------------------------------------------------------------- */

static void poll_unqueue(struct poll_req *pr)
{
    for (unsigned k = 0; k < pr->nw; k++)
        waitq_del_entry(&pr->w[k].w);
    pr->nw = 0;
}

static void poll_free(struct poll_req *pr)
{
    poll_unqueue(pr);
    timer_cancel(&pr->again);
    list_del(&pr->link);
    file_put(pr->file);
    if (pr->resfd)
        file_put(pr->resfd);
    kfree(pr);
}

static void poll_complete(struct poll_req *pr, unsigned mask)
{
    struct kioctx *ctx = pr->ctx;
    struct file *resfd = pr->resfd;
    pr->resfd = NULL;
    aio_complete(ctx, pr->obj, pr->data, mask, resfd);
    if (resfd)
        file_put(resfd);
    poll_free(pr);
}

struct poll_queueing {
    struct poll_table pt;
    struct poll_req *pr;
};

static void poll_wake(struct waiter *w);

static void poll_queue(struct poll_table *pt, struct waitq *q)
{
    struct poll_req *pr = ((struct poll_queueing *)pt)->pr;
    if (pr->nw == POLL_QUEUES)
        return;                     /* lx's files name at most two queues */
    struct poll_entry *e = &pr->w[pr->nw++];
    *e = (struct poll_entry){ .w = { .wake = poll_wake }, .pr = pr };
    list_init(&e->w.tlink);
    waitq_add_entry(q, &e->w);
}

/* The file's mask for the request, queued again on what it names. */
static unsigned poll_look(struct thread *t, struct poll_req *pr)
{
    poll_unqueue(pr);
    struct poll_queueing pq = { { t, poll_queue }, pr };
    unsigned mask = pr->file->ops->poll ? pr->file->ops->poll(t, pr->file, &pq.pt)
                                        : POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
    return mask & pr->events;
}

/* A queue of the file was woken: ready now completes; else look again at the next tick,
 * outside the wake (queueing again on the queue being woken would never end). */
static void poll_wake(struct waiter *w)
{
    struct poll_req *pr = container_of(w, struct poll_entry, w)->pr;
    unsigned mask = pr->file->ops->poll ? pr->file->ops->poll(NULL, pr->file, NULL) : 0;
    if (mask & pr->events) {
        /* Linux completes a woken request with the wake's key, which names the direction
         * (a pipe's reader is woken with POLLIN | POLLRDNORM): the mask's bits of the
         * directions asked for, each with its NORM companion. */
        unsigned dirs = pr->events;
        if (dirs & POLLIN)
            dirs |= POLLRDNORM;
        if (dirs & POLLOUT)
            dirs |= POLLWRNORM;
        poll_complete(pr, mask & dirs);
        return;
    }
    timer_arm(&pr->again, lx_now());
}

static void poll_again(struct timer *tm)
{
    struct poll_req *pr = container_of(tm, struct poll_req, again);
    unsigned mask = poll_look(NULL, pr);
    if (mask)
        poll_complete(pr, mask);
}

/* Linux's aio_poll: ready now completes at once; a file that names no queue and is not ready
 * is EINVAL; else the request waits (its slot stays taken). */
static long submit_poll(struct thread *t, struct kioctx *ctx, struct file *f,
                        const struct iocb *cb, l4_word_t ucb, struct file *resfd, long *res)
{
    if ((uint16_t)cb->aio_buf != cb->aio_buf)
        return -EINVAL;
    if (cb->aio_offset || cb->aio_nbytes || cb->aio_rw_flags)
        return -EINVAL;
    struct poll_req *pr = kmalloc(sizeof *pr);
    if (!pr)
        return -ENOMEM;
    *pr = (struct poll_req){ .ctx = ctx, .obj = ucb, .data = cb->aio_data, .file = f,
                             .events = (unsigned)cb->aio_buf | POLLERR | POLLHUP };
    list_init(&pr->link);
    timer_init(&pr->again, poll_again);
    unsigned mask = poll_look(t, pr);
    if (mask || !pr->nw) {
        poll_unqueue(pr);
        kfree(pr);
        if (!mask)
            return -EINVAL;
        *res = mask;
        return 0;
    }
    file_get(f);
    if (resfd)
        file_get(resfd);
    pr->resfd = resfd;
    list_add_tail(&ctx->polls, &pr->link);
    return LX_NOREPLY;              /* queued: no event now */
}

/* Linux's io_submit_one: 0 (the iocb is submitted), -errno (io_submit ends there), or
 * LX_PARK (the request would wait: nothing of it is kept, it runs again). */
static long submit_one(struct thread *t, struct kioctx *ctx, l4_word_t ucb, bool interrupted)
{
    struct iocb cb;
    if (copy_from_user(t->mm, &cb, ucb, sizeof cb))
        return -EFAULT;
    if (cb.aio_reserved2)
        return -EINVAL;
    if ((long)cb.aio_nbytes < 0)
        return -EINVAL;
    if (!get_reqs_available(ctx))
        return -EAGAIN;
    long e = -EBADF, res = 0;
    struct file *f = fd_get(t, (long)cb.aio_fildes), *resfd = NULL;
    if (!f || (f->flags & O_PATH))
        goto fail;
    if (cb.aio_flags & IOCB_FLAG_RESFD) {
        resfd = fd_get(t, (long)cb.aio_resfd);
        if (!resfd || (resfd->flags & O_PATH))
            goto fail;
        e = -EINVAL;
        if (!eventfd_signal_file(resfd, 0))
            goto fail;
    }
    uint32_t key = KIOCB_KEY;
    e = -EFAULT;
    if (copy_to_user(t->mm, ucb + offsetof(struct iocb, aio_key), &key, sizeof key))
        goto fail;
    switch (cb.aio_lio_opcode) {
    case IOCB_CMD_PREAD:   e = submit_rw(t, f, &cb, false, false, &res, interrupted); break;
    case IOCB_CMD_PWRITE:  e = submit_rw(t, f, &cb, true, false, &res, interrupted); break;
    case IOCB_CMD_PREADV:  e = submit_rw(t, f, &cb, false, true, &res, interrupted); break;
    case IOCB_CMD_PWRITEV: e = submit_rw(t, f, &cb, true, true, &res, interrupted); break;
    case IOCB_CMD_FSYNC:   e = submit_fsync(t, f, &cb, false, &res); break;
    case IOCB_CMD_FDSYNC:  e = submit_fsync(t, f, &cb, true, &res); break;
    case IOCB_CMD_POLL:    e = submit_poll(t, ctx, f, &cb, ucb, resfd, &res); break;
    default:               e = -EINVAL; break;
    }
    if (e == LX_NOREPLY)
        return 0;                   /* a POLL that waits: its event comes later */
    if (e)
        goto fail;
    if (resfd)
        file_get(resfd);            /* the completion may signal it after a close */
    aio_complete(ctx, ucb, cb.aio_data, res, resfd);
    if (resfd)
        file_put(resfd);
    return 0;
fail:
    put_reqs_available(ctx, 1);
    return e;
}

/* The iocbs from the one park_io counts (those earlier runs submitted). */
static long submit_loop(struct thread *t, const struct sysargs *a, bool interrupted)
{
    long nr = (long)a->a[1];
    if (nr < 0)
        return -EINVAL;
    struct kioctx *ctx = lookup_ioctx(t, a->a[0]);
    if (!ctx)
        return -EINVAL;
    if (nr > (long)ctx->nr_events)
        nr = ctx->nr_events;
    struct park_io *io = park_io(&t->park);
    long i = (long)io->done, e = 0;
    for (; i < nr; i++) {
        l4_word_t ucb;
        if (copy_from_user(t->mm, &ucb, a->a[2] + (l4_word_t)i * 8, sizeof ucb)) {
            e = -EFAULT;
            break;
        }
        e = submit_one(t, ctx, ucb, interrupted);
        if (e == LX_PARK) {
            io->done = (l4_word_t)i;
            return e;
        }
        if (e)
            break;
    }
    io->done = 0;
    return i ? i : e;
}

/* A signal ends a wait inside io_submit: Linux's read gives -ERESTARTSYS, which aio_rw_done
 * makes the event's -EINTR; the other iocbs go on with the signal pending. */
static long submit_interrupted(struct thread *t)
{
    return submit_loop(t, &t->park.call, true);
}

long sys_io_submit(struct thread *t, const struct sysargs *a)
{
    long r = submit_loop(t, a, false);
    return r == LX_PARK ? park_call_fn(t, 0, submit_interrupted) : r;
}

/* --- io_getevents, io_pgetevents -------------------------------------------------------------- */

/* Linux's aio_read_events_ring: up to nr events from the ring to the process, the head moved
 * past them; -EFAULT (nothing consumed) if the buffer fails. */
static long read_events_ring(struct thread *t, struct kioctx *ctx, l4_word_t uev, long nr)
{
    struct aio_ring *ring = ring_header(ctx);
    unsigned head = ring->head, tail = ring->tail;   /* both as user space left them */
    long n = 0;
    if (head == tail)
        return 0;
    head %= ctx->nr_events;
    tail %= ctx->nr_events;
    while (n < nr && head != tail) {
        unsigned avail = (head <= tail ? tail : ctx->nr_events) - head;
        unsigned pos = head + 1;
        unsigned in_page = (unsigned)EVENTS_PER_PAGE - pos % EVENTS_PER_PAGE;
        if (avail > nr - n)
            avail = (unsigned)(nr - n);
        if (avail > in_page)
            avail = in_page;
        if (copy_to_user(t->mm, uev + (l4_word_t)n * sizeof(struct io_event), ring_event(ctx, head),
                         avail * sizeof(struct io_event)))
            return -EFAULT;
        n += avail;
        head = (head + avail) % ctx->nr_events;
    }
    ring->head = head;
    return n;
}

#define NO_WAIT 1ull                /* a getevents deadline: look once */

struct getevents {                  /* the arguments of both calls */
    l4_word_t ctx_id;
    long min_nr, nr;
    l4_word_t events, timeout;
};

/* Linux's do_io_getevents and read_events: the events so far (park_io's done), or parked
 * until min_nr of them or the timeout; EINVAL for a context destroyed meanwhile. */
static long getevents(struct thread *t, const struct getevents *g)
{
    struct park_poll *pp = park_poll(&t->park);
    if (!park_retrying(t)) {
        pp->ufds = 0;               /* the events collected so far */
        pp->deadline = 0;
        if (g->timeout) {
            int64_t ts[2];
            if (copy_from_user(t->mm, ts, g->timeout, sizeof ts))
                return -EFAULT;
            /* Linux's ktime (wrapping as its s64 arithmetic): 0 does not wait; a negative
             * time is an hrtimer that never fires (ktime_add_safe saturates); past
             * KTIME_SEC_MAX, none. */
            int64_t ns = (int64_t)((uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1]);
            if (ts[0] >= 9223372036ll || ns < 0)
                pp->deadline = 0;
            else if (!ns)
                pp->deadline = NO_WAIT;
            else
                pp->deadline = lx_now() + (uint64_t)ns;
        }
    }
    struct kioctx *ctx = lookup_ioctx(t, g->ctx_id);
    if (!ctx)
        return pp->ufds ? (long)pp->ufds : -EINVAL;
    if (g->min_nr > g->nr || g->min_nr < 0)
        return -EINVAL;
    long got = (long)pp->ufds;
    long r = read_events_ring(t, ctx, g->events + (l4_word_t)got * sizeof(struct io_event),
                              g->nr - got);
    if (r > 0)
        got += r;
    if (r < 0 && !got)
        return r;
    if (r < 0 || got >= g->min_nr || pp->deadline == NO_WAIT ||
        (pp->deadline && lx_now() >= pp->deadline))
        return got;
    pp->ufds = (l4_word_t)got;
    waitq_add(&ctx->wait, t);
    return LX_PARK;
}

/* Interrupted: the events collected, or (none) io_getevents's EINTR and io_pgetevents's
 * ERESTARTNOHAND. */
static long getevents_interrupted(struct thread *t)
{
    long got = (long)t->park.u.poll.ufds;
    return got ? got : -EINTR;
}

static long pgetevents_interrupted(struct thread *t)
{
    long got = (long)t->park.u.poll.ufds;
    return got ? got : -ERESTARTNOHAND;
}

long sys_io_getevents(struct thread *t, const struct sysargs *a)
{
    struct getevents g = { a->a[0], (long)a->a[1], (long)a->a[2], a->a[3], a->a[4] };
    long r = getevents(t, &g);
    if (r == LX_PARK)
        return park_call_fn(t, t->park.u.poll.deadline, getevents_interrupted);
    return r;
}

long sys_io_pgetevents(struct thread *t, const struct sysargs *a)
{
    struct getevents g = { a->a[0], (long)a->a[1], (long)a->a[2], a->a[3], a->a[4] };
    if (!park_retrying(t)) {
        int64_t ts[2];
        if (g.timeout && copy_from_user(t->mm, ts, g.timeout, sizeof ts))
            return -EFAULT;
        l4_word_t sig[2] = { 0, 0 };
        if (a->a[5] && copy_from_user(t->mm, sig, a->a[5], sizeof sig))
            return -EFAULT;
        int e = poll_set_sigmask(t, sig[0], sig[1]);
        if (e)
            return e;
    }
    long r = getevents(t, &g);
    if (r == LX_PARK)
        return park_call_fn(t, t->park.u.poll.deadline, pgetevents_interrupted);
    return poll_done(t, r);
}

/* --- io_cancel ----------------------------------------------------------------------------------- */

/* Linux 6.1 cancels only a request still in flight that can be cancelled, a POLL that waits:
 * it completes with the mask at that moment (EINPROGRESS: the event is in the ring).  Every
 * other request of lx's has completed by the time io_submit returns: EINVAL. */
long sys_io_cancel(struct thread *t, const struct sysargs *a)
{
    uint32_t key;
    if (copy_from_user(t->mm, &key, a->a[1] + offsetof(struct iocb, aio_key), sizeof key))
        return -EFAULT;
    if (key != KIOCB_KEY)
        return -EINVAL;
    struct kioctx *ctx = lookup_ioctx(t, a->a[0]);
    if (!ctx)
        return -EINVAL;
    struct poll_req *pr;
    list_each(pr, &ctx->polls, link)
        if (pr->obj == a->a[1]) {
            poll_unqueue(pr);
            unsigned mask = pr->file->ops->poll ? pr->file->ops->poll(t, pr->file, NULL) : 0;
            poll_complete(pr, mask & pr->events);
            return -EINPROGRESS;
        }
    return -EINVAL;
}

void aio_shutdown(void)
{
    if (aio_sb) {
        vfs_kern_umount(aio_sb);
        aio_sb = NULL;
    }
}

__attribute__((constructor)) static void aio_hook(void)
{
    mm_aio_exit = aio_exit;
}
