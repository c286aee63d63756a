/* Reading and writing: the path every read, write, readv and writev takes (access mode,
 * range, parking a blocking caller on the queues the file's poll operation names), the
 * generic operations of files with a page provider (tmpfs's regular files; exec and the
 * ELF loader read through the same provider), and getdents' walk of a directory. */
#include "vfs/file.h"
#include "vfs/fsnotify.h"
#include "vfs/permission.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "park/park.h"
#include "park/waitq.h"
#include "task/process.h"
#include <string.h>

#define SEEK_SET  0
#define SEEK_CUR  1
#define SEEK_END  2
#define SEEK_DATA 3
#define SEEK_HOLE 4
#define MAX_RW_COUNT 0x7ffff000ul   /* Linux's largest single transfer */

static bool readable(const struct file *f)
{
    unsigned acc = f->flags & O_ACCMODE;
    return !(f->flags & O_PATH) && (acc == O_RDONLY || acc == O_RDWR);
}

static bool writable(const struct file *f)
{
    unsigned acc = f->flags & O_ACCMODE;
    return !(f->flags & O_PATH) && (acc == O_WRONLY || acc == O_RDWR);
}

/* A signal interrupts a parked read or write: the bytes moved so far, if any (Linux's pipe
 * and tty return the partial count, never EINTR, after progress), else a restart (with
 * SA_RESTART or no handler) or EINTR (docs/linux/signals.md, "Interrupted calls"). */
static long io_interrupted(struct thread *t)
{
    l4_word_t done = t->park.u.io.done;
    return done ? (long)done : -ERESTARTSYS;
}

long vfs_rw(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos, bool write,
            bool resumable)
{
    if (write ? !writable(f) : !readable(f))
        return -EBADF;
    long (*op)(struct thread *, struct file *, struct uio *, l4_word_t *) =
        write ? f->ops->write : f->ops->read;
    if (!op)
        return S_ISDIR(f->inode->mode) ? -EISDIR : -EINVAL;
    if (!uio_range_ok(u))
        return -EFAULT;             /* Linux's access_ok, before anything moves */
    if (f->ops->llseek && ((long)*pos < 0 || (long)(*pos + u->resid) < 0))
        return -EINVAL;             /* rw_verify_area: the range must fit in a loff_t */
    if (u->resid > MAX_RW_COUNT)
        u->resid = MAX_RW_COUNT;    /* the rest is never moved, as Linux's rw_verify_area */
    struct park_io *io = resumable ? park_io(&t->park) : NULL;
    if (io)
        uio_skip(u, io->done);      /* a rerun goes on after what earlier runs moved */
    long r = op(t, f, u, pos);
    l4_word_t moved = u->done;
    if (r == LX_PARK || (r == -EAGAIN && resumable && !(f->flags & O_NONBLOCK) &&
                         f->ops->poll && !f->ops->waits_itself && (write || !moved))) {
        /* A read never parks after moving bytes: it answers them, as Linux does. */
        if (io)
            io->done += moved;
        if (r == LX_PARK)
            return r;               /* the operation parked the caller itself (the tty) */
        struct poll_table pt = { .t = t };
        f->ops->poll(t, f, &pt);
        return park_call_fn(t, 0, io_interrupted);
    }
    l4_word_t total = moved + (io ? io->done : 0);
    if (io)
        io->done = 0;
    if (total) {
        fsnotify_file(f->inode, write ? FS_MODIFY : FS_ACCESS);
        return (long)total;
    }
    if (u->fault)
        return -EFAULT;
    return r < 0 ? r : 0;
}

/* sendfile and copy_file_range: through one page of lx's */
static char bounce[LX_PAGE];

long vfs_copy(struct thread *t, struct file *in, l4_word_t *pin, struct file *out,
              l4_word_t *pout, l4_word_t count)
{
    l4_word_t done = 0;
    long err = 0;
    while (done < count) {
        l4_word_t k = count - done < LX_PAGE ? count - done : LX_PAGE, p = *pin;
        struct uio_seg seg = { (l4_word_t)bounce, k };
        struct uio u;
        uio_init(&u, NULL, &seg, 1);
        long r = vfs_rw(t, in, &u, &p, false, false);
        if (r <= 0) {
            err = r;
            break;
        }
        seg.len = (l4_word_t)r;
        uio_init(&u, NULL, &seg, 1);
        long w = vfs_rw(t, out, &u, pout, true, false);
        if (w <= 0) {
            err = w;
            break;
        }
        *pin += (l4_word_t)w;
        done += (l4_word_t)w;
        if (w < r)
            break;
    }
    return done ? (long)done : err;
}

void poll_wait(struct poll_table *pt, struct waitq *q)
{
    if (pt && pt->queue)
        pt->queue(pt, q);
    else if (pt)
        waitq_add(q, pt->t);
}

/* --- files with a page provider ------------------------------------------------------------- */

