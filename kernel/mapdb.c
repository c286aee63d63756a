/* The mapping database (004 appendix A).
 *
 * Each user mapping with a node is a leaf page-table entry; the node sits in the shadow slot of
 * that entry (pagetable.h), so the node of a virtual address is found by the page-table walk.
 * Invariants:
 *  - a node's frame range lies within its parent's frame range, and its rights are a subset of
 *    the parent's;
 *  - a node's level is at most its parent's level;
 *  - sigma0's identity mappings are the roots (parent NULL); mappings without a node (KIP, UTCBs)
 *    are kernel-managed and never enter the tree.
 * Tree walks are iterative so that long derivation chains cannot overflow the kernel stack. */
#include "mapdb.h"
#include "space.h"
#include "slab.h"
#include "bootmem.h"
#include "lib.h"
#include "console.h"
#include "iospace.h"
#include <l4/types.h>
#include <l4/fpage.h>

#define R PTE_RIGHTS_R
#define W PTE_RIGHTS_W
#define X PTE_RIGHTS_X

static struct slab_cache node_cache = SLAB_CACHE_INIT("mapnode", struct mapnode);

word_t mapdb_node_count(void)
{
    return node_cache.allocated;
}

/* The shadow slot of a page-table entry: same index, one page further (pagetable.c). */
static inline struct mapnode **slot_of(pte_t *pte)
{
    return (struct mapnode **)((char *)pte + PAGE_SIZE);
}

static void link_child(struct mapnode *parent, struct mapnode *n)
{
    n->parent = parent;
    n->prev = NULL;
    if (!parent) {
        n->next = NULL;
        return;
    }
    n->next = parent->child;
    if (n->next)
        n->next->prev = n;
    parent->child = n;
}

static void unlink_node(struct mapnode *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else if (n->parent)
        n->parent->child = n->next;
    if (n->next)
        n->next->prev = n->prev;
    n->next = n->prev = NULL;
    n->parent = NULL;
}

static bool is_ancestor_or_self(const struct mapnode *a, const struct mapnode *n)
{
    for (; n; n = n->parent)
        if (n == a)
            return true;
    return false;
}

/* Pre-order successor of n within the subtree of root (NULL at the end). */
static struct mapnode *next_preorder(struct mapnode *n, struct mapnode *root)
{
    if (n->child)
        return n->child;
    return NULL;
}

static struct mapnode *next_skip_subtree(struct mapnode *n, struct mapnode *root)
{
    for (; n != root; n = n->parent)
        if (n->next)
            return n->next;
    return NULL;
}

static unsigned take_status(struct mapnode *n)
{
    unsigned st = pte_status(*n->pte);
    if (st) {
        *n->pte = pte_clear_status(*n->pte);
        space_tlb_invalidate(n->space, n->va, level_size(n->level));
    }
    return st;
}

/* Remove root and everything derived from it; returns their accumulated status. */
static unsigned remove_subtree(struct mapnode *root)
{
    unsigned status = 0;
    struct mapnode *n = root;
    for (;;) {
        while (n->child)
            n = n->child;
        struct mapnode *p = n->parent;
        status |= pte_status(*n->pte);
        unlink_node(n);
        *slot_of(n->pte) = NULL;
        *n->pte = 0;
        space_tlb_invalidate(n->space, n->va, level_size(n->level));
        bool last = n == root;
        slab_free(&node_cache, n);
        if (last)
            break;
        n = p;
    }
    return status;
}

/* Revoke `rights` from everything derived from root, and from root itself if `self`.
 * x86 cannot express a present page without read access, so losing r removes a mapping. */
