/* The memory model of a process: its regions (what may be where, with which rights and
 * backing) and its pages (which of lx's pages backs which user page).  brk, mmap, munmap,
 * mprotect, the ELF loader, the page-fault handler and user copy all go through here.
 *
 * Pages: a four-level table like the MMU's (9 bits a level), its nodes lx pages, its leaves
 * lx's address of the page.  A page is allocated and filled on its first touch, by a fault
 * of the process or by user copy; the fault reply maps it with the region's rights.
 *
 * fork (mm_fork) shares every page with the child: the leaves of both tables hold the same
 * lx page, counted (page.c).  A page of a private region held more than once is mapped
 * read-only everywhere; the first write (a fault, or user copy) gives the writer a copy of
 * its own, or the page itself with write rights once nobody else holds it.  Pages of a
 * MAP_SHARED region stay shared and writable.
 *
 * Files (docs/linux/memory.md): a MAP_PRIVATE page of a file is a copy of the file's bytes
 * made at the page's first touch; a MAP_SHARED page of a file is the tmpfs file's own page
 * (counted once more), so stores reach read() and write() reaches the mapping. */
#include "mm/mm.h"
#include "lib/errno.h"
#include "signal/sigpage.h"
#include "vfs/vfs.h"
#include <string.h>

/* --- the page table ---------------------------------------------------------------------- */

static unsigned pt_index(l4_word_t va, unsigned level)     /* level 3 = top */
{
    return (va >> (12 + 9 * level)) & 511;
}

/* The leaf slot of va; with create, missing nodes are allocated (NULL if that fails). */
static l4_word_t *pt_slot(struct mm *mm, l4_word_t va, bool create)
{
    l4_word_t *node = mm->pgd;
    for (unsigned level = 3; level > 0; level--) {
        l4_word_t *e = &node[pt_index(va, level)];
        if (!*e) {
            if (!create)
                return NULL;
            void *p = page_alloc();
            if (!p)
                return NULL;
            *e = (l4_word_t)p;
        }
        node = (l4_word_t *)*e;
    }
    return &node[pt_index(va, 0)];
}

/* Take a page away from the process (the kernel revokes every mapping derived from lx's). */
static void revoke(l4_word_t lxpage)
{
    l4_set_mr(0, l4_fpage_log2(lxpage, 12) | L4_RWX);
    l4_unmap(0);
}

/* Every page of [start, end) under node (level, covering from base): revoked and, with
 * release, freed; empty subtrees are skipped, so a huge range costs what it holds. */
static void pt_clear(struct mm *mm, l4_word_t *node, unsigned level, l4_word_t base,
                     l4_word_t start, l4_word_t end, bool release)
{
    l4_word_t span = 1ul << (12 + 9 * level);
    for (unsigned i = 0; i < 512; i++) {
        l4_word_t lo = base + i * span, hi = lo + span;
        if (!node[i] || hi <= start || lo >= end)
            continue;
        if (level > 0) {
            pt_clear(mm, (l4_word_t *)node[i], level - 1, lo, start, end, release);
            continue;
        }
        revoke(node[i]);
        if (release) {
            page_put((void *)node[i]);
            node[i] = 0;
            mm->pages--;
        }
    }
}

static void pt_free(l4_word_t *node, unsigned level)
{
    for (unsigned i = 0; level > 0 && i < 512; i++)
        if (node[i])
            pt_free((l4_word_t *)node[i], level - 1);
    page_free(node);
}

static void pt_free_leaves(struct mm *mm, l4_word_t *node, unsigned level)
{
    for (unsigned i = 0; i < 512; i++) {
        if (!node[i])
            continue;
        if (level > 0) {
            pt_free_leaves(mm, (l4_word_t *)node[i], level - 1);
        } else {
            page_put((void *)node[i]);
            node[i] = 0;
            mm->pages--;
        }
    }
}

/* --- regions ----------------------------------------------------------------------------- */

