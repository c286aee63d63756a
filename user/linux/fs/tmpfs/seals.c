/* tmpfs's regular files beyond the generic operations: memfd's seals (Linux's
 * mm/memfd.c and the checks of mm/shmem.c, 6.1), fallocate (allocate and PUNCH_HOLE, the
 * two modes Linux's shmem_fallocate has), and the seal fcntls.  Every tmpfs regular file has
 * seals (F_SEAL_SEAL from the start: nothing can be added), as Linux's shmem files. */
#include "fs/tmpfs/tmpfs.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "task/process.h"
#include "vfs/file.h"
#include <string.h>

#define PROT_WRITE 2
#define FALLOC_FL_KEEP_SIZE  1
#define FALLOC_FL_PUNCH_HOLE 2
#define F_ALL_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | \
                     F_SEAL_FUTURE_WRITE)

static unsigned seals_of(const struct inode *i)
{
    return tmpfs_node((struct inode *)i)->seals;
}

/* Linux's shmem_write_begin, page by page: a sealed file takes no write; under F_SEAL_GROW
 * the pieces (each within one page) that end inside the file are written, the first that
 * would grow it is EPERM. */
long tmpfs_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    struct inode *i = f->inode;
    unsigned seals = seals_of(i);
    if (!(seals & (F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) || !u->resid)
        return generic_file_write(t, f, u, pos);
    if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
        return -EPERM;
    l4_word_t p = (f->flags & O_APPEND) ? i->size : *pos, end = p, want = p + u->resid;
    while (end < want) {
        l4_word_t piece = (end / LX_PAGE + 1) * LX_PAGE;
        if (piece > want)
            piece = want;
        if (piece > i->size)
            break;
        end = piece;
    }
    if (end == p)
        return -EPERM;
    l4_word_t cut = want - end;
    u->resid -= cut;
    long r = generic_file_write(t, f, u, pos);
    u->resid += cut;
    return r;
}

int tmpfs_seal_resize(struct inode *i, l4_word_t size)
{
    unsigned seals = S_ISREG(i->mode) ? seals_of(i) : 0;
    if ((size < i->size && (seals & F_SEAL_SHRINK)) || (size > i->size && (seals & F_SEAL_GROW)))
        return -EPERM;
    return 0;
}

/* Linux 6.1's shmem_mmap with the stable series' seal_check_write (Debian's 6.1.192): a
 * write-sealed file (F_SEAL_WRITE or F_SEAL_FUTURE_WRITE) has no writable shared mapping,
 * and its read-only ones may not become writable (VM_MAYWRITE cleared: mprotect is EACCES). */
int tmpfs_mmap(struct thread *t, struct file *f, struct region *r)
{
    if (r->shared && (seals_of(f->inode) & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))) {
        if (r->prot & PROT_WRITE)
            return -EPERM;
        r->no_write = true;
    }
    return generic_file_mmap(t, f, r);
}

/* Does any process map i shared through a writable fd (Linux's i_mmap_writable)? */
static bool mapped_writable(struct inode *i)
{
    struct process *p;
    list_each(p, &process_all, all_link) {
        struct mm *mm = process_mm(p);
        for (struct region *r = mm ? mm_first(mm) : NULL; r; r = vma_next(r))
            if (r->file == i && r->shared && !r->no_write)
                return true;
    }
    return false;
}

/* F_ADD_SEALS and F_GET_SEALS of a tmpfs regular file (Linux's memfd_fcntl). */
long tmpfs_seal_fcntl(struct file *f, bool add, unsigned seals)
{
    struct tmpfs_node *n = tmpfs_node(f->inode);
    if (!add)
        return n->seals;
    unsigned acc = f->flags & O_ACCMODE;
    if (acc != O_WRONLY && acc != O_RDWR)
        return -EPERM;
    if (seals & ~F_ALL_SEALS)
        return -EINVAL;
    if (n->seals & F_SEAL_SEAL)
        return -EPERM;
    if ((seals & F_SEAL_WRITE) && !(n->seals & F_SEAL_WRITE) && mapped_writable(f->inode))
        return -EBUSY;
    n->seals |= seals;
    return 0;
}

/* Bytes [from, to) of one page of i become zeros (a hole stays one). */
static int zero_part(struct inode *i, l4_word_t from, l4_word_t to)
{
    int e = 0;
    char *page = i->iop->get_page(i, from / LX_PAGE, false, &e) ?
                 i->iop->get_page(i, from / LX_PAGE, true, &e) : NULL;
    if (page)
        memset(page + from % LX_PAGE, 0, to - from);
    return e;
}

/* shmem_fallocate: allocate (pages for every hole of the range, the size grown unless
 * KEEP_SIZE) or PUNCH_HOLE|KEEP_SIZE (whole pages go, past the end too; the partial ends
 * are zeroed).  Other
 * modes: EOPNOTSUPP.  A shared mapping keeps the pages it holds after a punch (Linux
 * unmaps them: the next touch reads zeros). */
int tmpfs_fallocate(struct thread *t, struct file *f, int mode, l4_word_t off, l4_word_t len)
{
    (void)t;
    struct inode *i = f->inode;
    struct tmpfs_node *n = tmpfs_node(i);
    if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
        return -EOPNOTSUPP;
    l4_word_t end = off + len;
    int e = 0;
    if (mode & FALLOC_FL_PUNCH_HOLE) {
        if (n->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
            return -EPERM;
        /* shmem_truncate_range: pages past the end go too (KEEP_SIZE may have made them) */
        l4_word_t first = (off + LX_PAGE - 1) / LX_PAGE, last = end / LX_PAGE;
        if (off % LX_PAGE)
            e = zero_part(i, off, end < first * LX_PAGE ? end : first * LX_PAGE);
        if (!e && end % LX_PAGE && (end / LX_PAGE > off / LX_PAGE || !(off % LX_PAGE)))
            e = zero_part(i, last * LX_PAGE, end);
        if (e)
            return e;
        if (first < last && (e = tmpfs_punch_pages(n, first, last - 1)))
            return e;
        inode_touch(i, true);
        return 0;
    }
    if ((n->seals & F_SEAL_GROW) && end > i->size)
        return -EPERM;
    for (l4_word_t p = off / LX_PAGE; p * LX_PAGE < end; p++)
        if (!i->iop->get_page(i, p, true, &e))
            return e;               /* ENOSPC; the pages made stay (Linux gives them back) */
    if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i->size) {
        i->size = end;
        inode_touch(i, true);
    }
    return 0;
}