static unsigned revoke_tree(struct mapnode *root, unsigned rights, bool self)
{
    if (self && (rights & R))
        return remove_subtree(root);
    unsigned status = take_status(root);
    if (self && rights) {
        *root->pte = pte_with_rights(*root->pte, pte_rights(*root->pte) & ~rights);
        space_tlb_invalidate(root->space, root->va, level_size(root->level));
    }
    struct mapnode *n = root->child;
    while (n) {
        if (rights & R) {
            struct mapnode *next = next_skip_subtree(n, root);
            status |= remove_subtree(n);
            n = next;
            continue;
        }
        status |= take_status(n);
        if (rights) {
            *n->pte = pte_with_rights(*n->pte, pte_rights(*n->pte) & ~rights);
            space_tlb_invalidate(n->space, n->va, level_size(n->level));
        }
        struct mapnode *next = next_preorder(n, root);
        n = next ? next : next_skip_subtree(n, root);
    }
    return status;
}

/* Split the large mapping n (no derived mapping at its own level) into PT_ENTRIES mappings of the
 * next level: same frames, rights and derivations.  False if memory ran out (nothing
 * changed). */
static bool split_one(struct mapnode *n)
{
    unsigned lvl = n->level - 1;
    word_t piece = level_size(lvl);
    struct mapnode *fresh = NULL;
    pte_t *table = NULL;
    struct pt_ref ref = { n->pte, slot_of(n->pte), n->level, n->va };
    paddr_t base = pte_frame(*n->pte, n->level);
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        struct mapnode *p = slab_alloc(&node_cache);
        if (!p)
            break;
        p->next = fresh;
        fresh = p;
        if (i == PT_ENTRIES - 1)
            table = pt_split_leaf(&ref);
    }
    if (!table) {
        while (fresh) {
            struct mapnode *next = fresh->next;
            slab_free(&node_cache, fresh);
            fresh = next;
        }
        return false;
    }
    *ref.node = NULL;
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        struct mapnode *p = fresh;
        fresh = fresh->next;
        p->space = n->space;
        p->va = n->va + i * piece;
        p->pte = &table[i];
        p->level = lvl;
        p->child = NULL;
        link_child(n->parent, p);
        *slot_of(&table[i]) = p;        /* piece i is found through the new table's shadow */
    }
    while (n->child) {
        struct mapnode *c = n->child;
        word_t idx = (pte_frame(*c->pte, c->level) - base) / piece;
        unlink_node(c);
        link_child(*slot_of(&table[idx]), c);
    }
    struct space *sp = n->space;
    unlink_node(n);
    slab_free(&node_cache, n);
    space_tlb_invalidate(sp, ref.va, level_size(ref.level));
    return true;
}

/* The first node from c on (along the sibling list) at level lvl. */
static struct mapnode *same_level_from(struct mapnode *c, unsigned lvl)
{
    while (c && c->level != lvl)
        c = c->next;
    return c;
}

/* Split the large mapping top into PT_ENTRIES mappings of the next level.  Mappings derived from
 * it at its own level (they can form long chains) are split first, deepest first, by an
 * iterative walk: a split node's pieces join its parent's children at the lower level, so
 * the walk never meets them again.  False if memory ran out: the tree is consistent, top is
 * not split (some of its same-level descendants may be). */
static bool split_node(struct mapnode *top)
{
    unsigned lvl = top->level;
    struct mapnode *c = top;
    for (;;) {
        struct mapnode *d = same_level_from(c->child, lvl);
        if (d) {
            c = d;
            continue;
        }
        if (c == top)
            return split_one(top);
        struct mapnode *parent = c->parent;
        struct mapnode *next = same_level_from(c->next, lvl);
        if (!split_one(c))
            return false;
        c = next ? next : parent;
    }
}

/* Make [va, va + size) of s consist of whole leaves where a larger leaf covers its start.
 * False if memory ran out. */
static bool split_covering(struct space *s, word_t va, word_t size)
{
    struct pt_ref ref;
    while (pt_find_leaf(s, va, &ref) && level_size(ref.level) > size && *ref.node) {
        if (!split_node(*ref.node))
            return false;
    }
    return true;
}

struct unmap_ctx {
    struct space *s;
    unsigned rights;
    bool own;
    unsigned status;
};

