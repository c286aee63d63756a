/* I/O port permissions.  Each space that holds ports has its own I/O permission bitmap, seen
 * by the CPU behind the TSS through the space's own TSS window (layout.h), so a space
 * switch switches the bitmap at no cost.  Port mappings form derivation trees like memory
 * mappings: sigma0 holds the root (all ports); map creates children, Unmap revokes
 * recursively.  A node covers a naturally aligned power-of-two port range.
 *
 * Invariants (iospace_check tests them; docs/memory.md section 4):
 *  - a space's nodes are disjoint and sorted by base: a space holds a port through at most one
 *    node, so the bitmap bit of a port is exactly "some node of the space covers it", and a
 *    space never holds more than 65536 nodes however often ports travel back and forth;
 *  - a node's range lies within its parent's, and a node's parent is in another space.  So a
 *    chain of ancestors visits each space at most once: it is never longer than the number of
 *    spaces, and a node's descendants never include another node of its own space.
 * Every operation walks the affected spaces' lists once, in port order, with a cursor that the
 * removal of any node keeps valid (node_unlink), so nothing restarts a scan. */
#include "iospace.h"
#include "paging.h"
#include "space.h"
#include "slab.h"
#include "kmem.h"
#include "lib.h"
#include "console.h"
#include "platform.h"
#include <l4/fpage.h>

#ifdef CONFIG_INVARIANTS
/* The debug kernel checks the lists of the spaces an operation touched (the bitmap too would
 * cost 64 Ki steps a space: the host tests do that). */
static void check(const struct space *s)
{
    const char *bad = iospace_check(s, false);
    if (bad)
        panic("invariant: I/O ports of space %p: %s", s, bad);
}
#else
static inline void check(const struct space *s) { (void)s; }
#endif

struct ionode {
    struct space *space;
    uint32_t base, size;                /* ports [base, base + size) */
    struct ionode *parent, *child, *next, *prev;
    struct ionode *snext, *sprev;       /* the space's nodes, sorted by base */
};

struct iospace {
    pte_t *pdpt, *pd, *pt;              /* the space's TSS window tables */
    uint8_t *bitmap;                    /* 8 KiB: bit clear = port allowed */
    struct ionode *head, *tail;
    struct ionode *cursor;              /* the next node of a walk in progress */
};

static struct slab_cache ionode_cache = SLAB_CACHE_INIT("ionode", struct ionode);
static struct slab_cache iospace_cache = SLAB_CACHE_INIT("iospace", struct iospace);
static word_t live_nodes;

static inline uint32_t end_of(const struct ionode *n)
{
    return n->base + n->size;
}

/* Give s its own TSS window with a deny-all bitmap. */
static struct iospace *io_get(struct space *s)
{
    if (s->io)
        return s->io;
    struct iospace *io = slab_alloc(&iospace_cache);
    if (!io)
        return NULL;
    io->pdpt = kmem_alloc_page();
    io->pd = kmem_alloc_page();
    io->pt = kmem_alloc_page();
    io->bitmap = kmem_alloc(1);
    if (!io->pdpt || !io->pd || !io->pt || !io->bitmap) {
        if (io->pdpt) kmem_free_page(io->pdpt);
        if (io->pd) kmem_free_page(io->pd);
        if (io->pt) kmem_free_page(io->pt);
        if (io->bitmap) kmem_free(io->bitmap, 1);
        slab_free(&iospace_cache, io);
        return NULL;
    }
    io->head = io->tail = io->cursor = NULL;
    memset(io->bitmap, 0xFF, 2 * PAGE_SIZE);
    arch_iowin_build(io->pdpt, io->pd, io->pt, physmap_to_phys(io->bitmap));
    pt_set_iowin(s, io->pdpt);
    s->io = io;
    space_tlb_invalidate(s, IOWIN_BASE, 4 * PAGE_SIZE);
    return io;
}