/* Bytes of i from *pos into u, up to its size: holes read as zeros. */
static long read_pages(struct inode *i, struct uio *u, l4_word_t *pos)
{
    l4_word_t p = *pos, start = u->done;
    long err = 0;
    while (u->resid && p < i->size) {
        l4_word_t off = p % LX_PAGE, k = LX_PAGE - off;
        if (k > i->size - p)
            k = i->size - p;
        if (k > u->resid)
            k = u->resid;
        int e = 0;
        const char *page = i->iop->get_page(i, p / LX_PAGE, false, &e);
        if (!page && e) {
            err = e;
            break;
        }
        l4_word_t m = page ? uio_copy_out(u, page + off, k) : uio_zero(u, k);
        p += m;
        if (m < k)
            break;
    }
    *pos = p;
    return u->done > start ? (long)(u->done - start) : err;
}

long generic_file_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t;
    long r = read_pages(f->inode, u, pos);
    if (!(f->flags & O_NOATIME))
        f->inode->atime = vfs_now();
    return r;
}

long generic_file_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    struct inode *i = f->inode;
    if (f->flags & O_APPEND)
        *pos = i->size;             /* pwrite too, as Linux does */
    l4_word_t p = *pos, start = u->done;
    if (!u->resid)
        return 0;
    if (p >= LX_MAX_LFS)
        return -EFBIG;
    file_remove_privs(t, i);
    /* Bytes past the old end in its last page read as zeros once the file grows (a shared
     * mapping may have written there). */
    if (p > i->size && i->size % LX_PAGE) {
        int e;
        l4_word_t last = i->size / LX_PAGE;
        char *page = i->iop->get_page(i, last, false, &e) ? i->iop->get_page(i, last, true, &e)
                                                           : NULL;     /* a hole stays one */
        if (page)
            memset(page + i->size % LX_PAGE, 0, LX_PAGE - i->size % LX_PAGE);
    }
    long err = 0;
    while (u->resid && p < LX_MAX_LFS) {
        l4_word_t off = p % LX_PAGE, k = LX_PAGE - off;
        if (k > u->resid)
            k = u->resid;
        int e = 0;
        char *page = i->iop->get_page(i, p / LX_PAGE, true, &e);
        if (!page) {
            err = e;
            break;
        }
        l4_word_t m = uio_copy_in(u, page + off, k);
        p += m;
        if (p > i->size)
            i->size = p;
        if (m < k)
            break;
    }
    *pos = p;
    l4_word_t moved = u->done - start;
    if (moved)
        inode_touch(i, true);
    return moved ? (long)moved : err;
}

/* lseek of a file with a size: SEEK_DATA and SEEK_HOLE see one extent of data (holes are
 * not reported: Linux's generic answer). */
long generic_file_llseek(struct thread *t, struct file *f, long off, int whence)
{
    (void)t;
    long size = (long)f->inode->size, base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (long)f->pos; break;
    case SEEK_END: base = size; break;
    case SEEK_DATA:
    case SEEK_HOLE:
        if (off < 0 || off >= size)
            return -ENXIO;
        return whence == SEEK_DATA ? off : size;
    default: return -EINVAL;
    }
    if ((off > 0 && base > __LONG_MAX__ - off) || base + off < 0)
        return -EINVAL;
    return base + off;
}

long dir_llseek(struct thread *t, struct file *f, long off, int whence)
{
    (void)t;
    if (whence == SEEK_CUR)
        off += (long)f->pos;
    else if (whence != SEEK_SET)
        return -EINVAL;
    return off < 0 ? -EINVAL : off;
}

int generic_file_mmap(struct thread *t, struct file *f, struct region *r)
{
    (void)t;
    r->file = f->inode;             /* r->foff: the offset asked for */
    r->fstart = r->start;
    r->fend = MM_FILE_END;
    r->bus_past_eof = true;
    return 0;
}

int generic_file_fsync(struct thread *t, struct file *f, bool datasync)
{
    (void)t, (void)f, (void)datasync;
    return 0;                       /* in memory already */
}

/* --- lx's own use of the page provider ------------------------------------------------------ */

long vfs_kernel_read(struct inode *i, void *buf, l4_word_t n, l4_word_t pos)
{
    if (!i->iop || !i->iop->get_page)
        return -EINVAL;
    struct uio_seg seg = { (l4_word_t)buf, n };
    struct uio u;
    uio_init(&u, NULL, &seg, 1);
    return read_pages(i, &u, &pos);
}

void *vfs_page_get(struct inode *i, l4_word_t index)
{
    int e;
    return i->iop && i->iop->get_page ? i->iop->get_page(i, index, true, &e) : NULL;
}

/* --- directories ------------------------------------------------------------------------- */

int vfs_iterate(struct thread *t, struct file *f, struct dir_context *ctx)
{
    if (!f->ops->iterate)
        return -ENOTDIR;
    if (!f->inode->parent)
        return 0;                   /* a removed directory lists nothing */
    ctx->pos = f->pos;
    int e = f->ops->iterate(t, f, ctx);
    f->pos = ctx->pos;
    f->inode->atime = vfs_now();
    fsnotify_file(f->inode, FS_ACCESS);
    return e;
}