static void unmap_leaf(struct pt_ref *ref, void *vctx)
{
    struct unmap_ctx *c = vctx;
    struct mapnode *n = *ref->node;
    if (!n)
        return;         /* kernel-managed: KIP, UTCB */
    c->status |= revoke_tree(n, c->rights, c->own);
}

unsigned mapdb_unmap(struct space *s, word_t va, word_t size, unsigned rights, bool own)
{
    struct unmap_ctx c = { s, rights & 7, own, 0 };
    /* Out of kernel memory for the split, the whole large leaf is affected: more is revoked
     * than asked for, never less (Unmap has no error to report). */
    if (size < level_size(PT_MAX_LEAF_LEVEL + 1))
        (void)split_covering(s, va, size);
    pt_for_each_leaf(s, va, va + size, unmap_leaf, &c);
    return c.status;
}

/* --- map and grant --------------------------------------------------------------------- */

static bool level_supported(unsigned lvl)
{
    return lvl == 0 || lvl == 1 || (lvl == 2 && arch_has_1g_pages());
}

struct map_ctx {
    struct space *src, *dst;
    word_t sva, dva, size;
    unsigned rights;
    bool grant;
    enum map_result result;
    bool clear;         /* both ranges miss the KIP and UTCB areas: no check per page */
    struct pt_ref last; /* the last page entry of dst a map used: its table's next pages
                           need no walk (only a grant or the space's end frees tables) */
};

static bool dst_page_allowed(struct space *dst, word_t va, word_t size)
{
    return l4_is_user_range(va, size) && !space_in_kip_area(dst, va, size) &&
           !space_in_utcb_area(dst, va, size);
}

static bool dst_range_touches_user(word_t va)
{
    return va < L4_USER_AREA_END;       /* the user area starts at 0 */
}

static enum map_result map_one(struct map_ctx *c, struct mapnode *n, paddr_t pa, word_t dva,
                               unsigned lvl, unsigned rights);

/* Map the frames of n at pa in PT_ENTRIES pieces of the next level (n stays one node). */
static enum map_result map_pieces(struct map_ctx *c, struct mapnode *n, paddr_t pa, word_t dva,
                                  unsigned lvl, unsigned rights)
{
    word_t piece = level_size(lvl - 1);
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        enum map_result r = map_one(c, n, pa + i * piece, dva + i * piece, lvl - 1, rights);
        if (r != MAP_OK)
            return r;
    }
    return MAP_OK;
}

static enum map_result grant_pieces(struct map_ctx *c, struct mapnode *n, word_t dva,
                                    unsigned rights);

/* Grant node n to dva: as one leaf if dva suits its size, else in pieces. */
static enum map_result grant_node(struct map_ctx *c, struct mapnode *n, word_t dva,
                                  unsigned rights)
{
    if ((dva & (level_size(n->level) - 1)) || !level_supported(n->level))
        return grant_pieces(c, n, dva, rights);
    return map_one(c, n, pte_frame(*n->pte, n->level), dva, n->level, rights);
}

/* Grant n, which cannot move as one leaf to dva, as the PT_ENTRIES pieces it is split into. */
static enum map_result grant_pieces(struct map_ctx *c, struct mapnode *n, word_t dva,
                                    unsigned rights)
{
    struct space *src = n->space;
    word_t sva = n->va, piece = level_size(n->level - 1);
    if (!split_node(n))
        return MAP_NOMEM;
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        struct pt_ref ref;
        if (!pt_find_leaf(src, sva + i * piece, &ref) || !*ref.node)
            continue;
        enum map_result r = grant_node(c, *ref.node, dva + i * piece, rights);
        if (r != MAP_OK)
            return r;
    }
    return MAP_OK;
}

/* Grant: is any mapping in [va, va + size) of s n itself or one n derives from? */
struct ancestor_ctx { struct mapnode *n; bool found; };