/* Allow or deny [base, base + size): whole bytes at once. */
static void set_bits(struct space *s, uint32_t base, uint32_t size, bool allow)
{
    uint8_t *bm = s->io->bitmap;
    uint32_t p = base, end = base + size;
    for (; p < end && (p & 7); p++)
        bm[p >> 3] = allow ? bm[p >> 3] & ~(1u << (p & 7)) : bm[p >> 3] | (1u << (p & 7));
    if (end - p >= 8) {
        memset(bm + (p >> 3), allow ? 0 : 0xFF, (end - p) >> 3);
        p += (end - p) & ~7u;
    }
    for (; p < end; p++)
        bm[p >> 3] = allow ? bm[p >> 3] & ~(1u << (p & 7)) : bm[p >> 3] | (1u << (p & 7));
    /* No TLB work: the bitmap's contents change, not its translation. */
}

/* --- the space's sorted list ------------------------------------------------------------- */

/* Put n into s's list before `before` (NULL: at the end) and allow its ports. */
static void space_link(struct space *s, struct ionode *n, struct ionode *before)
{
    struct iospace *io = s->io;
    n->space = s;
    n->snext = before;
    n->sprev = before ? before->sprev : io->tail;
    if (n->sprev)
        n->sprev->snext = n;
    else
        io->head = n;
    if (before)
        before->sprev = n;
    else
        io->tail = n;
    set_bits(s, n->base, n->size, true);
}

/* Take n out of its space's list and deny its ports: no other node of the space covers them. */
static void space_unlink(struct ionode *n)
{
    struct iospace *io = n->space->io;
    if (io->cursor == n)
        io->cursor = n->snext;
    if (n->sprev)
        n->sprev->snext = n->snext;
    else
        io->head = n->snext;
    if (n->snext)
        n->snext->sprev = n->sprev;
    else
        io->tail = n->sprev;
    n->snext = n->sprev = NULL;
    set_bits(n->space, n->base, n->size, false);
}

/* --- the derivation tree ----------------------------------------------------------------- */

static void child_unlink(struct ionode *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else if (c->parent)
        c->parent->child = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->next = c->prev = NULL;
    c->parent = NULL;
}

static void child_link(struct ionode *parent, struct ionode *c)
{
    c->parent = parent;
    c->prev = NULL;
    c->next = NULL;
    if (!parent)
        return;
    c->next = parent->child;
    if (c->next)
        c->next->prev = c;
    parent->child = c;
}

/* Move every child of `from` under `to` (to's range contains from's). */
static void adopt_children(struct ionode *to, struct ionode *from)
{
    while (from->child) {
        struct ionode *c = from->child;
        child_unlink(c);
        child_link(to, c);
    }
}

static struct ionode *node_alloc(uint32_t base, uint32_t size)
{
    struct ionode *n = slab_alloc(&ionode_cache);
    if (!n)
        return NULL;
    memset(n, 0, sizeof *n);
    n->base = base;
    n->size = size;
    live_nodes++;
    return n;
}

static void node_free(struct ionode *n)
{
    slab_free(&ionode_cache, n);
    live_nodes--;
}

/* Remove root and everything derived from it, deepest first, without recursion. */
static void remove_subtree(struct ionode *root)
{
    struct ionode *n = root;
    for (;;) {
        while (n->child)
            n = n->child;
        struct ionode *p = n->parent;
        bool last = n == root;
        child_unlink(n);
        space_unlink(n);
        node_free(n);
        if (last)
            break;
        n = p;
    }
}

/* Is [base, base + size) clear of every range the platform's devices keep? */
static bool ports_free(uint32_t base, uint32_t size)
{
    uint32_t kb, ks;
    for (unsigned i = 0; arch_kernel_ports(i, &kb, &ks); i++)
        if (base < kb + ks && kb < base + size)
            return false;
    return true;
}

