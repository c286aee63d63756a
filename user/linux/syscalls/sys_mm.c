/* Memory system calls: thin, over the memory model (mm/mm.c).  The argument checks and their
 * errors follow Linux 6.1's order (docs/linux/memory.md). */
#include "syscalls/handlers.h"
#include "syscalls/handlers_rest.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"

#define MAP_SHARED          0x01
#define MAP_PRIVATE         0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE            0x0F
#define MAP_FIXED           0x10
#define MAP_ANONYMOUS       0x20
#define MAP_GROWSDOWN       0x0100
#define MAP_NORESERVE       0x4000
#define MAP_FIXED_NOREPLACE 0x100000
/* What MAP_SHARED_VALIDATE accepts for a tmpfs file: Linux's LEGACY_MAP_MASK (SHARED,
 * PRIVATE, FIXED, ANONYMOUS, GROWSDOWN, DENYWRITE, EXECUTABLE, LOCKED, NORESERVE, POPULATE,
 * NONBLOCK, STACK, HUGETLB, UNINITIALIZED); MAP_SYNC and the rest: EOPNOTSUPP. */
#define MAP_KNOWN           0x0407F933ul

#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC       4

static l4_word_t page_up(l4_word_t x)
{
    return (x + LX_PAGE - 1) & LX_PAGE_MASK;
}

long sys_brk(struct thread *t, const struct sysargs *a)
{
    struct mm *mm = t->mm;
    l4_word_t want = a->a[0];
    /* As Linux: a failed or query call returns the current break. */
    if (want < mm->brk_start || want >= LX_USER_END)
        return (long)mm->brk;
    l4_word_t old_end = page_up(mm->brk), new_end = page_up(want);
    if (new_end > old_end) {
        if (!mm_may_commit(new_end - old_end) || !mm_range_free(mm, old_end, new_end) ||
            mm_brk(mm, old_end, new_end))
            return (long)mm->brk;
    } else if (new_end < old_end) {
        if (mm_unmap(mm, new_end, old_end))
            return (long)mm->brk;
    }
    mm->brk = want;
    return (long)want;
}

/* The backing of a file mapping of f into *r: the checks of Linux's do_mmap in its order,
 * then the file's mmap operation (the page provider, or memory of its own as /dev/zero's):
 * 0, or Linux's error.  A shared mapping of a file not open for writing never gets write
 * rights (Linux clears VM_MAYWRITE: mprotect to PROT_WRITE is EACCES). */
static int file_backing(struct thread *t, struct file *f, l4_word_t off, l4_word_t len,
                        unsigned type, l4_word_t flags, unsigned prot, struct region *r)
{
    struct inode *i = f->inode;
    unsigned acc = f->flags & O_ACCMODE;
    bool readable = acc == O_RDONLY || acc == O_RDWR, writable = acc == O_WRONLY || acc == O_RDWR;
    /* file_mmap_ok: a regular file's offsets end at 2^63 - 1 */
    if (S_ISREG(i->mode) && (len > (l4_word_t)INT64_MAX ||
                             off / LX_PAGE > ((l4_word_t)INT64_MAX - len) / LX_PAGE))
        return -EOVERFLOW;
    if (type == MAP_SHARED_VALIDATE && (flags & ~MAP_KNOWN))
        return -EOPNOTSUPP;
    if (type == MAP_SHARED || type == MAP_SHARED_VALIDATE) {
        if ((prot & PROT_WRITE) && !writable)
            return -EACCES;
        r->shared = true;
        r->no_write = !writable;
    } else if (type != MAP_PRIVATE) {
        return -EINVAL;
    }
    if (!readable)
        return -EACCES;             /* every mapping reads */
    if ((prot & PROT_EXEC) && (i->sb->flags & MS_NOEXEC))
        return -EPERM;
    if (!f->ops->mmap)
        return -ENODEV;             /* directories, the tty, pipes: no mmap */
    if (flags & MAP_GROWSDOWN)
        return -EINVAL;
    r->foff = off;
    int e = f->ops->mmap(t, f, r);
    if (!e && !r->file)
        r->fstart = r->start - off; /* memory of its own (/dev/zero): a private one's page
                                       offsets are the file's */
    return e;
}