static void find_ancestor(struct pt_ref *ref, void *vctx)
{
    struct ancestor_ctx *a = vctx;
    if (*ref->node && is_ancestor_or_self(*ref->node, a->n))
        a->found = true;
}

static void remove_leaf(struct pt_ref *ref, void *vctx)
{
    (void)vctx;
    if (*ref->node)
        remove_subtree(*ref->node);
}

/* Move node n (its frames, with `rights`) to the empty entry ref of the destination: the
 * sender loses the mapping, derived mappings stay attached.  Rights the grant drops are
 * revoked from them; the access status of all of them stays with n. */
static void move_node(struct map_ctx *c, struct mapnode *n, struct pt_ref *ref, word_t dva,
                      unsigned rights)
{
    unsigned old = pte_rights(*n->pte);
    unsigned status = pte_status(*n->pte);
    *ref->pte = pte_clear_status(pte_with_rights(*n->pte, rights));
    *ref->node = n;
    *slot_of(n->pte) = NULL;
    *n->pte = 0;
    space_tlb_invalidate(n->space, n->va, level_size(n->level));
    n->space = c->dst;
    n->va = dva;
    n->pte = ref->pte;
    if (old & ~rights) {
        unsigned st = revoke_tree(n, old & ~rights, false);
        status |= st;
    }
    *n->pte = pte_add_status(*n->pte, status);
}

/* Install one mapping of `lvl` at dva for the frames at pa of source node n (for a grant: n
 * itself, pa its frames, lvl its level). */
static enum map_result map_one(struct map_ctx *c, struct mapnode *n, paddr_t pa, word_t dva,
                               unsigned lvl, unsigned rights)
{
    word_t size = level_size(lvl);
    if (!c->clear && !dst_page_allowed(c->dst, dva, size)) {
        /* Part of it may be mappable (around the KIP or UTCB area): in smaller pieces. */
        if (lvl == 0 || !dst_range_touches_user(dva))
            return MAP_OK;
        return c->grant ? grant_pieces(c, n, dva, rights) : map_pieces(c, n, pa, dva, lvl, rights);
    }
    struct pt_ref ref;
    bool near = lvl == 0 && !c->grant && pt_walk_near(&c->last, dva, &ref);
    while (!near) {
        enum pt_status st = pt_walk(c->dst, dva, lvl, true, &ref);
        if (st == PT_NOMEM)
            return MAP_NOMEM;
        if (st == PT_LEAF_ABOVE) {
            /* A larger mapping covers the target: a different size structure, remove it. */
            struct mapnode *m = *ref.node;
            if (!m || is_ancestor_or_self(m, n))
                return MAP_OK;
            remove_subtree(m);
            continue;
        }
        if (lvl == 0)
            c->last = ref;
        break;
    }
    pte_t e = *ref.pte;
    if (pte_is_table(e, lvl)) {
        /* Smaller mappings below the target. */
        if (!c->grant)
            return map_pieces(c, n, pa, dva, lvl, rights);
        /* A grant moves n as one leaf: the mappings there go first (flush, then link), and
         * with them the tables that held them. */
        struct ancestor_ctx a = { n, false };
        pt_for_each_leaf(c->dst, dva, dva + size, find_ancestor, &a);
        if (a.found)
            return MAP_OK;
        pt_for_each_leaf(c->dst, dva, dva + size, remove_leaf, NULL);
        if (!pt_drop_tables(&ref))
            return MAP_OK;      /* cannot happen: dst_page_allowed excludes kernel mappings */
        space_tlb_invalidate(c->dst, dva, size);
        e = 0;
    }
    if (pte_present(e)) {
        struct mapnode *m = *ref.node;
        if (!m || is_ancestor_or_self(m, n))
            return MAP_OK;
        if (!c->grant && pte_frame(e, lvl) == pa && m->level == lvl &&
            (m->parent == n || !(rights & ~pte_rights(e)))) {
            /* The same page again: extend the rights (union).  More rights from another
             * mapping than the one it derives from would exceed its parent's: that case
             * replaces the mapping below. */
            *ref.pte = pte_with_rights(e, pte_rights(e) | rights);
            space_tlb_invalidate(c->dst, dva, size);
            return MAP_OK;
        }
        remove_subtree(m);
    }
    if (c->grant) {
        move_node(c, n, &ref, dva, rights);
        return MAP_OK;
    }
    struct mapnode *m = slab_alloc_unzeroed(&node_cache);      /* every field set here */
    if (!m)
        return MAP_NOMEM;
    m->space = c->dst;
    m->va = dva;
    m->pte = ref.pte;
    m->level = lvl;
    m->child = NULL;                    /* parent and siblings: link_child */
    *ref.pte = pte_make_leaf(pa, rights, lvl, pte_cache_attr(*n->pte, n->level));
    *ref.node = m;
    link_child(n, m);
    /* No TLB invalidation: the entry was not present (or remove_subtree cleared it and
     * invalidated), and no TLB caches a not-present entry (Intel SDM vol. 3 4.10.4.3). */
    return MAP_OK;
}

