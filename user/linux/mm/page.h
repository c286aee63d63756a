/* lx's page pool (page.c): all of its heap, paged by the root task, handed out a page at a
 * time, with a reference count per page (fork shares pages). */
#ifndef LX_MM_PAGE_H
#define LX_MM_PAGE_H

#include <libl4.h>
#include <stdbool.h>

#define LX_PAGE        4096ul
#define LX_PAGE_MASK   (~(LX_PAGE - 1))

void page_init(l4_word_t base, l4_word_t size);
void *page_alloc(void);             /* zeroed, present in lx's space; NULL when exhausted */
/* The same for a process's memory (its pages, page tables, region records): NULL once only
 * lx's own reserve is left. */
void *page_alloc_user(void);
bool page_user_available(unsigned long n);  /* could n pages of process memory be had? */
/* Pages that can be had back on demand (file caches no mapping holds): freed when process
 * memory runs short, how many (set by tmpfs; NULL: none). */
extern unsigned long (*page_shrinker)(void);
void page_free(void *p);            /* a page nobody else holds */
void page_get(void *p);             /* one more holder (fork shares a page) */
bool page_put(void *p);             /* one holder less; true if that freed it */
unsigned page_refs(const void *p);
/* Take p away from every process that has it mapped (its mappings derive from lx's). */
void page_revoke(void *p);
unsigned long page_free_count(void); /* every page of the heap when nothing is handed out */
unsigned long page_total(void);      /* the pages the pool can hand out */
/* A page of lx's own space (heap, a data module's window) mapped by a call to the root task,
 * never by a fault: false when the kernel or the root task has no memory for it. */
bool page_in(l4_word_t addr, unsigned access);

#endif
