/* Slab caches: one page per slab, header at the start, objects behind it.  A slab whose last
 * object is freed goes back to the page allocator at once, so kernel memory taken by one kind
 * of object is available to every other kind again. */
#include "slab.h"
#include "kmem.h"
#include "lib.h"
#include "arch.h"
#include "list.h"

struct slab {
    struct slab_cache *cache;
    struct slab *next, *prev;       /* in cache->partial */
    void *free;                     /* free objects, linked through their first word */
    unsigned inuse;
};

#define SLAB_HDR ALIGN_UP(sizeof(struct slab), 16)

static void partial_remove(struct slab_cache *c, struct slab *s)
{
    LIST_UNLINK(c->partial, s, next, prev);
    s->next = s->prev = NULL;
}

static void partial_push(struct slab_cache *c, struct slab *s)
{
    LIST_PUSH(c->partial, s, next, prev);
}

void *slab_alloc_unzeroed(struct slab_cache *c)
{
    if (!c->per_slab) {
        c->objsize = ALIGN_UP(c->objsize, 16);
        c->per_slab = (PAGE_SIZE - SLAB_HDR) / c->objsize;
    }
    struct slab *s = c->partial;
    if (!s) {
        s = kmem_alloc_page();
        if (!s)
            return NULL;
        s->cache = c;
        char *obj = (char *)s + SLAB_HDR;
        for (unsigned i = 0; i < c->per_slab; i++, obj += c->objsize) {
            *(void **)obj = s->free;
            s->free = obj;
        }
        partial_push(c, s);
    }
    void *obj = s->free;
    s->free = *(void **)obj;
    s->inuse++;
    if (!s->free)
        partial_remove(c, s);
    c->allocated++;
    return obj;
}

void *slab_alloc(struct slab_cache *c)
{
    void *obj = slab_alloc_unzeroed(c);
    if (obj)
        memset(obj, 0, c->objsize);
    return obj;
}

void slab_free(struct slab_cache *c, void *obj)
{
    struct slab *s = (struct slab *)ALIGN_DOWN((word_t)obj, PAGE_SIZE);
    bool was_full = !s->free;
    *(void **)obj = s->free;
    s->free = obj;
    s->inuse--;
    c->allocated--;
    if (s->inuse == 0) {
        if (!was_full)
            partial_remove(c, s);
        kmem_free_page(s);
    } else if (was_full) {
        partial_push(c, s);
    }
}