/* sigma0 holds every port but the kernel's devices': the largest aligned power-of-two
 * nodes that cover the rest, in port order (a few dozen). */
bool iospace_init_sigma0(struct space *s)
{
    if (!io_get(s))
        return false;
    for (uint32_t p = 0; p < 65536;) {
        uint32_t size = p ? p & -p : 65536;         /* the largest alignment of p */
        while (size > 1 && !ports_free(p, size))
            size >>= 1;
        if (!ports_free(p, size)) {
            p++;
            continue;
        }
        struct ionode *n = node_alloc(p, size);
        if (!n)
            return false;
        space_link(s, n, NULL);
        p += size;
    }
    return true;
}

static void fpage_ports(word_t fp, uint32_t *base, uint32_t *size)
{
    unsigned s = l4_io_fpage_log2(fp);
    if (s > 16)
        s = 16;
    *base = l4_io_fpage_port(fp);
    *size = 1u << s;
    if (*base >= 65536)
        *size = 0;
    else if (*base + *size > 65536)
        *size = 65536 - *base;
}

/* The ancestor of n that dst holds, if any (at most one: see the top of the file). */
static struct ionode *ancestor_in(const struct ionode *n, const struct space *dst)
{
    for (struct ionode *a = n->parent; a; a = a->parent)
        if (a->space == dst)
            return a;
    return NULL;
}

/* Give dst the ports [lo, hi) of src's node n (by map, or by grant).  dst's cursor is at the
 * first of its nodes that ends after lo.  The ports merge with what dst holds, as a memory
 * mapping onto an existing one does (docs/memory.md section 1):
 *  - dst holds them through an ancestor of n: left alone (so no cycle can form);
 *  - map, and dst holds them through a child of n that covers them: nothing to do;
 *  - dst's children of n inside [lo, hi) merge into the new node (their derived nodes follow);
 *  - anything else dst holds there is revoked first, with what derives from it.
 * False: out of kernel memory, nothing changed for this range. */
static bool give(struct ionode *n, struct space *dst, uint32_t lo, uint32_t hi, bool grant)
{
    struct iospace *io = dst->io;
    while (io->cursor && end_of(io->cursor) <= lo)
        io->cursor = io->cursor->snext;
    struct ionode *d = io->cursor;
    if (d && d->base < hi && d->base <= lo && end_of(d) >= hi) {
        if (d == ancestor_in(n, dst))
            return true;
        if (!grant && d->parent == n)
            return true;
    }
    bool whole = grant && n->base == lo && end_of(n) == hi;
    struct ionode *g = whole ? n : node_alloc(lo, hi - lo);
    if (!g)
        return false;
    while ((d = io->cursor) && d->base < hi) {
        if (d->parent == n && d->base >= lo && end_of(d) <= hi) {
            adopt_children(g, d);           /* merge */
            child_unlink(d);
            space_unlink(d);
            node_free(d);
        } else {
            remove_subtree(d);              /* d is no ancestor of n (checked above) */
        }
    }
    if (whole) {
        space_unlink(n);                    /* n moves, with its place in the tree */
    } else if (grant) {
        /* g takes n's place for [lo, hi); n is revoked with whatever else derives from it
         * (a node is revoked whole, docs/memory.md section 4). */
        struct ionode *p = n->parent;
        for (struct ionode *c = n->child, *cn; c; c = cn) {
            cn = c->next;
            if (c->base >= lo && end_of(c) <= hi) {
                child_unlink(c);
                child_link(g, c);
            }
        }
        remove_subtree(n);
        child_link(p, g);
    } else {
        child_link(n, g);
    }
    space_link(dst, g, io->cursor);
    return true;
}

