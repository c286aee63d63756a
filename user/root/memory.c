/* Root's memory: naturally aligned blocks from sigma0, mapped into root's space from
 * ROOT_HEAP up, handed out page by page. */
#include "root.h"
#include <string.h>

#define CHUNK_LOG2 21

static l4_word_t next = ROOT_HEAP, limit = ROOT_HEAP;

static bool grow(void)
{
    l4_word_t got = l4_sigma0_get_any(l4_sigma0_tid(), CHUNK_LOG2, l4_fpage_log2(limit, CHUNK_LOG2));
    if (l4_is_nil_fpage(got)) {
        /* No 2 MiB block left: take single pages. */
        got = l4_sigma0_get_any(l4_sigma0_tid(), 12, l4_fpage_log2(limit, 12));
        if (l4_is_nil_fpage(got))
            return false;
        limit += 4096;
        return true;
    }
    limit += 1ul << CHUNK_LOG2;
    return true;
}

void *root_alloc(l4_word_t size)
{
    size = (size + 4095) & ~4095ul;
    while (next + size > limit)
        if (!grow())
            return NULL;
    void *p = (void *)next;
    next += size;
    memset(p, 0, size);
    return p;
}

void *root_alloc_page(void)
{
    return root_alloc(4096);
}
