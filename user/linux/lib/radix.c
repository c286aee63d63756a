/* The radix tree of radix.h.  A node is a pool page of 512 pointers; height h covers the
 * indices [0, 512^h).  A tree whose only item is index 0 has no node at all (height 0), so
 * a one-page file costs exactly its page. */
#include "lib/radix.h"
#include "mm/page.h"

#define BITS  9
#define SLOTS (1ul << BITS)

static unsigned long capacity(unsigned height)
{
    return height * BITS >= 64 ? ~0ul : 1ul << (height * BITS);
}

void **radix_slot(struct radix *r, unsigned long index, bool create)
{
    while (index >= capacity(r->height) || (r->height == 0 && index)) {
        if (!create)
            return NULL;
        void **node = page_alloc();
        if (!node)
            return NULL;
        node[0] = r->root;          /* what there was becomes the first child */
        r->root = node;
        r->height++;
    }
    if (r->height == 0)
        return &r->root;
    void **slot = &r->root;
    for (unsigned level = r->height; level > 0; level--) {
        if (!*slot) {
            if (!create)
                return NULL;
            if (!(*slot = page_alloc()))
                return NULL;
        }
        slot = &((void **)*slot)[(index >> ((level - 1) * BITS)) & (SLOTS - 1)];
    }
    return slot;
}

void *radix_get(const struct radix *r, unsigned long index)
{
    void **slot = radix_slot((struct radix *)r, index, false);
    return slot ? *slot : NULL;
}

static bool empty(void **node)
{
    for (unsigned long k = 0; k < SLOTS; k++)
        if (node[k])
            return false;
    return true;
}

/* Visit the subtree in *slot (level levels above its items, covering from base). */
static bool each(void **slot, unsigned level, unsigned long base, unsigned long from,
                 bool (*fn)(void **, unsigned long, void *), void *ctx, unsigned long *last)
{
    if (!*slot)
        return true;
    if (level == 0) {
        *last = base;
        return fn(slot, base, ctx);
    }
    void **node = *slot;
    unsigned long span = capacity(level - 1);
    bool go = true;
    for (unsigned long k = 0; k < SLOTS && go; k++) {
        unsigned long lo = base + k * span;
        if (span != ~0ul && lo + span - 1 < from)
            continue;
        go = each(&node[k], level - 1, lo, from, fn, ctx, last);
    }
    if (empty(node)) {
        page_free(node);
        *slot = NULL;
    }
    return go;
}

unsigned long radix_each(struct radix *r, unsigned long from,
                         bool (*fn)(void **slot, unsigned long index, void *ctx), void *ctx)
{
    unsigned long last = ~0ul;
    if (r->height == 0) {
        if (r->root && from == 0) {
            last = 0;
            fn(&r->root, 0, ctx);
        }
        return last;
    }
    each(&r->root, r->height, 0, from, fn, ctx, &last);
    if (!r->root)
        r->height = 0;
    return last;
}

static void destroy(void *p, unsigned level, void (*fn)(void *))
{
    if (!p)
        return;
    if (level == 0) {
        if (fn)
            fn(p);
        return;
    }
    void **node = p;
    for (unsigned long k = 0; k < SLOTS; k++)
        destroy(node[k], level - 1, fn);
    page_free(node);
}

void radix_destroy(struct radix *r, void (*fn)(void *item))
{
    destroy(r->root, r->height, fn);
    r->root = NULL;
    r->height = 0;
}
