/* I/O port permissions.  Each space that holds ports has its own I/O permission bitmap, seen
 * by the CPU behind the TSS through the space's own PML4 entry 509 (layout.h), so a space
 * switch switches the bitmap at no cost.  Port mappings form derivation trees like memory
 * mappings: sigma0 holds the root (all ports); map creates children, Unmap revokes
 * recursively.  A node covers a naturally aligned power-of-two port range.  Revoking part of a
 * node's range revokes the whole node (ports are mapped back on the next I/O fault). */
#include "iospace.h"
#include "space.h"
#include "slab.h"
#include "kmem.h"
#include "lib.h"
#include "console.h"
#include <l4/fpage.h>

struct ionode {
    struct space *space;
    uint32_t base, size;                /* ports [base, base + size) */
    struct ionode *parent, *child, *next, *prev;
    struct ionode *snext;               /* list of the space's nodes */
};

struct iospace {
    pte_t *pdpt, *pd, *pt;              /* the space's TSS window tables */
    uint8_t *bitmap;                    /* 8 KiB: bit clear = port allowed */
    struct ionode *nodes;
};

static struct slab_cache ionode_cache = SLAB_CACHE_INIT("ionode", struct ionode);
static struct slab_cache iospace_cache = SLAB_CACHE_INIT("iospace", struct iospace);


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
    memset(io->bitmap, 0xFF, 2 * PAGE_SIZE);
    arch_iowin_build(io->pdpt, io->pd, io->pt, physmap_to_phys(io->bitmap));
    s->pml4[PML4_IOWIN] = physmap_to_phys(io->pdpt) | PTE_P | PTE_W;
    s->io = io;
    space_tlb_invalidate(s, IOWIN_BASE, 4 * PAGE_SIZE);
    return io;
}

static void set_bits(struct iospace *io, uint32_t base, uint32_t size, bool allow)
{
    for (uint32_t p = base; p < base + size; p++) {
        if (allow)
            io->bitmap[p >> 3] &= ~(1u << (p & 7));
        else
            io->bitmap[p >> 3] |= 1u << (p & 7);
    }
}

/* After nodes were removed: re-derive the bitmap of [base, base + size) from what is left. */
static void recompute(struct space *s, uint32_t base, uint32_t size)
{
    struct iospace *io = s->io;
    if (!io)
        return;
    set_bits(io, base, size, false);
    for (struct ionode *n = io->nodes; n; n = n->snext) {
        uint32_t lo = MAX(base, n->base), hi = MIN(base + size, n->base + n->size);
        if (lo < hi)
            set_bits(io, lo, hi - lo, true);
    }
    space_tlb_invalidate(s, IOWIN_BASE + PAGE_SIZE, 2 * PAGE_SIZE);
}

static struct ionode *node_new(struct space *s, uint32_t base, uint32_t size, struct ionode *parent)
{
    struct iospace *io = io_get(s);
    if (!io)
        return NULL;
    struct ionode *n = slab_alloc(&ionode_cache);
    if (!n)
        return NULL;
    n->space = s;
    n->base = base;
    n->size = size;
    n->parent = parent;
    n->child = n->next = n->prev = NULL;
    if (parent) {
        n->next = parent->child;
        if (n->next)
            n->next->prev = n;
        parent->child = n;
    }
    n->snext = io->nodes;
    io->nodes = n;
    set_bits(io, base, size, true);
    return n;
}

static void node_unlink(struct ionode *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else if (n->parent)
        n->parent->child = n->next;
    if (n->next)
        n->next->prev = n->prev;
    struct iospace *io = n->space->io;
    for (struct ionode **pp = &io->nodes; *pp; pp = &(*pp)->snext)
        if (*pp == n) {
            *pp = n->snext;
            break;
        }
}

