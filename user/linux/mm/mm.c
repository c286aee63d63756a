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
 * Files (docs/linux/memory.md §2): a page of a file mapping is the file's own page (counted
 * once more), its slot marked SLOT_FILE.  MAP_SHARED maps it with the region's rights, so
 * stores reach read() and write() reaches the mapping.  MAP_PRIVATE maps it read-only, so
 * the process sees the file's later changes until its first write, which gives it a copy
 * of its own (as fork's copy-on-write does); only a page the window covers whole (not an
 * ELF segment's partial first or last page, which a copy zero-fills around the file's
 * bytes) and that the file has (not a hole) is shared.  One page of the file for every
 * process keeps QEMU's translated code valid from one exec to the next (docs/performance.md).
 * A page the file lets go is revoked from every space (fs/tmpfs/pages.c); a marked slot is
 * checked against the file at every use, so the next touch sees the file as it is now. */
#include "mm/mm.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "signal/sigpage.h"
#include "vfs/vfs.h"
#include <string.h>

int vm_max_map_count = 65530;       /* Linux's DEFAULT_MAX_MAP_COUNT */
/* vm.overcommit_memory: kept and shown; lx's memory is its page pool, which every mapping
 * draws on at the first touch (heuristic overcommit, mode 0's behaviour, whatever it says). */
static int vm_overcommit_memory;

static struct sysctl mm_sysctls[] = {
    { .path = "vm/max_map_count", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &vm_max_map_count, .min = 0, .max = 0x7FFFFFFF },
    { .path = "vm/overcommit_memory", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &vm_overcommit_memory, .min = 0, .max = 2 },
};
SYSCTL_TABLE(mm_sysctls)

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
            void *p = page_alloc_user();
            if (!p)
                return NULL;
            *e = (l4_word_t)p;
            mm->tables++;
        }
        node = (l4_word_t *)*e;
    }
    return &node[pt_index(va, 0)];
}

/* A leaf slot's low bit: the page is the mapped file's own (not the process's). */
#define SLOT_FILE 1ul

static void *slot_page(l4_word_t slot)
{
    return (void *)(slot & LX_PAGE_MASK);
}

/* Take a page away from the process (the kernel revokes every mapping derived from lx's:
 * from every process that has it). */
static void revoke(l4_word_t slot)
{
    page_revoke(slot_page(slot));
}

/* The slots of a node (level, covering from base) that [start, end) touches: [*first, *last]. */
static bool pt_range(unsigned level, l4_word_t base, l4_word_t start, l4_word_t end,
                     unsigned *first, unsigned *last)
{
    l4_word_t shift = 12 + 9 * level, top = base + (512ul << shift) - 1;
    if (end <= base || start > top)
        return false;
    *first = start > base ? (unsigned)((start - base) >> shift) : 0;
    *last = end - 1 < top ? (unsigned)((end - 1 - base) >> shift) : 511;
    return true;
}

/* Every page of [start, end) under node (level, covering from base): revoked and, with
 * release, freed; only the slots the range touches are looked at, and empty subtrees are
 * skipped, so a range costs what it holds. */
static void pt_clear(struct mm *mm, l4_word_t *node, unsigned level, l4_word_t base,
                     l4_word_t start, l4_word_t end, bool release)
{
    unsigned first, last;
    if (!pt_range(level, base, start, end, &first, &last))
        return;
    for (unsigned i = first; i <= last; i++) {
        if (!node[i])
            continue;
        if (level > 0) {
            pt_clear(mm, (l4_word_t *)node[i], level - 1, base + ((l4_word_t)i << (12 + 9 * level)),
                     start, end, release);
            continue;
        }
        revoke(node[i]);
        if (release) {
            page_put(slot_page(node[i]));
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
            page_put(slot_page(node[i]));
            node[i] = 0;
            mm->pages--;
        }
    }
}

/* --- regions ----------------------------------------------------------------------------- */

/* A region record is one kmalloc object of the 128-byte class: 65,530 of them are 8 MiB. */
_Static_assert(sizeof(struct region) <= 128, "struct region outgrew its kmalloc class");

