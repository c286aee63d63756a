/* Root's task records: one per task it loaded or created, from its pool, with the regions it
 * pages for a loaded task.  A task's record and everything it held go back to the pool when
 * the task ends (its last thread deleted through the service) or its load fails. */
#include "root.h"
#include <string.h>

static struct record_cache task_cache = RECORD_CACHE(struct task);
static struct record_cache regions_cache = { .size = RECORD_SIZE(MAX_REGIONS * sizeof(struct region)) };
static l4_word_t ntasks;

struct task *new_task(void)
{
    struct task *t = record_alloc(&task_cache);
    if (t) {
        ntasks++;
        t->colours = ~0ull;
    }
    return t;
}

l4_word_t task_count(void)
{
    return ntasks;
}

struct region *add_region(struct task *t, l4_word_t start, l4_word_t end,
                          l4_word_t backing, unsigned rights, bool owned)
{
    if (t->nregions == MAX_REGIONS || (!t->regions && !(t->regions = record_alloc(&regions_cache))))
        return NULL;
    struct region *r = &t->regions[t->nregions++];
    *r = (struct region){ start, end, backing, NULL, rights, owned };
    return r;
}

/* Everything root holds for t goes back to its pool: owned backing, anonymous pages and
 * their tables, the record.  The kernel's part (space, threads) and root's thread records
 * are the caller's business. */
void task_release(struct task *t)
{
    for (unsigned i = 0; i < t->nregions; i++) {
        struct region *r = &t->regions[i];
        l4_word_t pages = (r->end - r->start) >> 12;
        if (r->owned && r->backing)
            root_free((void *)r->backing, r->end - r->start);
        if (r->anon) {
            for (l4_word_t j = 0; j < pages; j++)
                if (r->anon[j])
                    root_free((void *)(ROOT_HEAP + ((l4_word_t)(r->anon[j] - 1) << 12)), 4096);
            root_free(r->anon, pages * sizeof(uint32_t));
        }
    }
    if (t->regions)
        record_free(&regions_cache, t->regions);
    record_free(&task_cache, t);
    ntasks--;
}