long sys_mmap(struct thread *t, const struct sysargs *a)
{
    struct mm *mm = t->mm;
    l4_word_t addr = a->a[0], len = a->a[1], prot = a->a[2], flags = a->a[3], off = a->a[5];
    long fd = (long)(int)a->a[4];
    struct file *f = NULL;
    if (off & ~LX_PAGE_MASK)
        return -EINVAL;             /* checked first, before the fd (arch/x86 sys_mmap) */
    if (!(flags & MAP_ANONYMOUS) && (!(f = fd_get(t, fd)) || (f->flags & O_PATH)))
        return -EBADF;
    if (!len)
        return -EINVAL;
    if (!(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
        addr &= LX_PAGE_MASK;       /* a hint is rounded down (round_hint_to_min) */
    len = page_up(len);
    if (!len)
        return -ENOMEM;
    if (off / LX_PAGE + len / LX_PAGE < off / LX_PAGE)
        return -EOVERFLOW;
    if (mm->nregions > LX_MAX_MAP_COUNT)
        return -ENOMEM;
    /* get_unmapped_area */
    if (len > LX_USER_END)
        return -ENOMEM;
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr > LX_USER_END - len)
            return -ENOMEM;
        if (addr & ~LX_PAGE_MASK)
            return -EINVAL;
        if (addr < LX_MMAP_MIN)
            return -EPERM;          /* Linux lets root map there; lx keeps it for itself */
        if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) &&
            !mm_range_free(mm, addr, addr + len))
            return -EEXIST;
    } else {
        if (addr && addr < LX_MMAP_MIN)
            addr = LX_MMAP_MIN;
        if (!addr || addr > LX_USER_END - len || !mm_range_free(mm, addr, addr + len))
            addr = mm_find_gap(mm, len);
        if (!addr)
            return -ENOMEM;
    }
    /* The mapping's rights: PROT_SEM and unknown bits are ignored, as calc_vm_prot_bits does. */
    struct region r = { .start = addr, .end = addr + len, .prot = (unsigned)prot & 7 };
    unsigned type = flags & MAP_TYPE;
    if (f) {
        int e = file_backing(t, f, off, len, type, flags, (unsigned)prot, &r);
        if (e)
            return e;
    } else if (type == MAP_SHARED && !(flags & MAP_GROWSDOWN)) {
        r.shared = true;            /* fork shares it with the child */
    } else if (type != MAP_PRIVATE) {
        return -EINVAL;             /* neither, MAP_SHARED_VALIDATE, a growing shared one */
    }
    /* Private writable memory is promised unless MAP_NORESERVE says not to count it:
     * a request larger than all of memory is refused (Linux's heuristic overcommit). */
    r.noreserve = flags & MAP_NORESERVE;
    r.accounted = !r.shared && (prot & PROT_WRITE) && !r.noreserve;
    if (r.accounted && !r.file && !mm_may_commit(len))
        return -ENOMEM;
    int e = mm_map_region(mm, &r);
    return e ? e : (long)addr;
}

long sys_munmap(struct thread *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = a->a[1];
    if ((addr & ~LX_PAGE_MASK) || addr > LX_USER_END || len > LX_USER_END - addr)
        return -EINVAL;
    len = page_up(len);
    if (!len)
        return -EINVAL;
    if (addr + len <= LX_MMAP_MIN)
        return 0;                       /* nothing of the process is there */
    return mm_unmap(t->mm, addr < LX_MMAP_MIN ? LX_MMAP_MIN : addr, addr + len);
}

#define PROT_SEM       0x8
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP   0x02000000

