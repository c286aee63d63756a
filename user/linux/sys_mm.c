/* Memory system calls: thin, over the memory model (mm.c). */
#include "lx.h"

#define MAP_SHARED          0x01
#define MAP_PRIVATE         0x02
#define MAP_TYPE            0x0F
#define MAP_FIXED           0x10
#define MAP_ANONYMOUS       0x20
#define MAP_FIXED_NOREPLACE 0x100000

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

long sys_brk(struct task *t, const struct sysargs *a)
{
    struct mm *mm = &t->mm;
    l4_word_t want = a->a[0];
    /* As Linux: a failed or query call returns the current break. */
    if (want < mm->brk_start || want >= LX_USER_END)
        return (long)mm->brk;
    l4_word_t old_end = page_up(mm->brk), new_end = page_up(want);
    if (new_end > old_end) {
        if (!range_free(mm, old_end, new_end) ||
            mm_map(mm, old_end, new_end, PROT_READ | PROT_WRITE, 0, 0, 0))
            return (long)mm->brk;
    } else if (new_end < old_end) {
        if (mm_unmap(mm, new_end, old_end))
            return (long)mm->brk;
    }
    mm->brk = want;
    return (long)want;
}

long sys_mmap(struct task *t, const struct sysargs *a)
{
    struct mm *mm = &t->mm;
    l4_word_t addr = a->a[0], len = a->a[1], prot = a->a[2], flags = a->a[3];
    if (!len || len > LX_USER_END || (prot & ~7ul) || (addr & ~LX_PAGE_MASK))
        return -EINVAL;
    unsigned type = flags & MAP_TYPE;
    if (type != MAP_PRIVATE && type != MAP_SHARED)
        return -EINVAL;
    if (!(flags & MAP_ANONYMOUS))
        return -EBADF;                  /* no files yet */
    len = page_up(len);
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr < LX_MMAP_MIN || addr > LX_USER_END - len)
            return (flags & MAP_FIXED) ? -EPERM : -ENOMEM;
        if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) &&
            !range_free(mm, addr, addr + len))
            return -EEXIST;
    } else if (!addr || addr < LX_MMAP_MIN || addr > LX_USER_END - len ||
               !range_free(mm, addr, addr + len)) {
        addr = mm_find_gap(mm, len);    /* the hint is only a hint */
        if (!addr)
            return -ENOMEM;
    }
    int e = mm_map(mm, addr, addr + len, (unsigned)prot, 0, 0, 0);
    if (!e && type == MAP_SHARED && (e = mm_set_shared(mm, addr, addr + len)))
        mm_unmap(mm, addr, addr + len);             /* fork shares it with the child */
    return e ? e : (long)addr;
}

long sys_munmap(struct task *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = page_up(a->a[1]);
    if (!len || (addr & ~LX_PAGE_MASK) || addr > LX_USER_END - len)
        return -EINVAL;
    if (addr + len <= LX_MMAP_MIN)
        return 0;                       /* nothing of the process is there */
    return mm_unmap(&t->mm, addr < LX_MMAP_MIN ? LX_MMAP_MIN : addr, addr + len);
}

long sys_mprotect(struct task *t, const struct sysargs *a)
{
    l4_word_t addr = a->a[0], len = page_up(a->a[1]), prot = a->a[2];
    if ((addr & ~LX_PAGE_MASK) || (prot & ~7ul) || addr > LX_USER_END - len)
        return -EINVAL;
    if (!len)
        return 0;
    if (addr < LX_MMAP_MIN)
        return -ENOMEM;
    return mm_protect(&t->mm, addr, addr + len, (unsigned)prot);
}
