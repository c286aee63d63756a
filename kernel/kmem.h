/* Kernel memory: a buddy allocator over the pool of physical frames reserved at boot.
 * Exhaustion is an error the caller returns to user level, never a panic. */
#ifndef KMEM_H
#define KMEM_H

#include "types.h"

#define KMEM_MAX_ORDER 10           /* largest block: 2^10 pages = 4 MiB */

struct kmem_pool {
    paddr_t base;                   /* first frame of the pool */
    word_t  npages;
    word_t  free_pages;
    uint8_t *order_of;              /* per page: order of the free block starting here, or 0xFF */
    struct kmem_free *free[KMEM_MAX_ORDER + 1];
    void *(*to_virt)(paddr_t);      /* how the allocator reaches its frames */
};

/* Set up a pool over [base, base + npages pages); `meta` provides npages bytes of bookkeeping. */
void kmem_pool_init(struct kmem_pool *p, paddr_t base, word_t npages, uint8_t *meta,
                    void *(*to_virt)(paddr_t));
paddr_t kmem_pool_alloc(struct kmem_pool *p, unsigned order);   /* 0 on exhaustion */
void kmem_pool_free(struct kmem_pool *p, paddr_t pa, unsigned order);

/* The kernel's pool; allocations are zeroed and returned as physmap addresses. */
void  kmem_init(paddr_t base, word_t size);
void *kmem_alloc(unsigned order);
void  kmem_free(void *va, unsigned order);
void *kmem_alloc_page(void);
void  kmem_free_page(void *va);
word_t kmem_free_bytes(void);
word_t kmem_total_bytes(void);
paddr_t kmem_base(void);

/* Test hook: make allocations fail after `n` more successes (n < 0: never fail). */
void kmem_fail_after(long n);

#endif
