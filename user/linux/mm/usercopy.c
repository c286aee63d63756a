/* The one checked path to a process's memory.  Every pointer a process passes is checked
 * against its memory model (a region with the needed right) and reached through lx's own
 * address of the page behind it (lx allocated every page it maps to a process), which is
 * allocated and filled first if the process has not touched it yet.  A bad pointer is
 * -EFAULT; nothing here can fault lx.
 *
 * A whole range is first checked as Linux's access_ok does (below TASK_SIZE, no wrap), so
 * a range that cannot be user memory moves no byte; callers that move a large buffer in
 * pieces check it whole with access_ok first.  The signal page (sigpage.c, lx's [vdso])
 * lies below mmap_min_addr, where Linux never has user memory: it is no buffer of the
 * process's (EFAULT both ways), though its code can read and run it. */
#include "mm/usercopy.h"
#include "mm/mm.h"
#include "mm/oom.h"
#include "lib/errno.h"
#include <string.h>

/* lx's address of user byte `addr` if the process may access it with `prot`; NULL if not
 * (or no memory: also reported as EFAULT, as Linux does when it cannot fault a page in). */
static char *user_byte(struct mm *mm, l4_word_t addr, unsigned prot)
{
    struct region *r = addr >= LX_MMAP_MIN ? mm_find(mm, addr) : NULL;
    if (!r || r->native_window || (r->prot & prot) != prot || mm_past_eof(r, addr))
        return NULL;
    /* A write goes to a page of the process's own (copy-on-write after fork). */
    int err;
    char *page = (prot & PROT_WRITE) ? mm_page_write(mm, r, addr, true, &err)
                                     : mm_page(mm, r, addr, &err);
    if (!page) {
        if (err == -ENOMEM)
            oom_copy(mm);
        return NULL;
    }
    return page + (addr & ~LX_PAGE_MASK);
}

int copy_from_user(struct mm *mm, void *dst, l4_word_t src, size_t n)
{
    char *d = dst;
    if (!access_ok(src, n))
        return -EFAULT;
    while (n) {
        size_t chunk = LX_PAGE - (src & ~LX_PAGE_MASK);
        if (chunk > n)
            chunk = n;
        const char *s = user_byte(mm, src, PROT_READ);
        if (!s)
            return -EFAULT;
        memcpy(d, s, chunk);
        d += chunk;
        src += chunk;
        n -= chunk;
    }
    return 0;
}

int copy_to_user(struct mm *mm, l4_word_t dst, const void *src, size_t n)
{
    const char *s = src;
    if (!access_ok(dst, n))
        return -EFAULT;
    while (n) {
        size_t chunk = LX_PAGE - (dst & ~LX_PAGE_MASK);
        if (chunk > n)
            chunk = n;
        char *d = user_byte(mm, dst, PROT_WRITE);
        if (!d)
            return -EFAULT;
        memcpy(d, s, chunk);
        s += chunk;
        dst += chunk;
        n -= chunk;
    }
    return 0;
}

long strnlen_user(struct mm *mm, l4_word_t src, size_t max)
{
    for (size_t n = 0; n < max;) {
        size_t chunk = LX_PAGE - ((src + n) & ~LX_PAGE_MASK);
        if (chunk > max - n)
            chunk = max - n;
        const char *s = access_ok(src + n, chunk) ? user_byte(mm, src + n, PROT_READ) : NULL;
        if (!s)
            return 0;
        const char *z = memchr(s, 0, chunk);
        if (z)
            return (long)(n + (size_t)(z - s) + 1);
        n += chunk;
    }
    return (long)max + 1;
}

long strncpy_from_user(struct mm *mm, char *dst, l4_word_t src, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        const char *s = user_byte(mm, src + i, PROT_READ);
        if (!s)
            return -EFAULT;
        dst[i] = *s;
        if (!*s)
            return (long)i;
    }
    return -ENAMETOOLONG;           /* no NUL within max */
}
