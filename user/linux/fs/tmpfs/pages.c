/* The contents of tmpfs's regular files: the page provider (vfs/vfs.h) over a radix tree of
 * lx pages per file, so a file is as large as memory allows (holes cost nothing), and the
 * mount's size limit: every page a file holds counts against size=, and a writer past it
 * gets ENOSPC, as from Linux's tmpfs, while every other process goes on.  A file unpacked
 * from the initramfs keeps pointing at the module's bytes (read-only, never freed, so exec
 * copies nothing more than it must) until its first change, which copies them into pages.
 * Those bytes are read only after module_in has the root task map them (mm/module.c): a
 * page lx cannot have is ENOMEM for the reader.
 *
 * Mappings share the file's pages (tmpfs_map_page, docs/linux/memory.md §2): a page of such a
 * file that a process maps is first copied out of the module into a page of the pool, once,
 * kept in the tree as a cache (not counted against the mount: the module's bytes are what
 * the file holds) until the first change makes every page the file's own; when process
 * memory runs short, cached pages no mapping holds go back to the pool (tmpfs_shrink).  A
 * page the file lets go (truncate, a punched hole, the file's end) while a mapping still
 * holds it is taken out of every space: the next touch looks at the file again (SIGBUS past
 * its end). */
#include "fs/tmpfs/tmpfs.h"
#include "log/log.h"
#include "lib/errno.h"
#include "mm/module.h"
#include "mm/page.h"
#include <string.h>

/* One more page for the file, counted against the mount's limit: NULL when it is full or
 * memory is out (both ENOSPC, tmpfs's word for it). */
static void *new_page(struct tmpfs_node *n)
{
    struct tmpfs_sb *ts = tmpfs_sb(n->i.sb);
    if (ts->max_pages && ts->used_pages >= ts->max_pages)
        return NULL;
    void *p = page_alloc();
    if (p) {
        ts->used_pages++;
        n->npages++;
    }
    return p;
}

static bool put_page(void **slot, unsigned long index, void *ctx)
{
    (void)index;
    struct tmpfs_node *n = ctx;
    if (page_refs(*slot) > 1)
        page_revoke(*slot);         /* a mapping holds it still: no longer the file's */
    page_put(*slot);
    *slot = NULL;
    if (!n->ro) {                   /* (a cached page of the module's bytes is uncounted) */
        n->npages--;
        tmpfs_sb(n->i.sb)->used_pages--;
    }
    return true;
}

/* Files of the module's bytes with cached pages, for tmpfs_shrink. */
static struct list cached_files = LIST_INIT(cached_files);

static void uncache(struct tmpfs_node *n)
{
    if (n->cached.next) {
        list_del(&n->cached);
        n->cached.next = NULL;
    }
}

static bool drop_unmapped(void **slot, unsigned long index, void *ctx)
{
    unsigned long *freed = ctx;
    (void)index;
    if (page_refs(*slot) == 1) {    /* the file's alone: mapped nowhere */
        page_put(*slot);
        *slot = NULL;
        ++*freed;
    }
    return true;
}

unsigned long tmpfs_shrink(void)
{
    unsigned long freed = 0;
    struct tmpfs_node *n, *next;
    list_each_safe(n, next, &cached_files, cached) {
        radix_each(&n->pages, 0, drop_unmapped, &freed);
        if (!n->pages.root)
            uncache(n);
    }
    return freed;
}

static bool count_page(void **slot, unsigned long index, void *ctx)
{
    (void)slot, (void)index;
    ++*(unsigned long *)ctx;
    return true;
}

void tmpfs_drop_pages(struct tmpfs_node *n)
{
    radix_each(&n->pages, 0, put_page, n);
    radix_destroy(&n->pages, NULL);
    n->ro = NULL;
    uncache(n);
}