/* One leaf of the source range.  A grant may split the leaf (into a new table that the
 * walk calling us does not descend into: the pieces are handled here). */
static void map_leaf(struct pt_ref *ref, void *vctx)
{
    struct map_ctx *c = vctx;
    struct mapnode *n = *ref->node;
    if (!n || c->result != MAP_OK)
        return;
    word_t lsize = level_size(ref->level);
    word_t a = MAX(ref->va, c->sva), b = MIN(ref->va + lsize, c->sva + c->size);
    if (!c->clear && (space_in_kip_area(c->src, a, b - a) || space_in_utcb_area(c->src, a, b - a)))
        return;
    unsigned rights = c->rights & pte_rights(*ref->pte);
    if (!(rights & R))
        return;
    if (c->grant) {
        /* Grant moves whole leaves: split_covering made the leaves fit the range. */
        if (a == ref->va && b == ref->va + lsize)
            c->result = grant_node(c, n, c->dva + (a - c->sva), rights);
        return;
    }
    paddr_t frame = pte_frame(*ref->pte, ref->level);
    for (word_t pos = a; pos < b; ) {
        word_t dva = c->dva + (pos - c->sva);
        unsigned lvl = ref->level;
        while (lvl > 0 && (level_size(lvl) > b - pos || (dva & (level_size(lvl) - 1)) ||
                           (pos & (level_size(lvl) - 1)) || !level_supported(lvl)))
            lvl--;
        enum map_result r = map_one(c, n, frame + (pos - ref->va), dva, lvl, rights);
        if (r != MAP_OK) {
            c->result = r;
            return;
        }
        pos += level_size(lvl);
    }
}

/* sigma0 owns all memory: before it maps a range, its identity mappings (the roots of the
 * mapping trees) are created for every frame of the range the kernel does not reserve. */
static bool sigma0_ensure(struct space *s, word_t va, word_t size);

enum map_result mapdb_map(struct space *src, word_t sva, struct space *dst, word_t dva,
                          word_t size, unsigned rights, bool grant)
{
    struct map_ctx c = { src, dst, sva, dva, size, rights & 7, grant, MAP_OK, false, { 0 } };
    /* Checked once for the whole item (a 64 KiB map item: 16 pages), not per page; every
     * piece map_leaf maps lies inside both ranges. */
    c.clear = size < L4_USER_AREA_END && dst_page_allowed(dst, dva, size) &&
              !space_in_kip_area(src, sva, size) && !space_in_utcb_area(src, sva, size);
    if (src == dst && sva < dva + size && dva < sva + size)
        return MAP_OK;          /* overlapping map onto itself: nothing sensible to do */
    if (src->sigma0 && !sigma0_ensure(src, sva, size))
        return MAP_NOMEM;
    if (grant && size < level_size(PT_MAX_LEAF_LEVEL + 1) && !split_covering(src, sva, size))
        return MAP_NOMEM;
    pt_for_each_leaf(src, sva, sva + size, map_leaf, &c);
    return c.result;
}