/* A region copy came into being (split, fork) or went away: its file reference. */
static void region_hold(const struct region *r)
{
    if (r->file)
        inode_get(r->file);
}

void (*mm_file_unmapped)(struct inode *i);
void (*mm_window_unmapped)(struct mm *mm);

static void region_drop(const struct region *r)
{
    if (r->file) {
        if (mm_file_unmapped)
            mm_file_unmapped(r->file);
        inode_put(r->file);
    }
}

/* A record for a new region: the process's memory (it fails once only lx's reserve is
 * left, page.c), NULL when there is none. */
static struct region *region_alloc(void)
{
    return page_user_available(1) ? kmalloc(sizeof(struct region)) : NULL;
}

/* r (a new record holding a copy of a template) joins mm's tree. */
static void region_add(struct mm *mm, struct region *r)
{
    region_hold(r);
    vma_insert(&mm->regions, r);
    mm->nregions++;
}

static void region_gone(struct region *r)
{
    region_drop(r);
    kfree(r);
}

static void region_delete(struct mm *mm, struct region *r)
{
    vma_remove(&mm->regions, r);
    mm->nregions--;
    region_gone(r);
}

/* May a and b (a right below b) be one region?  (With same_prot false: but for their
 * rights, Linux's anon_vma_compatible.)  The same rights and flags (Linux compares
 * all vm_flags, VM_ACCOUNT included) and the same backing window (one window of one file or
 * image; anonymous private memory whose page offsets run on; each MAP_SHARED anonymous
 * mapping is memory of its own, as Linux's shmem files are). */
static bool alike(const struct region *a, const struct region *b, bool same_prot)
{
    if (a->end != b->start || (same_prot && a->prot != b->prot) || a->shared != b->shared ||
        a->no_write != b->no_write || a->bus_past_eof != b->bus_past_eof ||
        a->accounted != b->accounted || a->noreserve != b->noreserve ||
        a->file != b->file || a->fdata != b->fdata)
        return false;
    if (a->file)
        return a->foff - a->fstart == b->foff - b->fstart && a->fend == b->fend;
    if (a->fdata)
        return a->fstart == b->fstart && a->fend == b->fend;
    return !a->shared && a->fstart == b->fstart;
}

static bool compatible(const struct region *a, const struct region *b)
{
    return alike(a, b, true);
}

/* May `mover` join the region `keeper` that takes it in?  Linux's is_mergeable_anon_vma:
 * one with an anon_vma joins only a region with the same one. */
static bool may_join(const struct region *mover, const struct region *keeper)
{
    if (mover->native_window || keeper->native_window)
        return false;
    return !mover->anon || mover->anon == keeper->anon;
}

/* a (right below b) takes b's range over; b goes. */
static void absorb(struct mm *mm, struct region *a, struct region *b)
{
    l4_word_t end = b->end;
    if (!a->anon)
        a->anon = b->anon;
    region_delete(mm, b);
    a->end = end;
    vma_resized(&mm->regions, a);
}

/* A new mapping r joined with its neighbours as Linux 6.1's mmap_region does: the one
 * above first, then the one below if it can take in what r became. */
static void merge_new(struct mm *mm, struct region *r)
{
    struct region *p = vma_prev(r), *n = vma_next(r);
    bool with_n = n && compatible(r, n);
    bool with_p = p && compatible(p, r) && (!with_n || may_join(n, p));
    if (with_n)
        absorb(mm, r, n);
    if (with_p)
        absorb(mm, p, r);
}

/* r joined with its neighbours where Linux's vma_merge would join them (mprotect): what is
 * left. */
static struct region *merge_around(struct mm *mm, struct region *r)
{
    struct region *p = vma_prev(r), *n = vma_next(r);
    bool with_p = p && compatible(p, r) && may_join(r, p);
    bool with_n = n && compatible(r, n) && may_join(r, n) &&
                  (!with_p || !p->anon || !n->anon || p->anon == n->anon);
    if (with_p) {
        absorb(mm, p, r);
        r = p;
    }
    if (with_n)
        absorb(mm, r, n);
    return r;
}

