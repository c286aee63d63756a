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
 * MAP_SHARED region stay shared and writable. */
#include "lx.h"
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

bool mm_init(struct mm *mm)
{
    memset(mm, 0, sizeof *mm);
    mm->pgd = page_alloc();
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
        if (r->start >= start && r->end <= end)
            continue;                   /* inside: dropped */
        mm->regions[j++] = *r;
    }
    mm->nregions = j;
    pt_clear(mm, mm->pgd, 3, 0, start, end, true);
    return 0;
}

int mm_map(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot, l4_word_t fdata,
           l4_word_t fstart, l4_word_t fend)
{
    int e = mm_unmap(mm, start, end);
    if (e)
        return e;
    if (mm->nregions == MM_MAX_REGIONS)
        return -ENOMEM;
    unsigned i = 0;
    while (i < mm->nregions && mm->regions[i].start < start)
        i++;
    memmove(&mm->regions[i + 1], &mm->regions[i], (mm->nregions - i) * sizeof(struct region));
    mm->regions[i] = (struct region){ start, end, prot, fdata, fstart, fend, false };
    mm->nregions++;
    /* An anonymous region right after one like it (brk growing) joins it: brk and malloc
     * do not use up the table. */
    struct region *prev = i ? &mm->regions[i - 1] : NULL;
    if (prev && !fdata && !prev->fdata && !prev->shared && prev->end == start &&
        prev->prot == prot) {
        prev->end = end;
        memmove(&mm->regions[i], &mm->regions[i + 1],
                (mm->nregions - i - 1) * sizeof(struct region));
        mm->nregions--;
    }
    return 0;
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

/* The leaf slot of user page `page`, filled on first touch; NULL when memory is out. */
static l4_word_t *page_slot(struct mm *mm, struct region *r, l4_word_t page)
{
    l4_word_t *slot = pt_slot(mm, page, true);
    if (!slot)
        return NULL;
    if (*slot)
        return slot;
    char *p = page_alloc();
    if (!p)
        return NULL;
    if (r->fdata) {
        l4_word_t lo = page > r->fstart ? page : r->fstart;
        l4_word_t hi = page + LX_PAGE < r->fend ? page + LX_PAGE : r->fend;
        if (lo < hi)
            memcpy(p + (lo - page), (const char *)(r->fdata + (lo - r->fstart)), hi - lo);
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
        for (l4_word_t a = r->start; r->shared && a < r->end; a += LX_PAGE)
            if (!mm_page(src, r, a))
                return -ENOMEM;
    }
    if (!mm_init(dst))
        return -ENOMEM;
    memcpy(dst->regions, src->regions, src->nregions * sizeof src->regions[0]);
    dst->nregions = src->nregions;
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
