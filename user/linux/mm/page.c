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
static void *free_runs[PAGE_RUN_MAX + 1];   /* freed runs by length, linked like free_list */
static unsigned long nfree_run_pages;

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

static void page_zero(void *p, unsigned long n)
{
    n *= LX_PAGE / 8;
    __asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0ul) : "memory");
}

/* No single page left: a freed run gives its pages up one by one (the rest to free_list). */
static void *run_split(void)
{
    for (unsigned n = 2; n <= PAGE_RUN_MAX; n++)
        if (free_runs[n]) {
            char *r = free_runs[n];
            free_runs[n] = *(void **)r;
            nfree_run_pages -= n;
            for (unsigned i = 1; i < n; i++)
                page_free(r + i * LX_PAGE);
            return r;
        }
    return NULL;
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
    } else if (!(p = run_split())) {
        return NULL;
    }
    /* Zeroing also faults the page into lx's space before it is mapped on. */
    page_zero(p, 1);
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
    return nfree_list + nfree_run_pages + (limit - next) / LX_PAGE;
}

/* Runs: from the never-used end of the pool, or a freed run of the same length (objects of
 * one size come and go together: struct mm). */
void *page_alloc_run(unsigned n)
{
    if (n <= 1)
        return page_alloc();
    if (n > PAGE_RUN_MAX)
        return NULL;
    char *p;
    if (free_runs[n]) {
        p = free_runs[n];
        free_runs[n] = *(void **)p;
        nfree_run_pages -= n;
    } else if (limit - next >= n * LX_PAGE) {
        p = (char *)next;
        next += n * LX_PAGE;
    } else {
        return NULL;
    }
    page_zero(p, n);
    for (unsigned i = 0; i < n; i++)
        *ref_of(p + i * LX_PAGE) = 1;
    return p;
}

void page_free_run(void *p, unsigned n)
{
    if (n <= 1) {
        page_free(p);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        *ref_of((char *)p + i * LX_PAGE) = 0;
    *(void **)p = free_runs[n];
    free_runs[n] = p;
    nfree_run_pages += n;
}