bool mm_init(struct mm *mm)
{
    memset(mm, 0, sizeof *mm);
    mm->pgd = page_alloc_user();
    struct region *sig = region_alloc();
    if (!mm->pgd || !sig) {
        kfree(sig);
        if (mm->pgd)
            page_free(mm->pgd);
        mm->pgd = NULL;
        return false;
    }
    /* Every process has the signal page (sigpage.c); its page is made on first use. */
    sigpage_region(sig);
    region_add(mm, sig);
    return true;
}

void mm_destroy(struct mm *mm)
{
    if (mm->pgd) {
        /* The space is gone with its mappings: no revoking needed. */
        pt_free_leaves(mm, mm->pgd, 3);
        pt_free(mm->pgd, 3);
        mm->pgd = NULL;
        mm->tables = 0;
    }
    vma_drain(&mm->regions, region_gone);
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
    return vma_find(&mm->regions, addr);
}

/* Make addr a region boundary (split the region that contains it): 0 or -ENOMEM. */
static int split_at(struct mm *mm, l4_word_t addr)
{
    struct region *r = vma_find(&mm->regions, addr);
    if (!r || r->start == addr)
        return 0;
    struct region *tail = region_alloc();
    if (!tail)
        return -ENOMEM;
    *tail = *r;                     /* file backing is absolute: both halves keep it */
    tail->start = addr;
    r->end = addr;
    vma_resized(&mm->regions, r);
    region_add(mm, tail);
    return 0;
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
    /* A hole punched into one region makes one more, beyond the limit only while Linux's
     * munmap frees (it splits at the end without a check). */
    struct region *r = vma_find(&mm->regions, start);
    if (r && r->start < start && end < r->end && mm->nregions >= LX_MAX_MAP_COUNT)
        return -ENOMEM;
    int e = split_at(mm, start);
    if (!e)
        e = split_at(mm, end);
    if (e)
        return e;
    bool window = false;
    for (r = vma_from(&mm->regions, start); r && r->start < end;) {
        struct region *next = vma_next(r);
        window |= r->native_window;
        region_delete(mm, r);
        r = next;
    }
    pt_clear(mm, mm->pgd, 3, 0, start, end, true);
    if (window && mm_window_unmapped)   /* what native IPC mapped there goes too */
        mm_window_unmapped(mm);
    return 0;
}

static int map_region(struct mm *mm, const struct region *tmpl, bool brk);

int mm_map_region(struct mm *mm, const struct region *tmpl)
{
    return map_region(mm, tmpl, false);
}

int mm_brk(struct mm *mm, l4_word_t start, l4_word_t end)
{
    struct region r = { .start = start, .end = end, .prot = PROT_READ | PROT_WRITE,
                        .accounted = true };
    return map_region(mm, &r, true);
}

/* A new region from tmpl, joined to its neighbours: brk's only to the one below (Linux's
 * do_brk_flags expands the heap's region, nothing else). */
static int map_region(struct mm *mm, const struct region *tmpl, bool brk)
{
    /* Linux's do_mmap: a process over vm.max_map_count maps nothing new. */
    if (mm->nregions > LX_MAX_MAP_COUNT)
        return -ENOMEM;
    struct region *r = region_alloc();
    if (!r)
        return -ENOMEM;
    int e = mm_unmap(mm, tmpl->start, tmpl->end);
    if (e) {
        kfree(r);
        return e;
    }
    *r = *tmpl;
    region_add(mm, r);
    struct region *p = vma_prev(r);
    if (!brk)
        merge_new(mm, r);           /* malloc's mmaps join (memory next to memory like it) */
    else if (p && compatible(p, r))
        absorb(mm, p, r);
    return 0;
}

int mm_map(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot, l4_word_t fdata,
           l4_word_t fstart, l4_word_t fend)
{
    struct region r = { .start = start, .end = end, .prot = prot, .fdata = fdata,
                        .fstart = fstart, .fend = fend,
                        .accounted = !fdata && (prot & PROT_WRITE) };   /* brk, the stack */
    return mm_map_region(mm, &r);
}

/* [lo, hi) of region r gets prot, as Linux's mprotect_fixup: the piece joins a neighbour
 * where it may (no new region), else r is split (each split only below the limit). */
