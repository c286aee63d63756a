/* The one checked path to a process's memory.  Every pointer a process passes is checked
 * against its memory model (a region with the needed right) and reached through lx's own
 * address of the page behind it (lx allocated every page it maps to a process), which is
 * allocated and filled first if the process has not touched it yet.  A bad pointer is
 * -EFAULT; nothing here can fault lx. */
#include "mm/usercopy.h"
#include "mm/mm.h"
#include "lib/errno.h"
#include <string.h>

/* lx's address of user byte `addr` if the process may access it with `prot`; NULL if not
 * (or no memory: also reported as EFAULT, as Linux does when it cannot fault a page in). */
static char *user_byte(struct mm *mm, l4_word_t addr, unsigned prot)
{
    struct region *r = mm_find(mm, addr);
    if (!r || (r->prot & prot) != prot)
        return NULL;
    /* A write goes to a page of the process's own (copy-on-write after fork). */
    char *page = (prot & PROT_WRITE) ? mm_page_write(mm, r, addr, true) : mm_page(mm, r, addr);
    return page ? page + (addr & ~LX_PAGE_MASK) : NULL;
}

int copy_from_user(struct mm *mm, void *dst, l4_word_t src, size_t n)
{
    char *d = dst;
    if (src + n < src)
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
    if (dst + n < dst)
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
