/* A radix tree from an index to a pointer (radix.c): nodes of 512 slots, each an lx page,
 * as many levels as the largest index needs.  The pages of a tmpfs file and the fd table
 * are kept in one: a sparse index costs what it holds, and nothing has a fixed size. */
#ifndef LX_LIB_RADIX_H
#define LX_LIB_RADIX_H

#include <stdbool.h>

struct radix {
    void *root;                     /* height 0: the item of index 0 itself (or NULL) */
    unsigned height;                /* levels of nodes above the items */
};

/* The slot of index (NULL if it has none: absent, or no memory for a node with create). */
void **radix_slot(struct radix *r, unsigned long index, bool create);
void *radix_get(const struct radix *r, unsigned long index);
/* fn for each item with index >= from, in order, until it returns false; fn may clear the
 * slot (*slot = NULL): nodes left empty are freed.  The index visited last, or ~0ul. */
unsigned long radix_each(struct radix *r, unsigned long from,
                         bool (*fn)(void **slot, unsigned long index, void *ctx), void *ctx);
/* Every node freed, fn (if not NULL) called for each item first. */
void radix_destroy(struct radix *r, void (*fn)(void *item));

#endif