static int protect_one(struct mm *mm, struct region *r, l4_word_t lo, l4_word_t hi,
                       unsigned prot)
{
    if (r->prot == prot)
        return 0;
    struct region want = *r;
    want.prot = prot;
    want.start = lo;
    want.end = hi;
    /* Private memory made writable is promised now (mprotect_fixup's VM_ACCOUNT). */
    if ((prot & PROT_WRITE) && !(r->prot & PROT_WRITE) && !r->accounted && !r->shared &&
        !r->noreserve) {
        if (!mm_may_commit(hi - lo))
            return -ENOMEM;
        want.accounted = true;
    }
    struct region *p = vma_prev(r), *n = vma_next(r);
    if (lo == r->start && hi == r->end) {
        r->prot = prot;
        r->accounted = want.accounted;
        merge_around(mm, r);
        return 0;
    }
    if (lo == r->start && p && compatible(p, &want) && may_join(r, p)) {
        p->end = hi;                /* the piece moves into the region below */
        p->anon = p->anon ? p->anon : r->anon;
        r->start = hi;
        vma_resized(&mm->regions, p);
        vma_resized(&mm->regions, r);
        return 0;
    }
    if (hi == r->end && n && compatible(&want, n) && may_join(r, n)) {
        n->start = lo;              /* ... or into the one above */
        n->anon = n->anon ? n->anon : r->anon;
        r->end = lo;
        vma_resized(&mm->regions, n);
        vma_resized(&mm->regions, r);
        return 0;
    }
    if (lo > r->start) {
        int e = mm->nregions >= LX_MAX_MAP_COUNT ? -ENOMEM : split_at(mm, lo);
        if (e)
            return e;
        r = vma_find(&mm->regions, lo);
    }
    if (hi < r->end) {
        int e = mm->nregions >= LX_MAX_MAP_COUNT ? -ENOMEM : split_at(mm, hi);
        if (e)
            return e;
    }
    r->prot = prot;
    r->accounted = want.accounted;
    return 0;
}

int mm_protect(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot)
{
    if (start < LX_MMAP_MIN)
        return -ENOMEM;             /* the signal page is lx's, not a mapping to change */
    /* Linux's order: region by region from start; a hole (ENOMEM) or a shared mapping of a
     * file not opened for writing (EACCES: no VM_MAYWRITE) stops it where it is, what was
     * done before stays done. */
    int err = 0;
    l4_word_t at = start;
    while (at < end) {
        struct region *r = vma_find(&mm->regions, at);
        if (!r) {
            err = -ENOMEM;
            break;
        }
        if ((prot & PROT_WRITE) && r->no_write) {
            err = -EACCES;
            break;
        }
        l4_word_t hi = r->end < end ? r->end : end;
        err = protect_one(mm, r, at, hi, prot);
        if (err)
            break;
        at = hi;
    }
    /* Mapped pages keep their old rights until revoked: the next fault maps the new ones. */
    if (at > start)
        pt_clear(mm, mm->pgd, 3, 0, start, at, false);
    return err;
}

l4_word_t mm_find_gap(struct mm *mm, l4_word_t len)
{
    uint64_t at;
    return vma_gap_down(&mm->regions, LX_MMAP_MIN, mm->mmap_top, len, &at) ? at : 0;
}

bool mm_range_free(struct mm *mm, l4_word_t start, l4_word_t end)
{
    struct region *r = vma_from(&mm->regions, start);
    return !r || r->start >= end;
}

bool mm_past_eof(const struct region *r, l4_word_t addr)
{
    l4_word_t page = addr & LX_PAGE_MASK;
    return r->file && r->bus_past_eof && page >= r->fstart &&
           r->foff + (page - r->fstart) >= r->file->size;
}

static uint32_t anon_ids;           /* the last anon_vma identity handed out */

/* The anon_vma identity r gets at its first written page (Linux's anon_vma_prepare): a
 * neighbour's that r could join but for its rights (find_mergeable_anon_vma: the one above
 * first), else a new one. */
