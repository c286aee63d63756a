/* Memory system calls: thin, over the memory model (mm/mm.c).  The argument checks and their
 * errors follow Linux 6.1's order (docs/linux/memory.md). */
#include "syscalls/handlers.h"
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

static bool range_free(struct mm *mm, l4_word_t start, l4_word_t end)
{
    for (unsigned i = 0; i < mm->nregions; i++)
        if (mm->regions[i].start < end && mm->regions[i].end > start)
            return false;
    return true;
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
        if (!mm_may_commit(new_end - old_end) || !range_free(mm, old_end, new_end) ||
            mm_map(mm, old_end, new_end, PROT_READ | PROT_WRITE, 0, 0, 0))
            return (long)mm->brk;
    } else if (new_end < old_end) {
        if (mm_unmap(mm, new_end, old_end))
            return (long)mm->brk;
    }
    mm->brk = want;
    return (long)want;
}

/* The backing of a file mapping from fd into *r: the access mode checked as Linux's
 * do_mmap, then the file's mmap operation (the page provider, or memory of its own as
 * /dev/zero's): 0, or Linux's error. */
static int file_backing(struct thread *t, long fd, l4_word_t off, unsigned type, unsigned prot,
                        struct region *r)
{
    struct file *f = fd_get(t, fd);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    unsigned acc = f->flags & O_ACCMODE;
    bool readable = acc == O_RDONLY || acc == O_RDWR, writable = acc == O_WRONLY || acc == O_RDWR;
    if (type == MAP_SHARED && (prot & PROT_WRITE) && !writable)
        return -EACCES;
    if (!readable)
        return -EACCES;             /* every mapping reads */
    if ((prot & PROT_EXEC) && (f->inode->sb->flags & MS_NOEXEC))
        return -EPERM;
    if (!f->ops->mmap)
        return -ENODEV;             /* directories, the tty, pipes: no mmap */
    r->foff = off;
    int e = f->ops->mmap(t, f, r);
    if (e || !r->file)
        return e;                   /* memory of its own (anonymous for /dev/zero) */
    r->shared = type == MAP_SHARED;
    r->no_write = type == MAP_SHARED && !writable;
    return 0;
}

long sys_mmap(struct thread *t, const struct sysargs *a)
{
    struct mm *mm = t->mm;
    l4_word_t addr = a->a[0], len = a->a[1], prot = a->a[2], flags = a->a[3], off = a->a[5];
    long fd = (long)(int)a->a[4];
    if (off & ~LX_PAGE_MASK)
        return -EINVAL;             /* checked first, before the fd (arch/x86 sys_mmap) */
    if (!(flags & MAP_ANONYMOUS) && !fd_get(t, fd))
        return -EBADF;
    if (!len)
        return -EINVAL;
    unsigned type = flags & MAP_TYPE;
    if (type == MAP_SHARED_VALIDATE) {
        if (flags & ~MAP_KNOWN)
            return -EOPNOTSUPP;
        type = MAP_SHARED;
    }
    if ((type != MAP_PRIVATE && type != MAP_SHARED) || (prot & ~7ul))
        return -EINVAL;
    if (len > LX_USER_END)
        return -ENOMEM;
    len = page_up(len);
    if ((flags & MAP_ANONYMOUS) == 0 && off + len < off)
        return -EOVERFLOW;
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr & ~LX_PAGE_MASK)
            return -EINVAL;
        if (addr < LX_MMAP_MIN || addr > LX_USER_END - len)
            return (flags & MAP_FIXED) ? -EPERM : -ENOMEM;
        if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) &&
            !range_free(mm, addr, addr + len))
            return -EEXIST;
    } else {
        /* The hint is only a hint (rounded up to a page, as Linux does). */
        addr = addr > LX_USER_END ? 0 : page_up(addr);
        if (!addr || addr < LX_MMAP_MIN || addr > LX_USER_END - len ||
            !range_free(mm, addr, addr + len))
            addr = mm_find_gap(mm, len);
        if (!addr)
            return -ENOMEM;
    }
    struct region r = { .start = addr, .end = addr + len, .prot = (unsigned)prot };
    if (!(flags & MAP_ANONYMOUS)) {
        int e = file_backing(t, fd, off, type, (unsigned)prot, &r);
        if (e)
            return e;
    }
    if (!r.file && type == MAP_SHARED)
        r.shared = true;            /* fork shares it with the child */
    /* Private writable memory is promised unless MAP_NORESERVE says not to count it:
     * a request larger than all of memory is refused (Linux's heuristic overcommit). */
    if (!r.file && !r.shared && (prot & PROT_WRITE) && !(flags & MAP_NORESERVE) &&
        !mm_may_commit(len))
        return -ENOMEM;
    int e = mm_map_region(mm, &r);
    return e ? e : (long)addr;
}

long sys_munmap(struct thread *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = page_up(a->a[1]);
    if (!len || (addr & ~LX_PAGE_MASK) || addr > LX_USER_END - len)
        return -EINVAL;
    if (addr + len <= LX_MMAP_MIN)
        return 0;                       /* nothing of the process is there */
    return mm_unmap(t->mm, addr < LX_MMAP_MIN ? LX_MMAP_MIN : addr, addr + len);
}

long sys_mprotect(struct thread *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = page_up(a->a[1]), prot = a->a[2];
    if ((addr & ~LX_PAGE_MASK) || (prot & ~7ul) || addr > LX_USER_END - len)
        return -EINVAL;
    if (!len)
        return 0;
    if (addr < LX_MMAP_MIN)
        return -ENOMEM;
    return mm_protect(t->mm, addr, addr + len, (unsigned)prot);
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
    l4_word_t addr = a->a[0], len = page_up(a->a[1]), flags = a->a[2];
    if ((addr & ~LX_PAGE_MASK) || (flags & ~(l4_word_t)(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) ||
        ((flags & MS_ASYNC) && (flags & MS_SYNC)))
        return -EINVAL;
    if (a->a[1] && !len)
        return -ENOMEM;
    if (!len)
        return 0;
    if (addr > LX_USER_END - len || !mm_range_mapped(t->mm, addr, addr + len))
        return -ENOMEM;
    return 0;
}

/* madvise: MADV_DONTNEED drops private pages (anonymous ones read as zero again); the rest
 * of the advice Linux knows is accepted and changes nothing here. */
long sys_madvise(struct thread *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = a->a[1], advice = a->a[2];
    enum { MADV_DONTNEED = 4, MADV_FREE = 8, MADV_REMOVE = 9, MADV_DONTNEED_LOCKED = 24,
           MADV_COLLAPSE = 25 };
    /* Linux 6.1 knows 0-4 and 8-25 (and the poisoning ones, 100 and 101, not here). */
    bool known = advice <= MADV_COLLAPSE && (advice <= MADV_DONTNEED || advice >= MADV_FREE);
    if ((addr & ~LX_PAGE_MASK) || !known)
        return -EINVAL;
    if (advice == MADV_REMOVE)
        return -EINVAL;             /* only for shmem files: none here */
    if (len > LX_USER_END)
        return -EINVAL;
    len = page_up(len);
    if (!len)
        return 0;
    if (addr > LX_USER_END - len)
        return -ENOMEM;
    if (advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED)
        return mm_discard(t->mm, addr, addr + len);
    return mm_range_mapped(t->mm, addr, addr + len) ? 0 : -ENOMEM;
}