bool iospace_map(struct space *src, struct space *dst, word_t fp, bool grant)
{
    uint32_t base, size;
    fpage_ports(fp, &base, &size);
    if (!src->io || src == dst || size == 0)
        return true;
    if (!io_get(dst))
        return false;
    struct iospace *sio = src->io, *dio = dst->io;
    sio->cursor = sio->head;
    dio->cursor = dio->head;
    bool ok = true;
    struct ionode *n;
    while (ok && (n = sio->cursor) && n->base < base + size) {
        sio->cursor = n->snext;
        uint32_t lo = MAX(base, n->base), hi = MIN(base + size, end_of(n));
        if (lo < hi)
            ok = give(n, dst, lo, hi, grant);
    }
    sio->cursor = dio->cursor = NULL;
    check(src);
    check(dst);
    return ok;
}

void iospace_unmap(struct space *s, word_t fp, bool own)
{
    uint32_t base, size;
    fpage_ports(fp, &base, &size);
    if (!s->io || size == 0)
        return;
    /* What derives from s's nodes lies in other spaces (top of the file), so only `own`
     * removes nodes of s, and then only the one at hand. */
    for (struct ionode *n = s->io->head, *next; n && n->base < base + size; n = next) {
        next = n->snext;
        if (end_of(n) <= base)
            continue;
        if (own) {
            remove_subtree(n);
            continue;
        }
        for (struct ionode *c = n->child, *cn; c; c = cn) {
            cn = c->next;
            if (c->base < base + size && base < end_of(c))
                remove_subtree(c);
        }
    }
    check(s);
}

bool iospace_has(struct space *s, unsigned port, unsigned count)
{
    if (!s->io)
        return false;
    for (unsigned p = port; p < port + count; p++)
        if (p >= 65536 || (s->io->bitmap[p >> 3] & (1u << (p & 7))))
            return false;
    return true;
}

void iospace_destroy(struct space *s)
{
    struct iospace *io = s->io;
    if (!io)
        return;
    while (io->head)
        remove_subtree(io->head);
    pt_set_iowin(s, NULL);
    kmem_free_page(io->pdpt);
    kmem_free_page(io->pd);
    kmem_free_page(io->pt);
    kmem_free(io->bitmap, 1);
    slab_free(&iospace_cache, io);
    s->io = NULL;
}

word_t iospace_node_count(void)
{
    return live_nodes;
}

word_t iospace_space_nodes(const struct space *s)
{
    word_t k = 0;
    if (s->io)
        for (const struct ionode *n = s->io->head; n; n = n->snext)
            k++;
    return k;
}

const char *iospace_check(const struct space *s, bool bitmap)
{
    const struct iospace *io = s->io;
    if (!io)
        return NULL;
    uint32_t covered_to = 0;
    const struct ionode *prev = NULL;
    for (const struct ionode *n = io->head; n; prev = n, n = n->snext) {
        if (n->space != s || n->sprev != prev)
            return "space list links";
        if (n->size == 0 || (n->size & (n->size - 1)) || (n->base & (n->size - 1)) ||
            end_of(n) > 65536)
            return "node range not an aligned power of two";
        if (n->base < covered_to)
            return "nodes of one space overlap or are unsorted";
        for (uint32_t p = covered_to; bitmap && p < end_of(n); p++)
            if (!(io->bitmap[p >> 3] & (1u << (p & 7))) != (p >= n->base))
                return "bitmap differs from the nodes";
        covered_to = end_of(n);
        if (n->parent && (n->parent->space == s || n->base < n->parent->base ||
                          end_of(n) > end_of(n->parent)))
            return "node not inside its parent, or parent in the same space";
        if (n->prev ? n->prev->next != n : (n->parent && n->parent->child != n))
            return "sibling links";
        for (const struct ionode *c = n->child; c; c = c->next)
            if (c->parent != n)
                return "child's parent link";
    }
    if (io->tail != prev)
        return "space list tail";
    for (uint32_t p = covered_to; bitmap && p < 65536; p++)
        if (!(io->bitmap[p >> 3] & (1u << (p & 7))))
            return "bitmap allows a port no node covers";
    return NULL;
}
