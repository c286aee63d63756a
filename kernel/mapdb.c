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
#include <l4/types.h>

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

/* Split the large mapping n into 512 mappings of the next level (same frames, rights and
 * derivations).  Mappings derived from n at n's own level are split first.  False if memory
 * ran out; the tree is consistent either way. */
static bool split_node(struct mapnode *n)
{
    for (struct mapnode *c = n->child; c; c = c->next)
        if (c->level == n->level && !split_node(c))
            return false;

    unsigned lvl = n->level - 1;
    word_t piece = level_size(lvl);
    struct mapnode *fresh = NULL;
    for (unsigned i = 0; i < 512; i++) {
        struct mapnode *p = slab_alloc(&node_cache);
        if (!p) {
            while (fresh) {
                struct mapnode *next = fresh->next;
                slab_free(&node_cache, fresh);
                fresh = next;
            }
            return false;
        }
        p->next = fresh;
        fresh = p;
    }
    paddr_t base = pte_frame(*n->pte, n->level);
    struct pt_ref ref = { n->pte, slot_of(n->pte), n->level, n->va };
    pte_t *table = pt_split_leaf(&ref);
    if (!table) {
        while (fresh) {
            struct mapnode *next = fresh->next;
            slab_free(&node_cache, fresh);
            fresh = next;
        }
        return false;
    }
    *ref.node = NULL;
    for (unsigned i = 0; i < 512; i++) {
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

/* Make [va, va + size) of s consist of whole leaves where a larger leaf covers it. */
static void split_covering(struct space *s, word_t va, word_t size)
{
    struct pt_ref ref;
    while (pt_find_leaf(s, va, &ref) && level_size(ref.level) > size && *ref.node) {
        if (!split_node(*ref.node))
            return;     /* out of memory: the caller then affects the whole large leaf */
    }
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
    if (size < level_size(PT_MAX_LEAF_LEVEL + 1))
        split_covering(s, va, size);
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
};

static bool dst_page_allowed(struct space *dst, word_t va, word_t size)
{
    return l4_is_user_range(va, size) && !space_in_kip_area(dst, va, size) &&
           !space_in_utcb_area(dst, va, size);
}

/* Install one mapping of `lvl` at dva for the frames at pa of source node n. */
static enum map_result map_one(struct map_ctx *c, struct mapnode *n, paddr_t pa, word_t dva,
                               unsigned lvl, unsigned rights)
{
    word_t size = level_size(lvl);
    if (!dst_page_allowed(c->dst, dva, size))
        return MAP_OK;
    struct pt_ref ref;
    for (;;) {
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
        break;
    }
    pte_t e = *ref.pte;
    if ((e & PTE_P) && lvl > 0 && !(e & PTE_PS)) {
        /* Smaller mappings below the target: map in pieces of the next level instead. */
        for (unsigned i = 0; i < 512; i++) {
            enum map_result r = map_one(c, n, pa + i * level_size(lvl - 1),
                                        dva + i * level_size(lvl - 1), lvl - 1, rights);
            if (r != MAP_OK)
                return r;
        }
        return MAP_OK;
    }
    if (e & PTE_P) {
        struct mapnode *m = *ref.node;
        if (!m || is_ancestor_or_self(m, n))
            return MAP_OK;
        if (!c->grant && pte_frame(e, lvl) == pa && m->level == lvl) {
            /* Same page again: extend the rights (union). */
            *ref.pte = pte_with_rights(e, pte_rights(e) | rights);
            space_tlb_invalidate(c->dst, dva, size);
            return MAP_OK;
        }
        remove_subtree(m);
    }
    if (c->grant) {
        /* Move the node: the sender loses the mapping, derived mappings stay attached. */
        unsigned old = pte_rights(*n->pte);
        *ref.pte = pte_clear_status(pte_with_rights(*n->pte, rights)) | (*n->pte & (PTE_A | PTE_D));
        *ref.node = n;
        *slot_of(n->pte) = NULL;
        *n->pte = 0;
        space_tlb_invalidate(n->space, n->va, size);
        n->space = c->dst;
        n->va = dva;
        n->pte = ref.pte;
        if (old & ~rights)
            revoke_tree(n, old & ~rights, false);
        return MAP_OK;
    }
    struct mapnode *m = slab_alloc(&node_cache);
    if (!m)
        return MAP_NOMEM;
    m->space = c->dst;
    m->va = dva;
    m->pte = ref.pte;
    m->level = lvl;
    *ref.pte = pte_make_leaf(pa, rights, lvl, pte_cache_attr(*n->pte, n->level));
    *ref.node = m;
    link_child(n, m);
    space_tlb_invalidate(c->dst, dva, size);
    return MAP_OK;
}

static void map_leaf(struct pt_ref *ref, void *vctx)
{
    struct map_ctx *c = vctx;
    struct mapnode *n = *ref->node;
    if (!n || c->result != MAP_OK)
        return;
    word_t lsize = level_size(ref->level);
    word_t a = MAX(ref->va, c->sva), b = MIN(ref->va + lsize, c->sva + c->size);
    if (space_in_kip_area(c->src, a, b - a) || space_in_utcb_area(c->src, a, b - a))
        return;
    unsigned rights = c->rights & pte_rights(*ref->pte);
    if (!(rights & R))
        return;
    paddr_t frame = pte_frame(*ref->pte, ref->level);
    for (word_t pos = a; pos < b; ) {
        word_t dva = c->dva + (pos - c->sva);
        unsigned lvl = ref->level;
        while (lvl > 0 && (level_size(lvl) > b - pos || (dva & (level_size(lvl) - 1)) ||
                           (pos & (level_size(lvl) - 1)) || !level_supported(lvl)))
            lvl--;
        if (c->grant && lvl != ref->level)
            lvl = ref->level;   /* grant moves whole leaves (split_covering made them fit) */
        enum map_result r = map_one(c, n, frame + (pos - ref->va), dva, lvl, rights);
        if (r != MAP_OK) {
            c->result = r;
            return;
        }
        if (c->grant)
            return;             /* n has moved */
        pos += level_size(lvl);
    }
}

/* sigma0 owns all memory: before it maps a range, its identity mappings (the roots of the
 * mapping trees) are created for every frame of the range the kernel does not reserve. */
static bool sigma0_ensure(struct space *s, word_t va, word_t size);

enum map_result mapdb_map(struct space *src, word_t sva, struct space *dst, word_t dva,
                          word_t size, unsigned rights, bool grant)
{
    struct map_ctx c = { src, dst, sva, dva, size, rights & 7, grant, MAP_OK };
    if (src == dst && sva < dva + size && dva < sva + size)
        return MAP_OK;          /* overlapping map onto itself: nothing sensible to do */
    if (src->sigma0 && !sigma0_ensure(src, sva, size))
        return MAP_NOMEM;
    if (grant)
        split_covering(src, sva, size);
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
    if (st == PT_LEAF_ABOVE || (*ref.pte & PTE_P))
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
    bool pd_free = st == PT_ABSENT || (st == PT_OK && !(*ref.pte & PTE_P));
    if (pd_free && !phys_kernel_reserved(big, SUPERPAGE_SIZE) &&
        arch_phys_addressable(big + SUPERPAGE_SIZE - 1))
        return sigma0_root(s, big, 1);
    return sigma0_root(s, pa & ~(PAGE_SIZE - 1), 0);
}

static bool sigma0_ensure(struct space *s, word_t va, word_t size)
{
    for (word_t pa = va; pa < va + size; ) {
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
