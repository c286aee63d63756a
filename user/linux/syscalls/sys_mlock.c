/* mlock, mlock2, munlock, mlockall, munlockall, mincore (Linux 6.1's mm/mlock.c and
 * mm/mincore.c).  lx never pages process memory out, so locking is the range checks Linux
 * makes and, for mlock, the pages brought in at once (so mincore sees them, as on Linux);
 * no region records the lock (VmLck is 0), MCL_FUTURE changes nothing, and RLIMIT_MEMLOCK
 * is not counted: every process is root today, whom Linux lets lock without a limit
 * (CAP_IPC_LOCK).  docs/linux/memory.md, "Locking and residency". */
#include "syscalls/handlers_more.h"
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "task/process.h"

#define MLOCK_ONFAULT 1
#define MCL_CURRENT   1
#define MCL_FUTURE    2
#define MCL_ONFAULT   4
#define PROT_RWX      7

/* apply_vma_lock_flags' checks: [start, start + len) page-rounded, every page in a region;
 * with populate, each readable region's pages brought in (Linux's __mm_populate). */
static long lock_range(struct thread *t, l4_word_t start, l4_word_t len, bool populate)
{
    l4_word_t off = start & ~LX_PAGE_MASK;
    len = (len + off + LX_PAGE - 1) & LX_PAGE_MASK;
    start &= LX_PAGE_MASK;
    l4_word_t end = start + len;
    if (end < start)
        return -EINVAL;
    if (end == start)
        return 0;
    if (!mm_range_mapped(t->mm, start, end))
        return -ENOMEM;
    /* __mm_populate: a page it cannot bring in (PROT_NONE, past a file's end) is EFAULT,
     * which mlock answers as ENOMEM (__mlock_posix_error_return; no memory: EAGAIN) */
    for (l4_word_t a = start; populate && a < end; a += LX_PAGE) {
        struct region *r = mm_find(t->mm, a);
        int e = 0;
        if (!(r->prot & PROT_RWX) || mm_past_eof(r, a))
            return -ENOMEM;
        if (!mm_page(t->mm, r, a, &e))
            return e == -ENOMEM ? -EAGAIN : -ENOMEM;
    }
    return 0;
}

long sys_mlock(struct thread *t, const struct sysargs *a)
{
    return lock_range(t, a->a[0], a->a[1], true);
}

long sys_mlock2(struct thread *t, const struct sysargs *a)
{
    if (a->a[2] & ~(l4_word_t)MLOCK_ONFAULT)
        return -EINVAL;
    return lock_range(t, a->a[0], a->a[1], !(a->a[2] & MLOCK_ONFAULT));
}

long sys_munlock(struct thread *t, const struct sysargs *a)
{
    return lock_range(t, a->a[0], a->a[1], false);
}

long sys_mlockall(struct thread *t, const struct sysargs *a)
{
    (void)t;
    l4_word_t flags = a->a[0];
    if (!flags || (flags & ~(l4_word_t)(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) ||
        flags == MCL_ONFAULT)
        return -EINVAL;
    return 0;
}

long sys_munlockall(struct thread *t, const struct sysargs *a)
{
    (void)t, (void)a;
    return 0;
}

/* mincore: a byte per page, 1 if the process has it (or the file it maps does). */
long sys_mincore(struct thread *t, const struct sysargs *a)
{
    l4_word_t start = a->a[0], len = a->a[1], vec = a->a[2];
    if (start & ~LX_PAGE_MASK)
        return -EINVAL;
    if (!access_ok(start, len))
        return -ENOMEM;
    l4_word_t pages = len / LX_PAGE + (len % LX_PAGE != 0);
    if (!access_ok(vec, pages))
        return -EFAULT;
    static unsigned char buf[LX_PAGE];
    for (l4_word_t done = 0; done < pages;) {
        l4_word_t n = 0, want = pages - done < LX_PAGE ? pages - done : LX_PAGE;
        struct region *r = mm_find(t->mm, start + done * LX_PAGE);
        if (!r || start + done * LX_PAGE < LX_MMAP_MIN)
            return -ENOMEM;
        for (l4_word_t addr = start + done * LX_PAGE; n < want && addr < r->end; addr += LX_PAGE)
            buf[n++] = mm_resident(t->mm, r, addr);
        if (copy_to_user(t->mm, vec + done, buf, n))
            return -EFAULT;
        done += n;
    }
    return 0;
}

/* --- protection keys: Linux on a CPU without PKU (QEMU's) ------------------------------------ */

#define PKEY_ACCESS_MASK 3

/* Only key 0 exists (arch_max_pkey() is 1): with it or -1 the call is mprotect. */
long sys_pkey_mprotect(struct thread *t, const struct sysargs *a)
{
    int pkey = (int)a->a[3];
    return pkey == -1 || pkey == 0 ? sys_mprotect(t, a) : -EINVAL;
}

long sys_pkey_alloc(struct thread *t, const struct sysargs *a)
{
    (void)t;
    if (a->a[0] || (a->a[1] & ~(l4_word_t)PKEY_ACCESS_MASK))
        return -EINVAL;
    return -ENOSPC;                 /* no key to hand out */
}

/* Key 0 is allocated from the start and may be freed (0); lx does not remember that it was,
 * so a second free of 0 is 0 too (Linux: EINVAL).  Any other key was never allocated. */
long sys_pkey_free(struct thread *t, const struct sysargs *a)
{
    (void)t;
    return (int)a->a[0] == 0 ? 0 : -EINVAL;
}
