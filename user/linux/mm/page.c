/* lx's page pool: the heap the root task gave it (paged on demand, with execute rights:
 * `heapx=1`), handed out a page at a time.  Every page lx maps to a process is one of
 * these, so lx can always read and write it through its own address (usercopy.c).
 *
 * Each page has a reference count: the number of page-table slots (of all processes) that
 * hold it.  fork shares a process's pages with its child (copy-on-write, mm.c); the page
 * goes back to the pool when the last one lets it go. */
#include "mm/page.h"
#include <stdint.h>
#include <stdio.h>

/* 1 GiB of pool at most: the counts are lx's bss, paged on demand, so unused ones cost
 * nothing. */
#define POOL_MAX_PAGES (1ul << 18)

static l4_word_t base, next, limit; /* never handed out: [next, limit) */
static void *free_list;             /* freed pages, linked through their first word */
static unsigned long nfree_list;
static uint16_t refs[POOL_MAX_PAGES];

void page_init(l4_word_t b, l4_word_t size)
{
    size &= LX_PAGE_MASK;
    if (size > POOL_MAX_PAGES * LX_PAGE) {
        printf("lx: using %lu MiB of the %lu MiB heap\n", (POOL_MAX_PAGES * LX_PAGE) >> 20,
               size >> 20);
        size = POOL_MAX_PAGES * LX_PAGE;
    }
    base = next = b;
    limit = b + size;
}

static uint16_t *ref_of(const void *p)
{
    return &refs[((l4_word_t)p - base) / LX_PAGE];
}

void *page_alloc(void)
{
    void *p;
    if (free_list) {
        p = free_list;
        free_list = *(void **)p;
        nfree_list--;
    } else if (next < limit) {
        p = (void *)next;
        next += LX_PAGE;
    } else {
        return NULL;
    }
    /* Zeroing also faults the page into lx's space before it is mapped on. */
    void *d = p;
    l4_word_t n = LX_PAGE / 8;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(0ul) : "memory");
    *ref_of(p) = 1;
    return p;
}

void page_free(void *p)
{
    *ref_of(p) = 0;
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

unsigned long page_total(void)
{
    return (limit - base) / LX_PAGE;
}

unsigned long page_free_count(void)
{
    return nfree_list + (limit - next) / LX_PAGE;
}