/* A region copy came into being (split, fork) or went away: its file reference. */
static void region_hold(const struct region *r)
{
    if (r->file)
        inode_get(r->file);
}

static void region_drop(const struct region *r)
{
    if (r->file)
        inode_put(r->file);
}

bool mm_init(struct mm *mm)
{
    memset(mm, 0, sizeof *mm);
    mm->pgd = page_alloc();
    /* Every process has the signal page (sigpage.c); its page is made on first use. */
    sigpage_region(&mm->regions[0]);
    mm->nregions = 1;
    return mm->pgd != NULL;
}

void mm_destroy(struct mm *mm)
{
    if (!mm->pgd)
        return;
    /* The space is gone with its mappings: no revoking needed. */
    pt_free_leaves(mm, mm->pgd, 3);
    pt_free(mm->pgd, 3);
    mm->pgd = NULL;
    for (unsigned i = 0; i < mm->nregions; i++)
        region_drop(&mm->regions[i]);
    mm->nregions = 0;
}

void mm_release(struct mm *mm)
{
    if (!mm->pgd)
        return;
    /* The space lives on (execve): take every page out of it first. */
    pt_clear(mm, mm->pgd, 3, 0, 0, LX_USER_END, true);
    mm_destroy(mm);
}

struct region *mm_find(struct mm *mm, l4_word_t addr)
{
    unsigned lo = 0, hi = mm->nregions;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        struct region *r = &mm->regions[mid];
        if (addr < r->start)
            hi = mid;
        else if (addr >= r->end)
            lo = mid + 1;
        else
            return r;
    }
    return NULL;
}

/* Make addr a region boundary (split the region that contains it); false if full. */
static bool split_at(struct mm *mm, l4_word_t addr)
{
    struct region *r = mm_find(mm, addr);
    if (!r || r->start == addr)
        return true;
    if (mm->nregions == MM_MAX_REGIONS)
        return false;
    unsigned i = (unsigned)(r - mm->regions);
    memmove(&mm->regions[i + 1], &mm->regions[i], (mm->nregions - i) * sizeof *r);
    mm->nregions++;
    mm->regions[i].end = addr;          /* file backing is absolute: both halves keep it */
    mm->regions[i + 1].start = addr;
    region_hold(&mm->regions[i + 1]);
    return true;
}

static bool range_ok(l4_word_t start, l4_word_t end)
{
    return !(start & ~LX_PAGE_MASK) && !(end & ~LX_PAGE_MASK) && start < end &&
           start >= LX_MMAP_MIN && end <= LX_USER_END;
}

int mm_unmap(struct mm *mm, l4_word_t start, l4_word_t end)
{
    if (!range_ok(start, end))
        return -EINVAL;
    if (!split_at(mm, start) || !split_at(mm, end))
        return -ENOMEM;
    unsigned j = 0;
    for (unsigned i = 0; i < mm->nregions; i++) {
        struct region *r = &mm->regions[i];
        if (r->start >= start && r->end <= end) {
            region_drop(r);             /* inside: dropped */
            continue;
        }
        mm->regions[j++] = *r;
    }
    mm->nregions = j;
    pt_clear(mm, mm->pgd, 3, 0, start, end, true);
    return 0;
}

int mm_map_region(struct mm *mm, const struct region *tmpl)
{
    l4_word_t start = tmpl->start, end = tmpl->end;
    int e = mm_unmap(mm, start, end);
    if (e)
        return e;
    if (mm->nregions == MM_MAX_REGIONS)
        return -ENOMEM;
    unsigned i = 0;
    while (i < mm->nregions && mm->regions[i].start < start)
        i++;
    memmove(&mm->regions[i + 1], &mm->regions[i], (mm->nregions - i) * sizeof(struct region));
    mm->regions[i] = *tmpl;
    region_hold(tmpl);
    mm->nregions++;
    /* An anonymous region right after one like it (brk growing) joins it: brk and malloc
     * do not use up the table. */
    struct region *prev = i ? &mm->regions[i - 1] : NULL, *r = &mm->regions[i];
    if (prev && !r->fdata && !r->file && !r->shared && !prev->fdata && !prev->file &&
        !prev->shared && prev->end == start && prev->prot == r->prot) {
        prev->end = end;
        memmove(&mm->regions[i], &mm->regions[i + 1],
                (mm->nregions - i - 1) * sizeof(struct region));
        mm->nregions--;
    }
    return 0;
}