static uint32_t anon_for(const struct region *r)
{
    const struct region *n = vma_next(r), *p = vma_prev(r);
    if (n && n->anon && alike(r, n, false))
        return n->anon;
    if (p && p->anon && alike(p, r, false))
        return p->anon;
    return ++anon_ids;
}

/* The file's page behind user page `page` of a file region now (a hole inside the file gets
 * one), if a mapping may share it: MAP_PRIVATE only one the window covers whole. */
static char *file_page(const struct region *r, l4_word_t page)
{
    struct inode *i = r->file;
    l4_word_t off = r->foff + (page - r->fstart);
    if (!i || !i->iop || !i->iop->map_page || page < r->fstart || (off & ~LX_PAGE_MASK) ||
        (!r->shared && (r->fend - r->fstart < LX_PAGE || page > r->fend - LX_PAGE)))
        return NULL;
    return i->iop->map_page(i, off / LX_PAGE);
}

/* The leaf slot of user page `page`, filled on first touch; NULL with *err: -ENOMEM when
 * memory is out, -ENOSPC when the file a shared mapping maps has no room for the page (its
 * mount is full while lx's pool is not), -EFAULT past the end of the file it maps. */
static l4_word_t *page_slot(struct mm *mm, struct region *r, l4_word_t page, int *err)
{
    *err = -EFAULT;
    if (mm_past_eof(r, page))
        return NULL;
    *err = -ENOMEM;
    l4_word_t *slot = pt_slot(mm, page, true);
    if (!slot)
        return NULL;
    if (*slot & SLOT_FILE && file_page(r, page) != slot_page(*slot)) {
        page_put(slot_page(*slot));     /* the file let it go: it refills from the file */
        *slot = 0;
        mm->pages--;
    }
    if (*slot)
        return slot;
    char *p;
    if (r->file && r->shared) {
        /* The file's own page (a hole gets one; the module's bytes of an initramfs file
         * become the file's pages first): the mapping holds it as the file does. */
        p = tmpfs_page(r->file, (r->foff + (page - r->fstart)) / LX_PAGE);
        if (!p) {
            *err = page_user_available(1) ? -ENOSPC : -ENOMEM;
            return NULL;
        }
        page_get(p);
        p += SLOT_FILE;
    } else if ((p = file_page(r, page))) {
        page_get(p);                    /* MAP_PRIVATE, read-only until the first write */
        p += SLOT_FILE;
    } else {
        p = page_alloc_user();
        if (!p)
            return NULL;
        l4_word_t lo = page > r->fstart ? page : r->fstart;
        l4_word_t hi = page + LX_PAGE < r->fend ? page + LX_PAGE : r->fend;
        if (lo < hi && r->fdata)
            memcpy(p + (lo - page), (const char *)(r->fdata + (lo - r->fstart)), hi - lo);
        else if (lo < hi && r->file &&  /* MAP_PRIVATE: the file's bytes now */
                 tmpfs_read(r->file, p + (lo - page), hi - lo, r->foff + (lo - r->fstart)) < 0) {
            page_free(p);               /* its bytes not to be had (mm/module.c): ENOMEM */
            return NULL;
        }
    }
    *slot = (l4_word_t)p;
    mm->pages++;
    return slot;
}

void *mm_page_present(struct mm *mm, l4_word_t addr)
{
    l4_word_t *slot = pt_slot(mm, addr & LX_PAGE_MASK, false);
    return slot && *slot ? slot_page(*slot) : NULL;
}

void *mm_page(struct mm *mm, struct region *r, l4_word_t addr, int *err)
{
    int e;
    l4_word_t *slot = page_slot(mm, r, addr & LX_PAGE_MASK, err ? err : &e);
    return slot ? slot_page(*slot) : NULL;
}