/* --- sigma0 ------------------------------------------------------------------------------ */

static bool sigma0_root(struct space *s, word_t pa, unsigned lvl)
{
    struct pt_ref ref;
    enum pt_status st = pt_walk(s, pa, lvl, true, &ref);
    if (st == PT_NOMEM)
        return false;
    if (st == PT_LEAF_ABOVE || pte_present(*ref.pte))
        return true;            /* already mapped (or a table of smaller roots below) */
    struct mapnode *m = slab_alloc(&node_cache);
    if (!m)
        return false;
    m->space = s;
    m->va = pa;
    m->pte = ref.pte;
    m->level = lvl;
    *ref.pte = pte_make_leaf(pa, R | W | X, lvl, 0);
    *ref.node = m;
    return true;
}

/* Create the identity root for the page at pa: 2 MiB if no reserved frame lies inside and no
 * smaller root exists there yet, else 4 KiB. */
static bool sigma0_map_page(struct space *s, word_t pa)
{
    if (!arch_phys_addressable(pa) || phys_kernel_reserved(pa, PAGE_SIZE))
        return true;            /* nothing to map; the fault or the map item stays empty */
    word_t big = ALIGN_DOWN(pa, SUPERPAGE_SIZE);
    struct pt_ref ref;
    enum pt_status st = pt_walk(s, big, 1, false, &ref);
    bool pd_free = st == PT_ABSENT || (st == PT_OK && !pte_present(*ref.pte));
    if (pd_free && !phys_kernel_reserved(big, SUPERPAGE_SIZE) &&
        arch_phys_addressable(big + SUPERPAGE_SIZE - 1))
        return sigma0_root(s, big, 1);
    return sigma0_root(s, pa & ~(PAGE_SIZE - 1), 0);
}

static bool sigma0_ensure(struct space *s, word_t va, word_t size)
{
    for (word_t pa = va; pa < va + size && pa >= va; ) {
        if (!arch_phys_addressable(pa))
            break;              /* nor is anything above: no frames to map */
        struct pt_ref ref;
        if (pt_find_leaf(s, pa, &ref)) {
            pa = ref.va + level_size(ref.level);
            continue;
        }
        if (!sigma0_map_page(s, pa))
            return false;
        if (pt_find_leaf(s, pa, &ref))
            pa = ref.va + level_size(ref.level);
        else
            pa += PAGE_SIZE;
    }
    return true;
}

bool mapdb_sigma0_fault(struct space *s, word_t va, bool write)
{
    struct pt_ref ref;
    if (pt_find_leaf(s, va, &ref))
        return true;            /* present already (e.g. a spurious fault) */
    return sigma0_map_page(s, va) && pt_find_leaf(s, va, &ref);
}

/* --- Unmap (contract §4.4.8) ---------------------------------------------------------- */

void mapdb_unmap_fpages(struct space *s, word_t *fpages, unsigned n, bool flush)
{
    for (unsigned i = 0; i < n; i++) {
        word_t fp = fpages[i];
        if (l4_is_io_fpage(fp)) {
            if (l4_fpage_rights(fp))
                iospace_unmap(s, fp, flush);
            continue;
        }
        unsigned order = l4_fpage_order(fp);
        if (l4_is_nil_fpage(fp) || order < 12)
            continue;
        word_t base = l4_fpage_base(fp);
        word_t size = order >= 47 ? L4_USER_AREA_END : 1ul << order;
        if (base >= L4_USER_AREA_END)
            continue;
        size = MIN(size, L4_USER_AREA_END - base);
        unsigned status = mapdb_unmap(s, base, size, l4_fpage_rights(fp), flush);
        fpages[i] = l4_fpage_set_rights(fp, status);
    }
}