/* Remove n and everything derived from it (iteratively), fixing each space's bitmap. */
static void remove_subtree(struct ionode *root)
{
    struct ionode *n = root;
    for (;;) {
        while (n->child)
            n = n->child;
        struct ionode *p = n->parent;
        struct space *s = n->space;
        uint32_t base = n->base, size = n->size;
        node_unlink(n);
        slab_free(&ionode_cache, n);
        recompute(s, base, size);
        if (n == root)
            break;
        n = p;
    }
}

bool iospace_init_sigma0(struct space *s)
{
    return node_new(s, 0, 65536, NULL) != NULL;
}

static void fpage_ports(word_t fp, uint32_t *base, uint32_t *size)
{
    unsigned s = l4_io_fpage_log2(fp);
    if (s > 16)
        s = 16;
    *base = l4_io_fpage_port(fp);
    *size = 1u << s;
    if (*base + *size > 65536)
        *size = 65536 - *base;
}

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
    c->next = parent->child;
    if (c->next)
        c->next->prev = c;
    parent->child = c;
}

/* Grant [lo, hi) of n to dst: dst's new node takes n's place in the tree, the mappings
 * derived from n inside that range follow it, and n goes with whatever else was derived
 * from it (a node is revoked whole, see the top of the file). */
static bool grant_node(struct ionode *n, struct space *dst, uint32_t lo, uint32_t hi)
{
    struct ionode *g = node_new(dst, lo, hi - lo, n->parent);
    if (!g)
        return false;
    for (struct ionode *c = n->child, *cn; c; c = cn) {
        cn = c->next;
        if (c->base >= lo && c->base + c->size <= hi) {
            child_unlink(c);
            child_link(g, c);
        }
    }
    remove_subtree(n);
    return true;
}

bool iospace_map(struct space *src, struct space *dst, word_t fp, bool grant)
{
    uint32_t base, size;
    fpage_ports(fp, &base, &size);
    if (!src->io || src == dst)
        return true;
    if (grant) {
        for (struct ionode *n = src->io->nodes; n; ) {
            uint32_t lo = MAX(base, n->base), hi = MIN(base + size, n->base + n->size);
            if (lo >= hi) {
                n = n->snext;
                continue;
            }
            if (!grant_node(n, dst, lo, hi))
                return false;
            n = src->io ? src->io->nodes : NULL;    /* the list changed: start over */
        }
        return true;
    }
    for (struct ionode *n = src->io->nodes; n; n = n->snext) {
        uint32_t lo = MAX(base, n->base), hi = MIN(base + size, n->base + n->size);
        if (lo >= hi)
            continue;
        /* Already held by dst through a node of the same origin and range? */
        bool have = false;
        for (struct ionode *c = n->child; c; c = c->next)
            if (c->space == dst && c->base == lo && c->size == hi - lo)
                have = true;
        if (!have && !node_new(dst, lo, hi - lo, n))
            return false;
    }
    return true;
}

void iospace_unmap(struct space *s, word_t fp, bool own)
{
    uint32_t base, size;
    fpage_ports(fp, &base, &size);
    if (!s->io)
        return;
    for (struct ionode *n = s->io->nodes, *next; n; n = next) {
        next = n->snext;
        if (n->base >= base + size || base >= n->base + n->size)
            continue;
        if (own) {
            remove_subtree(n);
            next = s->io ? s->io->nodes : NULL;     /* the list changed: start over */
        } else {
            for (struct ionode *c = n->child, *cn; c; c = cn) {
                cn = c->next;
                if (c->base < base + size && base < c->base + c->size)
                    remove_subtree(c);
            }
        }
    }
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
    while (io->nodes)
        remove_subtree(io->nodes);
    s->pml4[PML4_IOWIN] = iowin_shared_pdpt_phys | PTE_P | PTE_W;
    kmem_free_page(io->pdpt);
    kmem_free_page(io->pd);
    kmem_free_page(io->pt);
    kmem_free(io->bitmap, 1);
    slab_free(&iospace_cache, io);
    s->io = NULL;
}
