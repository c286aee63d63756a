/* lx's page pool: the heap the root task gave it (paged on demand, with execute rights:
 * `heapx=1`), handed out a page at a time.  Every page lx maps to a process is one of
 * these, so lx can always read and write it through its own address (usercopy.c). */
#include "lx.h"

static l4_word_t next, limit;       /* never handed out: [next, limit) */
static void *free_list;             /* freed pages, linked through their first word */
static unsigned long nfree_list;

void page_init(l4_word_t base, l4_word_t size)
{
    next = base;
    limit = base + (size & LX_PAGE_MASK);
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
    return p;
}

void page_free(void *p)
{
    *(void **)p = free_list;
    free_list = p;
    nfree_list++;
}

unsigned long page_free_count(void)
{
    return nfree_list + (limit - next) / LX_PAGE;
}