void *mm_page_write(struct mm *mm, struct region *r, l4_word_t addr, bool revoke_old, int *err)
{
    int e;
    err = err ? err : &e;
    l4_word_t *slot = page_slot(mm, r, addr & LX_PAGE_MASK, err);
    if (!slot)
        return NULL;
    void *old = slot_page(*slot);
    if (!r->shared && !r->anon)
        r->anon = anon_for(r);
    if (r->shared || (!(*slot & SLOT_FILE) && page_refs(old) == 1))
        return old;                 /* ours alone (or shared on purpose): write in place */
    void *copy = page_alloc_user();
    if (!copy) {
        *err = -ENOMEM;
        return NULL;
    }
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
        void *page = slot_page(node[i]);
        struct region *r = mm_find(src, va);
        /* A private page the parent alone held may be mapped writable: no longer. */
        if (!(r && r->shared) && page_refs(page) == 1)
            batch_revoke_write((l4_word_t)page);
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
    for (struct region *r = vma_first(&src->regions); r; r = vma_next(r))
        for (l4_word_t a = r->start; r->shared && !r->file && a < r->end; a += LX_PAGE)
            if (!mm_page(src, r, a, NULL))
                return -ENOMEM;
    memset(dst, 0, sizeof *dst);
    dst->pgd = page_alloc_user();
    if (!dst->pgd)
        return -ENOMEM;
    for (struct region *r = vma_first(&src->regions); r; r = vma_next(r)) {
        struct region *copy = region_alloc();
        if (!copy) {
            mm_destroy(dst);
            return -ENOMEM;
        }
        *copy = *r;
        region_add(dst, copy);
    }
    dst->brk_start = src->brk_start;
    dst->arg_start = src->arg_start;
    dst->arg_end = src->arg_end;
    dst->env_start = src->env_start;
    dst->env_end = src->env_end;
    dst->auxv_start = src->auxv_start;
    dst->auxv_end = src->auxv_end;
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
    if (start < LX_MMAP_MIN)
        return false;               /* the signal page is lx's, not a mapping to name */
    for (l4_word_t a = start; a < end;) {
        struct region *r = vma_find(&mm->regions, a);
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

/* Each present page of [start, end) under node: fn(mm, its slot, delta); a false from fn
 * stops the walk.  Empty subtrees are skipped, so a huge sparse range costs what it holds. */
static bool pt_each(struct mm *mm, l4_word_t *node, unsigned level, l4_word_t base,
                    l4_word_t start, l4_word_t end, l4_word_t delta,
                    bool (*fn)(struct mm *, l4_word_t *, l4_word_t, l4_word_t))
{
    unsigned first, last;
    if (!pt_range(level, base, start, end, &first, &last))
        return true;
    for (unsigned i = first; i <= last; i++) {
        l4_word_t lo = base + ((l4_word_t)i << (12 + 9 * level));
        if (!node[i])
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

static bool discard_page(struct mm *mm, l4_word_t *slot, l4_word_t va, l4_word_t delta)
{
    (void)delta;
    struct region *r = vma_find(&mm->regions, va);
    if (r && r->shared && !r->file)
        return true;        /* shared anonymous memory keeps its pages: they are its contents */
    revoke(*slot);
    page_put(slot_page(*slot));
    *slot = 0;
    mm->pages--;
    return true;
}

int mm_discard(struct mm *mm, l4_word_t start, l4_word_t end)
{
    bool hole = !mm_range_mapped(mm, start, end);
    pt_each(mm, mm->pgd, 3, 0, start > LX_MMAP_MIN ? start : LX_MMAP_MIN, end, 0, discard_page);
    return hole ? -ENOMEM : 0;
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
    if (mm->nregions >= LX_MAX_MAP_COUNT - 3)
        return -ENOMEM;             /* Linux's move_vma: room for the splits */
    struct region *r = vma_find(&mm->regions, old);
    struct region tmpl = *r;
    l4_word_t delta = new_addr - old;          /* modulo 2^64: the window moves along */
    tmpl.start = new_addr;
    tmpl.end = new_addr + new_len;
    tmpl.fstart += delta;           /* a file's window, or anonymous page offsets, move along */
    if ((tmpl.fdata || tmpl.file) && tmpl.fend != MM_FILE_END)
        tmpl.fend += delta;
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

/* The region to grow or move [old, old + old_len) out of (Linux's vma_to_resize): r or an
 * error. */
static long resizable(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_len,
                      struct region **rp)
{
    struct region *r = old >= LX_MMAP_MIN ? vma_find(&mm->regions, old) : NULL;
    if (!r)
        return -EFAULT;
    if (!old_len)
        return -EINVAL;     /* Linux duplicates a shared mapping so: not here */
    if (old_len > r->end - old)
        return -EFAULT;     /* the range runs past its mapping */
    bool accountable = !r->shared && !r->file && (r->prot & PROT_WRITE);
    if (new_len > old_len && accountable && !mm_may_commit(new_len - old_len))
        return -ENOMEM;
    *rp = r;
    return 0;
}

/* MREMAP_FIXED (Linux's mremap_to). */
static long remap_to(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_len,
                     l4_word_t new_addr)
{
    if (new_addr & ~LX_PAGE_MASK)
        return -EINVAL;
    if (new_len > LX_USER_END || new_addr > LX_USER_END - new_len)
        return -EINVAL;
    if (old + old_len > new_addr && new_addr + new_len > old)
        return -EINVAL;                         /* the two ranges overlap */
    if (mm->nregions + 2 >= LX_MAX_MAP_COUNT - 3)
        return -ENOMEM;
    if (new_addr < LX_MMAP_MIN)
        return -EPERM;
    int e = mm_unmap(mm, new_addr, new_addr + new_len);
    if (e)
        return e;
    if (old_len > new_len) {
        if ((e = mm_unmap(mm, old + new_len, old + old_len)))
            return e;
        old_len = new_len;
    }
    struct region *r;
    long err = resizable(mm, old, old_len, new_len, &r);
    return err ? err : move_range(mm, old, old_len, new_addr, new_len);
}

/* Linux 6.1's mremap, its checks in its order. */
long mm_remap(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_len,
              unsigned flags, l4_word_t new_addr)
{
    if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
        return -EINVAL;
    if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
        return -EINVAL;
    if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
        return -EINVAL;
    if (old & ~LX_PAGE_MASK)
        return -EINVAL;
    old_len = (old_len + LX_PAGE - 1) & LX_PAGE_MASK;
    new_len = (new_len + LX_PAGE - 1) & LX_PAGE_MASK;
    if (!new_len)
        return -EINVAL;
    if (old < LX_MMAP_MIN || !vma_find(&mm->regions, old))
        return -EFAULT;     /* nothing mapped there (the signal page is lx's) */
    if (flags & MREMAP_DONTUNMAP)
        return -EINVAL;     /* not supported (docs/linux/memory.md) */
    if (flags & MREMAP_FIXED)
        return remap_to(mm, old, old_len, new_len, new_addr);
    if (old_len >= new_len) {
        /* Shrinking (or the same size) never fails but for the unmap of the tail. */
        if (old_len > new_len) {
            int e = mm_unmap(mm, old + new_len, old + old_len);
            if (e)
                return e;
        }
        return (long)old;
    }
    struct region *r;
    long err = resizable(mm, old, old_len, new_len, &r);
    if (err)
        return err;
    /* Grow in place when the range ends its region and the space after it is free. */
    if (old + old_len == r->end && new_len - old_len <= LX_USER_END - r->end &&
        mm_range_free(mm, r->end, old + new_len)) {
        struct region tmpl = *r;
        tmpl.start = r->end;
        tmpl.end = old + new_len;
        int e = mm_map_region(mm, &tmpl);
        return e ? e : (long)old;
    }
    if (!(flags & MREMAP_MAYMOVE))
        return -ENOMEM;
    new_addr = mm_find_gap(mm, new_len);
    if (!new_addr)
        return -ENOMEM;
    return move_range(mm, old, old_len, new_addr, new_len);
}

bool mm_resident(struct mm *mm, const struct region *r, l4_word_t addr)
{
    l4_word_t *slot = pt_slot(mm, addr & LX_PAGE_MASK, false);
    if (slot && *slot)
        return true;
    if (!r->file || addr < r->fstart)
        return false;
    /* Linux's mincore_page: a file's page is resident if the file has it (its page cache) */
    int e;
    l4_word_t off = r->foff + (addr & LX_PAGE_MASK) - r->fstart;
    return off < r->file->size && r->file->iop && r->file->iop->get_page &&
           r->file->iop->get_page(r->file, off / LX_PAGE, false, &e);
}
