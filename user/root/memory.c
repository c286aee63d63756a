/* Root's memory: naturally aligned blocks from sigma0, mapped into root's space from
 * ROOT_HEAP up, handed out in whole pages and given back to this pool (first fit in the
 * page map, pagemap.c).  sigma0 has no way to take frames back, so freed pages stay here for
 * the next task. */
#include "root.h"
#include "pagemap.h"
#include <string.h>

#define CHUNK_LOG2 21
#define MAX_PAGES  (ROOT_HEAP_SIZE >> 12)

static l4_word_t limit = ROOT_HEAP;            /* [ROOT_HEAP, limit) is ours, from sigma0 */
static l4_word_t pool_end = ROOT_HEAP + ROOT_HEAP_SIZE;    /* limit never passes it */
static l4_word_t pages_used;

_Static_assert(MAX_PAGES == PAGEMAP_PAGES, "the page map covers the pool");

static bool grow(void)
{
    /* A block lands at an address aligned to its size: only while limit is (before any
     * single page was taken), else it would cover pages we have. */
    if (!(limit & ((1ul << CHUNK_LOG2) - 1)) && limit + (1ul << CHUNK_LOG2) <= pool_end) {
        l4_word_t got = l4_sigma0_get_any(l4_sigma0_tid(), CHUNK_LOG2, l4_fpage_log2(limit, CHUNK_LOG2));
        if (!l4_is_nil_fpage(got)) {
            limit += 1ul << CHUNK_LOG2;
            return true;
        }
    }
    /* No 2 MiB block left: take single pages. */
    if (limit + 4096 > pool_end ||
        l4_is_nil_fpage(l4_sigma0_get_any(l4_sigma0_tid(), 12, l4_fpage_log2(limit, 12))))
        return false;
    limit += 4096;
    return true;
}

void *root_alloc(l4_word_t size)
{
    if (!size || size > ROOT_HEAP_SIZE)
        return NULL;
    l4_word_t n = (size + 4095) >> 12;
    /* First fit; the run may end in memory still to be taken (never marked: free). */
    l4_word_t first = pagemap_find(n);
    if (first == PAGEMAP_NONE)
        return NULL;
    while ((limit - ROOT_HEAP) >> 12 < first + n)
        if (!grow())
            return NULL;
    pagemap_mark(first, n, true);
    pages_used += n;
    void *p = (void *)(ROOT_HEAP + (first << 12));
    memset(p, 0, n << 12);
    return p;
}

void *root_alloc_page(void)
{
    return root_alloc(4096);
}

void *root_alloc_coloured_page(uint64_t colours)
{
    if (colours == ~0ull)
        return root_alloc(4096);
    l4_word_t page = pagemap_find_coloured(colours);
    if (page == PAGEMAP_NONE)
        return NULL;
    while ((limit - ROOT_HEAP) >> 12 <= page)
        if (!grow())
            return NULL;
    pagemap_mark(page, 1, true);
    pages_used++;
    void *p = (void *)(ROOT_HEAP + (page << 12));
    memset(p, 0, 4096);
    return p;
}

void root_free(void *p, l4_word_t size)
{
    if (!p || !size)
        return;
    l4_word_t first = ((l4_word_t)p - ROOT_HEAP) >> 12, n = (size + 4095) >> 12;
    pagemap_mark(first, n, false);
    pages_used -= n;
}

l4_word_t root_pages_used(void)
{
    return pages_used;
}

l4_word_t root_pages_taken(void)
{
    return (limit - ROOT_HEAP) >> 12;
}

void root_pool_limit(l4_word_t bytes)
{
    if (bytes < pool_end - ROOT_HEAP)
        pool_end = ROOT_HEAP + (bytes & ~0xFFFul);
}
