/* lx's page pool: the heap the root task gave it (paged on demand, with execute rights:
 * `heapx=1`), all of it, handed out a page at a time.  Every page lx maps to a process is
 * one of these, so lx can always read and write it through its own address (usercopy.c).
 *
 * Each page has a reference count: the number of page-table slots (of all processes) and
 * files that hold it.  fork shares a process's pages with its child (copy-on-write, mm.c);
 * the page goes back to the pool when the last one lets it go.
 *
 * The counts live in the pool itself, sized from the heap: the pool is cut into chunks of
 * 1024 pages (4 MiB), and the first page of a chunk holds the counts of the other 1023
 * (its own word counts the pages of the chunk in use).  It is touched, and so paged in by
 * the root task, only when its chunk is first used; a chunk with no page in use counts its
 * first page as free, so a pool with nothing handed out reports every page of the heap
 * free (the tests' check that nothing leaked).
 *
 * A fresh page is mapped by an explicit request to the root task (page_in), not by touching
 * it: with the kernel's memory exhausted a fault of lx's own would never be resolved.
 *
 * Process memory (page_alloc_user) stops short of a reserve that only lx's own structures
 * (page_alloc: kmalloc, pipes, files) may use, so that lx keeps serving while processes
 * have used up everything else (docs/linux/memory.md §4). */
#include "mm/page.h"
#include <stdint.h>
#include <stdio.h>

#define CHUNK_PAGES 1024ul

static l4_word_t base, next, limit; /* never handed out: [next, limit) */
static void *free_list;             /* freed pages, linked through their first word */
static unsigned long nfree_list, nfresh, nused, nchunks_used, npages, nchunks, reserve;

void page_init(l4_word_t b, l4_word_t size)
{
    base = next = b;
    npages = (size & LX_PAGE_MASK) / LX_PAGE;
    limit = b + npages * LX_PAGE;
    nchunks = (npages + CHUNK_PAGES - 1) / CHUNK_PAGES;
    nfresh = page_total();
    reserve = page_total() / 128 > 32 ? page_total() / 128 : 32;
}

/* The count words of p's chunk: word 0 is the chunk's pages in use, word i page i's count. */
static uint32_t *chunk_of(const void *p)
{
    l4_word_t i = ((l4_word_t)p - base) / LX_PAGE;
    return (uint32_t *)(base + i / CHUNK_PAGES * CHUNK_PAGES * LX_PAGE);
}

static uint32_t *ref_of(const void *p)
{
    return &chunk_of(p)[((l4_word_t)p - base) / LX_PAGE % CHUNK_PAGES];
}

/* Ask the root task for a page of lx's own space as a page fault would, but as a call
 * (ROOT_PAGE_IN): when the kernel has no memory for the mapping (its pool used up by
 * processes' page tables), the root task's reply fails with message overflow (docs/ipc.md
 * §3.6) and so does this call; when the root task has no page behind it, its reply says so.
 * Touching the page instead would have faulted again for ever (or waited for a reply that
 * never comes), lx with it.  The page is then as good as not there: the caller's
 * out-of-memory path (the OOM killer for a process's page) gives the kernel its memory
 * back.  The words of the message being served stay. */
bool page_in(l4_word_t addr, unsigned access)
{
    l4_word_t mr[3] = { l4_mr(0), l4_mr(1), l4_mr(2) }, br0 = l4_br(0);
    l4_set_mr(0, l4_tag_make(ROOT_PAGE_IN, 2, 0));
    l4_set_mr(1, addr);
    l4_set_mr(2, access);
    l4_accept_mappings(l4_fpage_log2(addr, 12));
    l4_word_t tag = l4_call(l4_task_start()->root);
    bool refused = l4_ipc_failed(tag), ok = !refused && l4_tag_t(tag) == 2;
    l4_set_br(0, br0);
    for (int i = 0; i < 3; i++)
        l4_set_mr(i, mr[i]);
    static l4_word_t last_refused;  /* one line per page, not per retry */
    if (!ok && addr != last_refused)
        printf(refused ? "lx: the kernel has no memory to map lx's page %lx\n"
                       : "lx: the root task has no page for lx's %lx\n", addr);
    if (!ok)
        last_refused = addr;
    return ok;
}

static unsigned long allocatable(void)
{
    return nfree_list + nfresh;
}

void *page_alloc(void)
{
    void *p;
    if (free_list) {
        p = free_list;
        free_list = *(void **)p;
        nfree_list--;
    } else {
        l4_word_t at = next;
        if (at < limit && (at - base) / LX_PAGE % CHUNK_PAGES == 0) {
            if (!page_in(at, L4_R | L4_W))       /* a chunk's first page: its counts */
                return NULL;
            next = at += LX_PAGE;
        }
        if (at >= limit || !page_in(at, L4_R | L4_W))
            return NULL;
        p = (void *)at;
        next = at + LX_PAGE;
        nfresh--;
    }
    void *d = p;
    l4_word_t n = LX_PAGE / 8;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(0ul) : "memory");
    uint32_t *chunk = chunk_of(p);
    if (!chunk[0]++)
        nchunks_used++;
    chunk[((l4_word_t)p - base) / LX_PAGE % CHUNK_PAGES] = 1;
    nused++;
    return p;
}

unsigned long (*page_shrinker)(void);

/* Are n pages of process memory there, the caches given back first if not? */
static bool user_pages(unsigned long n)
{
    return allocatable() >= reserve + n ||
           (page_shrinker && page_shrinker() && allocatable() >= reserve + n);
}

void *page_alloc_user(void)
{
    return user_pages(1) ? page_alloc() : NULL;
}

void page_free(void *p)
{
    uint32_t *chunk = chunk_of(p);
    *ref_of(p) = 0;
    if (!--chunk[0])
        nchunks_used--;
    nused--;
    *(void **)p = free_list;
    free_list = p;
    nfree_list++;
}

void page_get(void *p)
{
    ++*ref_of(p);
}

bool page_put(void *p)
{
    if (--*ref_of(p))
        return false;
    page_free(p);
    return true;
}

unsigned page_refs(const void *p)
{
    return *ref_of(p);
}

void page_revoke(void *p)
{
    l4_set_mr(0, l4_fpage_log2((l4_word_t)p, 12) | L4_RWX);
    l4_unmap(0);
}

unsigned long page_total(void)
{
    return npages - nchunks;
}

unsigned long page_free_count(void)
{
    return npages - nused - nchunks_used;
}

bool page_user_available(unsigned long n)
{
    return user_pages(n);
}
