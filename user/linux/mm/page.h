/* lx's page pool (page.c): its heap, paged by the root task, handed out a page at a time,
 * with a reference count per page (fork shares pages). */
#ifndef LX_MM_PAGE_H
#define LX_MM_PAGE_H

#include <libl4.h>
#include <stdbool.h>

#define LX_PAGE        4096ul
#define LX_PAGE_MASK   (~(LX_PAGE - 1))

void page_init(l4_word_t base, l4_word_t size);
void *page_alloc(void);             /* zeroed, present in lx's space; NULL when exhausted */
void page_free(void *p);            /* a page nobody else holds */
void page_get(void *p);             /* one more holder (fork shares a page) */
bool page_put(void *p);             /* one holder less; true if that freed it */
unsigned page_refs(const void *p);
/* n contiguous pages (n <= PAGE_RUN_MAX), zeroed, for an object larger than a page; NULL when
 * exhausted.  Freed whole, with its length. */
#define PAGE_RUN_MAX 4
void *page_alloc_run(unsigned n);
void page_free_run(void *p, unsigned n);
unsigned long page_free_count(void);
unsigned long page_total(void);     /* the pool's size in pages */

#endif