long sys_mprotect(struct thread *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = a->a[1], prot = a->a[2];
    l4_word_t grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
    prot &= ~grows;
    if (grows == (PROT_GROWSDOWN | PROT_GROWSUP) || (addr & ~LX_PAGE_MASK))
        return -EINVAL;
    if (!len)
        return 0;
    len = page_up(len);
    if (addr + len <= addr)
        return -ENOMEM;             /* wrapped (or a length that rounds to 0) */
    if (prot & ~(l4_word_t)(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
        return -EINVAL;
    /* Nothing below mmap_min_addr is the process's to change (the signal page is lx's). */
    if (addr < LX_MMAP_MIN || !mm_find(t->mm, addr))
        return -ENOMEM;
    if (grows)
        return -EINVAL;             /* lx has no mapping that grows */
    return mm_protect(t->mm, addr, addr + len, (unsigned)prot & 7);
}

/* mremap(old, old_len, new_len, flags, new_addr) */
long sys_mremap(struct thread *t, const struct sysargs *a)
{
    return mm_remap(t->mm, a->a[0], a->a[1], a->a[2], (unsigned)a->a[3], a->a[4]);
}

/* msync: the shared pages of a file are the file's own, so there is nothing to write back;
 * only the checks remain. */
long sys_msync(struct thread *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = a->a[1], flags = a->a[2];
    if ((flags & ~(l4_word_t)(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) || (addr & ~LX_PAGE_MASK) ||
        ((flags & MS_ASYNC) && (flags & MS_SYNC)))
        return -EINVAL;
    len = page_up(len);
    if (addr + len < addr)
        return -ENOMEM;
    if (!len)
        return 0;
    return mm_range_mapped(t->mm, addr, addr + len) ? 0 : -ENOMEM;
}

/* madvise: MADV_DONTNEED drops private pages (anonymous ones read as zero again); the rest
 * of the advice Linux knows is accepted and changes nothing here. */
long mm_madvise(struct mm *mm, l4_word_t addr, l4_word_t len, l4_word_t advice)
{
    enum { MADV_DONTNEED = 4, MADV_FREE = 8, MADV_REMOVE = 9, MADV_DONTNEED_LOCKED = 24,
           MADV_COLLAPSE = 25 };
    /* Linux 6.1 knows 0-4 and 8-25 (and the poisoning ones, 100 and 101, not here). */
    bool known = advice <= MADV_COLLAPSE && (advice <= MADV_DONTNEED || advice >= MADV_FREE);
    if (!known || (addr & ~LX_PAGE_MASK))
        return -EINVAL;
    l4_word_t end = addr + page_up(len);
    if ((len && !page_up(len)) || end < addr)
        return -EINVAL;
    if (end == addr)
        return 0;
    if (advice == MADV_REMOVE)
        return mm_range_mapped(mm, addr, end) ? -EINVAL : -ENOMEM;  /* shmem only */
    if (advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED)
        return mm_discard(mm, addr, end);
    return mm_range_mapped(mm, addr, end) ? 0 : -ENOMEM;
}

long sys_madvise(struct thread *t, const struct sysargs *a)
{
    return mm_madvise(t->mm, a->a[0], a->a[1], a->a[2]);
}

/* remap_file_pages, as Linux 6.1 emulates it: [start, start + size) of a shared mapping
 * (one, or neighbours of the same file and rights) is mapped again, MAP_FIXED, from page
 * pgoff of the same file. */
long sys_remap_file_pages(struct thread *t, const struct sysargs *a)
{
    l4_word_t start = a->a[0] & LX_PAGE_MASK, size = a->a[1] & LX_PAGE_MASK, pgoff = a->a[3];
    if (a->a[2] || start + size <= start || pgoff + size / LX_PAGE < pgoff)
        return -EINVAL;
    struct region *r = mm_find(t->mm, start);
    if (!r || r->start > start || !r->shared)
        return -EINVAL;
    for (struct region *n = r; n->end < start + size;) {
        struct region *next = mm_find(t->mm, n->end);
        if (!next || next->start != n->end || next->file != r->file || next->prot != r->prot ||
            !next->shared || next->no_write != r->no_write)
            return -EINVAL;
        n = next;
    }
    if (!r->file)
        return -EINVAL;             /* shared anonymous memory: not lx's file (see docs) */
    if (pgoff > ((l4_word_t)INT64_MAX - size) / LX_PAGE)
        return -EOVERFLOW;          /* do_mmap's file_mmap_ok */
    struct region tmpl = *r;
    tmpl.start = tmpl.fstart = start;
    tmpl.end = start + size;
    tmpl.foff = pgoff * LX_PAGE;
    return mm_map_region(t->mm, &tmpl);
}