/* The module's bytes become pages (the file's first change): 0, -ENOSPC or -ENOMEM. */
static int own_pages(struct tmpfs_node *n)
{
    const char *ro = n->ro;
    if (!ro)
        return 0;
    if (!module_in(n->ro, n->i.size))
        return -ENOMEM;
    /* Pages mappings share already are the file's own from now on (counted). */
    unsigned long cached = 0;
    radix_each(&n->pages, 0, count_page, &cached);
    n->ro = NULL;
    uncache(n);
    n->npages += cached;
    tmpfs_sb(n->i.sb)->used_pages += cached;
    for (l4_word_t p = 0; p * LX_PAGE < n->i.size; p++) {
        void **slot = radix_slot(&n->pages, p, true);
        if (slot && *slot)
            continue;
        char *page = slot ? new_page(n) : NULL;
        if (!page) {
            radix_each(&n->pages, 0, put_page, n);
            n->ro = ro;
            return -ENOSPC;
        }
        l4_word_t k = n->i.size - p * LX_PAGE < LX_PAGE ? n->i.size - p * LX_PAGE : LX_PAGE;
        memcpy(page, ro + p * LX_PAGE, k);
        *slot = page;
    }
    return 0;
}

void *tmpfs_get_page(struct inode *i, l4_word_t index, bool alloc, int *err)
{
    struct tmpfs_node *n = tmpfs_node(i);
    *err = 0;
    if (!alloc) {
        if (n->ro) {                /* valid up to the size: readers stop there */
            if (index * LX_PAGE >= i->size)
                return NULL;
            const char *p = n->ro + index * LX_PAGE;
            l4_word_t k = i->size - index * LX_PAGE;
            if (!module_in(p, k < LX_PAGE ? k : LX_PAGE)) {
                *err = -ENOMEM;
                return NULL;
            }
            return (void *)p;
        }
        return radix_get(&n->pages, index);
    }
    if ((*err = own_pages(n)))
        return NULL;
    void **slot = radix_slot(&n->pages, index, true);
    if (slot && !*slot)
        *slot = new_page(n);        /* a hole gets its page */
    if (!slot || !*slot) {
        *err = -ENOSPC;
        return NULL;
    }
    return *slot;
}

void *tmpfs_map_page(struct inode *i, l4_word_t index)
{
    struct tmpfs_node *n = tmpfs_node(i);
    if (index >= (i->size + LX_PAGE - 1) / LX_PAGE)
        return NULL;
    void *page = radix_get(&n->pages, index);
    int e;
    if (!page && !n->ro)            /* a hole gets its page, as from Linux's shmem_fault */
        return tmpfs_get_page(i, index, true, &e);
    if (page)
        return page;
    /* The module's bytes, page-aligned in a page of the pool: process memory (a mapping
     * asked for it), so only while more than lx's reserve is left (the page first: making
     * it may shrink the caches, this file's tree too). */
    l4_word_t k = i->size - index * LX_PAGE < LX_PAGE ? i->size - index * LX_PAGE : LX_PAGE;
    if (!module_in(n->ro + index * LX_PAGE, k))
        return NULL;                /* the caller's read of the file says ENOMEM */
    if (!(page = page_alloc_user()))
        return NULL;
    void **slot = radix_slot(&n->pages, index, true);
    if (!slot) {
        page_free(page);
        return NULL;
    }
    memcpy(page, n->ro + index * LX_PAGE, k);
    *slot = page;
    if (!n->cached.next)
        list_add_tail(&cached_files, &n->cached);
    return page;
}

int tmpfs_resize(struct tmpfs_node *n, l4_word_t size)
{
    int e = own_pages(n);
    if (e)
        return e;
    /* Pages wholly past the end go; the tail of the last one is zeroed for a later grow. */
    radix_each(&n->pages, (size + LX_PAGE - 1) / LX_PAGE, put_page, n);
    char *last = size % LX_PAGE ? radix_get(&n->pages, size / LX_PAGE) : NULL;
    if (last)
        memset(last + size % LX_PAGE, 0, LX_PAGE - size % LX_PAGE);
    n->i.size = size;
    return 0;
}

/* --- mount options ------------------------------------------------------------------------ */

