/* Caches of fixed-size kernel objects (spaces, mapping nodes, ...) on top of kmem pages. */
#ifndef SLAB_H
#define SLAB_H

#include "types.h"

struct slab;

struct slab_cache {
    const char *name;
    size_t objsize;
    unsigned per_slab;
    struct slab *partial;           /* slabs with at least one free object */
    word_t allocated;               /* objects in use, for statistics and leak tests */
};

#define SLAB_CACHE_INIT(n, type) { .name = (n), .objsize = sizeof(type) }

void *slab_alloc(struct slab_cache *c);     /* zeroed object or NULL */
void *slab_alloc_unzeroed(struct slab_cache *c);   /* for a caller that sets every field */
void  slab_free(struct slab_cache *c, void *obj);

#endif
