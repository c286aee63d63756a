/* Transfers between a file and memory: the segments of a read, write, readv or writev in a
 * process's memory (through the one checked path, mm/usercopy.c, a page at a time so that
 * a bad page ends the transfer exactly at its start), or lx's own buffer (sendfile, exec). */
#include "vfs/file.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include <string.h>

void uio_init(struct uio *u, struct mm *mm, const struct uio_seg *seg, unsigned nseg)
{
    memset(u, 0, sizeof *u);
    u->mm = mm;
    u->seg = seg;
    u->nseg = nseg;
    for (unsigned k = 0; k < nseg; k++)
        u->resid += seg[k].len;
}

bool uio_range_ok(const struct uio *u)
{
    for (unsigned k = 0; u->mm && k < u->nseg; k++)
        if (!access_ok(u->seg[k].base, u->seg[k].len))
            return false;
    return true;
}

/* The next piece: at most n bytes, within one segment and one page of process memory. */
static l4_word_t piece(struct uio *u, l4_word_t n, l4_word_t *addr)
{
    while (u->cur < u->nseg && u->off == u->seg[u->cur].len) {
        u->cur++;
        u->off = 0;
    }
    if (u->cur == u->nseg || u->fault || !u->resid)
        return 0;
    *addr = u->seg[u->cur].base + u->off;
    l4_word_t k = u->seg[u->cur].len - u->off;
    if (u->mm && k > LX_PAGE - (*addr & ~LX_PAGE_MASK))
        k = LX_PAGE - (*addr & ~LX_PAGE_MASK);
    if (k > u->resid)
        k = u->resid;               /* a transfer cut short (MAX_RW_COUNT) */
    return k < n ? k : n;
}

static void advance(struct uio *u, l4_word_t k)
{
    u->off += k;
    u->resid -= k;
    u->done += k;
}

l4_word_t uio_copy_out(struct uio *u, const void *src, l4_word_t n)
{
    l4_word_t moved = 0, addr, k;
    while (moved < n && (k = piece(u, n - moved, &addr))) {
        const char *s = (const char *)src + moved;
        if (!u->mm)
            memcpy((void *)addr, s, k);
        else if (copy_to_user(u->mm, addr, s, k)) {
            u->fault = true;
            break;
        }
        advance(u, k);
        moved += k;
    }
    return moved;
}

l4_word_t uio_copy_in(struct uio *u, void *dst, l4_word_t n)
{
    l4_word_t moved = 0, addr, k;
    while (moved < n && (k = piece(u, n - moved, &addr))) {
        char *d = (char *)dst + moved;
        if (!u->mm)
            memcpy(d, (const void *)addr, k);
        else if (copy_from_user(u->mm, d, addr, k)) {
            u->fault = true;
            break;
        }
        advance(u, k);
        moved += k;
    }
    return moved;
}

l4_word_t uio_zero(struct uio *u, l4_word_t n)
{
    static const char zeros[256];
    l4_word_t moved = 0;
    while (moved < n) {
        l4_word_t k = n - moved < sizeof zeros ? n - moved : sizeof zeros;
        l4_word_t m = uio_copy_out(u, zeros, k);
        moved += m;
        if (m < k)
            break;
    }
    return moved;
}

void uio_skip(struct uio *u, l4_word_t n)
{
    l4_word_t addr, k;
    while (n && (k = piece(u, n, &addr))) {
        advance(u, k);
        u->done -= k;               /* skipped bytes moved in an earlier run */
        n -= k;
    }
}

l4_word_t uio_discard(struct uio *u, l4_word_t n)
{
    l4_word_t moved = 0, addr, k;
    while (moved < n && (k = piece(u, n - moved, &addr))) {
        advance(u, k);
        moved += k;
    }
    return moved;
}