/* A size: a number with an optional k, m, g, t suffix, or a percentage of memory. */
static bool parse_size(const char *s, size_t len, unsigned long *pages)
{
    unsigned long v = 0;
    size_t k = 0;
    for (; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
        if (v > (~0ul - 9) / 10)
            return false;
        v = v * 10 + (unsigned long)(s[k] - '0');
    }
    if (!k)
        return false;
    unsigned shift = 0;
    if (k < len) {
        switch (s[k]) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        case '%':
            if (k + 1 != len)
                return false;
            *pages = (page_total() * v + 99) / 100;
            return true;
        default: return false;
        }
        if (++k != len)
            return false;
    }
    if (shift && v > (~0ul >> shift))
        return false;
    v <<= shift;
    *pages = (v + LX_PAGE - 1) / LX_PAGE;
    return true;
}

static bool parse_number(const char *s, size_t len, int base, unsigned long *out)
{
    unsigned long v = 0;
    if (!len)
        return false;
    for (size_t k = 0; k < len; k++) {
        unsigned d = s[k] >= '0' && s[k] <= '9' ? (unsigned)(s[k] - '0') : 99;
        if (d >= (unsigned)base || v > (~0ul - d) / (unsigned long)base)
            return false;
        v = v * (unsigned long)base + d;
    }
    *out = v;
    return true;
}

static bool option(const char *opt, size_t len, const char *name, const char **val,
                   size_t *vlen)
{
    size_t n = strlen(name);
    if (len <= n || memcmp(opt, name, n) || opt[n] != '=')
        return false;
    *val = opt + n + 1;
    *vlen = len - n - 1;
    return true;
}

/* A refused value: EINVAL, with the kernel log's line (Linux's invalfc). */
static int bad_value(const char *name)
{
    klog(KERN_ERR, "tmpfs: Bad value for '%s'", name);
    return -EINVAL;
}

int tmpfs_parse_options(struct tmpfs_sb *ts, const char *data, bool remount)
{
    for (const char *s = data; s && *s;) {
        const char *e = s;
        while (*e && *e != ',')
            e++;
        size_t len = (size_t)(e - s);
        const char *v;
        size_t vl;
        unsigned long n;
        if (option(s, len, "size", &v, &vl)) {
            if (!parse_size(v, vl, &ts->max_pages))
                return bad_value("size");
        } else if (option(s, len, "nr_blocks", &v, &vl)) {
            if (!parse_number(v, vl, 10, &ts->max_pages))
                return bad_value("nr_blocks");
        } else if (option(s, len, "nr_inodes", &v, &vl)) {
            if (!parse_number(v, vl, 10, &ts->max_inodes))
                return bad_value("nr_inodes");
        } else if (option(s, len, "mode", &v, &vl)) {
            if (!parse_number(v, vl, 8, &n) || n > 07777)
                return bad_value("mode");
            if (!remount)
                ts->mode = (unsigned)n;
        } else if (option(s, len, "uid", &v, &vl) || option(s, len, "gid", &v, &vl)) {
            if (!parse_number(v, vl, 10, &n) || n > 0xfffffffe)
                return bad_value(s[0] == 'u' ? "uid" : "gid");
            if (!remount && s[0] == 'u')
                ts->uid = (unsigned)n;
            else if (!remount)
                ts->gid = (unsigned)n;
        } else if (!(len == 7 && !memcmp(s, "inode64", 7)) &&
                   !(len == 7 && !memcmp(s, "inode32", 7)) &&
                   !option(s, len, "huge", &v, &vl) && !option(s, len, "mpol", &v, &vl) &&
                   len) {
            size_t key = 0;         /* an option tmpfs does not know: its name is logged */
            while (key < len && s[key] != '=')
                key++;
            klog(KERN_ERR, "tmpfs: Unknown parameter '%.*s'", (int)key, s);
            return -EINVAL;
        }
        s = *e ? e + 1 : e;
    }
    return 0;
}

/* --- fallocate's holes ---------------------------------------------------------------------- */

struct punch {
    struct tmpfs_node *n;
    l4_word_t last;
};

static bool punch_page(void **slot, unsigned long index, void *ctx)
{
    struct punch *p = ctx;
    if (index > p->last)
        return false;
    return put_page(slot, index, p->n);
}

int tmpfs_punch_pages(struct tmpfs_node *n, l4_word_t first, l4_word_t last)
{
    int e = own_pages(n);
    if (e || first > last)
        return e;
    struct punch p = { n, last };
    radix_each(&n->pages, first, punch_page, &p);
    return 0;
}
