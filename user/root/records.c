/* Root's small records (tasks, thread records, region tables) in pages of its pool: each
 * cache has one record size, a page holds up to 63 records behind a header with a bitmap of
 * its free slots, and goes back to the pool with its last record, so root's memory follows
 * the number of tasks and threads up and down. */
#include "root.h"
#include "../../kernel/list.h"
#include <string.h>

struct record_page {
    struct record_page *next, *prev;    /* in the cache's `open` list while a slot is free */
    uint64_t free;                      /* bit i: slot i is free */
};

#define FIRST_SLOT 64                   /* the header's room; slots keep 64-byte alignment */

static unsigned slots_per_page(const struct record_cache *c)
{
    unsigned n = (4096 - FIRST_SLOT) / c->size;
    return n < 63 ? n : 63;
}

void *record_alloc(struct record_cache *c)
{
    struct record_page *p = c->open;
    if (!p) {
        if (!(p = root_alloc_page()))
            return NULL;
        p->free = (1ull << slots_per_page(c)) - 1;
        LIST_PUSH(c->open, p, next, prev);
    }
    unsigned slot = (unsigned)__builtin_ctzll(p->free);
    p->free &= ~(1ull << slot);
    if (!p->free)
        LIST_UNLINK(c->open, p, next, prev);
    void *r = (char *)p + FIRST_SLOT + slot * c->size;
    memset(r, 0, c->size);
    return r;
}

void record_free(struct record_cache *c, void *r)
{
    struct record_page *p = (struct record_page *)((l4_word_t)r & ~0xFFFul);
    unsigned slot = (unsigned)(((char *)r - (char *)p - FIRST_SLOT) / c->size);
    if (!p->free)
        LIST_PUSH(c->open, p, next, prev);
    p->free |= 1ull << slot;
    if (p->free == (1ull << slots_per_page(c)) - 1) {
        LIST_UNLINK(c->open, p, next, prev);
        root_free(p, 4096);
    }
}