int mm_map(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot, l4_word_t fdata,
           l4_word_t fstart, l4_word_t fend)
{
    struct region r = { .start = start, .end = end, .prot = prot, .fdata = fdata,
                        .fstart = fstart, .fend = fend };
    return mm_map_region(mm, &r);
}

int mm_protect(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot)
{
    if (!range_ok(start, end))
        return -EINVAL;
    /* Linux: every page of the range must be mapped, else ENOMEM (nothing changes). */
    for (l4_word_t a = start; a < end;) {
        struct region *r = mm_find(mm, a);
        if (!r)
            return -ENOMEM;
        a = r->end;
    }
    /* A shared mapping of a file opened read-only never gets write rights (Linux:
     * VM_MAYWRITE is clear), and nothing changes. */
    for (l4_word_t a = start; (prot & PROT_WRITE) && a < end;) {
        struct region *r = mm_find(mm, a);
        if (r->no_write)
            return -EACCES;
        a = r->end;
    }
    if (!split_at(mm, start) || !split_at(mm, end))
        return -ENOMEM;
    for (unsigned i = 0; i < mm->nregions; i++)
        if (mm->regions[i].start >= start && mm->regions[i].end <= end)
            mm->regions[i].prot = prot;
    /* Mapped pages keep their old rights until revoked: the next fault maps the new ones. */
    pt_clear(mm, mm->pgd, 3, 0, start, end, false);
    return 0;
}

l4_word_t mm_find_gap(struct mm *mm, l4_word_t len)
{
    l4_word_t hi = mm->mmap_top;
    for (unsigned i = mm->nregions; i-- > 0;) {
        struct region *r = &mm->regions[i];
        if (r->start >= hi)
            continue;
        if (r->end <= hi && hi - r->end >= len)
            return hi - len;
        hi = r->start;
    }
    return hi >= LX_MMAP_MIN + len ? hi - len : 0;
}

int mm_set_shared(struct mm *mm, l4_word_t start, l4_word_t end)
{
    if (!range_ok(start, end))
        return -EINVAL;
    if (!split_at(mm, start) || !split_at(mm, end))
        return -ENOMEM;
    for (unsigned i = 0; i < mm->nregions; i++)
        if (mm->regions[i].start >= start && mm->regions[i].end <= end)
            mm->regions[i].shared = true;
    return 0;
}

bool mm_past_eof(const struct region *r, l4_word_t addr)
{
    l4_word_t page = addr & LX_PAGE_MASK;
    return r->file && r->bus_past_eof && page >= r->fstart &&
           r->foff + (page - r->fstart) >= r->file->size;
}

/* The leaf slot of user page `page`, filled on first touch; NULL when memory is out (or
 * the page is past the end of the file it maps). */
