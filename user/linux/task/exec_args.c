/* execve's strings in pool pages, before the new stack exists.  They take as much room as
 * Linux allows (up to 6 MiB) only while an execve runs, so they live in pages taken as the
 * strings arrive, charged as process memory: a process asking for too much gets ENOMEM, lx
 * keeps its reserve.  The layout is the new stack's (pushed downwards), so the loader copies
 * the whole block at once and a #! script's rewrite is a pop and pushes, as in Linux. */
#include "task/exec_args.h"
#include "lib/errno.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include <string.h>

#define ARG_MAX         (128ul << 10)   /* the limit's floor (32 pages) */
#define ARG_STRLEN_MAX  (128ul << 10)   /* one string with its NUL (MAX_ARG_STRLEN) */
#define STK_LIM         (8ul << 20)     /* _STK_LIM: the limit is at most 3/4 of it */
#define PER_DIR         (LX_PAGE / sizeof(void *))

int exec_args_begin(struct exec_args *a, unsigned long stack, long argc, long envc)
{
    memset(a, 0, sizeof *a);
    a->p = EXEC_ARGS_TOP;
    a->argmin = EXEC_ARGS_TOP;
    unsigned long limit = STK_LIM / 4 * 3;
    if (stack / 4 < limit)
        limit = stack / 4;
    if (limit < ARG_MAX)
        limit = ARG_MAX;
    /* argc and envc are below 2^31 (MAX_ARG_STRINGS), so this cannot wrap. */
    unsigned long ptrs = (unsigned long)((argc > 1 ? argc : 1) + envc) * sizeof(void *);
    if (limit <= ptrs)
        return -E2BIG;
    a->argc = argc;
    a->envc = envc;
    a->argmin = EXEC_ARGS_TOP - (limit - ptrs);
    return 0;
}

/* lx's address of window byte off; the page is taken on first use (NULL: no memory). */
static char *window(struct exec_args *a, l4_word_t off)
{
    l4_word_t pg = off / LX_PAGE;
    void ***d = &a->dir[pg / PER_DIR];
    if (!*d && !(*d = page_alloc_user()))
        return NULL;
    void **slot = &(*d)[pg % PER_DIR];
    if (!*slot && !(*slot = page_alloc_user()))
        return NULL;
    return (char *)*slot + (off & ~LX_PAGE_MASK);
}

static const char *window_ro(const struct exec_args *a, l4_word_t off)
{
    l4_word_t pg = off / LX_PAGE;
    return (const char *)a->dir[pg / PER_DIR][pg % PER_DIR] + (off & ~LX_PAGE_MASK);
}

static size_t chunk_at(l4_word_t off, size_t n)
{
    size_t c = LX_PAGE - (off & ~LX_PAGE_MASK);
    return c < n ? c : n;
}

/* Room for len bytes below p: the new p, or 0 when the limit is passed. */
static l4_word_t reserve(struct exec_args *a, size_t len)
{
    if (len > a->p - a->argmin)
        return 0;
    return a->p - len;
}

int exec_args_push_user(struct exec_args *a, struct mm *mm, l4_word_t src)
{
    long len = strnlen_user(mm, src, ARG_STRLEN_MAX);
    if (len == 0)
        return -EFAULT;
    if ((size_t)len > ARG_STRLEN_MAX)
        return -E2BIG;
    l4_word_t to = reserve(a, (size_t)len);
    if (!to)
        return -E2BIG;
    for (size_t done = 0; done < (size_t)len;) {
        size_t c = chunk_at(to + done, (size_t)len - done);
        char *d = window(a, to + done);
        if (!d)
            return -ENOMEM;
        if (copy_from_user(mm, d, src + done, c))
            return -EFAULT;
        done += c;
    }
    *window(a, to + (size_t)len - 1) = 0;   /* its end, whatever the process did meanwhile */
    a->p = to;
    return 0;
}

int exec_args_push(struct exec_args *a, const char *s, size_t n)
{
    if (n + 1 > ARG_STRLEN_MAX)
        return -E2BIG;
    l4_word_t to = reserve(a, n + 1);
    if (!to)
        return -E2BIG;
    for (size_t done = 0; done < n + 1;) {
        size_t c = chunk_at(to + done, n + 1 - done);
        char *d = window(a, to + done);
        if (!d)
            return -ENOMEM;
        if (done + c > n) {                 /* the last piece: the NUL */
            memcpy(d, s + done, n - done);
            d[n - done] = 0;
        } else {
            memcpy(d, s + done, c);
        }
        done += c;
    }
    a->p = to;
    return 0;
}

size_t exec_args_strlen(const struct exec_args *a, l4_word_t off)
{
    size_t n = 0;
    for (;;) {
        size_t c = chunk_at(off + n, EXEC_ARGS_TOP - off - n);
        const char *s = window_ro(a, off + n);
        const char *z = memchr(s, 0, c);
        if (z)
            return n + (size_t)(z - s);
        n += c;
    }
}

size_t exec_args_pop(struct exec_args *a)
{
    size_t n = exec_args_strlen(a, a->p) + 1;
    a->p += n;
    return n;
}

void exec_args_read(const struct exec_args *a, l4_word_t off, void *dst, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t c = chunk_at(off + done, n - done);
        memcpy((char *)dst + done, window_ro(a, off + done), c);
        done += c;
    }
}

int exec_args_to_user(const struct exec_args *a, struct mm *mm, l4_word_t dst)
{
    for (l4_word_t off = a->p; off < EXEC_ARGS_TOP;) {
        size_t c = chunk_at(off, EXEC_ARGS_TOP - off);
        if (copy_to_user(mm, dst + (off - a->p), window_ro(a, off), c))
            return -ENOMEM;
        off += c;
    }
    return 0;
}

void exec_args_end(struct exec_args *a)
{
    for (unsigned d = 0; d < EXEC_ARGS_DIRS; d++) {
        if (!a->dir[d])
            continue;
        for (unsigned i = 0; i < PER_DIR; i++)
            if (a->dir[d][i])
                page_free(a->dir[d][i]);
        page_free(a->dir[d]);
        a->dir[d] = NULL;
    }
}
