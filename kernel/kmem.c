/* Buddy allocator over the kernel pool.  Free blocks are linked through their first bytes;
 * order_of[] marks the head page of each free block so a buddy's state is found in O(1). */
#include "kmem.h"

#ifndef KMEM_HOST_TEST
#include "lib.h"
#include "arch.h"
#include "console.h"
#else
#include <string.h>
#endif
#include "list.h"

#define NOT_FREE 0xFF

struct kmem_free {
    struct kmem_free *next, *prev;
};

static void list_push(struct kmem_pool *p, unsigned order, struct kmem_free *f)
{
    LIST_PUSH(p->free[order], f, next, prev);
}

static void list_remove(struct kmem_pool *p, unsigned order, struct kmem_free *f)
{
    LIST_UNLINK(p->free[order], f, next, prev);
}

static void insert_free(struct kmem_pool *p, word_t idx, unsigned order)
{
    p->order_of[idx] = order;
    list_push(p, order, p->to_virt(p->base + (idx << 12)));
}

void kmem_pool_init(struct kmem_pool *p, paddr_t base, word_t npages, uint8_t *meta,
                    void *(*to_virt)(paddr_t))
{
    p->base = base;
    p->npages = npages;
    p->free_pages = 0;
    p->order_of = meta;
    p->to_virt = to_virt;
    for (unsigned o = 0; o <= KMEM_MAX_ORDER; o++)
        p->free[o] = NULL;
    memset(meta, NOT_FREE, npages);
    /* Carve the range into the largest naturally aligned (relative to base) blocks. */
    for (word_t idx = 0; idx < npages; ) {
        unsigned o = KMEM_MAX_ORDER;
        while (o && ((idx & ((1ul << o) - 1)) || idx + (1ul << o) > npages))
            o--;
        insert_free(p, idx, o);
        p->free_pages += 1ul << o;
        idx += 1ul << o;
    }
}

paddr_t kmem_pool_alloc(struct kmem_pool *p, unsigned order)
{
    unsigned o = order;
    while (o <= KMEM_MAX_ORDER && !p->free[o])
        o++;
    if (o > KMEM_MAX_ORDER)
        return 0;
    struct kmem_free *f = p->free[o];
    list_remove(p, o, f);
    paddr_t pa = p->base;
    word_t idx = ((word_t)f - (word_t)p->to_virt(p->base)) >> 12;
    p->order_of[idx] = NOT_FREE;
    while (o > order) {                 /* split, keeping the lower half */
        o--;
        insert_free(p, idx + (1ul << o), o);
    }
    p->free_pages -= 1ul << order;
    return pa + (idx << 12);
}

void kmem_pool_free(struct kmem_pool *p, paddr_t pa, unsigned order)
{
    word_t idx = (pa - p->base) >> 12;
    p->free_pages += 1ul << order;
    while (order < KMEM_MAX_ORDER) {
        word_t buddy = idx ^ (1ul << order);
        if (buddy + (1ul << order) > p->npages || p->order_of[buddy] != order)
            break;
        list_remove(p, order, p->to_virt(p->base + (buddy << 12)));
        p->order_of[buddy] = NOT_FREE;
        idx &= ~(1ul << order);
        order++;
    }
    insert_free(p, idx, order);
}

#ifndef KMEM_HOST_TEST
static struct kmem_pool pool;
static long fail_countdown = -1;

static void *pool_to_virt(paddr_t pa)
{
    return phys_to_virt(pa);
}

/* The bookkeeping bytes live at the start of the pool itself. */
void kmem_init(paddr_t base, word_t size)
{
    word_t npages = size >> 12;
    word_t meta_pages = ALIGN_UP(npages, 4096) >> 12;
    kmem_pool_init(&pool, base + (meta_pages << 12), npages - meta_pages,
                   phys_to_virt(base), pool_to_virt);
}

void kmem_fail_after(long n)
{
    fail_countdown = n;
}

void *kmem_alloc(unsigned order)
{
    if (fail_countdown == 0)
        return NULL;
    if (fail_countdown > 0)
        fail_countdown--;
    paddr_t pa = kmem_pool_alloc(&pool, order);
    if (!pa)
        return NULL;
    void *va = phys_to_virt(pa);
    memset(va, 0, 4096ul << order);
    return va;
}

void kmem_free(void *va, unsigned order)
{
    kmem_pool_free(&pool, physmap_to_phys(va), order);
}

void *kmem_alloc_page(void)      { return kmem_alloc(0); }
void  kmem_free_page(void *va)   { kmem_free(va, 0); }
word_t kmem_free_bytes(void)     { return pool.free_pages << 12; }
word_t kmem_total_bytes(void)    { return pool.npages << 12; }
paddr_t kmem_base(void)          { return pool.base; }
#endif