static l4_word_t *page_slot(struct mm *mm, struct region *r, l4_word_t page)
{
    if (mm_past_eof(r, page))
        return NULL;
    l4_word_t *slot = pt_slot(mm, page, true);
    if (!slot)
        return NULL;
    if (*slot)
        return slot;
    char *p;
    if (r->file && r->shared) {
        /* The file's own page: the mapping holds it as the file does. */
        p = tmpfs_page(r->file, (r->foff + (page - r->fstart)) / LX_PAGE);
        if (!p)
            return NULL;
        page_get(p);
    } else {
        p = page_alloc();
        if (!p)
            return NULL;
        l4_word_t lo = page > r->fstart ? page : r->fstart;
        l4_word_t hi = page + LX_PAGE < r->fend ? page + LX_PAGE : r->fend;
        if (lo < hi && r->fdata)
            memcpy(p + (lo - page), (const char *)(r->fdata + (lo - r->fstart)), hi - lo);
        else if (lo < hi && r->file)    /* MAP_PRIVATE: the file's bytes now */
            tmpfs_read(r->file, p + (lo - page), hi - lo, r->foff + (lo - r->fstart));
    }
    *slot = (l4_word_t)p;
    mm->pages++;
    return slot;
}

void *mm_page(struct mm *mm, struct region *r, l4_word_t addr)
{
    l4_word_t *slot = page_slot(mm, r, addr & LX_PAGE_MASK);
    return slot ? (void *)*slot : NULL;
}

void *mm_page_write(struct mm *mm, struct region *r, l4_word_t addr, bool revoke_old)
{
    l4_word_t *slot = page_slot(mm, r, addr & LX_PAGE_MASK);
    if (!slot)
        return NULL;
    void *old = (void *)*slot;
    if (r->shared || page_refs(old) == 1)
        return old;                 /* ours alone (or shared on purpose): write in place */
    void *copy = page_alloc();
    if (!copy)
        return NULL;
    memcpy(copy, old, LX_PAGE);
    *slot = (l4_word_t)copy;
    page_put(old);                  /* still held by the others */
    /* The process may have the old page mapped read-only at addr: a fault reply mapping
     * the copy there replaces it, anyone else must take it away. */
    if (revoke_old)
        revoke((l4_word_t)old);
    return copy;
}

bool mm_page_writable(const struct region *r, const void *page)
{
    return (r->prot & PROT_WRITE) && (r->shared || page_refs(page) == 1);
}

/* --- fork -------------------------------------------------------------------------------- */

/* Write rights taken back from many pages with one Unmap (up to 64 fpages in the MRs). */
static unsigned nbatch;

static void batch_flush(void)
{
    if (nbatch)
        l4_unmap(nbatch - 1);
    nbatch = 0;
}

static void batch_revoke_write(l4_word_t lxpage)
{
    l4_set_mr(nbatch++, l4_fpage_log2(lxpage, 12) | L4_W);
    if (nbatch == 64)
        batch_flush();
}

/* Share every page under src's node with dst (both tables the same shape); false if a
 * table node could not be allocated (what was shared so far is counted: mm_destroy(dst)
 * undoes it). */
static bool pt_share(struct mm *dst, struct mm *src, l4_word_t *node, unsigned level,
                     l4_word_t base)
{
    l4_word_t span = 1ul << (12 + 9 * level);
    for (unsigned i = 0; i < 512; i++) {
        l4_word_t va = base + i * span;
        if (!node[i])
            continue;
        if (level > 0) {
            if (!pt_share(dst, src, (l4_word_t *)node[i], level - 1, va))
                return false;
            continue;
        }
        l4_word_t *slot = pt_slot(dst, va, true);
        if (!slot)
            return false;
        void *page = (void *)node[i];
        struct region *r = mm_find(src, va);
        /* A private page the parent alone held may be mapped writable: no longer. */
        if (!(r && r->shared) && page_refs(page) == 1)
            batch_revoke_write(node[i]);
        page_get(page);
        *slot = node[i];
        dst->pages++;
    }
    return true;
}

int mm_fork(struct mm *dst, struct mm *src)
{
    /* Every page of a MAP_SHARED region must exist before the two part: one touched later
     * by either side would be its own. */
    for (unsigned i = 0; i < src->nregions; i++) {
        struct region *r = &src->regions[i];
        for (l4_word_t a = r->start; r->shared && !r->file && a < r->end; a += LX_PAGE)
            if (!mm_page(src, r, a))
                return -ENOMEM;
    }
    if (!mm_init(dst))
        return -ENOMEM;
    memcpy(dst->regions, src->regions, src->nregions * sizeof src->regions[0]);
    dst->nregions = src->nregions;
    for (unsigned i = 0; i < dst->nregions; i++)
        region_hold(&dst->regions[i]);
    dst->brk_start = src->brk_start;
    dst->brk = src->brk;
    dst->mmap_top = src->mmap_top;
    bool ok = pt_share(dst, src, src->pgd, 3, 0);
    batch_flush();
    if (!ok) {
        mm_destroy(dst);
        return -ENOMEM;
    }
    return 0;
}

/* --- mremap, madvise, the overcommit rule ------------------------------------------------ */

#define MREMAP_MAYMOVE   1
#define MREMAP_FIXED     2
#define MREMAP_DONTUNMAP 4

bool mm_range_mapped(struct mm *mm, l4_word_t start, l4_word_t end)
{
    for (l4_word_t a = start; a < end;) {
        struct region *r = mm_find(mm, a);
        if (!r)
            return false;
        a = r->end;
    }
    return true;
}

bool mm_may_commit(l4_word_t len)
{
    /* Linux's heuristic overcommit refuses one request larger than all of memory (RAM and
     * swap); anything smaller is promised and paid for page by page at the fault. */
    return len / LX_PAGE <= page_total();
}

int mm_discard(struct mm *mm, l4_word_t start, l4_word_t end)
{
    bool hole = !mm_range_mapped(mm, start, end);
    for (unsigned i = 0; i < mm->nregions; i++) {
        struct region *r = &mm->regions[i];
        if (r->end <= start || r->start >= end)
            continue;
        if (r->shared && !r->file)
            continue;       /* shared anonymous memory keeps its pages: they are its contents */
        l4_word_t lo = r->start > start ? r->start : start, hi = r->end < end ? r->end : end;
        pt_clear(mm, mm->pgd, 3, 0, lo, hi, true);
    }
    return hole ? -ENOMEM : 0;
}

/* Each present page of [start, end) under node: fn(mm, its slot, delta); a false from fn
 * stops the walk.  Empty subtrees are skipped, so a huge sparse range costs what it holds. */
static bool pt_each(struct mm *mm, l4_word_t *node, unsigned level, l4_word_t base,
                    l4_word_t start, l4_word_t end, l4_word_t delta,
                    bool (*fn)(struct mm *, l4_word_t *, l4_word_t, l4_word_t))
{
    l4_word_t span = 1ul << (12 + 9 * level);
    for (unsigned i = 0; i < 512; i++) {
        l4_word_t lo = base + i * span, hi = lo + span;
        if (!node[i] || hi <= start || lo >= end)
            continue;
        if (level > 0) {
            if (!pt_each(mm, (l4_word_t *)node[i], level - 1, lo, start, end, delta, fn))
                return false;
        } else if (!fn(mm, &node[i], lo, delta)) {
            return false;
        }
    }
    return true;
}

/* mremap's two passes over the moved pages: the destination slots first (the only step
 * that can fail: table nodes), then the pages themselves. */
static bool move_prepare(struct mm *mm, l4_word_t *slot, l4_word_t va, l4_word_t delta)
{
    (void)slot;
    return pt_slot(mm, va + delta, true) != NULL;
}

static bool move_page(struct mm *mm, l4_word_t *slot, l4_word_t va, l4_word_t delta)
{
    l4_word_t *dst = pt_slot(mm, va + delta, false);
    revoke(*slot);                      /* no longer at the old address */
    *dst = *slot;
    *slot = 0;
    return true;
}

/* Move [old, old + old_len) to a new region at new_addr of new_len bytes (>= old_len):
 * the region's kind and backing go along, and so do its present pages (no copies). */
static long move_range(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_addr,
                       l4_word_t new_len)
{
    struct region *r = mm_find(mm, old);
    struct region tmpl = *r;
    l4_word_t delta = new_addr - old;          /* modulo 2^64: the window moves along */
    tmpl.start = new_addr;
    tmpl.end = new_addr + new_len;
    if (tmpl.fdata || tmpl.file) {
        tmpl.fstart += delta;
        if (tmpl.fend != MM_FILE_END)
            tmpl.fend += delta;
    }
    /* First every table node the moved pages need, so that the move cannot fail half-way
     * (nodes left over after a failure are empty and go with the memory model). */
    if (!pt_each(mm, mm->pgd, 3, 0, old, old + old_len, delta, move_prepare))
        return -ENOMEM;
    int e = mm_map_region(mm, &tmpl);
    if (e)
        return e;
    pt_each(mm, mm->pgd, 3, 0, old, old + old_len, delta, move_page);
    mm_unmap(mm, old, old + old_len);           /* holds no pages any more */
    return (long)new_addr;
}

long mm_remap(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_len,
              unsigned flags, l4_word_t new_addr)
{
    if ((old & ~LX_PAGE_MASK) || (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)))
        return -EINVAL;
    if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
        return -EINVAL;
    if (flags & MREMAP_DONTUNMAP)
        return -EINVAL;                         /* not supported (docs/linux/memory.md) */
    if (old_len > LX_USER_END || new_len > LX_USER_END)
        return -EINVAL;
    old_len = (old_len + LX_PAGE - 1) & LX_PAGE_MASK;
    new_len = (new_len + LX_PAGE - 1) & LX_PAGE_MASK;
    if (!new_len || !old_len)
        return -EINVAL;     /* old_len 0 duplicates a shared mapping in Linux: not here */
    struct region *r = mm_find(mm, old);
    if (!r || old_len > r->end - old)
        return -EFAULT;     /* not mapped, or the range runs past its mapping */
    bool accountable = !r->shared && !r->file && (r->prot & PROT_WRITE);
    if (flags & MREMAP_FIXED) {
        if ((new_addr & ~LX_PAGE_MASK) || new_addr < LX_MMAP_MIN ||
            new_addr > LX_USER_END - new_len)
            return -EINVAL;
        if (new_addr < old + old_len && old < new_addr + new_len)
            return -EINVAL;                     /* the two ranges overlap */
        int e = mm_unmap(mm, new_addr, new_addr + new_len);
        if (e)
            return e;
        if (new_len < old_len) {
            mm_unmap(mm, old + new_len, old + old_len);
            old_len = new_len;
        }
        if (accountable && !mm_may_commit(new_len - old_len))
            return -ENOMEM;
        return move_range(mm, old, old_len, new_addr, new_len);
    }
    if (new_len <= old_len) {
        if (new_len < old_len) {
            int e = mm_unmap(mm, old + new_len, old + old_len);
            if (e)
                return e;
        }
        return (long)old;
    }
    if (accountable && !mm_may_commit(new_len - old_len))
        return -ENOMEM;
    /* Grow in place when the range ends its region and the space after it is free. */
    if (old + old_len == r->end && old <= LX_USER_END - new_len &&
        !mm_find(mm, r->end) && mm_range_mapped(mm, old, old + old_len)) {
        bool free = true;
        for (unsigned i = 0; i < mm->nregions; i++)
            if (mm->regions[i].start < old + new_len && mm->regions[i].end > r->end)
                free = false;
        if (free) {
            struct region tmpl = *r;
            tmpl.start = r->end;
            tmpl.end = old + new_len;
            int e = mm_map_region(mm, &tmpl);
            return e ? e : (long)old;
        }
    }
    if (!(flags & MREMAP_MAYMOVE))
        return -ENOMEM;
    new_addr = mm_find_gap(mm, new_len);
    if (!new_addr)
        return -ENOMEM;
    return move_range(mm, old, old_len, new_addr, new_len);
}
